//! Row kernels over the last axis (the norms, the causal softmax): every
//! row `x[.., :]` of any layout is copied into its slot of the row-major
//! output and then transformed there in place by a [`RowKernel`].
//!
//! The output rows are dense (the last axis of a row-major output has
//! stride 1), so a kernel works on a slice that stays in L1 while it makes
//! its passes. Threads get contiguous blocks of whole rows
//! ([`for_each_block`]); each row is computed by one task with the same
//! operations, so the bits do not depend on the thread count. The rows of
//! a task run in batches of [`BATCH`] inside one function compiled for the
//! instruction set chosen on the calling thread ([`Dispatch::compile`]), so
//! the kernel's loops get its vectors (the batch's input offsets are found
//! before, outside the compiled body).

use super::Strided;
use super::groups::for_each_group;
use super::parallel::{Split, for_each_block};
use super::plan::run_iter;
use super::simd::{Compiled, Dispatch};
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::row_major_strides;

/// Rows per compiled batch: their input offsets are gathered first.
const BATCH: usize = 32;

/// What a last-axis kernel does to one row.
pub(crate) trait RowKernel<F>: Sync {
    /// Per-task working memory (a summation counter), made once per task.
    type Scratch;
    /// A fresh scratch.
    fn scratch(&self) -> Self::Scratch;
    /// Transforms output row number `row` (row-major over the other axes),
    /// which holds the input row's values in order, in place.
    /// `#[inline(always)]` in every implementation (see [`Compiled`]).
    fn row(&self, scratch: &mut Self::Scratch, row: usize, out: &mut [F]);
}

/// Runs `kernel` on every row of `input` (rank >= 1) written to `out`
/// (row-major, the input's element count), over `threads` threads, every
/// row's loops compiled for `dispatch`. Nothing to do for an empty output.
pub(crate) fn for_each_row<F: Copy + Send + Sync, K: RowKernel<F>>(
    input: Strided<'_, '_, F>,
    out: &mut [F],
    threads: usize,
    dispatch: Dispatch,
    kernel: &K,
) {
    let rank = input.shape.len();
    if out.is_empty() || rank == 0 {
        return;
    }
    let axis = rank - 1;
    let extent = input.shape[axis];
    let mut out_strides = DynDims::zeros(rank);
    // The output's length was checked, so its row-major strides fit.
    let _ = row_major_strides(input.shape, out_strides.as_mut_slice(), "");
    let split = Split {
        unit: extent,
        min_units: 1,
    };
    for_each_block(out, split, threads, |rows, block| {
        let mut scratch = kernel.scratch();
        let mut first = rows.start;
        while first < rows.end {
            let last = rows.end.min(first + BATCH);
            let mut starts = [0; BATCH];
            let mut filled = 0;
            for_each_group(
                input.shape,
                input.strides,
                input.base,
                axis,
                out_strides.as_slice(),
                first..last,
                |x, _| {
                    starts[filled] = x;
                    filled += 1;
                },
            );
            let begin = (first - rows.start) * extent;
            dispatch.compile(Batch {
                data: input.data,
                stride: input.strides[axis],
                starts: &starts[..filled],
                first,
                out: &mut block[begin..begin + filled * extent],
                kernel,
                scratch: &mut scratch,
            });
            first = last;
        }
    });
}

/// One batch of consecutive rows, compiled for the dispatched level.
struct Batch<'a, 'k, 's, F, K: RowKernel<F>> {
    data: &'a [F],
    /// The input's stride along the last axis.
    stride: usize,
    /// The input offset of each row's first value.
    starts: &'a [usize],
    /// The row number of the first row.
    first: usize,
    /// The batch's output rows, one after the other.
    out: &'a mut [F],
    kernel: &'k K,
    scratch: &'s mut K::Scratch,
}

impl<F: Copy, K: RowKernel<F>> Compiled for Batch<'_, '_, '_, F, K> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let extent = self.out.len() / self.starts.len();
        for (k, (row, &start)) in self
            .out
            .chunks_exact_mut(extent)
            .zip(self.starts)
            .enumerate()
        {
            if self.stride == 1 {
                row.copy_from_slice(&self.data[start..start + extent]);
            } else {
                for (slot, value) in
                    row.iter_mut()
                        .zip(run_iter(self.data, start, self.stride, extent))
                {
                    *slot = value;
                }
            }
            self.kernel.row(self.scratch, self.first + k, row);
        }
    }
}
