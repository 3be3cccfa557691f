//! Reading tensors out of a safetensors buffer: zero-copy ranked views
//! when the bytes are aligned, converting copies into any float type.

use crate::error::Error;
use crate::tensor::array::base::{Tensor, View};
use crate::tensor::element::Element;
use crate::tensor::shape::layout::checked_len;
use crate::tensor::traverse::alloc::try_buffer;
use safetensors::{Dtype, SafeTensors};

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
impl SafetensorsElement for half::f16 {
    const DTYPE: Dtype = Dtype::F16;
}
impl SafetensorsElement for half::bf16 {
    const DTYPE: Dtype = Dtype::BF16;
}
impl SafetensorsElement for u8 {
    const DTYPE: Dtype = Dtype::U8;
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
///
/// Deprecated: [`Weights::get`] now returns the [`View`] itself (its
/// `view()` borrows the file, not a temporary), and [`Weights::get_as`]
/// copies what cannot be borrowed; [`Weights::get_weight`] keeps this
/// earlier form working.
#[deprecated(
    since = "0.3.0",
    note = "`Weights::get` returns the view itself; `Weights::get_as` copies"
)]
#[derive(Debug, Clone)]
pub enum Weight<'a, const R: usize, T> {
    /// A zero-copy view of the buffer's bytes.
    Borrowed(View<'a, R, T>),
    /// The bytes were not aligned for `T` (or the host is big-endian): one copy.
    Copied(Tensor<R, T>),
}

