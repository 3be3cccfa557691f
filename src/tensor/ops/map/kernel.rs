//! Elementwise maps over one strided layout or two broadcast layouts.
//!
//! The closure runs exactly once per output element, in logical row-major
//! order, left value first, never for an empty output; the fast paths below
//! change only how values are fetched, not that order.

use crate::tensor::traverse::plan::{Plan, run_iter};
use crate::tensor::traverse::sink::Sink;

/// One operand: its storage and a checked layout (`strides` already
/// effective, i.e. 0 on broadcast axes, when used by `map_binary`).
#[derive(Clone, Copy)]
pub(crate) struct Operand<'a, 's, T> {
    pub(crate) data: &'a [T],
    pub(crate) strides: &'s [usize],
    pub(crate) base: usize,
}

/// `sink <- op(input)` over `shape`, in logical row-major order.
pub(crate) fn map_unary<A: Copy, B: Copy>(
    shape: &[usize],
    input: Operand<'_, '_, A>,
    mut op: impl FnMut(A) -> B,
    sink: &mut impl Sink<B>,
) {
    let plan = Plan::new(shape, [input.strides], [input.base]);
    let [stride] = plan.run_strides;
    let n = plan.run_len;
    let data = input.data;
    plan.for_each_run(|[start]| match stride {
        1 => sink.extend_run(n, data[start..start + n].iter().map(|&a| op(a))),
        _ => sink.extend_run(n, run_iter(data, start, stride, n).map(&mut op)),
    });
}

/// `sink <- op(left, right)` over the broadcast `shape`, in logical row-major order.
///
/// The innermost run is dispatched once per run on its two strides: both
/// dense (a zip of two slices), one side a stride-0 splat (the value is read
/// once per run, e.g. a bias `[C]` added to `[B, T, C]` after coalescing
/// `B, T` into one outer axis), or the general strided gather. Every path
/// calls `op` once per output element, in order, left value first.
pub(crate) fn map_binary<A: Copy, B: Copy, C: Copy>(
    shape: &[usize],
    left: Operand<'_, '_, A>,
    right: Operand<'_, '_, B>,
    mut op: impl FnMut(A, B) -> C,
    sink: &mut impl Sink<C>,
) {
    let plan = Plan::new(
        shape,
        [left.strides, right.strides],
        [left.base, right.base],
    );
    let [left_stride, right_stride] = plan.run_strides;
    let n = plan.run_len;
    let (ld, rd) = (left.data, right.data);
    plan.for_each_run(|[l, r]| match (left_stride, right_stride) {
        (1, 1) => {
            let pairs = ld[l..l + n].iter().zip(&rd[r..r + n]);
            sink.extend_run(n, pairs.map(|(&a, &b)| op(a, b)));
        }
        (1, 0) => {
            let b = rd[r];
            sink.extend_run(n, ld[l..l + n].iter().map(|&a| op(a, b)));
        }
        (0, 1) => {
            let a = ld[l];
            sink.extend_run(n, rd[r..r + n].iter().map(|&b| op(a, b)));
        }
        _ => {
            let pairs = run_iter(ld, l, left_stride, n).zip(run_iter(rd, r, right_stride, n));
            sink.extend_run(n, pairs.map(|(a, b)| op(a, b)));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::traverse::offsets::StridedOffsets;
    use crate::tensor::traverse::sink::SliceSink;

    /// The (left, right) pairs in logical row-major order, by the offset cursor.
    fn expected_pairs(
        shape: &[usize],
        left: Operand<'_, '_, u32>,
        right: Operand<'_, '_, u32>,
    ) -> Vec<(u32, u32)> {
        let l = StridedOffsets::new(shape, left.strides, left.base);
        let r = StridedOffsets::new(shape, right.strides, right.base);
        l.zip(r)
            .map(|(i, j)| (left.data[i], right.data[j]))
            .collect()
    }

    #[test]
    fn closures_see_every_element_once_in_logical_order_left_first() {
        let left_data: Vec<u32> = (0..24).collect();
        let right_data: Vec<u32> = (100..124).collect();
        // (shape, left strides, right strides): dense/dense, dense/splat
        // (a bias row), splat/dense (a column), transposed/strided, both
        // broadcast on the outer axis.
        let cases: [(&[usize], &[usize], &[usize]); 5] = [
            (&[2, 3, 4], &[12, 4, 1], &[12, 4, 1]),
            (&[2, 3, 4], &[12, 4, 1], &[0, 0, 1]),
            (&[2, 3, 4], &[0, 1, 0], &[12, 4, 1]),
            (&[4, 6], &[1, 4], &[1, 2]),
            (&[5, 2, 3], &[0, 3, 1], &[0, 1, 2]),
        ];
        for (shape, left_strides, right_strides) in cases {
            let left = Operand {
                data: &left_data,
                strides: left_strides,
                base: 0,
            };
            let right = Operand {
                data: &right_data,
                strides: right_strides,
                base: 0,
            };
            let expected = expected_pairs(shape, left, right);
            let mut calls = Vec::new();
            let mut fresh = Vec::new();
            let op = |a: u32, b: u32| (a, b);
            map_binary(
                shape,
                left,
                right,
                |a, b| {
                    calls.push((a, b));
                    op(a, b)
                },
                &mut fresh,
            );
            assert_eq!(
                (&calls, &fresh),
                (&expected, &expected),
                "{shape:?} {left_strides:?} {right_strides:?}"
            );
            let mut into = vec![(0, 0); expected.len()];
            map_binary(shape, left, right, op, &mut SliceSink::new(&mut into));
            assert_eq!(into, expected);
            let mut unary_calls = Vec::new();
            let mut unary = Vec::new();
            map_unary(
                shape,
                left,
                |a| {
                    unary_calls.push(a);
                    a * 2
                },
                &mut unary,
            );
            let lefts: Vec<u32> = expected.iter().map(|&(a, _)| a).collect();
            assert_eq!(unary_calls, lefts);
            assert_eq!(unary, lefts.iter().map(|a| a * 2).collect::<Vec<_>>());
        }
    }
}
