//! The block kernel of [`linear`](super::linear): dot products of `f32`
//! rows with block-quantized rows, in one fixed order on every instruction
//! set.
//!
//! The order, for one activation row `x` and one weight row of blocks
//! `b = 0, 1, ..` (scale `d_b`, offset `m_b`, quantized values `q_b`), with
//! 16 virtual lanes `l`:
//!
//! ```text
//! p_l    = fma(q_b[l + 16], x_b[l + 16], q_b[l] · x_b[l])   // the two nibbles of byte l
//! acc_l  = fma(d_b, p_l, acc_l)                             // acc_l starts at +0.0
//! macc   = fma(m_b, Σx_b, macc)                             // Q4_1 only; macc starts at +0.0
//! result = tree(acc_0 .. acc_15) (+ macc)
//! ```
//!
//! where `Σx_b = tree(x_b[l] + x_b[l + 16])` and `tree` adds lanes
//! pairwise (`v_l + v_{l+8}`, then `+4`, `+2`, `+1`). The lanes are
//! independent, so AVX-512 (one register), AVX2 (two) and the scalar
//! fallback compute the same operations; `mul_add` is the correctly rounded
//! fused multiply-add on each (`vfmadd`, or `fmaf` without FMA hardware),
//! so the bits are the same everywhere.

use super::format::{BLOCK_LEN, BlockFormat};
use crate::tensor::traverse::simd::Compiled;

/// Virtual lanes of the kernel: half a block.
pub(crate) const LANES: usize = BLOCK_LEN / 2;

/// Activation rows computed together against one weight row (each
/// unpacked block is reused for all of them).
const ROWS: usize = 4;

/// The pairwise sum of 16 lanes: `v_l + v_{l+8}`, then `+4`, `+2`, `+1`.
#[inline(always)]
pub(crate) fn tree(mut v: [f32; LANES]) -> f32 {
    let mut width = LANES / 2;
    while width > 0 {
        for l in 0..width {
            v[l] += v[l + width];
        }
        width /= 2;
    }
    v[0]
}

/// `Σx_b` of every block of the row `x` into `sums` (one per block).
#[inline(always)]
pub(crate) fn block_sums(x: &[f32], sums: &mut [f32]) {
    let (blocks, _) = x.as_chunks::<BLOCK_LEN>();
    for (sum, block) in sums.iter_mut().zip(blocks) {
        *sum = tree(std::array::from_fn(|l| block[l] + block[l + LANES]));
    }
}

/// The dots of `N` activation rows (`xs`, with their block sums `sums`)
/// with the weight row `w`, in the order of the module docs.
#[inline(always)]
fn dot_rows<F: BlockFormat, const N: usize>(
    w: &[F::Block],
    xs: [&[[f32; BLOCK_LEN]]; N],
    sums: [&[f32]; N],
) -> [f32; N] {
    let mut acc = [[0.0_f32; LANES]; N];
    let mut macc = [0.0_f32; N];
    for (b, block) in w.iter().enumerate() {
        let q = F::quants(block);
        let (d, m) = F::scales(block);
        for r in 0..N {
            let x = &xs[r][b];
            let acc = &mut acc[r];
            for l in 0..LANES {
                let p = q[l + LANES].mul_add(x[l + LANES], q[l] * x[l]);
                acc[l] = d.mul_add(p, acc[l]);
            }
            if F::HAS_MIN {
                macc[r] = m.mul_add(sums[r][b], macc[r]);
            }
        }
    }
    std::array::from_fn(|r| {
        let sum = tree(acc[r]);
        if F::HAS_MIN { sum + macc[r] } else { sum }
    })
}

/// One task of [`linear`](super::linear): the weight rows `first..` (as
/// many as `out` holds, `m` values each) against every activation row,
/// written transposed: `out[(j - first) · m + i] = x_i · w_j`.
pub(crate) struct Task<'a, 'o, F: BlockFormat> {
    /// The weight matrix's blocks, `per_row` per row.
    pub(crate) w: &'a [F::Block],
    pub(crate) per_row: usize,
    /// The first weight row of the task.
    pub(crate) first: usize,
    /// The activations, `m` rows of `per_row` blocks of values.
    pub(crate) x: &'a [[f32; BLOCK_LEN]],
    /// Their block sums, `per_row` per row.
    pub(crate) sums: &'a [f32],
    pub(crate) m: usize,
    pub(crate) out: &'o mut [f32],
}

impl<F: BlockFormat> Compiled for Task<'_, '_, F> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let Task {
            w,
            per_row,
            first,
            x,
            sums,
            m,
            out,
        } = self;
        if m == 0 {
            return;
        }
        let x_row = |i: usize| &x[i * per_row..(i + 1) * per_row];
        let sum_row = |i: usize| &sums[i * per_row..(i + 1) * per_row];
        for (j, out) in out.chunks_exact_mut(m).enumerate() {
            let row = first + j;
            let w = &w[row * per_row..(row + 1) * per_row];
            let mut i = 0;
            while i + ROWS <= m {
                let dots = dot_rows::<F, ROWS>(
                    w,
                    std::array::from_fn(|r| x_row(i + r)),
                    std::array::from_fn(|r| sum_row(i + r)),
                );
                out[i..i + ROWS].copy_from_slice(&dots);
                i += ROWS;
            }
            for (i, slot) in out.iter_mut().enumerate().skip(i) {
                *slot = dot_rows::<F, 1>(w, [x_row(i)], [sum_row(i)])[0];
            }
        }
    }
}
