//! [`Gguf`]: a parsed GGUF file (header, metadata, tensor infos) and its
//! tensors as borrowed views (the typed metadata getters are in `metadata.rs`).

use super::cursor::Cursor;
use super::tensor_info::GgufTensorInfo;
use super::value::{GgufValue, GgufValueType};
use crate::error::Error;
use crate::tensor::array::base::View;
use crate::tensor::element::Element;
use crate::tensor::quant::{BlockFormat, QBlocks};
use crate::tensor::traverse::alloc::try_buffer;
use std::collections::HashMap;

/// The alignment of the data section when `general.alignment` is absent
/// (GGUF's `GGUF_DEFAULT_ALIGNMENT`).
pub const DEFAULT_ALIGNMENT: usize = 32;

/// Fewest bytes of one metadata entry: key length (8), one key byte...
/// at least the length, the value type (4) and a one-byte value.
const MIN_ENTRY_BYTES: usize = 8 + 4 + 1;
/// Fewest bytes of one tensor info: name length, n_dims, type, offset.
const MIN_INFO_BYTES: usize = 8 + 4 + 4 + 8;

/// A parsed GGUF file (versions 2 and 3; the layout is the same, version 3
/// only allows big-endian files, which this reader refuses by their version
/// bytes): the metadata, in file order, and the tensor infos, every value
/// borrowing the buffer. Tensors come out as ranked views without a copy:
/// [`view`](Gguf::view) for `F32` / `F16` / `BF16`, [`blocks`](Gguf::blocks)
/// for `Q8_0` / `Q4_0` / `Q4_1`, [`tensor`](Gguf::tensor) for whichever the
/// file holds.
///
/// Layout (the GGUF specification, ggml's `docs/gguf.md`): the magic
/// `GGUF`, a `u32` version, `u64` tensor and metadata counts, the metadata
/// entries (a string key, a `u32` value type, the value), the tensor infos
/// (a string name, a `u32` dimension count, `u64` dimensions
/// fastest-varying first, a `u32` ggml type, a `u64` offset), then the data
/// section at the next multiple of `general.alignment` (default 32), each
/// tensor at its offset from there. All numbers little-endian.
///
/// Every count, length and offset is treated as hostile: checked against
/// the bytes left before anything is allocated, with overflow-checked
/// arithmetic, so a truncated or corrupt file is an [`Error`], never a
/// panic or an allocation larger than the file.
///
/// Read the buffer with [`AlignedBytes`](crate::tensor::weights::AlignedBytes)
/// (or map it, feature `mmap`), so `f32` tensors can be borrowed in place.
///
/// ```
/// use llm_from_scratch::tensor::{gguf::Gguf, weights::AlignedBytes};
/// let buffer = AlignedBytes::read("tests/fixtures/smollm2/tokenizer.gguf")?;
/// let gguf = Gguf::parse(buffer.as_bytes())?;
/// assert_eq!(gguf.get_str("general.architecture")?, "llama");
/// assert_eq!(gguf.get_u32("llama.block_count")?, 30);
/// assert_eq!(gguf.get_f32("llama.rope.freq_base")?, 100000.0);
/// let tokens = gguf.get_array_str("tokenizer.ggml.tokens")?;
/// assert_eq!((tokens.len(), tokens[0]), (49152, "<|endoftext|>"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Gguf<'a> {
    version: u32,
    metadata: Vec<(&'a str, GgufValue<'a>)>,
    keys: HashMap<&'a str, usize>,
    tensors: Vec<GgufTensorInfo<'a>>,
    names: HashMap<&'a str, usize>,
    alignment: usize,
    data_offset: usize,
}

impl std::fmt::Debug for Gguf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gguf")
            .field("version", &self.version)
            .field("metadata", &self.metadata.len())
            .field("tensors", &self.tensors.len())
            .field("alignment", &self.alignment)
            .finish()
    }
}

