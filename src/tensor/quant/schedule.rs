//! The row schedule shared by the `x · Wᵀ` kernels of this module (block
//! weights in `kernel.rs`, half-precision weights in `half.rs`): which
//! weight rows and activation rows are computed together, and which thread
//! computes them. Neither changes a value: each output is one dot product
//! computed by the kernel's [`Rows::tile`] in its own fixed order, however
//! the rows are grouped, so the result is the same for every grouping,
//! thread count and SIMD level.

use super::lanes::{Lanes16, Plain};
use crate::error::Error;
use crate::tensor::array::base::{Tensor, View};
use crate::tensor::traverse::alloc::{try_buffer, try_filled};
use crate::tensor::traverse::parallel::{Split, for_each_block};
use crate::tensor::traverse::simd::{Dispatch, threads_for, tuning};
use pulp::{Simd, WithSimd};
use std::borrow::Cow;

/// Weight rows computed together against one activation row (the
/// activation's values are loaded once for all of them): the decode path,
/// 8 on AVX-512 (more loads in flight: the rows stream from memory), else 4.
const WEIGHT_ROWS: usize = 8;

/// Activation rows computed together against each weight row (each
/// widened weight vector is reused for all of them): the prefill path.
const X_ROWS: usize = 4;

/// Weight rows per task at least (a few cache lines each).
const MIN_ROWS_PER_TASK: usize = 16;

/// A weight matrix and the activations of one product, as the schedule
/// sees them: rows by index, and the kernel's tile of dot products.
pub(crate) trait Rows: Copy + Sync {
    /// One weight row.
    type W: Copy;
    /// One activation row (with whatever the kernel precomputed for it).
    type X: Copy;
    /// Weight row `j` of the whole matrix.
    fn weight(self, j: usize) -> Self::W;
    /// Activation row `i`.
    fn activation(self, i: usize) -> Self::X;
    /// `out[r][i] = x[i] · w[r]`, each in the kernel's documented order.
    fn tile<L: Lanes16, const WN: usize, const XN: usize>(
        self,
        simd: L,
        w: [Self::W; WN],
        x: [Self::X; XN],
    ) -> [[f32; XN]; WN];
}

/// `x · Wᵀ` `[m, n]` of `rows` on rayon's current pool: each task computes
/// whole weight rows (their `m` outputs, transposed), the threads used
/// from `work` (flops, against the tuning's threshold) up.
///
/// # Errors
/// [`Error::ShapeOverflow`] when `m · n` does not fit in `usize`;
/// [`Error::AllocationFailed`] for the output.
pub(crate) fn product<R: Rows>(
    op: &'static str,
    rows: R,
    [m, n]: [usize; 2],
    work: u64,
) -> Result<Tensor<2, f32>, Error> {
    let outputs = m.checked_mul(n).ok_or(Error::ShapeOverflow { op })?;
    let failed = |elements| Error::AllocationFailed { op, elements };
    // Transposed: each task writes whole weight rows' outputs.
    let mut out_t = try_filled(outputs, 0.0_f32).map_err(|e| failed(e.elements))?;
    let tuning = tuning();
    let dispatch = Dispatch::new(tuning.simd);
    let threads = threads_for(work, tuning);
    // Decoding streams the weights from memory, fastest as long sequential
    // stretches: one task per thread then, not several small ones.
    let min_units = if m < X_ROWS {
        n.div_ceil(threads.max(1)).max(MIN_ROWS_PER_TASK)
    } else {
        MIN_ROWS_PER_TASK
    };
    let split = Split { unit: m, min_units };
    for_each_block(&mut out_t, split, threads, |range, block| {
        dispatch.run(Task {
            rows,
            first: range.start,
            m,
            out: block,
        });
    });
    if m <= 1 {
        return Tensor::from_vec([m, n], out_t);
    }
    let mut out = try_buffer(outputs).map_err(|e| failed(e.elements))?;
    out.extend((0..outputs).map(|at| out_t[(at % n) * m + at / n]));
    Tensor::from_vec([m, n], out)
}

/// `(m, k, n)` of `x · Wᵀ` for `x: [m, k]` and `W: [n, k]`, checked.
///
/// # Errors
/// [`Error::LinearInnerMismatch`] when the `k`s differ;
/// [`Error::ShapeOverflow`] when `m · n` does not fit in `usize`.
pub(crate) fn linear_shape(
    op: &'static str,
    [m, k]: [usize; 2],
    [n, w_k]: [usize; 2],
) -> Result<(usize, usize, usize), Error> {
    if k != w_k {
        return Err(Error::LinearInnerMismatch { op, x_k: k, w_k });
    }
    m.checked_mul(n).ok_or(Error::ShapeOverflow { op })?;
    Ok((m, k, n))
}

/// The values of a view in row-major order: its storage when contiguous,
/// else a copy.
///
/// # Errors
/// [`Error::AllocationFailed`] for the copy.
pub(crate) fn row_major<'a, T: Copy>(
    view: View<'a, 2, T>,
    op: &'static str,
) -> Result<Cow<'a, [T]>, Error> {
    match view.as_contiguous_slice() {
        Some(values) if view.is_contiguous() => Ok(Cow::Borrowed(values)),
        _ => {
            let mut values = try_buffer(view.len()).map_err(|e| Error::AllocationFailed {
                op,
                elements: e.elements,
            })?;
            values.extend(view.iter().copied());
            Ok(Cow::Owned(values))
        }
    }
}

