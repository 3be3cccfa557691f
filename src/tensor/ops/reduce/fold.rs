//! The max fold as a type ([`Max`], the sums have their tree in `tree.rs`) and the
//! checked input of a reduction, shared by the kernels in `kernel.rs` and
//! `rows.rs`.

use super::partial_max::{PartialMax, STREAM_BLOCK};
use crate::tensor::float::{Float, max_step};

/// Groups folded side by side by the innermost-axis kernels.
pub(crate) const LANES: usize = 8;
/// What a reduction does per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fold {
    /// The fixed-tree sum from +0.0 (`tree.rs`).
    Sum,
    /// First-NaN, earlier-tie maximum (the axis must be non-empty).
    Max,
}

/// A fold as a type, so kernels are monomorphized per fold.
pub(crate) trait Step<F: Float>: Copy + Send + Sync {
    /// Leading values of a group that seed the accumulator (0 or 1).
    const SEEDED: usize;
    /// The accumulator before the values after the seed are folded in.
    fn seed(first: F) -> F;
    /// One step of the ascending fold.
    fn step(accumulator: F, value: F) -> F;
    /// The fold of one dense, non-empty group, equal to the ascending fold.
    fn dense(group: &[F]) -> F {
        let start = Self::seed(group[0]);
        group[Self::SEEDED..]
            .iter()
            .fold(start, |acc, &value| Self::step(acc, value))
    }
    /// [`Step::dense`] of `LANES` groups of one length.
    fn dense_lanes(groups: [&[F]; LANES]) -> [F; LANES] {
        groups.map(Self::dense)
    }
}

/// First-NaN, earlier-tie maximum.
#[derive(Clone, Copy)]
pub(crate) struct Max;

impl<F: Float> Step<F> for Max {
    const SEEDED: usize = 1;
    #[inline(always)]
    fn seed(first: F) -> F {
        first
    }
    #[inline(always)]
    fn step(accumulator: F, value: F) -> F {
        max_step(accumulator, value)
    }
    #[inline(always)]
    fn dense(group: &[F]) -> F {
        let mut partial = PartialMax::new(group[0]);
        partial.update(group);
        partial.finish(group)
    }
    #[inline(always)]
    fn dense_lanes(groups: [&[F]; LANES]) -> [F; LANES] {
        let extent = groups[0].len();
        let mut partial = groups.map(|group| PartialMax::new(group[0]));
        let blocks = extent - extent % STREAM_BLOCK;
        for block in (0..blocks).step_by(STREAM_BLOCK) {
            for (partial, group) in partial.iter_mut().zip(groups) {
                partial.update(&group[block..block + STREAM_BLOCK]);
            }
        }
        for (partial, group) in partial.iter_mut().zip(groups) {
            partial.update(&group[blocks..]);
        }
        std::array::from_fn(|j| partial[j].finish(groups[j]))
    }
}

/// A checked input layout and the axis to reduce.
pub(crate) struct Reduce<'a, 's, F> {
    pub(crate) data: &'a [F],
    pub(crate) shape: &'s [usize],
    pub(crate) strides: &'s [usize],
    pub(crate) base: usize,
    pub(crate) axis: usize,
}