/// [`Error::AllocationFailed`] of parsing.
fn no_room(elements: usize) -> Error {
    Error::AllocationFailed {
        op: "gguf",
        elements,
    }
}

impl<'a> Gguf<'a> {
    /// Parses the header, the metadata and the tensor infos of a GGUF
    /// buffer, and locates every tensor's bytes (values are not read).
    ///
    /// # Errors
    /// [`Error::GgufBadMagic`], [`Error::GgufUnsupportedVersion`] (1, or a
    /// big-endian file); [`Error::GgufTruncated`] when the buffer ends
    /// inside a field; [`Error::GgufCountTooLarge`] for a count or string
    /// length the rest of the buffer cannot hold;
    /// [`Error::GgufUnknownValueType`] (also for an array of arrays);
    /// [`Error::GgufInvalidUtf8`]; [`Error::GgufDuplicateName`];
    /// [`Error::MetadataTypeMismatch`] when `general.alignment` is not a
    /// `u32`, [`Error::GgufBadAlignment`] when it is not a power of two;
    /// and as [`Error::InTensor`] naming the tensor:
    /// [`Error::GgufTooManyDims`] (more than 4), [`Error::GgufUnknownTensorType`],
    /// [`Error::ShapeOverflow`], [`Error::PartialBlock`] (a row that is not
    /// whole blocks), [`Error::GgufMisalignedTensor`],
    /// [`Error::GgufTensorOutOfBounds`]; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::{tensor::gguf::Gguf, Error};
    /// let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// assert_eq!((gguf.version(), gguf.alignment(), gguf.tensor_infos().len()), (3, 32, 5));
    /// assert!(matches!(Gguf::parse(&bytes[..12]), Err(Error::GgufTruncated { .. })));
    /// assert!(matches!(Gguf::parse(b"GGML\x03\0\0\0"), Err(Error::GgufBadMagic { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn parse(bytes: &'a [u8]) -> Result<Self, Error> {
        let mut cursor = Cursor::new(bytes);
        let header = || "the header".to_string();
        let magic = cursor.array::<4>(&header)?;
        if &magic != b"GGUF" {
            return Err(Error::GgufBadMagic { found: magic });
        }
        let version = cursor.u32(&header)?;
        if !(2..=3).contains(&version) {
            return Err(Error::GgufUnsupportedVersion { version });
        }
        let tensor_count = cursor.count(MIN_INFO_BYTES, &|| "the tensor count".to_string())?;
        let entry_count = cursor.count(MIN_ENTRY_BYTES, &|| "the metadata count".to_string())?;

        let mut metadata = try_buffer(entry_count).map_err(|e| no_room(e.elements))?;
        let mut keys = HashMap::new();
        keys.try_reserve(entry_count)
            .map_err(|_| no_room(entry_count))?;
        for index in 0..entry_count {
            let key = cursor.string(&|| format!("the key of metadata entry {index}"))?;
            let what = || format!("metadata `{key}`");
            let id = cursor.u32(&what)?;
            let value_type =
                GgufValueType::from_id(id).ok_or_else(|| Error::GgufUnknownValueType {
                    what: what(),
                    value_type: id,
                })?;
            let value = GgufValue::read(&mut cursor, value_type, false, &what)?;
            if keys.insert(key, index).is_some() {
                return Err(Error::GgufDuplicateName {
                    what: "metadata key",
                    name: key.to_string(),
                });
            }
            metadata.push((key, value));
        }
        let alignment = match keys.get("general.alignment").map(|&i| metadata[i].1) {
            None => DEFAULT_ALIGNMENT,
            Some(GgufValue::U32(alignment)) if alignment.is_power_of_two() => alignment as usize,
            Some(GgufValue::U32(alignment)) => {
                return Err(Error::GgufBadAlignment {
                    alignment: alignment.into(),
                });
            }
            Some(other) => {
                return Err(Error::MetadataTypeMismatch {
                    op: "gguf",
                    key: "general.alignment".to_string(),
                    expected: "u32",
                    actual: other.type_name(),
                });
            }
        };

