//! The batched matrix product kernel: `[batch.., m, k] x [batch.., k, n]`.
//!
//! Exact order: every output element is one chain of fused multiply-adds
//! over ascending `k`, `c = fma(a_k, b_k, c)` for `k = 0, 1, …` from
//! `c = +0.0`, each step rounded once (the scalar model is
//! `c = a.mul_add(b, c)`). IEEE 754 defines `fma` as correctly rounded, so
//! `vfmadd` on AVX2 and AVX-512 and `f32::mul_add` on the scalar fallback
//! give the same bits; nothing here ever uses a multiply-add with two
//! roundings. Everything below only changes *which* chains run side by
//! side (vector lanes hold neighbouring output columns, never neighbouring
//! `k`), *where a chain waits* between `k` blocks (a later block reloads
//! the stored partial value, which a float store keeps exactly), and
//! *which thread* runs a chain (each output element belongs to exactly one
//! thread), never the order inside a chain. So the result is bit-identical
//! for every layout of the operands, every instruction set and every
//! thread count. This is the dot-product order of the numerics contract
//! (fused multiply-add in a fixed order); BLAS libraries also fuse, but
//! split `k` and combine partial sums in an order that depends on the CPU
//! and the threads.
//!
//! Structure:
//! - the batch axes are walked with each operand's effective strides
//!   (stride 0 where an operand is broadcast); trailing batch axes over
//!   which the right operand is broadcast and the left one is evenly strided
//!   are folded into the rows (`[B, T, C] x [C, N]` is one `[B·T, C] x [C, N]`
//!   product);
//! - up to [`small::MAX_ROWS`] rows per matrix (decoding: one query row) go
//!   through [`small`], which reads the right operand in place when its
//!   columns are contiguous (no packing) and stages small transposed blocks
//!   otherwise;
//! - larger products go through [`gemm`]: the GotoBLAS / BLIS loop nest with
//!   packed panels and a register tile chosen per instruction set.
//!
//! Threads (rayon, see [`super::simd`]): whole matrices of a batch, else
//! one block of rows of one matrix per thread, else (up to 64 rows: a
//! prompt; or one row: decoding) column ranges are handed to the pool when
//! the product has at least `PARALLEL_MIN_FLOPS` of work; each thread packs
//! the panels it reads itself.

mod epilogue;
mod gemm;
mod pack;
mod prepacked;
mod small;
mod tile;
mod transpose;

pub(crate) use epilogue::Epilogue;
pub(crate) use prepacked::PackedRight;

use crate::error::Error;
use crate::tensor::float::Float;
use crate::tensor::shape::broadcast::broadcast_strides;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::simd::{self, Dispatch, KernelTuning};

/// One matrix of a strided operand: origin and (row, column) strides.
#[derive(Debug, Clone, Copy)]
struct Matrix<'a, F> {
    data: &'a [F],
    base: usize,
    row: usize,
    col: usize,
}

impl<'a, F> Matrix<'a, F> {
    /// A matrix operand (rank 2) as it is.
    fn of(x: &Strided<'a, '_, F>) -> Self {
        Matrix {
            data: x.data,
            base: x.base,
            row: x.strides[0],
            col: x.strides[1],
        }
    }
}

