//! Ranked views straight over the tensors of a safetensors buffer
//! (feature `safetensors`).
//!
//! A weights file is one byte buffer: a JSON header, then every tensor's
//! little-endian values. [`Weights::get`] returns a [`View`] that borrows
//! those bytes as `&[f32]` (no copy) whenever they are aligned for the
//! element type; otherwise it copies once into an owned [`Tensor`] and says
//! so ([`Weight::Copied`]). [`AlignedBytes`] reads a file into an 8-byte
//! aligned buffer, so every f32/f64 tensor of a well-formed file borrows.
//!
//! ```
//! use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
//! # let bytes = safetensors::serialize(
//! #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 3],
//! #         &[0u8; 24]).unwrap())], None).unwrap();
//! let buffer = AlignedBytes::from_bytes(&bytes);     // or AlignedBytes::read(path)?
//! let weights = Weights::parse(buffer.as_bytes())?;
//! let w = weights.get::<2, f32>("w")?;               // rank 2 checked against the header
//! assert!(w.is_borrowed());
//! assert_eq!(w.view().shape(), &[2, 3]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::array::base::{Tensor, View};
use super::shape::layout::checked_len;
use super::traverse::alloc::try_buffer;
use crate::error::Error;
use safetensors::{Dtype, SafeTensors};
use std::path::Path;

/// The earlier name of the errors of this module: they are variants of the
/// crate's [`Error`] now ([`Error::InvalidFile`], [`Error::MissingTensor`],
/// and [`Error::InTensor`] wrapping a tensor's [`Error::WrongDtype`],
/// [`Error::RankMismatch`], [`Error::ByteLengthMismatch`] or
/// [`Error::AllocationFailed`]).
#[deprecated(since = "0.3.0", note = "use `llm_from_scratch::Error`")]
pub type WeightsError = Error;

/// Element types a safetensors tensor can be viewed as.
pub trait SafetensorsElement: bytemuck::Pod {
    /// The matching safetensors dtype.
    const DTYPE: Dtype;
}

impl SafetensorsElement for f32 {
    const DTYPE: Dtype = Dtype::F32;
}
impl SafetensorsElement for f64 {
    const DTYPE: Dtype = Dtype::F64;
}
impl SafetensorsElement for i64 {
    const DTYPE: Dtype = Dtype::I64;
}
impl SafetensorsElement for i32 {
    const DTYPE: Dtype = Dtype::I32;
}

/// A tensor read from a weights buffer: borrowed when aligned, else copied once.
#[derive(Debug, Clone)]
pub enum Weight<'a, const R: usize, T> {
    /// A zero-copy view of the buffer's bytes.
    Borrowed(View<'a, R, T>),
    /// The bytes were not aligned for `T` (or the host is big-endian): one copy.
    Copied(Tensor<R, T>),
}

impl<const R: usize, T> Weight<'_, R, T> {
    /// The tensor as a view, whichever way it is stored.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
    /// # let values: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 3], &values)?)], None)?;
    /// let buffer = AlignedBytes::from_bytes(&bytes);
    /// let w = Weights::parse(buffer.as_bytes())?.get::<2, f32>("w")?;
    /// assert_eq!(w.view().get([1, 2])?, &6.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view(&self) -> View<'_, R, T> {
        match self {
            Weight::Borrowed(view) => *view,
            Weight::Copied(tensor) => tensor.view(),
        }
    }

    /// Whether no value was copied.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
    /// # let values: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 3], &values)?)], None)?;
    /// let buffer = AlignedBytes::from_bytes(&bytes); // 8-byte aligned: f32 values borrow
    /// assert!(Weights::parse(buffer.as_bytes())?.get::<2, f32>("w")?.is_borrowed());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn is_borrowed(&self) -> bool {
        matches!(self, Weight::Borrowed(_))
    }
}

/// A parsed safetensors buffer.
pub struct Weights<'a> {
    tensors: SafeTensors<'a>,
}

impl std::fmt::Debug for Weights<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Weights")
            .field("tensors", &self.names())
            .finish()
    }
}

