//! [`SafetensorsWriter`]: named tensors of any supported dtype into a
//! safetensors file (Hugging Face's format: a JSON header of names, dtypes,
//! shapes and byte offsets, then each tensor's little-endian values).

use super::read::SafetensorsElement;
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::traverse::alloc::try_buffer;
use safetensors::Dtype;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

/// One tensor to write: its bytes, borrowed when the view is contiguous.
struct Entry<'a> {
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: Cow<'a, [u8]>,
}

impl safetensors::View for &Entry<'_> {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

/// Collects named tensors and writes them as one safetensors file.
///
/// Tensors may have any layout: a contiguous view (an owner, a weight of a
/// loaded file) is written from its own bytes with no copy; another layout
/// is copied once, in logical row-major order, into a buffer reserved
/// fallibly. Names are unique; the file's header lists them sorted, as the
/// `safetensors` library writes them (readable by `safetensors.torch`,
/// transformers' `from_pretrained`, candle and this crate's
/// [`Weights`](super::Weights)).
///
/// ```
/// use llm_from_scratch::prelude::*;
/// use llm_from_scratch::tensor::{bf16, weights::{SafetensorsWriter, Weights}};
/// let w = Tensor::from_vec([2, 3], vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let ids = Tensor::from_vec([2], vec![7_i64, 9])?;
/// let halves: Tensor<2, bf16> = w.cast()?;
/// let mut writer = SafetensorsWriter::new();
/// writer.add("w.T", w.view().transpose(0, 1)?)?; // copied in logical order
/// writer.add("ids", ids.view())?.add("w.bf16", halves.view())?;
/// let bytes = writer.to_bytes()?;
/// let weights = Weights::parse(&bytes)?;
/// assert_eq!(weights.names(), vec!["ids", "w.T", "w.bf16"]);
/// assert_eq!(weights.get_as::<2, f32>("w.T")?.as_slice(), &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
/// assert_eq!(weights.dtype("w.bf16").as_deref(), Some("BF16"));
/// assert!(writer.add("ids", ids.view()).is_err()); // names are unique
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Default)]
pub struct SafetensorsWriter<'a> {
    entries: Vec<(String, Entry<'a>)>,
    metadata: HashMap<String, String>,
}

impl std::fmt::Debug for SafetensorsWriter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.entries.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("SafetensorsWriter")
            .field("tensors", &names)
            .field("metadata", &self.metadata)
            .finish()
    }
}