        let mut tensors = try_buffer(tensor_count).map_err(|e| no_room(e.elements))?;
        let mut names = HashMap::new();
        names
            .try_reserve(tensor_count)
            .map_err(|_| no_room(tensor_count))?;
        for index in 0..tensor_count {
            let info = GgufTensorInfo::read(&mut cursor, index)?;
            if names.insert(info.name(), index).is_some() {
                return Err(Error::GgufDuplicateName {
                    what: "tensor name",
                    name: info.name().to_string(),
                });
            }
            tensors.push(info);
        }
        // The data section starts at the next multiple of the alignment; a
        // file without tensors may end before it.
        let data_offset = cursor
            .offset()
            .checked_next_multiple_of(alignment)
            .unwrap_or(usize::MAX);
        let data = bytes.get(data_offset..).unwrap_or(&[]);
        for info in &mut tensors {
            info.locate(data, alignment)?;
        }
        Ok(Self {
            version,
            metadata,
            keys,
            tensors,
            names,
            alignment,
            data_offset,
        })
    }

    /// The file's GGUF version (2 or 3).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.version(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The data section's alignment: `general.alignment`, else 32.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.alignment(), 32);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn alignment(&self) -> usize {
        self.alignment
    }

    /// The byte offset of the data section in the file (a multiple of
    /// [`alignment`](Self::alignment); past the end for a file without tensors).
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert_eq!(Gguf::parse(&bytes)?.data_offset() % 32, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn data_offset(&self) -> usize {
        self.data_offset
    }

    /// Every metadata entry, in file order.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// assert!(gguf.metadata().iter().any(|(key, _)| *key == "tokenizer.chat_template"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn metadata(&self) -> &[(&'a str, GgufValue<'a>)] {
        &self.metadata
    }

    /// The metadata value of `key`, or `None`.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::{Gguf, GgufValue};
    /// # let bytes = std::fs::read("tests/fixtures/smollm2/tokenizer.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// assert_eq!(gguf.get("llama.embedding_length"), Some(GgufValue::U32(576)));
    /// assert_eq!(gguf.get("no.such.key"), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, key: &str) -> Option<GgufValue<'a>> {
        self.keys.get(key).map(|&index| self.metadata[index].1)
    }

    /// Every tensor info, in file order.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// let names: Vec<_> = Gguf::parse(&bytes)?.tensor_infos().iter().map(|t| t.name()).collect();
    /// assert_eq!(names, ["f32", "f16", "q8_0", "q4_0", "q4_1"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tensor_infos(&self) -> &[GgufTensorInfo<'a>] {
        &self.tensors
    }

    /// The info of the tensor `name`, or `None`.
    ///
    /// ```
    /// # use llm_from_scratch::tensor::gguf::Gguf;
    /// # let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// assert!(Gguf::parse(&bytes)?.tensor_info("q8_0").is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tensor_info(&self, name: &str) -> Option<&GgufTensorInfo<'a>> {
        self.names.get(name).map(|&index| &self.tensors[index])
    }

    /// The tensor `name`, its rank checked against `R`.
    pub(super) fn entry<const R: usize>(
        &self,
        name: &str,
        op: &'static str,
    ) -> Result<(&GgufTensorInfo<'a>, [usize; R]), Error> {
        let info = self.tensor_info(name).ok_or_else(|| Error::MissingTensor {
            name: name.to_string(),
        })?;
        let shape = info.shape().try_into().map_err(|_| {
            Error::RankMismatch {
                op,
                expected: R,
                actual: info.shape().len(),
            }
            .in_tensor(name)
        })?;
        Ok((info, shape))
    }

    /// The `F32`, `F16` or `BF16` tensor `name` as a rank-`R` view of `T`
    /// that borrows the buffer (no copy): the file's bytes in place.
    ///
    /// Shapes: the row-major shape (GGUF's dimensions reversed), `R` axes.
    ///
    /// # Errors
    /// [`Error::MissingTensor`]; then, as [`Error::InTensor`] naming the
    /// tensor: [`Error::WrongDtype`] when the file stores another type,
    /// [`Error::RankMismatch`], and [`Error::NotBorrowable`] when the bytes
    /// are not aligned for `T` (a buffer not read through `AlignedBytes`)
    /// or the host is big-endian.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{f16, gguf::Gguf, weights::AlignedBytes, View};
    /// let buffer = AlignedBytes::read("tests/fixtures/gguf/quant.gguf")?;
    /// let gguf = Gguf::parse(buffer.as_bytes())?;
    /// let w: View<'_, 2, f32> = gguf.view::<2, f32>("f32")?;
    /// assert_eq!(w.shape(), &[3, 5]);
    /// assert_eq!(gguf.view::<2, f16>("f16")?.shape(), &[2, 8]);
    /// assert!(gguf.view::<2, f32>("f16").is_err()); // stored as F16
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view<const R: usize, T: Element + bytemuck::Pod>(
        &self,
        name: &str,
    ) -> Result<View<'a, R, T>, Error> {
        let op = "Gguf::view";
        let (info, shape) = self.entry::<R>(name, op)?;
        let read = || {
            if info.ggml_type().name() != T::DTYPE {
                return Err(Error::WrongDtype {
                    op,
                    expected: T::DTYPE.to_string(),
                    actual: info.ggml_type().name().to_string(),
                });
            }
            let not_borrowable = |reason| Error::NotBorrowable {
                op,
                dtype: T::DTYPE.to_string(),
                reason,
            };
            if cfg!(target_endian = "big") {
                return Err(not_borrowable("the host is big-endian".to_string()));
            }
            let values = bytemuck::try_cast_slice::<u8, T>(info.data()).map_err(|_| {
                not_borrowable(format!(
                    "they start at address {:#x}, not a multiple of {}",
                    info.data().as_ptr() as usize,
                    align_of::<T>()
                ))
            })?;
            View::from_slice(values, shape)
        };
        read().map_err(|error| error.in_tensor(name))
    }

    /// The block-quantized tensor `name` (`Q8_0`, `Q4_0` or `Q4_1`) as
    /// rank-`R` [`QBlocks`] borrowing the buffer (any alignment).
    ///
    /// Shapes: the row-major logical shape, `R` axes.
    ///
    /// # Errors
    /// [`Error::MissingTensor`]; then, as [`Error::InTensor`]:
    /// [`Error::WrongDtype`] when the file stores another type,
    /// [`Error::RankMismatch`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::{gguf::Gguf, quant::{Q4_1, Q8_0}};
    /// let bytes = std::fs::read("tests/fixtures/gguf/quant.gguf")?;
    /// let gguf = Gguf::parse(&bytes)?;
    /// let w = gguf.blocks::<2, Q4_1>("q4_1")?;
    /// assert_eq!((w.shape(), w.blocks().len()), (&[4, 64], 8));
    /// assert!(gguf.blocks::<2, Q8_0>("q4_1").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn blocks<const R: usize, F: BlockFormat>(
        &self,
        name: &str,
    ) -> Result<QBlocks<'a, R, F>, Error> {
        let op = "Gguf::blocks";
        let (info, shape) = self.entry::<R>(name, op)?;
        let read = || {
            if info.ggml_type().name() != F::NAME {
                return Err(Error::WrongDtype {
                    op,
                    expected: F::NAME.to_string(),
                    actual: info.ggml_type().name().to_string(),
                });
            }
            QBlocks::from_bytes(shape, info.data())
        };
        read().map_err(|error| error.in_tensor(name))
    }
}
