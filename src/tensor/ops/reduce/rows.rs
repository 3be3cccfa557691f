//! The `rows` reduction kernel: the reduced axis is outer in memory, so
//! whole slices `x[.., i, ..]` are folded into the output for `i = 0, 1,
//! ..` (dense, vectorizable), one cache-sized block of the output at a
//! time. Every output element is still one ascending fold over `i`.

use super::fold::{Reduce, Step};
use crate::tensor::float::Float;
use crate::tensor::shape::layout::row_major_strides;
use crate::tensor::traverse::plan::Plan;
use crate::tensor::traverse::simd::{Compiled, Dispatch};
use std::marker::PhantomData;
use std::ops::Range;

/// Output elements per block: 2048 f64 = 16 KiB, so the block being
/// accumulated stays in L1 while the input streams past.
const BLOCK: usize = 2048;

/// Output `<- step(output, x[.., i, ..])` for ascending `i`, block by
/// block, for the outputs `range` (row-major over `group_shape`, the input
/// shape without the reduced axis), written to `out` (exactly those).
pub(super) fn rows<F: Float, S: Step<F>>(
    dispatch: Dispatch,
    input: &Reduce<'_, '_, F>,
    group_shape: &[usize],
    group_strides: &[usize],
    range: Range<usize>,
    out: &mut [F],
) {
    for_each_batch(
        input,
        group_shape,
        group_strides,
        range,
        BLOCK,
        |rows, batch| {
            dispatch.compile(FoldBatch::<F, S> {
                rows,
                batch,
                out: &mut *out,
                step: PhantomData,
            });
        },
    );
}

/// Calls `body` with the kernel's geometry and each batch of pieces of
/// runs of the outputs `range` (row-major over `group_shape`):
/// `[output start in the range, input start at i = 0, length]`, about
/// `block` output elements per batch. Each batch is folded over every `i`
/// before the next, so its output block stays in L1. The batch list is
/// bounded (at most `block` entries), never proportional to the output.
pub(super) fn for_each_batch<F: Float>(
    input: &Reduce<'_, '_, F>,
    group_shape: &[usize],
    group_strides: &[usize],
    range: Range<usize>,
    block: usize,
    mut body: impl FnMut(&Rows<'_, F>, &[[usize; 3]]),
) {
    let mut out_strides = vec![0; group_shape.len()];
    // The output is dense row-major over the group shape.
    let _ = row_major_strides(group_shape, &mut out_strides, "");
    let plan = Plan::new(group_shape, [&out_strides, group_strides], [0, input.base]);
    let rows = Rows {
        data: input.data,
        extent: input.shape[input.axis],
        axis_stride: input.strides[input.axis],
        in_stride: plan.run_strides[1],
    };
    let first = range.start;
    let mut batch = Vec::with_capacity(block.min(range.len()));
    let mut batched = 0;
    plan.for_each_run_in(range, |[o, x], count| {
        batch.push([o - first, x, count]);
        batched += count;
        if batched >= block {
            body(&rows, &batch);
            batch.clear();
            batched = 0;
        }
    });
    if !batch.is_empty() {
        body(&rows, &batch);
    }
}

/// [`Rows::fold_batch`] compiled for the dispatched instruction set: the
/// slices are folded with the widest vectors (~15% faster than the SSE2
/// baseline with AVX-512 on 4096² `f64`, BENCHMARKS.md).
struct FoldBatch<'r, 'a, 'b, 'o, F, S> {
    rows: &'r Rows<'a, F>,
    batch: &'b [[usize; 3]],
    out: &'o mut [F],
    step: PhantomData<S>,
}

impl<F: Float, S: Step<F>> Compiled for FoldBatch<'_, '_, '_, '_, F, S> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        self.rows.fold_batch::<S>(self.batch, self.out);
    }
}

/// The fixed geometry of the `rows` kernels.
pub(super) struct Rows<'a, F> {
    pub(super) data: &'a [F],
    /// Extent and stride of the reduced axis.
    pub(super) extent: usize,
    pub(super) axis_stride: usize,
    /// Input stride along a run.
    pub(super) in_stride: usize,
}

impl<F: Float> Rows<'_, F> {
    /// Folds a batch of pieces `[output start, input start at i = 0,
    /// length]` over all `i`.
    #[inline(always)]
    fn fold_batch<S: Step<F>>(&self, batch: &[[usize; 3]], out: &mut [F]) {
        let (data, extent, axis_stride, in_stride) =
            (self.data, self.extent, self.axis_stride, self.in_stride);
        let longest = batch.iter().map(|&[_, _, count]| count).max().unwrap_or(0);
        // A piece longer than `BLOCK` is folded one column block at a time.
        for column0 in (0..longest).step_by(BLOCK) {
            // This column block of every piece that reaches it:
            // (output start, input start at i = 0, width).
            let pieces = || {
                batch
                    .iter()
                    .filter(|piece| piece[2] > column0)
                    .map(|&[o, x, count]| {
                        let width = (count - column0).min(BLOCK);
                        (o + column0, x + column0 * in_stride, width)
                    })
            };
            if S::SEEDED == 0 {
                for (o, _, width) in pieces() {
                    out[o..o + width].fill(S::seed(F::ZERO));
                }
            } else {
                for (o, x, width) in pieces() {
                    self.fold_slice::<S>(&mut out[o..o + width], x, true);
                }
            }
            let mut i = S::SEEDED;
            if in_stride == 1 {
                // Four input rows per pass: still `((o + x_i) + x_{i+1}) + ..`
                // per element, but four read streams in flight.
                while i + 4 <= extent {
                    for (o, x, width) in pieces() {
                        let target = &mut out[o..o + width];
                        let row = |r: usize| {
                            let start = x + (i + r) * axis_stride;
                            &data[start..start + width]
                        };
                        let rows = target.iter_mut().zip(row(0)).zip(row(1)).zip(row(2));
                        for ((((slot, &a), &b), &c), &d) in rows.zip(row(3)) {
                            *slot = S::step(S::step(S::step(S::step(*slot, a), b), c), d);
                        }
                    }
                    i += 4;
                }
            }
            for i in i..extent {
                for (o, x, width) in pieces() {
                    self.fold_slice::<S>(&mut out[o..o + width], x + i * axis_stride, false);
                }
            }
        }
    }

    /// `target <- seed(x[from ..])` (`init`) or `target <- step(target,
    /// x[from ..])`, the input read with the run's stride.
    #[inline(always)]
    pub(super) fn fold_slice<S: Step<F>>(&self, target: &mut [F], from: usize, init: bool) {
        let (data, in_stride, width) = (self.data, self.in_stride, target.len());
        match (in_stride, init) {
            (1, true) => {
                for (slot, &value) in target.iter_mut().zip(&data[from..from + width]) {
                    *slot = S::seed(value);
                }
            }
            (1, false) => {
                for (slot, &value) in target.iter_mut().zip(&data[from..from + width]) {
                    *slot = S::step(*slot, value);
                }
            }
            (_, true) => {
                for (k, slot) in target.iter_mut().enumerate() {
                    *slot = S::seed(data[from + k * in_stride]);
                }
            }
            (_, false) => {
                for (k, slot) in target.iter_mut().enumerate() {
                    *slot = S::step(*slot, data[from + k * in_stride]);
                }
            }
        }
    }
}
