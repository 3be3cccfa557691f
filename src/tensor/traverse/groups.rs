//! The groups of a single-axis operation (argmax, softmax): every position
//! of the shape with the axis removed, in logical row-major order, with
//! where the group starts in the input and in the output.

use super::plan::Plan;
use crate::tensor::shape::dims::{Dims, DynDims};
use std::ops::Range;

/// `shape` (or strides) without `axis`; inline (no heap).
pub(crate) fn without_axis(axes: &[usize], axis: usize) -> DynDims {
    let mut kept = DynDims::zeros(axes.len() - 1);
    for (slot, (_, &value)) in kept
        .as_mut_slice()
        .iter_mut()
        .zip(axes.iter().enumerate().filter(|&(a, _)| a != axis))
    {
        *slot = value;
    }
    kept
}

/// Calls `group(input_start, output_start)` once per group of `groups`
/// (their positions in logical row-major order over the shape without
/// `axis`, e.g. `0..count` for all, or one thread's share), in that order.
/// The input is read through `strides` from `base`; `out_strides` are the
/// output's strides over the full shape (the entry of `axis` is ignored),
/// read from 0.
///
/// The walk is the shared odometer ([`Plan`]) over both operands, so
/// coalesced groups cost one addition each, not an index computation.
pub(crate) fn for_each_group(
    shape: &[usize],
    strides: &[usize],
    base: usize,
    axis: usize,
    out_strides: &[usize],
    groups: Range<usize>,
    mut group: impl FnMut(usize, usize),
) {
    let group_shape = without_axis(shape, axis);
    let in_strides = without_axis(strides, axis);
    let out_strides = without_axis(out_strides, axis);
    let plan = Plan::new(
        group_shape.as_slice(),
        [in_strides.as_slice(), out_strides.as_slice()],
        [base, 0],
    );
    let [in_step, out_step] = plan.run_strides;
    plan.for_each_run_in(groups, |[input, output], count| {
        for k in 0..count {
            group(input + k * in_step, output + k * out_step);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_follow_row_major_order_over_the_other_axes() {
        // A transposed [3, 2] owner viewed as [2, 3] (strides [1, 2]); groups
        // along axis 1 start at the two columns, along axis 0 at the rows.
        let mut seen = Vec::new();
        for_each_group(&[2, 3], &[1, 2], 5, 1, &[1, 0], 0..2, |x, o| {
            seen.push((x, o));
        });
        assert_eq!(seen, [(5, 0), (6, 1)]);
        seen.clear();
        for_each_group(&[2, 3], &[1, 2], 0, 0, &[0, 1], 0..3, |x, o| {
            seen.push((x, o));
        });
        assert_eq!(seen, [(0, 0), (2, 1), (4, 2)]);
        // A thread's share: the groups from position 1 on.
        seen.clear();
        for_each_group(&[2, 3], &[1, 2], 0, 0, &[0, 1], 1..3, |x, o| {
            seen.push((x, o));
        });
        assert_eq!(seen, [(2, 1), (4, 2)]);
        // Rank 1: one group at the base; an empty other axis: none.
        seen.clear();
        for_each_group(&[4], &[3], 2, 0, &[1], 0..1, |x, o| seen.push((x, o)));
        assert_eq!(seen, [(2, 0)]);
        seen.clear();
        for_each_group(&[0, 4], &[4, 1], 0, 1, &[1, 0], 0..0, |x, o| {
            seen.push((x, o));
        });
        assert!(seen.is_empty());
        assert_eq!(without_axis(&[2, 3, 4], 1).as_slice(), &[2, 4]);
    }
}