/// Multiplies checked operands into `out`, the row-major output of
/// `out_shape = [batch.., m, n]`.
///
/// Preconditions (checked by the op layer): both ranks are at least 2, the
/// contracted extents agree, the batch axes broadcast to `out_shape`'s
/// leading axes, and `out.len()` is `out_shape`'s element count. Every
/// output value is overwritten (`out` may hold anything), `epilogue`
/// (when given) applied to every finished value; a bias there holds `n`
/// values.
///
/// # Errors
/// [`Error::AllocationFailed`] (of `op`) if a scratch buffer cannot be reserved.
pub(crate) fn matmul<F: Float>(
    left: Strided<'_, '_, F>,
    right: Strided<'_, '_, F>,
    out_shape: &[usize],
    out: &mut [F],
    epilogue: Option<Epilogue<'_, F>>,
    op: &'static str,
) -> Result<(), Error> {
    if out.is_empty() {
        return Ok(());
    }
    let (left_rank, right_rank, rank) = (left.shape.len(), right.shape.len(), out_shape.len());
    let (m, n) = (out_shape[rank - 2], out_shape[rank - 1]);
    let k = left.shape[left_rank - 1];
    if k == 0 {
        out.fill(F::ZERO);
        if let Some(epilogue) = epilogue {
            epilogue.apply(out, n, 0..n);
        }
        return Ok(());
    }
    let batch_shape = &out_shape[..rank - 2];
    // Batch strides, inline (every rank is at most 32).
    let mut left_batch = DynDims::zeros(rank - 2);
    let mut right_batch = DynDims::zeros(rank - 2);
    let left_split = left_rank - 2;
    let right_split = right_rank - 2;
    broadcast_strides(
        &left.shape[..left_split],
        &left.strides[..left_split],
        batch_shape,
        left_batch.as_mut_slice(),
    );
    broadcast_strides(
        &right.shape[..right_split],
        &right.strides[..right_split],
        batch_shape,
        right_batch.as_mut_slice(),
    );
    let mut a = Matrix {
        data: left.data,
        base: left.base,
        row: left.strides[left_split],
        col: left.strides[left_split + 1],
    };
    let b = Matrix {
        data: right.data,
        base: right.base,
        row: right.strides[right_split],
        col: right.strides[right_split + 1],
    };
    let (left_batch, right_batch) = (left_batch.as_slice(), right_batch.as_slice());
    let (outer_rank, rows) = fold_rows(batch_shape, left_batch, right_batch, m, &mut a.row);
    let (left_batch, right_batch) = (&left_batch[..outer_rank], &right_batch[..outer_rank]);
    let problem = Problem {
        a,
        b,
        shape: &batch_shape[..outer_rank],
        left: left_batch,
        right: right_batch,
        rows,
        n,
        k,
    };
    let tuning = simd::tuning();
    let dispatch = Dispatch::new(tuning.simd);
    let count = out.len() / (rows * n);
    let ran = match MatmulStrategy::plan(count, rows, n, k, tuning) {
        // Decoding's few rows: the epilogue is one short pass after.
        MatmulStrategy::Small { threads } => {
            small::run(dispatch, &problem, out, threads).map(|()| {
                if let Some(epilogue) = epilogue {
                    epilogue.apply(out, n, 0..n);
                }
            })
        }
        MatmulStrategy::Gemm { threads } => gemm::run(dispatch, &problem, out, epilogue, threads),
    };
    ran.map_err(|failed| Error::AllocationFailed {
        op,
        elements: failed.elements,
    })
}

/// One product `[m, k] x [k, n]` on the calling thread whose right operand
/// is also given packed: `packed` holds `right`'s panels, or those of a
/// matrix that `right` is the top-left `[k, n]` corner of (attention's
/// keys and values, packed once per head for every block of queries).
/// The bits are [`matmul`]'s: packing copies values, and the chains are
/// the same.
///
/// Preconditions (checked by the caller): both operands are matrices,
/// `left [m, k]` and `right [k, n]`, `out` holds `m · n` values, and the
/// values `packed` was packed from are `right`'s (the caller packs them in
/// the same call). Panels that do not fit (another panel width than this
/// instruction set's tile, or fewer steps or columns) are not read: the
/// product packs its own, as does a product of at most
/// [`small::MAX_ROWS`] rows, which does not pack at all.
///
/// # Errors
/// [`Error::AllocationFailed`] (of `op`) if a scratch buffer cannot be reserved.
pub(crate) fn matmul_packed<F: Float>(
    left: Strided<'_, '_, F>,
    right: Strided<'_, '_, F>,
    packed: &PackedRight<F>,
    out: &mut [F],
    epilogue: Option<Epilogue<'_, F>>,
    op: &'static str,
) -> Result<(), Error> {
    let (m, k, n) = (left.shape[0], left.shape[1], right.shape[1]);
    let panels = packed.panels();
    let Some(panels) = panels.filter(|_| m > small::MAX_ROWS && k > 0 && n > 0) else {
        return matmul(left, right, &[m, n], out, epilogue, op);
    };
    let one = gemm::OneMatrix {
        a: Matrix::of(&left),
        b: Matrix::of(&right),
        m,
        n,
        k,
    };
    let dispatch = Dispatch::new(simd::tuning().simd);
    gemm::one_packed(dispatch, one, panels, out, epilogue).map_err(|failed| {
        Error::AllocationFailed {
            op,
            elements: failed.elements,
        }
    })
}

/// How one call multiplies: which kernel, on how many threads. Data a test
/// can inspect, like the copy, reduce and softmax strategies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatmulStrategy {
    /// At most 4 rows per matrix (after folding batch
    /// axes into rows): the decode path, which reads the right operand in
    /// place when its columns are contiguous and stages small blocks otherwise.
    Small {
        /// Threads the work is split over.
        threads: usize,
    },
    /// Larger products: packed panels and a register tile per instruction set.
    Gemm {
        /// Threads the work is split over.
        threads: usize,
    },
}

