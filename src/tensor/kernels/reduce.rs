//! Single-axis sum and max with a fixed per-group order.
//!
//! Every output group is folded in ascending index order along the reduced
//! axis, starting from +0.0 (sum) or the group's first value (max), so the
//! result is bit-identical to the naive ascending fold for every layout.
//! Only the order in which *groups* are visited changes:
//! - `rows`: the reduced axis is not the innermost in memory, so add whole
//!   slices `x[.., i, ..]` into the output for `i = 0, 1, ..` (dense, vectorizable);
//! - `lanes`: the reduced axis is innermost, so fold `LANES` groups side by
//!   side, each still sequentially, to hide the add latency.

use super::offsets::StridedOffsets;
use super::plan::Plan;
use crate::tensor::float::{Float, max_step};

/// Groups folded side by side by the innermost-axis kernel.
const LANES: usize = 8;

/// What a reduction does per group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fold {
    /// Ascending sum from +0.0.
    Sum,
    /// First-NaN, earlier-tie maximum (the axis must be non-empty).
    Max,
}

impl Fold {
    #[inline(always)]
    fn step<F: Float>(self, accumulator: F, value: F) -> F {
        match self {
            Fold::Sum => accumulator + value,
            Fold::Max => max_step(accumulator, value),
        }
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

/// Writes the reduction of every group into `out` (row-major over the
/// shape without `axis`; exactly that many elements).
pub(crate) fn reduce<F: Float>(input: &Reduce<'_, '_, F>, fold: Fold, out: &mut [F]) {
    let extent = input.shape[input.axis];
    if out.is_empty() {
        return;
    }
    if extent == 0 {
        debug_assert_eq!(fold, Fold::Sum);
        out.fill(F::ZERO);
        return;
    }
    let axis_stride = input.strides[input.axis];
    let innermost = input
        .shape
        .iter()
        .zip(input.strides)
        .enumerate()
        .all(|(a, (&e, &s))| a == input.axis || e <= 1 || s >= axis_stride);
    let mut group_shape = input.shape.to_vec();
    let mut group_strides = input.strides.to_vec();
    group_shape.remove(input.axis);
    group_strides.remove(input.axis);
    if innermost {
        lanes(input, fold, &group_shape, &group_strides, out);
    } else {
        rows(input, fold, &group_shape, &group_strides, out);
    }
}

/// Output `+=` whole slices `x[.., i, ..]` for ascending `i`.
fn rows<F: Float>(
    input: &Reduce<'_, '_, F>,
    fold: Fold,
    group_shape: &[usize],
    group_strides: &[usize],
    out: &mut [F],
) {
    let (extent, axis_stride) = (input.shape[input.axis], input.strides[input.axis]);
    let mut out_strides = vec![0; group_shape.len()];
    // The output is dense row-major over the group shape.
    let _ = crate::tensor::layout::row_major_strides(group_shape, &mut out_strides);
    let mut plan = Plan::new(group_shape, [&out_strides, group_strides], [0, input.base]);
    let [_, in_stride] = plan.run_strides;
    let n = plan.run_len;
    let data = input.data;
    let first = match fold {
        Fold::Sum => {
            out.fill(F::ZERO);
            0
        }
        Fold::Max => {
            plan.for_each_run(|[o, x]| {
                for (k, slot) in out[o..o + n].iter_mut().enumerate() {
                    *slot = data[x + k * in_stride];
                }
            });
            1
        }
    };
    for i in first..extent {
        plan.bases = [0, input.base + i * axis_stride];
        plan.for_each_run(|[o, x]| {
            let target = &mut out[o..o + n];
            if in_stride == 1 {
                for (slot, &value) in target.iter_mut().zip(&data[x..x + n]) {
                    *slot = fold.step(*slot, value);
                }
            } else {
                for (k, slot) in target.iter_mut().enumerate() {
                    *slot = fold.step(*slot, data[x + k * in_stride]);
                }
            }
        });
    }
}

/// Folds `LANES` groups side by side along the innermost reduced axis.
fn lanes<F: Float>(
    input: &Reduce<'_, '_, F>,
    fold: Fold,
    group_shape: &[usize],
    group_strides: &[usize],
    out: &mut [F],
) {
    let (extent, stride) = (input.shape[input.axis], input.strides[input.axis]);
    let data = input.data;
    let mut starts = StridedOffsets::new(group_shape, group_strides, input.base, out.len());
    let span = (extent - 1) * stride + 1;
    let mut chunks = out.chunks_exact_mut(LANES);
    for chunk in &mut chunks {
        let groups: [&[F]; LANES] = std::array::from_fn(|_| {
            let start = starts.next().unwrap_or(0);
            &data[start..start + span]
        });
        let mut accumulators: [F; LANES] = std::array::from_fn(|j| match fold {
            Fold::Sum => F::ZERO,
            Fold::Max => groups[j][0],
        });
        let first = usize::from(fold == Fold::Max);
        if stride == 1 {
            for i in first..extent {
                for j in 0..LANES {
                    accumulators[j] = fold.step(accumulators[j], groups[j][i]);
                }
            }
        } else {
            for i in first..extent {
                for j in 0..LANES {
                    accumulators[j] = fold.step(accumulators[j], groups[j][i * stride]);
                }
            }
        }
        chunk.copy_from_slice(&accumulators);
    }
    for slot in chunks.into_remainder() {
        let start = starts.next().unwrap_or(0);
        let group = data[start..start + span].iter().step_by(stride.max(1));
        *slot = match fold {
            Fold::Sum => group.fold(F::ZERO, |acc, &value| fold.step(acc, value)),
            Fold::Max => {
                let mut values = group.copied();
                let head = values.next().unwrap_or(F::ZERO);
                values.fold(head, |acc, value| fold.step(acc, value))
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(data: &[f64], rows: usize, columns: usize, axis: usize, fold: Fold) -> Vec<f64> {
        let (groups, extent) = if axis == 0 {
            (columns, rows)
        } else {
            (rows, columns)
        };
        (0..groups)
            .map(|g| {
                let at = |i: usize| {
                    if axis == 0 {
                        data[i * columns + g]
                    } else {
                        data[g * columns + i]
                    }
                };
                match fold {
                    Fold::Sum => (0..extent).fold(0.0, |acc, i| acc + at(i)),
                    Fold::Max => (1..extent).fold(at(0), |acc, i| max_step(acc, at(i))),
                }
            })
            .collect()
    }

    #[test]
    fn both_strategies_match_the_naive_fold_bit_for_bit() {
        let (rows, columns) = (13, 11);
        let data: Vec<f64> = (0..rows * columns)
            .map(|i| ((i * 7919) % 101) as f64 * 0.1 - 3.3)
            .collect();
        for axis in 0..2 {
            for fold in [Fold::Sum, Fold::Max] {
                let mut out = vec![0.0; if axis == 0 { columns } else { rows }];
                let input = Reduce {
                    data: &data,
                    shape: &[rows, columns],
                    strides: &[columns, 1],
                    base: 0,
                    axis,
                };
                reduce(&input, fold, &mut out);
                let expected = naive(&data, rows, columns, axis, fold);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&out), bits(&expected), "axis {axis} {fold:?}");
            }
        }
    }
}
