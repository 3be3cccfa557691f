//! The fused softmax: per group (every position of the other axes), the
//! composition's three steps and nothing allocated:
//! 1. `m`, the max policy's value (first NaN, else the earliest largest);
//! 2. `e_i = exp(x_i - m)` with the crate's `exp` (SIMD, the same bits on
//!    every instruction set), written to the output, and `z`, their sum by
//!    `sum_axis`'s fixed tree (`reduce/tree.rs`);
//! 3. `y_i = e_i / z` in place.
//!
//! These are the composition's operations, one rounding each, with its
//! operands (`max_axis` -> `(x - m).exp()` -> `sum_axis` -> divide), so the
//! result is bit-identical to it for every layout. The input is read from
//! memory once (the maxima), the output written once; the other passes run
//! on values still in cache. Dense groups (attention rows) get their maxima
//! `LANES` at a time, read side by side by the reduction kernel, and are
//! then finished by `row.rs` from the input straight into the output: one
//! vectorized pass for the exponentials and their lane sums, one for the
//! division. A `Gathered` group (a strided input, a contiguous output) is
//! gathered into the output and finished there in place the same way. A
//! group written with a stride (`Columns`) is processed one tree leaf (128
//! values) at a time: `x - m` into a small buffer, `exp` of the buffer as
//! vectors, the values written out and the leaf's lane sums pushed into
//! the tree.

use super::row::exp_normalize;
use crate::tensor::float::{Float, max_step};
use crate::tensor::math::apply::{Function, map_lanes_on};
use crate::tensor::ops::reduce::{Counter, LANES, LEAF, dense_max, dense_max_lanes, leaf_sums};
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::row_major_strides;
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::groups::for_each_group;
use crate::tensor::traverse::parallel::{Split, for_each_block};
use crate::tensor::traverse::plan::run_iter;
use crate::tensor::traverse::simd::{Compiled, Dispatch, tuning};
use crate::tensor::traverse::sink::{Sink, SliceSink};
use std::ops::Range;

/// How each group is read and written: data a test can inspect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SoftmaxStrategy {
    /// The axis has stride 1 in the input and is the last axis of the
    /// (row-major) output, as for attention scores: slices, the vectorized
    /// partial maxima for `m`, and the output appended group after group.
    Dense,
    /// The output's groups are contiguous and in order as for `Dense`, but
    /// the input is read with a stride (a transposed view).
    Gathered,
    /// The axis is not the last one of the output, so a group's values are
    /// `I` apart there (`I`, the product of the later extents): the output
    /// is reserved whole and written with that stride.
    Columns,
}

impl SoftmaxStrategy {
    /// The strategy for an axis read with `in_stride` and written with `out_stride`.
    pub(crate) fn of(in_stride: usize, out_stride: usize) -> Self {
        match (in_stride, out_stride) {
            (1, 1) => SoftmaxStrategy::Dense,
            (_, 1) => SoftmaxStrategy::Gathered,
            _ => SoftmaxStrategy::Columns,
        }
    }
}

/// `exp(x - m)` of up to one leaf of a group's values into `out[..n]` by
/// the crate's vectorized `exp`, returning the leaf's lane sums (the tree
/// of `sum_axis` from step 1 of `reduce/tree.rs`) and the count `n`.
#[inline(always)]
fn exp_leaf<F: Float>(
    dispatch: Dispatch,
    values: &mut impl Iterator<Item = F>,
    m: F,
    out: &mut [F; LEAF],
) -> usize {
    let mut shifted = [F::ZERO; LEAF];
    let mut n = 0;
    for (slot, x) in shifted.iter_mut().zip(values) {
        *slot = x - m;
        n += 1;
    }
    map_lanes_on(dispatch, Function::Exp, &shifted[..n], &mut out[..n]);
    n
}