#[allow(deprecated)]
impl<const R: usize, T> Weight<'_, R, T> {
    /// The tensor as a view, whichever way it is stored (borrowing `self`).
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
    /// # let values: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 3], &values)?)], None)?;
    /// let buffer = AlignedBytes::from_bytes(&bytes);
    /// let w = Weights::parse(buffer.as_bytes())?.get_weight::<2, f32>("w")?;
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
    /// # #![allow(deprecated)]
    /// use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
    /// # let values: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 3], &values)?)], None)?;
    /// let buffer = AlignedBytes::from_bytes(&bytes); // 8-byte aligned: f32 values borrow
    /// assert!(Weights::parse(buffer.as_bytes())?.get_weight::<2, f32>("w")?.is_borrowed());
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

    /// The tensor `name` as a rank-`R` view of `T` values that borrows the
    /// buffer (no copy): the file's bytes reinterpreted in place, so the view
    /// lives as long as the buffer, not as long as `self`.
    ///
    /// Shapes: the file's shape, which must have `R` axes.
    ///
    /// # Errors
    /// [`Error::MissingTensor`]; then, as [`Error::InTensor`] naming the
    /// tensor: [`Error::WrongDtype`] when the file stores another dtype
    /// (convert with [`Weights::get_as`]), [`Error::RankMismatch`],
    /// [`Error::ShapeOverflow`], [`Error::ByteLengthMismatch`], and
    /// [`Error::NotBorrowable`] when the values do not sit at a multiple of
    /// `T`'s alignment (a buffer not read through
    /// [`AlignedBytes`](super::AlignedBytes)) or the host is big-endian.
    ///
    /// ```
    /// use llm_from_scratch::{tensor::{weights::{AlignedBytes, Weights}, View}, Error};
    /// # let values: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 3], &values)?)], None)?;
    /// let buffer = AlignedBytes::from_bytes(&bytes);
    /// let w: View<'_, 2, f32> = Weights::parse(buffer.as_bytes())?.get::<2, f32>("w")?.view();
    /// assert_eq!(w.get([0, 1])?, &2.0); // `w` borrows `buffer`, the parsed header is gone
    ///
    /// let weights = Weights::parse(buffer.as_bytes())?;
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
    ) -> Result<View<'a, R, T>, Error> {
        let op = "Weights::get";
        let (dtype, shape, bytes) = self.entry::<R>(name, op)?;
        let read = || {
            check_dtype::<T>(op, dtype)?;
            check_bytes(op, &shape, size_of::<T>(), bytes)?;
            if cfg!(target_endian = "big") {
                return Err(not_borrowable::<T>(
                    op,
                    "the host is big-endian".to_string(),
                ));
            }
            let values = bytemuck::try_cast_slice::<u8, T>(bytes).map_err(|_| {
                let reason = format!(
                    "they start at address {:#x}, not a multiple of {}",
                    bytes.as_ptr() as usize,
                    align_of::<T>()
                );
                not_borrowable::<T>(op, reason)
            })?;
            View::from_slice(values, shape)
        };
        read().map_err(|error| error.in_tensor(name))
    }

    /// The earlier form of [`Weights::get`]: a view when the bytes are
    /// aligned, else one copy ([`Weight::Copied`]).
    ///
    /// # Errors
    /// As [`Weights::get`], without [`Error::NotBorrowable`] (that case
    /// copies), plus [`Error::AllocationFailed`] for the copy.
    ///
    /// ```
    /// # #![allow(deprecated)]
    /// use llm_from_scratch::tensor::weights::{AlignedBytes, Weight, Weights};
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![1], &[0, 0, 128, 63])?)], None)?;
    /// let buffer = AlignedBytes::from_bytes(&bytes);
    /// let w = Weights::parse(buffer.as_bytes())?.get_weight::<1, f32>("w")?;
    /// assert!(matches!(w, Weight::Borrowed(_)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[deprecated(
        since = "0.3.0",
        note = "`Weights::get` returns the view; `Weights::get_as` copies"
    )]
    #[allow(deprecated)]
    pub fn get_weight<const R: usize, T: SafetensorsElement>(
        &self,
        name: &str,
    ) -> Result<Weight<'a, R, T>, Error> {
        match self.get::<R, T>(name) {
            Ok(view) => Ok(Weight::Borrowed(view)),
            Err(Error::InTensor { source, .. })
                if matches!(*source, Error::NotBorrowable { .. }) =>
            {
                let op = "Weights::get";
                let (_, shape, bytes) = self.entry::<R>(name, op)?;
                copy_values(bytes, shape)
                    .map(Weight::Copied)
                    .map_err(|error| error.in_tensor(name))
            }
            Err(error) => Err(error),
        }
    }

    /// The tensor `name` as a new owner of the float type `T`, whatever
    /// float type the file stores (`F16`, `BF16`, `F32`, `F64`): each value
    /// converted once, correctly rounded (exact when widening; the values
    /// copied as they are when the types match). To compute in `f32` from a
    /// `bf16` checkpoint, or in `f64` from an `f32` one; it also reads
    /// values [`Weights::get`] cannot borrow (misaligned, big-endian host).
    ///
    /// Shapes: the file's shape, which must have `R` axes.
    ///
    /// # Errors
    /// [`Error::MissingTensor`]; then, as [`Error::InTensor`] naming the
    /// tensor: [`Error::WrongDtype`] for a non-float dtype,
    /// [`Error::RankMismatch`], [`Error::ShapeOverflow`],
    /// [`Error::ByteLengthMismatch`], [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::{bf16, weights::{AlignedBytes, Weights}};
    /// let halves: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|&v| bf16::from_f32(v).to_le_bytes()).collect();
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::BF16, vec![1, 2], &halves)?)], None)?;
    /// let buffer = AlignedBytes::from_bytes(&bytes);
    /// let weights = Weights::parse(buffer.as_bytes())?;
    /// let w = weights.get_as::<2, f32>("w")?; // a BF16 tensor, computed in f32
    /// assert_eq!(w.as_slice(), &[1.5, -2.0]);
    /// assert_eq!(weights.get_as::<2, f64>("w")?.as_slice(), &[1.5, -2.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_as<const R: usize, T: Element>(&self, name: &str) -> Result<Tensor<R, T>, Error> {
        let op = "Weights::get_as";
        let (dtype, shape, bytes) = self.entry::<R>(name, op)?;
        let read = || {
            let (width, decode): (usize, fn(&[u8]) -> f64) = match dtype {
                Dtype::F16 => (2, |b| {
                    f64::from(half::f16::from_le_bytes([b[0], b[1]]).to_f32())
                }),
                Dtype::BF16 => (2, |b| {
                    f64::from(half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
                }),
                Dtype::F32 => (4, |b| {
                    f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                }),
                Dtype::F64 => (8, |b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8]))),
                other => {
                    return Err(Error::WrongDtype {
                        op,
                        expected: "a float dtype (F16, BF16, F32, F64)".to_string(),
                        actual: format!("{other:?}"),
                    });
                }
            };
            let elements = check_bytes(op, &shape, width, bytes)?;
            let mut values: Vec<T> =
                try_buffer(elements).map_err(|failed| Error::AllocationFailed {
                    op,
                    elements: failed.elements,
                })?;
            values.extend(bytes.chunks_exact(width).map(|b| T::from_f64(decode(b))));
            Tensor::from_vec(shape, values)
        };
        read().map_err(|error| error.in_tensor(name))
    }

    /// The stored dtype of the tensor `name` (`"F16"`, `"BF16"`, `"F32"`, ...),
    /// or `None` when there is no such tensor.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::Weights;
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F16, vec![2], &[0u8; 4])?)], None)?;
    /// let weights = Weights::parse(&bytes)?;
    /// assert_eq!(weights.dtype("w").as_deref(), Some("F16"));
    /// assert_eq!(weights.dtype("b"), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dtype(&self, name: &str) -> Option<String> {
        let tensor = self.tensors.tensor(name).ok()?;
        Some(format!("{:?}", tensor.dtype()))
    }

    /// The stored shape of the tensor `name`, or `None` when there is no such tensor.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::Weights;
    /// # let bytes = safetensors::serialize(
    /// #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 1], &[0u8; 8])?)], None)?;
    /// assert_eq!(Weights::parse(&bytes)?.shape("w"), Some(vec![2, 1]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shape(&self, name: &str) -> Option<Vec<usize>> {
        Some(self.tensors.tensor(name).ok()?.shape().to_vec())
    }

    /// The stored dtype, the rank-`R` shape and the bytes of the tensor `name`.
    fn entry<const R: usize>(
        &self,
        name: &str,
        op: &'static str,
    ) -> Result<(Dtype, [usize; R], &'a [u8]), Error> {
        let tensor = self
            .tensors
            .tensor(name)
            .map_err(|_| Error::MissingTensor {
                name: name.to_string(),
            })?;
        let shape: [usize; R] = tensor.shape().try_into().map_err(|_| {
            Error::RankMismatch {
                op,
                expected: R,
                actual: tensor.shape().len(),
            }
            .in_tensor(name)
        })?;
        Ok((tensor.dtype(), shape, tensor.data()))
    }
}