/// One task: the weight rows `first..` (as many as `out` holds, `m` values
/// each) against every activation row, written transposed:
/// `out[(j - first) · m + i] = x_i · w_j`.
struct Task<'o, R> {
    rows: R,
    first: usize,
    m: usize,
    out: &'o mut [f32],
}

/// The dots of the weight rows `j, j + step, .., j + (N - 1) · step` of the
/// task (`w_row(j)`) with the activation row `x` (row `i`) into `out`
/// (transposed, `m` values per weight row).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn weight_group<R: Rows, L: Lanes16, const N: usize>(
    simd: L,
    rows: R,
    w_row: impl Fn(usize) -> R::W,
    j: usize,
    step: usize,
    x: R::X,
    out: &mut [f32],
    m: usize,
    i: usize,
) {
    let mut w = [w_row(j); N];
    for (r, w) in w.iter_mut().enumerate().skip(1) {
        *w = w_row(j + r * step);
    }
    let dots = rows.tile::<L, N, 1>(simd, w, [x]);
    for (r, [dot]) in dots.into_iter().enumerate() {
        out[(j + r * step) * m + i] = dot;
    }
}

impl<R: Rows> Task<'_, R> {
    /// The task on the lanes `simd`.
    #[inline(always)]
    fn run<L: Lanes16>(self, simd: L) {
        let Task {
            rows,
            first,
            m,
            out,
        } = self;
        if m == 0 {
            return;
        }
        let w_row = |j: usize| rows.weight(first + j);
        let count = out.len() / m;
        if m < X_ROWS {
            // Decoding: several weight rows share each load of x. The rows of
            // a pass are `count / N` apart, so each of the N streams reads its
            // own contiguous stretch of the matrix front to back (as many
            // sequential streams as rows in flight: what the memory system
            // serves fastest); the rows left over go 4, then 1 at a time.
            for i in 0..m {
                let x = rows.activation(i);
                let mut j = 0;
                if L::EIGHT_ROWS {
                    let step = count / WEIGHT_ROWS;
                    for first in 0..step {
                        weight_group::<R, L, WEIGHT_ROWS>(
                            simd, rows, w_row, first, step, x, out, m, i,
                        );
                    }
                    j = step * WEIGHT_ROWS;
                }
                let step = (count - j) / 4;
                for first in j..j + step {
                    weight_group::<R, L, 4>(simd, rows, w_row, first, step, x, out, m, i);
                }
                for j in j + 4 * step..count {
                    weight_group::<R, L, 1>(simd, rows, w_row, j, 1, x, out, m, i);
                }
            }
            return;
        }
        // Prefill: tiles of 4 weight rows (on AVX-512; 1 elsewhere) by 4
        // activation rows, then the rows left over.
        let mut j = 0;
        while j < count {
            j += if L::EIGHT_ROWS && j + 4 <= count {
                x_tiles::<R, L, 4>(
                    simd,
                    rows,
                    [w_row(j), w_row(j + 1), w_row(j + 2), w_row(j + 3)],
                    j,
                    out,
                    m,
                )
            } else {
                x_tiles::<R, L, 1>(simd, rows, [w_row(j)], j, out, m)
            };
        }
    }
}

/// The dots of the `WN` weight rows `w` (rows `j..` of the task) with all
/// `m` activation rows, 4 at a time, into `out` (transposed); returns `WN`.
#[inline(always)]
fn x_tiles<R: Rows, L: Lanes16, const WN: usize>(
    simd: L,
    rows: R,
    w: [R::W; WN],
    j: usize,
    out: &mut [f32],
    m: usize,
) -> usize {
    let x_row = |i: usize| rows.activation(i);
    let mut i = 0;
    while i < m {
        if i + X_ROWS <= m {
            let xs = [x_row(i), x_row(i + 1), x_row(i + 2), x_row(i + 3)];
            let dots = rows.tile::<L, WN, X_ROWS>(simd, w, xs);
            for (r, dots) in dots.iter().enumerate() {
                out[(j + r) * m + i..(j + r) * m + i + X_ROWS].copy_from_slice(dots);
            }
            i += X_ROWS;
        } else {
            let dots = rows.tile::<L, WN, 1>(simd, w, [x_row(i)]);
            for (r, [dot]) in dots.into_iter().enumerate() {
                out[(j + r) * m + i] = dot;
            }
            i += 1;
        }
    }
    WN
}

impl<R: Rows> WithSimd for Task<'_, R> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        #[cfg(target_arch = "x86_64")]
        {
            let any: &dyn core::any::Any = &simd;
            if let Some(&v4) = any.downcast_ref::<pulp::x86::V4>() {
                return self.run(super::lanes::Avx512(v4));
            }
            if let Some(&v3) = any.downcast_ref::<pulp::x86::V3>() {
                return self.run(super::lanes::Avx2(v3));
            }
        }
        let _ = simd;
        self.run(Plain);
    }
}