/// Step 2 for one group: `exp(values - m)` handed to `write` leaf by leaf
/// (`write(first index, values)`), and `z`, their tree sum.
#[inline(always)]
fn exp_and_sum<F: Float>(
    dispatch: Dispatch,
    counter: &mut Counter<F>,
    mut values: impl Iterator<Item = F>,
    m: F,
    extent: usize,
    mut write: impl FnMut(usize, &[F]),
) -> F {
    counter.reset();
    let mut leaf = [F::ZERO; LEAF];
    let mut first = 0;
    while first < extent {
        let n = exp_leaf(dispatch, &mut values, m, &mut leaf);
        write(first, &leaf[..n]);
        counter.push(leaf_sums(&leaf[..n]));
        first += n;
    }
    counter.finish()
}

/// Writes the softmax of every group along `axis` to `sink` (row-major,
/// the input's shape, `len` values), on the calling thread. Nothing to do
/// for an empty output.
pub(crate) fn softmax<F: Float>(
    input: Strided<'_, '_, F>,
    axis: usize,
    len: usize,
    sink: &mut impl Sink<F>,
) {
    if len == 0 {
        return;
    }
    let geometry = Geometry::new(input, axis);
    geometry.groups(0..len / geometry.extent, 0, sink);
}

/// [`softmax`] into `out` (the input's element count), split into
/// contiguous blocks of whole groups over `threads` threads: blocks of
/// groups for `Dense` and `Gathered`, blocks of positions of the axes
/// before `axis` for `Columns` (whose groups interleave within one such
/// position). Every group is computed whole by one task, in its order.
pub(crate) fn softmax_blocks<F: Float>(
    input: Strided<'_, '_, F>,
    axis: usize,
    out: &mut [F],
    threads: usize,
) {
    if out.is_empty() {
        return;
    }
    let geometry = Geometry::new(input, axis);
    // Groups per unit of the split, and the unit's values.
    let groups = match geometry.strategy {
        SoftmaxStrategy::Columns => geometry.out_stride,
        SoftmaxStrategy::Dense | SoftmaxStrategy::Gathered => 1,
    };
    let unit = groups * geometry.extent;
    let split = Split { unit, min_units: 1 };
    for_each_block(out, split, threads, |units, block| {
        let sink = &mut SliceSink::new(block);
        geometry.groups(
            units.start * groups..units.end * groups,
            units.start * unit,
            sink,
        );
    });
}

/// Where the groups of a softmax along one axis lie in the input and in
/// the (row-major) output, and how they are read.
struct Geometry<'a, 's, F> {
    input: Strided<'a, 's, F>,
    axis: usize,
    extent: usize,
    in_stride: usize,
    out_stride: usize,
    out_strides: DynDims,
    strategy: SoftmaxStrategy,
    /// The instruction set, read on the calling thread (the tuning hook is
    /// thread-local, and the groups may run on rayon's workers).
    dispatch: Dispatch,
}

impl<'a, 's, F: Float> Geometry<'a, 's, F> {
    /// The geometry of a non-empty input's groups along `axis`.
    fn new(input: Strided<'a, 's, F>, axis: usize) -> Self {
        let shape = input.shape;
        let mut out_strides = DynDims::zeros(shape.len());
        // The output's length was checked, so its row-major strides fit.
        let _ = row_major_strides(shape, out_strides.as_mut_slice(), "");
        let (in_stride, out_stride) = (input.strides[axis], out_strides.as_slice()[axis]);
        Self {
            input,
            axis,
            extent: shape[axis],
            in_stride,
            out_stride,
            out_strides,
            strategy: SoftmaxStrategy::of(in_stride, out_stride),
            dispatch: Dispatch::new(tuning().simd),
        }
    }

