//! The traversal plan every kernel shares: logical row-major order over one
//! shape read through `N` operands' strides, split into innermost runs.
//!
//! Axes of extent 1 are dropped and adjacent axes that are contiguous for
//! every operand are merged (coalesced), so a dense view becomes one run and
//! the per-run closure sees the longest slices the layout allows. Both steps
//! keep the logical order, so closures still see elements in row-major order.

use crate::tensor::shape::dims::{Dims, DynDims, MAX_DYN_RANK};
use std::ops::Range;

/// The outer axes of a plan, `(extent, stride per operand)`, outermost
/// first, inline: every rank is at most [`MAX_DYN_RANK`], so planning never
/// touches the heap (as three `Vec`s they cost ~200 instructions per call
/// under callgrind, 5% of a whole `[1, 768] + [768]` map).
#[derive(Debug, Clone)]
struct OuterAxes<const N: usize> {
    len: usize,
    axes: [(usize, [usize; N]); MAX_DYN_RANK],
}

impl<const N: usize> OuterAxes<N> {
    fn new() -> Self {
        Self {
            len: 0,
            axes: [(0, [0; N]); MAX_DYN_RANK],
        }
    }

    fn as_slice(&self) -> &[(usize, [usize; N])] {
        &self.axes[..self.len]
    }

    fn last_mut(&mut self) -> Option<&mut (usize, [usize; N])> {
        self.axes[..self.len].last_mut()
    }

    fn push(&mut self, axis: (usize, [usize; N])) {
        self.axes[self.len] = axis;
        self.len += 1;
    }

    fn pop(&mut self) -> Option<(usize, [usize; N])> {
        let last = *self.as_slice().last()?;
        self.len -= 1;
        Some(last)
    }
}

/// A coalesced plan over `N` operands. Built only from layouts that were
/// already checked to lie inside their storage.
#[derive(Debug, Clone)]
pub(crate) struct Plan<const N: usize> {
    /// Outer axes (outermost first); the innermost run is separate.
    outer: OuterAxes<N>,
    /// Extent of the innermost run (at least 1 for a non-empty plan).
    pub(crate) run_len: usize,
    /// Innermost stride per operand.
    pub(crate) run_strides: [usize; N],
    /// Start offset per operand.
    pub(crate) bases: [usize; N],
    /// Total element count (0 when any extent is 0).
    pub(crate) len: usize,
}

impl<const N: usize> Plan<N> {
    /// Coalesces `shape` read through `strides[o]` from `bases[o]`.
    pub(crate) fn new(shape: &[usize], strides: [&[usize]; N], bases: [usize; N]) -> Self {
        let empty = shape.contains(&0);
        let mut axes = OuterAxes::new();
        for (axis, &extent) in shape.iter().enumerate() {
            if extent == 1 {
                continue;
            }
            let these = std::array::from_fn(|o| strides[o][axis]);
            if let Some((last_extent, last_strides)) = axes.last_mut() {
                let mergeable =
                    (0..N).all(|o| these[o].checked_mul(extent) == Some(last_strides[o]));
                if mergeable && !empty {
                    *last_extent *= extent;
                    *last_strides = these;
                    continue;
                }
            }
            axes.push((extent, these));
        }
        let (run_len, run_strides) = axes.pop().unwrap_or((1, [0; N]));
        let len = if empty {
            0
        } else {
            axes.as_slice()
                .iter()
                .fold(run_len, |count, (extent, _)| count * extent)
        };
        Self {
            outer: axes,
            run_len,
            run_strides,
            bases,
            len,
        }
    }

    /// The number of outer axes left after coalescing.
    #[cfg(test)]
    pub(crate) fn outer_rank(&self) -> usize {
        self.outer.len
    }

    /// The outer axes, `(extent, stride per operand)`, outermost first.
    pub(crate) fn outer_axes(&self) -> &[(usize, [usize; N])] {
        self.outer.as_slice()
    }

    /// Calls `run(starts)` once per innermost run, in logical row-major order;
    /// each run has `run_len` elements stepping by `run_strides`.
    ///
    /// The last outer axis is a plain counted loop (no odometer step per
    /// run), so layouts with many short runs (split/merge heads: runs of 64)
    /// pay little per run.
    pub(crate) fn for_each_run(&self, mut run: impl FnMut([usize; N])) {
        if self.len == 0 {
            return;
        }
        let Some((&(extent, step), others)) = self.outer_axes().split_last() else {
            run(self.bases);
            return;
        };
        let mut position = DynDims::zeros(others.len());
        let mut starts = self.bases;
        loop {
            let mut at = starts;
            run(at);
            for _ in 1..extent {
                for (start, step) in at.iter_mut().zip(step) {
                    *start += step;
                }
                run(at);
            }
            if !advance(others, position.as_mut_slice(), &mut starts) {
                return;
            }
        }
    }

    /// A resumable cursor over the run starts, for iterators.
    pub(crate) fn runs(&self) -> Runs<N> {
        Runs {
            position: DynDims::zeros(self.outer.len),
            next: (self.len != 0).then_some(self.bases),
        }
    }

