//! The fused softmax: per group (every position of the other axes), three
//! ascending passes over the group and nothing else allocated:
//! 1. `m`, the max policy's value (first NaN, else the earliest largest);
//! 2. `e_i = exp(x_i - m)` written to the output while `z` sums them from
//!    +0.0 in ascending `i`;
//! 3. `y_i = e_i / z` in place.
//!
//! These are the composition's operations, one rounding each, in its order
//! per element (`max_axis` -> `exp(x - m)` -> `sum_axis` -> divide), so the
//! result is bit-identical to it for every layout, while the group is read
//! from memory once and stays in cache for the other passes.

use crate::tensor::float::{Float, max_step};
use crate::tensor::ops::reduce::dense_max;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::row_major_strides;
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::groups::for_each_group;
use crate::tensor::traverse::plan::run_iter;

/// How each group is read and written: data a test can inspect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SoftmaxStrategy {
    /// The axis has stride 1 in the input and in the (row-major) output,
    /// i.e. it is the last axis of a row-wise dense input (attention
    /// scores): slices, and the vectorized partial maxima for `m`.
    Dense,
    /// Any other layout: the group's values `stride` apart in the input,
    /// and `I` apart in the output (`I` the product of the later extents).
    Strided,
}

impl SoftmaxStrategy {
    /// The strategy for an axis read with `in_stride` and written with `out_stride`.
    pub(crate) fn of(in_stride: usize, out_stride: usize) -> Self {
        if in_stride == 1 && out_stride == 1 {
            SoftmaxStrategy::Dense
        } else {
            SoftmaxStrategy::Strided
        }
    }
}

/// Writes the softmax of every group along `axis` into `out` (row-major,
/// the input's shape). Nothing to do for an empty output.
pub(crate) fn softmax<F: Float>(input: Strided<'_, '_, F>, axis: usize, out: &mut [F]) {
    if out.is_empty() {
        return;
    }
    let (shape, strides, data) = (input.shape, input.strides, input.data);
    let extent = shape[axis];
    let mut out_strides = DynDims::zeros(shape.len());
    // The output's length was checked, so its row-major strides fit.
    let _ = row_major_strides(shape, out_strides.as_mut_slice());
    let (in_stride, out_stride) = (strides[axis], out_strides.as_slice()[axis]);
    let strategy = SoftmaxStrategy::of(in_stride, out_stride);
    let out_strides = out_strides.as_slice();
    for_each_group(
        shape,
        strides,
        input.base,
        axis,
        out_strides,
        |x, o| match strategy {
            SoftmaxStrategy::Dense => dense(&data[x..x + extent], &mut out[o..o + extent]),
            SoftmaxStrategy::Strided => {
                let group = Group {
                    start: x,
                    stride: in_stride,
                    out_start: o,
                    out_stride,
                    extent,
                };
                group.run(data, out);
            }
        },
    );
}

/// One dense group: `x` and its output slots, both non-empty.
fn dense<F: Float>(x: &[F], out: &mut [F]) {
    let m = dense_max(x);
    let mut z = F::ZERO;
    for (slot, &value) in out.iter_mut().zip(x) {
        let e = (value - m).exp();
        *slot = e;
        z = z + e;
    }
    for slot in out {
        *slot = *slot / z;
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
    fn run<F: Float>(&self, data: &[F], out: &mut [F]) {
        let values = || run_iter(data, self.start, self.stride, self.extent);
        let m = values().skip(1).fold(data[self.start], max_step);
        let mut z = F::ZERO;
        for (k, value) in values().enumerate() {
            let e = (value - m).exp();
            out[self.out_start + k * self.out_stride] = e;
            z = z + e;
        }
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
    /// `exp(x - m)`, an ascending sum from +0.0, and the division.
    fn composed(group: &[f64]) -> Vec<f64> {
        let m = group[1..].iter().copied().fold(group[0], max_step);
        let e: Vec<f64> = group.iter().map(|&x| (x - m).exp()).collect();
        let z = e.iter().fold(0.0, |z, &e| z + e);
        e.iter().map(|&e| e / z).collect()
    }

    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn the_strategy_follows_the_axis_strides() {
        assert_eq!(SoftmaxStrategy::of(1, 1), SoftmaxStrategy::Dense);
        assert_eq!(SoftmaxStrategy::of(7, 1), SoftmaxStrategy::Strided);
        assert_eq!(SoftmaxStrategy::of(1, 4), SoftmaxStrategy::Strided);
    }

    #[test]
    fn dense_and_strided_groups_equal_the_composition() {
        let rows: [&[f64]; 4] = [
            &[1.0, 2.0, 3.0],
            &[0.5; 40],
            &[-1.0, f64::NEG_INFINITY, 4.0, -0.0, 0.0, 1e300, -3.5],
            &[f64::NEG_INFINITY, f64::NEG_INFINITY],
        ];
        for row in rows {
            let expected = composed(row);
            let mut out = vec![9.0; row.len()];
            dense(row, &mut out);
            assert_eq!(bits(&out), bits(&expected), "{row:?}");
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
            group.run(&spread, &mut strided_out);
            let written: Vec<f64> = strided_out.iter().skip(1).step_by(2).copied().collect();
            assert_eq!(bits(&written), bits(&expected), "{row:?} strided");
        }
    }
}