impl<'a> Weights<'a> {
    /// Parses the header of a safetensors buffer (values are not read).
    ///
    /// # Errors
    /// [`Error::InvalidFile`] for a truncated or corrupt buffer (the
    /// safetensors crate validates the header, offsets and lengths).
    ///
    /// ```
    /// use llm_from_scratch::{tensor::weights::{AlignedBytes, Weights}, Error};
    /// # let values: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 3], &values)?)], None)?;
    /// let buffer = AlignedBytes::from_bytes(&bytes);
    /// assert_eq!(Weights::parse(buffer.as_bytes())?.names(), vec!["w"]);
    /// let truncated = &buffer.as_bytes()[..4]; // shorter than the 8-byte header length
    /// assert!(matches!(Weights::parse(truncated), Err(Error::InvalidFile { format: "safetensors", .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(bytes: &'a [u8]) -> Result<Self, Error> {
        let tensors = SafeTensors::deserialize(bytes).map_err(|error| Error::InvalidFile {
            format: "safetensors",
            message: error.to_string(),
        })?;
        Ok(Self { tensors })
    }

    /// The tensor names in the file, sorted.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
    /// let (a, b) = ([0u8; 8], [0u8; 4]);
    /// let bytes = safetensors::serialize(
    ///     [
    ///         ("wte", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2], &a)?),
    ///         ("b", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![1], &b)?),
    ///     ],
    ///     None,
    /// )?;
    /// let buffer = AlignedBytes::from_bytes(&bytes);
    /// assert_eq!(Weights::parse(buffer.as_bytes())?.names(), vec!["b", "wte"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn names(&self) -> Vec<&str> {
        let mut names = self.tensors.names();
        names.sort_unstable();
        names
    }

    /// The tensor `name` as a rank-`R` view of `T` values.
    ///
    /// Shapes: the file's shape, which must have `R` axes.
    ///
    /// # Errors
    /// [`Error::MissingTensor`]; then, as [`Error::InTensor`] naming the
    /// tensor: [`Error::WrongDtype`], [`Error::RankMismatch`],
    /// [`Error::ByteLengthMismatch`], or a failed copy allocation
    /// ([`Error::AllocationFailed`]).
    ///
    /// ```
    /// use llm_from_scratch::{tensor::weights::{AlignedBytes, Weights}, Error};
    /// # let values: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 3], &values)?)], None)?;
    /// let buffer = AlignedBytes::from_bytes(&bytes);
    /// let weights = Weights::parse(buffer.as_bytes())?;
    /// assert_eq!(weights.get::<2, f32>("w")?.view().get([0, 1])?, &2.0);
    /// assert!(matches!(weights.get::<2, f32>("bias"), Err(Error::MissingTensor { .. })));
    /// let wrong = weights.get::<2, f64>("w").unwrap_err();
    /// assert_eq!(wrong.to_string(), "tensor `w`: Weights::get: the tensor holds F32, but F64 was requested");
    /// let Err(Error::InTensor { source, .. }) = weights.get::<1, f32>("w") else { panic!() };
    /// assert_eq!(*source, Error::RankMismatch { op: "Weights::get", expected: 1, actual: 2 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get<const R: usize, T: SafetensorsElement>(
        &self,
        name: &str,
    ) -> Result<Weight<'a, R, T>, Error> {
        let tensor = self
            .tensors
            .tensor(name)
            .map_err(|_| Error::MissingTensor {
                name: name.to_string(),
            })?;
        let read = || {
            let op = "Weights::get";
            if tensor.dtype() != T::DTYPE {
                return Err(Error::WrongDtype {
                    op,
                    expected: format!("{:?}", T::DTYPE),
                    actual: format!("{:?}", tensor.dtype()),
                });
            }
            let shape: [usize; R] =
                tensor
                    .shape()
                    .try_into()
                    .map_err(|_| Error::RankMismatch {
                        op,
                        expected: R,
                        actual: tensor.shape().len(),
                    })?;
            let bytes = tensor.data();
            let elements = checked_len(&shape, op)?;
            let expected_bytes = elements.checked_mul(size_of::<T>());
            if expected_bytes != Some(bytes.len()) {
                return Err(Error::ByteLengthMismatch {
                    op,
                    expected_bytes: expected_bytes.unwrap_or(usize::MAX),
                    actual_bytes: bytes.len(),
                });
            }
            if cfg!(target_endian = "little")
                && let Ok(values) = bytemuck::try_cast_slice::<u8, T>(bytes)
            {
                return Ok(Weight::Borrowed(View::from_slice(values, shape)?));
            }
            Ok(Weight::Copied(copy_values(bytes, shape)?))
        };
        read().map_err(|error| error.in_tensor(name))
    }
}

/// The copy path: decode little-endian values one by one into a new owner.
fn copy_values<const R: usize, T: SafetensorsElement>(
    bytes: &[u8],
    shape: [usize; R],
) -> Result<Tensor<R, T>, Error> {
    let width = size_of::<T>();
    let count = bytes.len() / width;
    let mut values: Vec<T> = try_buffer(count).map_err(|failed| Error::AllocationFailed {
        op: "Weights::get",
        elements: failed.elements,
    })?;
    for chunk in bytes.chunks_exact(width) {
        let mut value = T::zeroed();
        let value_bytes = bytemuck::bytes_of_mut(&mut value);
        value_bytes.copy_from_slice(chunk);
        if cfg!(target_endian = "big") {
            value_bytes.reverse();
        }
        values.push(value);
    }
    Tensor::from_vec(shape, values)
}

/// A byte buffer whose start is 8-byte aligned, so f32/f64 tensors of a
/// safetensors file (whose data offsets are multiples of 8) borrow directly.
#[derive(Debug, Clone, Default)]
pub struct AlignedBytes {
    words: Vec<u64>,
    len: usize,
}

impl AlignedBytes {
    /// Copies `bytes` into an aligned buffer.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::AlignedBytes;
    /// let buffer = AlignedBytes::from_bytes(&[1, 2, 3]);
    /// assert_eq!(buffer.as_bytes(), &[1, 2, 3]);
    /// assert_eq!(buffer.as_bytes().as_ptr() as usize % 8, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut words = vec![0_u64; bytes.len().div_ceil(8)];
        bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(bytes);
        Self {
            words,
            len: bytes.len(),
        }
    }

    /// Reads a whole file into an aligned buffer.
    ///
    /// # Errors
    /// Any I/O error of reading the file.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::AlignedBytes;
    /// let path = std::env::temp_dir().join(format!("aligned-bytes-doc-{}.bin", std::process::id()));
    /// std::fs::write(&path, [7u8, 8, 9])?;
    /// let buffer = AlignedBytes::read(&path);
    /// std::fs::remove_file(&path)?;
    /// assert_eq!(buffer?.as_bytes(), &[7, 8, 9]);
    /// assert!(AlignedBytes::read(&path).is_err()); // the file is gone
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read(path: impl AsRef<Path>) -> std::io::Result<Self> {
        Ok(Self::from_bytes(&std::fs::read(path)?))
    }

    /// The bytes.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::AlignedBytes;
    /// assert_eq!(AlignedBytes::from_bytes(b"abc").as_bytes(), b"abc");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(&self.words)[..self.len]
    }
}
