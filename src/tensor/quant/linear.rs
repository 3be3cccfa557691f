//! [`linear`]: `x · Wᵀ` for a block-quantized `W` and `f32` activations,
//! without dequantizing `W` (the checks; the kernel is in `kernel.rs`, the
//! row schedule and the threads in `schedule.rs`).

use super::blocks::QBlocks;
use super::format::{BLOCK_LEN, BlockFormat};
use super::kernel::{QRows, block_sums};
use super::schedule::{linear_shape, product, row_major};
use crate::error::Error;
use crate::tensor::array::base::Tensor;
use crate::tensor::array::borrow::AsView;
use crate::tensor::traverse::alloc::try_filled;

/// What one weight of a quantized matrix (times one activation row)
/// counts for against the threads' flop threshold. Measured on the
/// SmolLM2 decode (2 vCPUs, 2026-12-02): waking rayon's workers for every
/// `[576, 576]` and `[1536, 576]` product (16 per weight) cost more than
/// it saved, 82-94 tokens/s on two threads against 130-142 when only the
/// head `[49152, 576]` goes to the threads (1 per weight: from 4 M weights).
const FLOPS_PER_WEIGHT: u64 = 1;

/// `x · Wᵀ`: `[m, k] x [n, k]ᵀ -> [m, n]`, the product of `f32` activations
/// with a block-quantized weight matrix stored `[out, in]` (PyTorch's
/// `F.linear(x, W)` without bias, ggml's `mul_mat`; a GGUF `[k, n]` weight
/// is this `[n, k]`). `W` is never dequantized into memory: each block's
/// bytes are widened, split into nibbles and converted to `f32` in vector
/// registers (AVX-512, AVX2, or a scalar fallback). With fewer than four
/// activation rows (decoding) 8 weight rows (4 without AVX-512) share each
/// load of `x` and their 8 `f16` scales are converted in one instruction;
/// otherwise tiles of 4 weight rows (1 without AVX-512) by 4 activation
/// rows reuse each unpacked block and each load of `x`.
///
/// Numerics: `f32` activations and accumulation (no quantized
/// activations), fused multiply-adds in the fixed order documented in the
/// kernel: per block, the dot of its quantized values with `x` in 16
/// lanes, scaled by `d` into 16 running sums, the `Q4_1` offset as
/// `m · Σx` per block, the lanes added pairwise at the end. The result is
/// bit-identical for every thread count, SIMD level and layout of `x`; it
/// differs from `x · dequantize(W)ᵀ` by rounding only (the order differs).
///
/// Threads: rayon's current pool, over blocks of weight rows (`n`), one
/// contiguous block per thread when decoding; small products (below 4 M
/// weights times activation rows) stay on the calling thread.
///
/// # Errors
/// [`Error::LinearInnerMismatch`] when `x`'s last extent is not `W`'s;
/// [`Error::ShapeOverflow`] when `m · n` does not fit in `usize`;
/// [`Error::AllocationFailed`] for the output or the scratch (`Σx` per
/// block, a copy of `x` when its rows are not contiguous).
///
/// ```
/// use llm_from_scratch::{prelude::*, tensor::{f16, quant::{linear, QBlocks, Q8_0}}};
/// // W = [2, 32]: row 0 all 1s, row 1 all 2s (d = 1, q = 1 or 2).
/// let mut bytes = Vec::new();
/// for q in [1u8, 2] {
///     bytes.extend(f16::from_f32(1.0).to_le_bytes());
///     bytes.extend([q; 32]);
/// }
/// let w = QBlocks::<2, Q8_0>::from_bytes([2, 32], &bytes)?;
/// let x = Tensor::<2, f32>::full([3, 32], 0.5)?;
/// let y = linear(&x, &w)?;                  // [3, 32] x [2, 32]ᵀ
/// assert_eq!(y.shape(), &[3, 2]);
/// assert_eq!(y.as_slice()[..2], [16.0, 32.0]);
/// assert!(linear(&Tensor::<2, f32>::zeros([1, 64])?, &w).is_err());
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn linear<F: BlockFormat>(
    x: &impl AsView<2, f32>,
    w: &QBlocks<'_, 2, F>,
) -> Result<Tensor<2, f32>, Error> {
    let op = "linear";
    let x = x.as_view();
    let (m, k, n) = linear_shape(op, *x.shape(), *w.shape())?;
    let x_values = row_major(x, op)?;
    let per_row = k / BLOCK_LEN;
    let (x_blocks, _) = x_values.as_chunks::<BLOCK_LEN>();
    let mut sums = try_filled(m * per_row, 0.0_f32).map_err(|e| Error::AllocationFailed {
        op,
        elements: e.elements,
    })?;
    if per_row > 0 {
        for (row, sums) in x_blocks
            .chunks_exact(per_row)
            .zip(sums.chunks_exact_mut(per_row))
        {
            block_sums(row.as_flattened(), sums);
        }
    }
    let work = FLOPS_PER_WEIGHT
        .saturating_mul(m.max(1) as u64)
        .saturating_mul(n as u64)
        .saturating_mul(k as u64);
    let rows = QRows::<F> {
        w: w.blocks(),
        per_row,
        x: x_blocks,
        sums: &sums,
    };
    product(op, rows, [m, n], work)
}
