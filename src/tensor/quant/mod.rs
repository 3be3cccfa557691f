//! Block-quantized weights: ggml's `Q8_0`, `Q4_0` and `Q4_1` formats as
//! borrowed ranked arrays ([`QBlocks`]), their dequantization into `f32`
//! tensors, and `x · Wᵀ` straight from the blocks ([`linear`]); and
//! `x · Wᵀ` straight from `bf16` / `f16` weights ([`half_linear`]), the
//! same kernel shape with an exact widening in place of the blocks'.
//!
//! A GGUF file stores most of a model's matrices this way (see
//! the module `tensor::gguf`): a row of values is cut into blocks of 32,
//! each with an `f16` scale (and for `Q4_1` an offset) and 8- or 4-bit
//! integers ([`BlockFormat`] has the layouts). The formats are ggml's
//! (`ggml-quants.c`); the Python package `gguf` (`gguf.quants`) is the
//! independent reference the tests compare with, bit for bit.
//!
//! ```
//! use llm_from_scratch::{prelude::*, tensor::{f16, quant::{linear, QBlocks, Q4_1}}};
//! // A [1, 32] Q4_1 weight: d = 0.25, m = -1, nibbles 0..16 then 0..16.
//! let mut bytes = Vec::new();
//! bytes.extend(f16::from_f32(0.25).to_le_bytes());
//! bytes.extend(f16::from_f32(-1.0).to_le_bytes());
//! bytes.extend((0..16u8).map(|j| j | (j << 4)));
//! let w = QBlocks::<2, Q4_1>::from_bytes([1, 32], &bytes)?;
//! let dense = w.dequantize()?;                       // [1, 32] f32
//! assert_eq!(dense.as_slice()[..3], [-1.0, -0.75, -0.5]);
//! let x = Tensor::<2, f32>::full([1, 32], 1.0)?;
//! let y = linear(&x, &w)?;                           // [1, 32] x [1, 32]ᵀ, no dequantized copy
//! assert_eq!(y.as_slice(), &[dense.as_slice().iter().sum::<f32>()]);
//! # Ok::<(), llm_from_scratch::Error>(())
//! ```

mod blocks;
mod format;
mod half;
mod half_linear;
mod kernel;
mod lanes;
mod linear;
mod schedule;

pub use blocks::QBlocks;
pub use format::{BLOCK_LEN, BlockFormat, Q4_0, Q4_1, Q8_0};
pub use half::HalfFloat;
pub use half_linear::half_linear;
pub use linear::linear;
