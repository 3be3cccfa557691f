//! `+ - * /` over two broadcast layouts, split into contiguous blocks of
//! the output over rayon's threads.
//!
//! Each output element is one IEEE 754 operation on its two inputs in the
//! compute type (one rounding), then one rounding to the element type (none
//! for `f32` / `f64`): no value depends on the block, the thread or the
//! layout. The innermost run is dispatched once per run on its two strides
//! (both dense, one side a stride-0 splat, or gathered), as `map_binary`
//! does; the dense loops are plain slice zips the compiler vectorizes.

use crate::tensor::element::Element;
use crate::tensor::traverse::parallel::{Split, for_each_block};
use crate::tensor::traverse::plan::Plan;
use crate::tensor::traverse::simd::{threads_for_bytes, tuning};

/// Fewest values a task of a threaded operation gets (32 KiB of `f64`).
const MIN_BLOCK_VALUES: usize = 4096;

/// The four arithmetic operations: data the public functions and the
/// in-place forms share (one closure each in [`Arith::apply`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Arith {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a * b`.
    Mul,
    /// `a / b`.
    Div,
}

impl Arith {
    /// The public names: the function, its `_into` form, the in-place form.
    pub(crate) fn names(self) -> [&'static str; 3] {
        match self {
            Arith::Add => ["add", "add_into", "add_assign"],
            Arith::Sub => ["sub", "sub_into", "sub_assign"],
            Arith::Mul => ["mul", "mul_into", "mul_assign"],
            Arith::Div => ["div", "div_into", "div_assign"],
        }
    }

    /// The operation on two values: in the compute type, rounded once.
    #[inline(always)]
    pub(crate) fn apply<T: Element>(self, a: T, b: T) -> T {
        let (a, b) = (a.to_acc(), b.to_acc());
        T::from_acc(match self {
            Arith::Add => a + b,
            Arith::Sub => a - b,
            Arith::Mul => a * b,
            Arith::Div => a / b,
        })
    }
}

/// One operand of [`arith_blocks`]: storage, strides already broadcast to
/// the output shape (0 on broadcast axes), base offset.
#[derive(Clone, Copy)]
pub(crate) struct Operand<'a, 's, T> {
    pub(crate) data: &'a [T],
    pub(crate) strides: &'s [usize],
    pub(crate) base: usize,
}

/// `out <- op(left, right)` over `shape` in logical row-major order (`out`
/// holds the shape's element count), on the threads the output's size
/// allows.
pub(crate) fn arith_blocks<T: Element>(
    op: Arith,
    shape: &[usize],
    left: Operand<'_, '_, T>,
    right: Operand<'_, '_, T>,
    out: &mut [T],
) {
    match op {
        Arith::Add => blocks(shape, left, right, out, |a, b| Arith::Add.apply(a, b)),
        Arith::Sub => blocks(shape, left, right, out, |a, b| Arith::Sub.apply(a, b)),
        Arith::Mul => blocks(shape, left, right, out, |a, b| Arith::Mul.apply(a, b)),
        Arith::Div => blocks(shape, left, right, out, |a, b| Arith::Div.apply(a, b)),
    }
}

/// Threads for an operation writing `len` values of `T` (three streams:
/// two read, one written), against the memory-bound threshold.
pub(crate) fn arith_threads<T>(len: usize) -> usize {
    threads_for_bytes(len.saturating_mul(3 * size_of::<T>()), tuning())
}

/// [`arith_blocks`] with the operation as a closure (one loop per operation).
fn blocks<T: Element>(
    shape: &[usize],
    left: Operand<'_, '_, T>,
    right: Operand<'_, '_, T>,
    out: &mut [T],
    f: impl Fn(T, T) -> T + Sync,
) {
    let plan = Plan::new(
        shape,
        [left.strides, right.strides],
        [left.base, right.base],
    );
    debug_assert_eq!(plan.len, out.len());
    let threads = arith_threads::<T>(plan.len);
    let split = Split {
        unit: 1,
        min_units: MIN_BLOCK_VALUES,
    };
    let [ls, rs] = plan.run_strides;
    let (ld, rd) = (left.data, right.data);
    for_each_block(out, split, threads, |range, block| {
        let mut at = 0;
        plan.for_each_run_in(range, |[l, r], n| {
            let slots = &mut block[at..at + n];
            at += n;
            match (ls, rs) {
                (1, 1) => {
                    let pairs = ld[l..l + n].iter().zip(&rd[r..r + n]);
                    for (slot, (&a, &b)) in slots.iter_mut().zip(pairs) {
                        *slot = f(a, b);
                    }
                }
                (1, 0) => {
                    let b = rd[r];
                    for (slot, &a) in slots.iter_mut().zip(&ld[l..l + n]) {
                        *slot = f(a, b);
                    }
                }
                (0, 1) => {
                    let a = ld[l];
                    for (slot, &b) in slots.iter_mut().zip(&rd[r..r + n]) {
                        *slot = f(a, b);
                    }
                }
                _ => {
                    for (k, slot) in slots.iter_mut().enumerate() {
                        *slot = f(ld[l + k * ls], rd[r + k * rs]);
                    }
                }
            }
        });
    });
}