/// [`Error::WrongDtype`] unless the file stores `T`'s dtype.
fn check_dtype<T: SafetensorsElement>(op: &'static str, stored: Dtype) -> Result<(), Error> {
    if stored == T::DTYPE {
        return Ok(());
    }
    Err(Error::WrongDtype {
        op,
        expected: format!("{:?}", T::DTYPE),
        actual: format!("{stored:?}"),
    })
}

/// The element count of `shape`, checked against the byte length of values
/// `width` bytes wide ([`Error::ShapeOverflow`], [`Error::ByteLengthMismatch`]).
fn check_bytes(
    op: &'static str,
    shape: &[usize],
    width: usize,
    bytes: &[u8],
) -> Result<usize, Error> {
    let elements = checked_len(shape, op)?;
    let expected_bytes = elements.checked_mul(width);
    if expected_bytes != Some(bytes.len()) {
        return Err(Error::ByteLengthMismatch {
            op,
            expected_bytes: expected_bytes.unwrap_or(usize::MAX),
            actual_bytes: bytes.len(),
        });
    }
    Ok(elements)
}

/// [`Error::NotBorrowable`] for `T`.
fn not_borrowable<T: SafetensorsElement>(op: &'static str, reason: String) -> Error {
    Error::NotBorrowable {
        op,
        dtype: format!("{:?}", T::DTYPE),
        reason,
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