impl<'a> SafetensorsWriter<'a> {
    /// An empty writer.
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::{SafetensorsWriter, Weights};
    /// let bytes = SafetensorsWriter::new().to_bytes()?;
    /// assert!(Weights::parse(&bytes)?.names().is_empty());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the tensor `name`: the values of `view` (of an owner, a file, a
    /// mutable view: `x.view()`) in logical row-major order, with its shape.
    /// Borrows a contiguous view's bytes (no copy); copies any other layout once.
    ///
    /// # Errors
    /// [`Error::DuplicateTensor`] for a name already added;
    /// [`Error::AllocationFailed`] if a copy cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// use llm_from_scratch::tensor::weights::SafetensorsWriter;
    /// let x = Tensor::<2, f64>::zeros([2, 2])?;
    /// let mut writer = SafetensorsWriter::new();
    /// writer.add("x", x.view())?;
    /// assert!(matches!(writer.add("x", x.view()), Err(Error::DuplicateTensor { .. })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn add<D: Dimension, T: SafetensorsElement>(
        &mut self,
        name: &str,
        view: ArrayBase<&'a [T], D>,
    ) -> Result<&mut Self, Error> {
        let op = "SafetensorsWriter::add";
        if self.entries.iter().any(|(existing, _)| existing == name) {
            return Err(Error::DuplicateTensor {
                op,
                name: name.to_string(),
            });
        }
        let bytes = match view.as_contiguous_slice() {
            Some(values) if cfg!(target_endian = "little") => {
                Cow::Borrowed(bytemuck::cast_slice::<T, u8>(values))
            }
            _ => {
                let width = size_of::<T>();
                let total = view.len().saturating_mul(width);
                let mut bytes =
                    try_buffer::<u8>(total).map_err(|failed| Error::AllocationFailed {
                        op,
                        elements: failed.elements,
                    })?;
                for value in view.iter() {
                    let start = bytes.len();
                    bytes.extend_from_slice(bytemuck::bytes_of(value));
                    if cfg!(target_endian = "big") {
                        bytes[start..].reverse();
                    }
                }
                Cow::Owned(bytes)
            }
        };
        let entry = Entry {
            dtype: T::DTYPE,
            shape: view.shape().as_ref().to_vec(),
            bytes,
        };
        self.entries.push((name.to_string(), entry));
        Ok(self)
    }

    /// Adds a `key: value` pair to the header's `__metadata__` (Hugging
    /// Face writes `"format": "pt"` there).
    ///
    /// ```
    /// use llm_from_scratch::tensor::weights::SafetensorsWriter;
    /// let mut writer = SafetensorsWriter::new();
    /// writer.metadata("format", "pt");
    /// let bytes = writer.to_bytes()?;
    /// let (_, header) = safetensors::SafeTensors::read_metadata(&bytes).unwrap();
    /// assert_eq!(header.metadata().as_ref().unwrap()["format"], "pt");
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn metadata(&mut self, key: &str, value: &str) -> &mut Self {
        self.metadata.insert(key.to_string(), value.to_string());
        self
    }

    fn info(&self) -> Option<HashMap<String, String>> {
        (!self.metadata.is_empty()).then(|| self.metadata.clone())
    }

    /// The whole file as bytes.
    ///
    /// # Errors
    /// [`Error::InvalidFile`] if the safetensors library refuses the header
    /// (too large).
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// use llm_from_scratch::tensor::weights::{SafetensorsWriter, Weights};
    /// let x = Tensor::from_vec([3], vec![1.0_f32, 2.0, 3.0])?;
    /// let bytes = SafetensorsWriter::new().add("x", x.view())?.to_bytes()?;
    /// assert_eq!(Weights::parse(&bytes)?.get::<1, f32>("x")?.view().as_contiguous_slice(), Some(&[1.0, 2.0, 3.0][..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        let entries = self
            .entries
            .iter()
            .map(|(name, entry)| (name.as_str(), entry));
        safetensors::serialize(entries, self.info()).map_err(|error| Error::InvalidFile {
            format: "safetensors",
            message: error.to_string(),
        })
    }

    /// Writes the file at `path`, streaming the tensors (no copy of the
    /// whole file in memory); the file appears whole or not at all (the
    /// safetensors library writes a sibling temporary file and renames it).
    ///
    /// # Errors
    /// [`Error::Io`] naming the path; [`Error::InvalidFile`] for a header
    /// the library refuses.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// use llm_from_scratch::tensor::weights::{AlignedBytes, SafetensorsWriter, Weights};
    /// let path = std::env::temp_dir().join(format!("writer-doc-{}.safetensors", std::process::id()));
    /// let x = Tensor::from_vec([2], vec![0.5_f64, -1.0])?;
    /// SafetensorsWriter::new().add("x", x.view())?.write(&path)?;
    /// let file = AlignedBytes::read(&path)?;
    /// std::fs::remove_file(&path)?;
    /// assert_eq!(Weights::parse(file.as_bytes())?.get_as::<1, f64>("x")?, x);
    /// assert!(matches!(
    ///     SafetensorsWriter::new().write("/no/such/dir/x.safetensors"),
    ///     Err(Error::Io { .. })
    /// ));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        let path = path.as_ref();
        let entries = self
            .entries
            .iter()
            .map(|(name, entry)| (name.as_str(), entry));
        safetensors::serialize_to_file(entries, self.info(), path).map_err(|error| match error {
            safetensors::SafeTensorError::IoError(io) => Error::Io {
                op: "SafetensorsWriter::write",
                path: path.display().to_string(),
                kind: io.kind(),
                message: io.to_string(),
            },
            other => Error::InvalidFile {
                format: "safetensors",
                message: other.to_string(),
            },
        })
    }
}