impl MatmulStrategy {
    /// The strategy for `count` products of `rows × k` by `k × n`.
    ///
    /// The decode path is bound by reading the right operand, not by its
    /// 2·rows flops per element: a read from memory costs about what 16 flops
    /// do here (~10 GB/s against ~80 GFLOP/s per core), so a one-row product
    /// over a large weight matrix gets the threads too (two cores stream
    /// about twice the bytes of one).
    pub(crate) fn plan(
        count: usize,
        rows: usize,
        n: usize,
        k: usize,
        tuning: KernelTuning,
    ) -> Self {
        let small = rows <= small::MAX_ROWS;
        let per_element = if small { (2 * rows).max(16) } else { 2 * rows };
        let work = [count, n, k, per_element]
            .iter()
            .fold(1u64, |product, &x| product.saturating_mul(x as u64));
        let threads = simd::threads_for(work, tuning);
        if small {
            MatmulStrategy::Small { threads }
        } else {
            MatmulStrategy::Gemm { threads }
        }
    }
}

/// The product after folding: the batch axes left, with each operand's
/// effective strides, and the shape of every matrix product.
struct Problem<'a, 's, F> {
    a: Matrix<'a, F>,
    b: Matrix<'a, F>,
    shape: &'s [usize],
    left: &'s [usize],
    right: &'s [usize],
    rows: usize,
    n: usize,
    k: usize,
}

impl<'a, F: Copy> Problem<'a, '_, F> {
    /// The operands of batch `index` (row-major over the batch axes).
    fn matrices(&self, mut index: usize) -> (Matrix<'a, F>, Matrix<'a, F>) {
        let (mut a, mut b) = (self.a, self.b);
        for axis in (0..self.shape.len()).rev() {
            let i = index % self.shape[axis];
            index /= self.shape[axis];
            a.base += i * self.left[axis];
            b.base += i * self.right[axis];
        }
        (a, b)
    }
}

/// Whether `count` independent items keep `threads` threads evenly busy.
fn splits_evenly(count: usize, threads: usize) -> bool {
    threads > 1 && count >= threads && (count.is_multiple_of(threads) || count >= 4 * threads)
}

/// Folds trailing batch axes into the rows where that keeps one row stride:
/// the right operand is broadcast there (stride 0), and the left operand
/// steps by exactly `rows × row stride` (or has a single row so far).
/// Unit axes fold trivially. Returns the remaining batch rank and the rows.
fn fold_rows(
    batch_shape: &[usize],
    left_batch: &[usize],
    right_batch: &[usize],
    m: usize,
    row_stride: &mut usize,
) -> (usize, usize) {
    let mut rows = m;
    let mut outer = batch_shape.len();
    while outer > 0 {
        let axis = outer - 1;
        let extent = batch_shape[axis];
        if extent != 1 {
            if right_batch[axis] != 0 {
                break;
            }
            if rows == 1 {
                *row_stride = left_batch[axis];
            } else if rows.checked_mul(*row_stride) != Some(left_batch[axis]) {
                break;
            }
            rows *= extent;
        }
        outer -= 1;
    }
    (outer, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::traverse::simd::{PARALLEL_MIN_FLOPS, SimdLevel};

    #[test]
    fn the_strategy_is_the_decode_path_up_to_four_rows_and_threads_by_work() {
        let one = KernelTuning {
            simd: SimdLevel::Best,
            parallel_min_flops: u64::MAX,
        };
        // One query row over a GPT-2 weight: the decode path.
        assert_eq!(
            MatmulStrategy::plan(1, 1, 768, 768, one),
            MatmulStrategy::Small { threads: 1 }
        );
        assert_eq!(
            MatmulStrategy::plan(12, 4, 64, 64, one),
            MatmulStrategy::Small { threads: 1 }
        );
        assert_eq!(
            MatmulStrategy::plan(1, 5, 64, 64, one),
            MatmulStrategy::Gemm { threads: 1 }
        );
        // Above the work threshold the pool's threads join (a 1-row product
        // counts 16 flops per element read: it is bound by memory).
        let threads = rayon::current_num_threads();
        let tuning = KernelTuning {
            simd: SimdLevel::Best,
            parallel_min_flops: PARALLEL_MIN_FLOPS,
        };
        let decode_work = 768 * 50_257 * 16;
        assert!(decode_work as u64 >= PARALLEL_MIN_FLOPS);
        assert_eq!(
            MatmulStrategy::plan(1, 1, 50_257, 768, tuning),
            MatmulStrategy::Small { threads }
        );
        assert_eq!(
            MatmulStrategy::plan(1, 8, 8, 8, tuning),
            MatmulStrategy::Gemm { threads: 1 }
        );
    }
}
