//! Elementwise maps over one strided layout or two broadcast layouts.
//!
//! The closure runs exactly once per output element, in logical row-major
//! order, left value first, never for an empty output; the fast paths below
//! change only how values are fetched, not that order.

use super::plan::{Plan, run_iter};
use super::sink::Sink;

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
    let run_len = plan.run_len;
    let data = input.data;
    plan.for_each_run(|[start]| {
        if stride == 1 {
            sink.extend_run(data[start..start + run_len].iter().map(|&a| op(a)));
        } else {
            sink.extend_run(run_iter(data, start, stride, run_len).map(&mut op));
        }
    });
}

/// `sink <- op(left, right)` over the broadcast `shape`, in logical row-major order.
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
            sink.extend_run(pairs.map(|(&a, &b)| op(a, b)));
        }
        (1, 0) => {
            let b = rd[r];
            sink.extend_run(ld[l..l + n].iter().map(|&a| op(a, b)));
        }
        (0, 1) => {
            let a = ld[l];
            sink.extend_run(rd[r..r + n].iter().map(|&b| op(a, b)));
        }
        _ => {
            let pairs = run_iter(ld, l, left_stride, n).zip(run_iter(rd, r, right_stride, n));
            sink.extend_run(pairs.map(|(a, b)| op(a, b)));
        }
    });
}