    /// The cursor positioned at the run holding element `index` (in logical
    /// row-major order, `index < len`), and how far into that run `index`
    /// lies: where a thread that owns output elements from `index` on
    /// starts. The run's coordinates are `index / run_len` spelled out over
    /// the outer extents; the odometer ([`Runs::next`]) goes on from there.
    pub(crate) fn runs_from(&self, index: usize) -> (Runs<N>, usize) {
        debug_assert!(index < self.len, "{index} is past the plan's {}", self.len);
        let axes = self.outer_axes();
        let mut position = DynDims::zeros(axes.len());
        let mut starts = self.bases;
        let mut run = index / self.run_len;
        for ((extent, strides), digit) in axes.iter().zip(position.as_mut_slice()).rev() {
            *digit = run % extent;
            run /= extent;
            for (start, stride) in starts.iter_mut().zip(strides) {
                *start += *digit * stride;
            }
        }
        let runs = Runs {
            position,
            next: Some(starts),
        };
        (runs, index % self.run_len)
    }

    /// Calls `run(starts, count)` for the elements `range` (logical
    /// row-major order, `range.end <= len`), run by run: the first and last
    /// pieces may be parts of runs. A thread's share of an output.
    pub(crate) fn for_each_run_in(
        &self,
        range: Range<usize>,
        mut run: impl FnMut([usize; N], usize),
    ) {
        if range.is_empty() {
            return;
        }
        let (mut runs, mut skip) = self.runs_from(range.start);
        let mut left = range.len();
        while let Some(starts) = runs.next(self) {
            let count = (self.run_len - skip).min(left);
            run(
                std::array::from_fn(|o| starts[o] + skip * self.run_strides[o]),
                count,
            );
            left -= count;
            if left == 0 {
                return;
            }
            skip = 0;
        }
    }
}

/// Steps the run starts of `axes` (see [`odometer`]).
pub(crate) fn advance<const N: usize>(
    axes: &[(usize, [usize; N])],
    position: &mut [usize],
    starts: &mut [usize; N],
) -> bool {
    odometer(position, |axis| axes[axis], starts)
}

/// The next coordinate of a row-major walk over `shape`; `false` after the
/// last one (see [`odometer`]).
pub(crate) fn next_index(shape: &[usize], index: &mut [usize]) -> bool {
    odometer(index, |axis| (shape[axis], []), &mut [])
}

/// The one odometer: steps a row-major `position` (last axis fastest) over
/// the extents `axis(a).0` and moves the operands' `starts` by the strides
/// `axis(a).1` with it. Returns `false` after the last position (then
/// `position` is back at zero and `starts` at their beginning).
#[inline]
fn odometer<const N: usize>(
    position: &mut [usize],
    axis: impl Fn(usize) -> (usize, [usize; N]),
    starts: &mut [usize; N],
) -> bool {
    for (a, index) in position.iter_mut().enumerate().rev() {
        let (extent, strides) = axis(a);
        *index += 1;
        if *index < extent {
            for (start, stride) in starts.iter_mut().zip(strides) {
                *start += stride;
            }
            return true;
        }
        *index = 0;
        for (start, stride) in starts.iter_mut().zip(strides) {
            *start -= (extent - 1) * stride;
        }
    }
    false
}

/// The state of [`Plan::runs`]: where the next run starts.
#[derive(Debug, Clone)]
pub(crate) struct Runs<const N: usize> {
    position: DynDims,
    next: Option<[usize; N]>,
}

impl<const N: usize> Runs<N> {
    /// A cursor with no runs left.
    pub(crate) fn finished() -> Self {
        Self {
            position: DynDims::zeros(0),
            next: None,
        }
    }

    /// The start of the next run of `plan`, or `None` after the last.
    pub(crate) fn next(&mut self, plan: &Plan<N>) -> Option<[usize; N]> {
        let current = self.next?;
        let mut starts = current;
        self.next =
            advance(plan.outer_axes(), self.position.as_mut_slice(), &mut starts).then_some(starts);
        Some(current)
    }
}