    /// Writes the groups `groups` (row-major positions over the other
    /// axes) to `sink`, which holds the output from offset `out_first`:
    /// exactly those groups' values.
    fn groups(&self, groups: Range<usize>, out_first: usize, sink: &mut impl Sink<F>) {
        let (data, extent, in_stride) = (self.input.data, self.extent, self.in_stride);
        let count = groups.len();
        let counter = &mut Counter::new();
        let each = |group: &mut dyn FnMut(usize, usize)| {
            let Strided {
                shape,
                strides,
                base,
                ..
            } = self.input;
            let out_strides = self.out_strides.as_slice();
            for_each_group(
                shape,
                strides,
                base,
                self.axis,
                out_strides,
                groups.clone(),
                group,
            );
        };
        match self.strategy {
            SoftmaxStrategy::Dense => {
                // Groups `LANES` at a time: their maxima read side by side.
                let mut block = [0; LANES];
                let mut filled = 0;
                each(&mut |x, _| {
                    block[filled] = x;
                    filled += 1;
                    if filled == LANES {
                        dense_block(self.dispatch, counter, data, &block, extent, sink);
                        filled = 0;
                    }
                });
                dense_block(self.dispatch, counter, data, &block[..filled], extent, sink);
            }
            SoftmaxStrategy::Gathered => each(&mut |x, _| {
                let values = || run_iter(data, x, in_stride, extent);
                let m = values().skip(1).fold(data[x], max_step);
                sink.extend_run(extent, values());
                finish(self.dispatch, counter, m, extent, sink);
            }),
            SoftmaxStrategy::Columns => {
                let out = sink.next_slots(count * extent, F::ZERO);
                each(&mut |x, o| {
                    let group = Group {
                        start: x,
                        stride: in_stride,
                        out_start: o - out_first,
                        out_stride: self.out_stride,
                        extent,
                    };
                    group.run(self.dispatch, counter, data, out);
                });
            }
        }
    }
}

/// Dense groups of `extent >= 1` values starting at `starts` (at most
/// `LANES`), appended to `sink` one after the other: the maxima of all of
/// them (read side by side when there are `LANES`), then each group's
/// exponentials and sum leaf by leaf, and its division while the group is
/// in cache.
fn dense_block<F: Float>(
    dispatch: Dispatch,
    counter: &mut Counter<F>,
    data: &[F],
    starts: &[usize],
    extent: usize,
    sink: &mut impl Sink<F>,
) {
    let group = |start: usize| &data[start..start + extent];
    let mut maxima = [F::ZERO; LANES];
    if let Ok(lanes) = <[usize; LANES]>::try_from(starts) {
        maxima = dispatch.compile(MaxLanes(lanes.map(group)));
    } else {
        for (m, &start) in maxima.iter_mut().zip(starts) {
            *m = dense_max(group(start));
        }
    }
    for (&m, &start) in maxima.iter().zip(starts) {
        // The scores are read from the input, the output written once.
        let out = sink.next_slots(extent, F::ZERO);
        exp_normalize(
            dispatch,
            counter,
            Some(group(start)),
            out,
            extent,
            m,
            F::ZERO,
        );
    }
}

/// The softmax of the group whose `extent` values were just appended to
/// `sink`, from its maximum `m`: exponentiated, summed and divided in place
/// ([`exp_normalize`], a vectorized pass each while the group is in cache).
#[inline(always)]
fn finish<F: Float>(
    dispatch: Dispatch,
    counter: &mut Counter<F>,
    m: F,
    extent: usize,
    sink: &mut impl Sink<F>,
) {
    let group = sink.written_mut(extent);
    exp_normalize(dispatch, counter, None, group, extent, m, F::ZERO);
}

/// [`dense_max_lanes`] compiled for the dispatched instruction set (its
/// partial maxima at the vector width, not the baseline's).
struct MaxLanes<'a, F>([&'a [F]; LANES]);

impl<F: Float> Compiled for MaxLanes<'_, F> {
    type Output = [F; LANES];
    #[inline(always)]
    fn run(self) -> [F; LANES] {
        dense_max_lanes(self.0)
    }
}

/// One strided group: `extent >= 1` values from `start`, `stride` apart,
/// written from `out_start`, `out_stride` apart.
struct Group {
    start: usize,
    stride: usize,
    out_start: usize,
    out_stride: usize,
    extent: usize,
}

