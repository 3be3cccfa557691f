//! [`half_linear`]: `x · Wᵀ` for a `bf16` / `f16` weight matrix and `f32`
//! activations, without widening `W` into memory (the checks; the kernel is
//! in `half.rs`, the row schedule and the threads in `schedule.rs`).

use super::half::{HalfFloat, HalfRows};
use super::schedule::{linear_shape, product, row_major};
use crate::error::Error;
use crate::tensor::array::base::Tensor;
use crate::tensor::array::borrow::AsView;

/// What one weight (times one activation row) counts for against the
/// threads' flop threshold (2^22): four, so that GPT-2 small's `[2304,
/// 768]` attention input matrix (1.8 M weights, as the `[3072, 768]` and
/// `[768, 3072]` MLP matrices and the head) goes to the threads when
/// decoding, and the `[768, 768]` one (below 1.05 M weights) stays on the
/// calling thread. Four times the block kernel's weight: a half weight
/// moves 2 bytes against a `Q8_0` weight's 1.06. Measured on the GPT-2
/// small bf16 decode, 2 threads:
/// - 2026-12-03, 2 vCPUs shared with another build: 1 (only the head
///   threaded) 48-55 tokens/s, 2 (the MLP too) 41-53, 4 42-63; no
///   difference above that machine's noise;
/// - 2026-12-06, the Intel Xeon, four interleaved rounds: 2 gave 57.0,
///   59.0, 61.5 and 68.6 tokens/s, 4 gave 63.4, 67.7, 70.9 and 70.9 (ahead
///   in every round); 8 (the `[768, 768]` matrix threaded too) was level
///   with 4 in three more rounds. Waking the second thread costs tens of
///   microseconds there, against ~0.3 ms for the `[2304, 768]` product.
const FLOPS_PER_WEIGHT: u64 = 4;

/// `x · Wᵀ`: `[m, k] x [n, k]ᵀ -> [m, n]`, the product of `f32` activations
/// with a half-precision weight matrix stored `[out, in]` (PyTorch's
/// `F.linear(x, W)` without bias for a `bfloat16` / `float16` `W`). `W`
/// ([`bf16`](crate::tensor::bf16), Google Brain's bfloat16, or
/// [`f16`](crate::tensor::f16), IEEE 754 binary16; see [`HalfFloat`]) is
/// never widened into memory: each 16 weights are widened to `f32` in a
/// vector register (AVX-512, AVX2, or a scalar fallback), so a decode step
/// reads half the bytes of an `f32` matrix. With fewer than four
/// activation rows (decoding) 8 weight rows (4 without AVX-512) share each
/// load of `x`; otherwise tiles of 4 weight rows (1 without AVX-512) by 4
/// activation rows reuse each widened chunk and each load of `x`.
///
/// Numerics: `f32` activations and accumulation, exact widening, fused
/// multiply-adds in the fixed order documented in the kernel: 16 running
/// sums from `+0.0`, weight `16c + l` into lane `l` in ascending `c`, the
/// row padded with `+0.0` to a multiple of 16, the lanes added pairwise at
/// the end (the order of [`linear`](super::linear) without the block
/// scales). The result is bit-identical for every thread count, SIMD level
/// and layout of `x` and `W`; it differs from `x · widen(W)ᵀ` computed by
/// [`matmul`](crate::tensor::ops::matmul) by rounding only (the order differs).
///
/// Threads: rayon's current pool, over blocks of weight rows (`n`), one
/// contiguous block per thread when decoding; products below 1.05 M weights
/// times activation rows stay on the calling thread.
///
/// # Errors
/// [`Error::LinearInnerMismatch`] when `x`'s last extent is not `W`'s;
/// [`Error::ShapeOverflow`] when `m · n` does not fit in `usize`;
/// [`Error::AllocationFailed`] for the output, or for a row-major copy of
/// `x` or `W` when its rows are not contiguous.
///
/// ```
/// use llm_from_scratch::{prelude::*, tensor::{bf16, quant::half_linear}};
/// // W = [2, 3]: rows (1, 2, 3) and (0.5, 0.5, 0.5), stored as bf16.
/// let w = Tensor::<2, bf16>::from_vec(
///     [2, 3],
///     [1.0, 2.0, 3.0, 0.5, 0.5, 0.5].map(bf16::from_f32).to_vec(),
/// )?;
/// let x = Tensor::<2, f32>::from_vec([1, 3], vec![1.0, 1.0, 2.0])?;
/// let y = half_linear(&x, &w)?;             // [1, 3] x [2, 3]ᵀ
/// assert_eq!(y.shape(), &[1, 2]);
/// assert_eq!(y.as_slice(), &[9.0, 2.0]);
/// assert!(half_linear(&Tensor::<2, f32>::zeros([1, 4])?, &w).is_err());
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn half_linear<H: HalfFloat>(
    x: &impl AsView<2, f32>,
    w: &impl AsView<2, H>,
) -> Result<Tensor<2, f32>, Error> {
    let op = "half_linear";
    let (x, w) = (x.as_view(), w.as_view());
    let (m, k, n) = linear_shape(op, *x.shape(), *w.shape())?;
    let x_values = row_major(x, op)?;
    let w_values = row_major(w, op)?;
    let work = FLOPS_PER_WEIGHT
        .saturating_mul(m.max(1) as u64)
        .saturating_mul(n as u64)
        .saturating_mul(k as u64);
    // 2-byte `Pod` to `u16`: the same size and alignment, a cast that
    // cannot fail.
    let w_bits: &[u16] = bytemuck::cast_slice(&w_values);
    let rows = HalfRows::<H> {
        w: w_bits,
        x: &x_values,
        k,
        of: core::marker::PhantomData,
    };
    product(op, rows, [m, n], work)
}