/// The `len` elements of a run starting at `start` with `stride`, as an iterator.
/// `stride == 0` repeats one element (a broadcast axis).
///
/// A map over a `Range`: exact length and `TrustedLen`, so `Vec::extend`
/// reserves once and writes without a capacity check per element (a
/// `step_by`/`flat_map` chain has neither and ran ~3× slower per element).
#[inline]
pub(crate) fn run_iter<T: Copy>(
    data: &[T],
    start: usize,
    stride: usize,
    len: usize,
) -> impl ExactSizeIterator<Item = T> + '_ {
    (0..len).map(move |k| data[start + k * stride])
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Offsets coordinate by coordinate, no coalescing.
    pub(crate) fn naive_offsets(shape: &[usize], strides: &[usize], base: usize) -> Vec<usize> {
        let mut offsets = Vec::new();
        if shape.contains(&0) {
            return offsets;
        }
        let mut index = vec![0; shape.len()];
        loop {
            offsets.push(base + index.iter().zip(strides).map(|(i, s)| i * s).sum::<usize>());
            if !next_index(shape, &mut index) {
                return offsets;
            }
        }
    }

    #[test]
    fn runs_cursor_matches_for_each_run() {
        let plan = Plan::new(&[3, 4, 2], [&[1, 6, 3]], [2]);
        let mut expected = Vec::new();
        plan.for_each_run(|[s]| expected.push(s));
        let mut runs = plan.runs();
        let mut seen = Vec::new();
        while let Some([s]) = runs.next(&plan) {
            seen.push(s);
        }
        assert_eq!(seen, expected);
        assert_eq!(
            Plan::new(&[2, 0], [&[1, 1]], [0])
                .runs()
                .next(&Plan::new(&[2, 0], [&[1, 1]], [0])),
            None
        );
    }

    #[test]
    fn runs_from_any_element_resume_the_row_major_walk() {
        // Several outer axes (one spilled past the inline ones), a stride-0
        // axis and a transposed pair, cut into every possible range.
        let layouts: [(&[usize], &[usize], usize); 4] = [
            (&[3, 4, 5], &[1, 15, 3], 2),
            (&[2, 3, 1, 4], &[0, 1, 9, 3], 1),
            (&[7], &[2], 3),
            (&[], &[], 4),
        ];
        for (shape, strides, base) in layouts {
            let plan = Plan::new(shape, [strides, &[0; 4][..shape.len()]], [base, 0]);
            let expected = naive_offsets(shape, strides, base);
            for lo in 0..=expected.len() {
                for hi in lo..=expected.len() {
                    let mut seen = Vec::new();
                    plan.for_each_run_in(lo..hi, |[x, _], count| {
                        assert!(count > 0, "an empty piece");
                        seen.extend((0..count).map(|k| x + k * plan.run_strides[0]));
                    });
                    assert_eq!(seen, expected[lo..hi], "{shape:?} {strides:?} {lo}..{hi}");
                }
            }
        }
        let rank = 10;
        let shape = vec![2; rank];
        let strides: Vec<usize> = (0..rank).map(|axis| 1 << axis).collect();
        let plan = Plan::new(&shape, [&strides], [0]);
        let expected = naive_offsets(&shape, &strides, 0);
        let mut seen = Vec::new();
        plan.for_each_run_in(333..1000, |[x], count| {
            seen.extend((0..count).map(|k| x + k * plan.run_strides[0]));
        });
        assert_eq!(seen, expected[333..1000]);
    }

    #[test]
    fn dense_layout_is_one_run() {
        let plan = Plan::new(&[2, 3, 4], [&[12, 4, 1]], [5]);
        assert_eq!(
            (plan.outer_rank(), plan.run_len, plan.run_strides),
            (0, 24, [1])
        );
    }

    #[test]
    fn runs_follow_row_major_order() {
        // The transpose of a [2,3] owner: shape [3,2], strides [1,3].
        let plan = Plan::new(&[3, 2], [&[1, 3]], [0]);
        let mut starts = Vec::new();
        plan.for_each_run(|[s]| starts.push(s));
        assert_eq!(
            (starts, plan.run_len, plan.run_strides),
            (vec![0, 1, 2], 2, [3])
        );
    }

    #[test]
    fn runs_of_several_outer_axes_follow_row_major_order() {
        // A permuted [4, 3, 5, 2] owner (strides [30, 10, 2, 1]) as [5, 3, 4, 2].
        let (shape, strides) = ([5, 3, 4, 2], [2, 10, 30, 1]);
        let plan = Plan::new(&shape, [&strides, &[24, 8, 2, 1]], [3, 0]);
        let mut seen = Vec::new();
        plan.for_each_run(|[x, o]| {
            seen.extend((0..plan.run_len).map(|k| (x + k * plan.run_strides[0], o + k)));
        });
        let expected: Vec<_> = naive_offsets(&shape, &strides, 3)
            .into_iter()
            .zip(0..120)
            .collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn many_outer_axes_spill_and_keep_their_order() {
        // Axes that never coalesce (strides growing inward): 12 and 9 axes
        // of extent 2, i.e. 11 outer axes (spilled) and 8 (back inline).
        for rank in [12, 9] {
            let shape = vec![2; rank];
            let strides: Vec<usize> = (0..rank).map(|axis| 1 << axis).collect();
            let plan = Plan::new(&shape, [&strides], [0]);
            assert_eq!((plan.outer_rank(), plan.run_len), (rank - 1, 2));
            let mut seen = Vec::new();
            plan.for_each_run(|[x]| seen.extend([x, x + plan.run_strides[0]]));
            let expected = naive_offsets(&shape, &strides, 0);
            assert_eq!(seen, expected, "rank {rank}");
        }
    }

    #[test]
    fn run_iter_splats_stride_zero() {
        let data = [7, 8, 9];
        assert_eq!(run_iter(&data, 1, 0, 3).collect::<Vec<_>>(), [8, 8, 8]);
        assert_eq!(run_iter(&data, 0, 2, 2).collect::<Vec<_>>(), [7, 9]);
    }
}