impl Group {
    fn run<F: Float>(
        &self,
        dispatch: Dispatch,
        counter: &mut Counter<F>,
        data: &[F],
        out: &mut [F],
    ) {
        let values = || run_iter(data, self.start, self.stride, self.extent);
        let m = values().skip(1).fold(data[self.start], max_step);
        let z = exp_and_sum(
            dispatch,
            counter,
            values(),
            m,
            self.extent,
            |first, leaf| {
                for (k, &e) in leaf.iter().enumerate() {
                    out[self.out_start + (first + k) * self.out_stride] = e;
                }
            },
        );
        for k in 0..self.extent {
            let slot = &mut out[self.out_start + k * self.out_stride];
            *slot = *slot / z;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The composition, coordinate by coordinate: `max_step` fold, then
    /// the crate's scalar `exp(x - m)`, the tree sum, and the division.
    fn composed(group: &[f64]) -> Vec<f64> {
        let m = group[1..].iter().copied().fold(group[0], max_step);
        let e: Vec<f64> = group
            .iter()
            .map(|&x| crate::tensor::math::scalar::exp(x - m))
            .collect();
        let z = crate::tensor::ops::tree_sum(&e);
        e.iter().map(|&e| e / z).collect()
    }

    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn the_strategy_follows_the_axis_strides() {
        assert_eq!(SoftmaxStrategy::of(1, 1), SoftmaxStrategy::Dense);
        assert_eq!(SoftmaxStrategy::of(7, 1), SoftmaxStrategy::Gathered);
        assert_eq!(SoftmaxStrategy::of(1, 4), SoftmaxStrategy::Columns);
    }

    #[test]
    fn dense_and_strided_groups_equal_the_composition() {
        let rows: [&[f64]; 5] = [
            &[1.0, 2.0, 3.0],
            &[0.5; 40],
            &[-1.0, f64::NEG_INFINITY, 4.0, -0.0, 0.0, 1e300, -3.5],
            &[f64::NEG_INFINITY, f64::NEG_INFINITY],
            // Several leaves, the last one partial.
            &(0..300)
                .map(|i| f64::from(i % 37) * 0.41 - 3.0)
                .collect::<Vec<_>>(),
        ];
        for row in rows {
            let expected = composed(row);
            // Blocks of 1 and of `LANES` copies of the row, into both sinks.
            let copies: Vec<f64> = (0..LANES).flat_map(|_| row.iter().copied()).collect();
            let starts: Vec<usize> = (0..LANES).map(|k| k * row.len()).collect();
            for count in [1, LANES] {
                let mut out = vec![9.0];
                dense_block(
                    Dispatch::new(tuning().simd),
                    &mut Counter::new(),
                    &copies,
                    &starts[..count],
                    row.len(),
                    &mut out,
                );
                let want: Vec<f64> = (0..count).flat_map(|_| expected.iter().copied()).collect();
                assert_eq!(bits(&out[1..]), bits(&want), "{row:?} x {count}");
                let mut into = vec![9.0; want.len()];
                dense_block(
                    Dispatch::new(tuning().simd),
                    &mut Counter::new(),
                    &copies,
                    &starts[..count],
                    row.len(),
                    &mut SliceSink::new(&mut into),
                );
                assert_eq!(bits(&into), bits(&want), "{row:?} x {count} into");
            }
            // The same row stored every third value, written every second slot.
            let spread: Vec<f64> = row.iter().flat_map(|&x| [x, 7.0, 7.0]).collect();
            let mut strided_out = vec![9.0; 2 * row.len()];
            let group = Group {
                start: 0,
                stride: 3,
                out_start: 1,
                out_stride: 2,
                extent: row.len(),
            };
            group.run(
                Dispatch::new(tuning().simd),
                &mut Counter::new(),
                &spread,
                &mut strided_out,
            );
            let written: Vec<f64> = strided_out.iter().skip(1).step_by(2).copied().collect();
            assert_eq!(bits(&written), bits(&expected), "{row:?} strided");
        }
    }
}
