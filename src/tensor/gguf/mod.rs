//! GGUF files (ggml's and llama.cpp's model format): metadata and tensors,
//! read in place from the file's bytes.
//!
//! [`Gguf::parse`] reads the header, the typed metadata ([`GgufValue`],
//! arrays as [`GgufArray`]) and the tensor infos ([`GgufTensorInfo`]: name,
//! row-major shape, [`GgmlType`], bytes), checking every count, length and
//! offset against the file first. Tensors then borrow the buffer: `F32` /
//! `F16` / `BF16` as ranked [`View`](crate::tensor::View)s
//! ([`Gguf::view`]), `Q8_0` / `Q4_0` / `Q4_1` as
//! [`QBlocks`](crate::tensor::quant::QBlocks) ([`Gguf::blocks`]), or
//! whichever the file holds ([`Gguf::tensor`], a [`GgufTensor`]).
//!
//! The reader follows ggml's `docs/gguf.md` and `gguf.cpp`: versions 2 and
//! 3 (the same layout), little-endian only, at most 4 dimensions per tensor,
//! no arrays of arrays, rows whole blocks, offsets multiples of
//! `general.alignment` (default [`DEFAULT_ALIGNMENT`] = 32). Pure safe Rust,
//! no dependency: always compiled (the `gguf` feature is on by default and
//! is only a name for the CLI contract of the `llama` example).
//!
//! ```
//! use llm_from_scratch::{prelude::*, tensor::{gguf::Gguf, weights::AlignedBytes}};
//! let buffer = AlignedBytes::read("tests/fixtures/gguf/quant.gguf")?;
//! let gguf = Gguf::parse(buffer.as_bytes())?;
//! for info in gguf.tensor_infos() {
//!     println!("{} {:?} {}", info.name(), info.shape(), info.ggml_type().name());
//! }
//! let w = gguf.tensor::<2>("q4_1")?;                  // [4, 64], Q4_1 blocks, borrowed
//! let x = Tensor::<2, f32>::full([2, 64], 0.5)?;
//! let y = w.linear(&x)?;                               // x · Wᵀ: [2, 64] x [4, 64]ᵀ
//! assert_eq!(y.shape(), &[2, 4]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod cursor;
mod file;
mod metadata;
mod tensor;
mod tensor_info;
mod value;

pub use file::{DEFAULT_ALIGNMENT, Gguf};
pub use tensor::GgufTensor;
pub use tensor_info::{GgmlType, GgufTensorInfo};
pub use value::{GgufArray, GgufValue, GgufValueType};
