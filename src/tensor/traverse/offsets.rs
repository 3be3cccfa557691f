//! Storage offsets of a checked layout in logical row-major order, as an iterator.

use super::plan::{Plan, Runs};
use std::iter::FusedIterator;

/// Storage offsets of a checked layout in logical row-major order.
///
/// Walks the coalesced traversal plan run by run, so a dense layout is one run
/// and a strided one costs one odometer step per run, not per element. A
/// scalar yields its base offset once, an empty layout yields nothing, a
/// stride-0 axis repeats offsets. Nothing is allocated.
#[derive(Debug, Clone)]
pub struct StridedOffsets {
    plan: Plan<1>,
    runs: Runs<1>,
    /// The current run's next offset and how many of its offsets remain.
    at: usize,
    left_in_run: usize,
    remaining: usize,
}

impl StridedOffsets {
    /// A cursor over a layout already checked to fit its storage.
    pub(crate) fn new(shape: &[usize], strides: &[usize], base: usize) -> Self {
        let plan = Plan::new(shape, [strides], [base]);
        let runs = plan.runs();
        let remaining = plan.len;
        Self {
            plan,
            runs,
            at: 0,
            left_in_run: 0,
            remaining,
        }
    }

    /// The same cursor with its first `index` offsets already taken (a
    /// thread's share of the groups from `index` on), without walking them.
    pub(crate) fn from_index(
        shape: &[usize],
        strides: &[usize],
        base: usize,
        index: usize,
    ) -> Self {
        let mut offsets = Self::new(shape, strides, base);
        if index == 0 {
            return offsets;
        }
        if index >= offsets.remaining {
            offsets.remaining = 0;
            offsets.runs = Runs::finished();
            return offsets;
        }
        let (mut runs, skip) = offsets.plan.runs_from(index);
        if let Some([start]) = runs.next(&offsets.plan) {
            offsets.at = start + skip * offsets.plan.run_strides[0];
            offsets.left_in_run = offsets.plan.run_len - skip;
        }
        offsets.runs = runs;
        offsets.remaining -= index;
        offsets
    }
}

impl Iterator for StridedOffsets {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.left_in_run == 0 {
            let [start] = self.runs.next(&self.plan)?;
            self.at = start;
            self.left_in_run = self.plan.run_len;
        }
        let offset = self.at;
        self.at += self.plan.run_strides[0];
        self.left_in_run -= 1;
        self.remaining -= 1;
        Some(offset)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for StridedOffsets {}
impl FusedIterator for StridedOffsets {}

/// The values of a checked layout in logical row-major order, borrowed
/// from the owner's storage: [`StridedOffsets`] read through the data.
#[derive(Debug, Clone)]
pub struct StridedValues<'a, T> {
    data: &'a [T],
    offsets: StridedOffsets,
}

impl<'a, T> StridedValues<'a, T> {
    /// The values at `offsets` in `data` (a layout checked against `data`).
    pub(crate) fn new(data: &'a [T], offsets: StridedOffsets) -> Self {
        Self { data, offsets }
    }
}

impl<'a, T> Iterator for StridedValues<'a, T> {
    type Item = &'a T;

    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        self.offsets.next().map(|offset| &self.data[offset])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.offsets.size_hint()
    }
}

impl<T> ExactSizeIterator for StridedValues<'_, T> {}
impl<T> FusedIterator for StridedValues<'_, T> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_logical_order() {
        let offsets: Vec<_> = StridedOffsets::new(&[2, 2], &[3, 1], 1).collect();
        assert_eq!(offsets, [1, 2, 4, 5]);
        let transposed: Vec<_> = StridedOffsets::new(&[3, 2], &[1, 3], 0).collect();
        assert_eq!(transposed, [0, 3, 1, 4, 2, 5]);
        assert_eq!(StridedOffsets::new(&[], &[], 7).collect::<Vec<_>>(), [7]);
        assert_eq!(StridedOffsets::new(&[2, 0], &[1, 1], 0).len(), 0);
        assert_eq!(
            StridedOffsets::new(&[2, 3], &[0, 1], 4).collect::<Vec<_>>(),
            [4, 5, 6, 4, 5, 6]
        );
    }

    #[test]
    fn offsets_from_any_index_are_the_rest_of_the_walk() {
        let layouts: [(&[usize], &[usize], usize); 4] = [
            (&[3, 4, 5], &[1, 15, 3], 2),
            (&[2, 3], &[0, 1], 4),
            (&[], &[], 7),
            (&[2, 0], &[1, 1], 0),
        ];
        for (shape, strides, base) in layouts {
            let all: Vec<_> = StridedOffsets::new(shape, strides, base).collect();
            for index in 0..=all.len() + 1 {
                let rest = StridedOffsets::from_index(shape, strides, base, index);
                assert_eq!(rest.len(), all.len().saturating_sub(index));
                let rest: Vec<_> = rest.collect();
                assert_eq!(rest, all[index.min(all.len())..], "{shape:?} from {index}");
            }
        }
    }
}
