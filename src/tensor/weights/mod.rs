//! Weights files: [`AlignedBytes`] (a file read into an aligned buffer, for
//! the safetensors and the GGUF readers) and, with the feature
//! `safetensors`, safetensors checkpoints: ranked views straight over a
//! file's tensors, converting reads into any float type, and a writer.
//!
//! A weights file is one byte buffer: a JSON header, then every tensor's
//! little-endian values. [`Weights::get`] gives a view that borrows those
//! bytes (no copy, for as long as the buffer lives);
//! [`Weights::get_as`] converts any float dtype into the type you compute
//! in, and copies what cannot be borrowed. [`AlignedBytes`] reads a file
//! into an 8-byte aligned buffer at the file's size (or maps it, feature
//! `mmap`), so every tensor of a well-formed file borrows.
//! [`SafetensorsWriter`] writes named tensors of any supported dtype.
//!
#![cfg_attr(
    feature = "safetensors",
    doc = "[`Weights::get`]: Weights::get\n[`Weights::get_as`]: Weights::get_as\n[`SafetensorsWriter`]: SafetensorsWriter"
)]
#![cfg_attr(
    not(feature = "safetensors"),
    doc = "[`Weights::get`]: self\n[`Weights::get_as`]: self\n[`SafetensorsWriter`]: self"
)]
//!
#![cfg_attr(feature = "safetensors", doc = "```")]
#![cfg_attr(not(feature = "safetensors"), doc = "```ignore")]
//! use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
//! # let bytes = safetensors::serialize(
//! #     [("w", safetensors::tensor::TensorView::new(safetensors::Dtype::F32, vec![2, 3],
//! #         &[0u8; 24]).unwrap())], None).unwrap();
//! let buffer = AlignedBytes::from_bytes(&bytes);     // or AlignedBytes::read(path)?
//! let weights = Weights::parse(buffer.as_bytes())?;
//! let w = weights.get::<2, f32>("w")?;               // rank and dtype checked against the header
//! assert_eq!(w.shape(), &[2, 3]);
//! let w64 = weights.get_as::<2, f64>("w")?;          // converted: an owner
//! assert_eq!(w64.shape(), &[2, 3]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bytes;
#[cfg(feature = "safetensors")]
mod read;
#[cfg(feature = "safetensors")]
mod write;

pub use bytes::AlignedBytes;
#[cfg(feature = "safetensors")]
#[allow(deprecated)]
pub use read::{SafetensorsElement, Weight, Weights, WeightsError};
#[cfg(feature = "safetensors")]
pub use write::SafetensorsWriter;

#[cfg(feature = "mmap")]
#[doc(no_inline)]
pub use crate::tensor::MappedFile;
