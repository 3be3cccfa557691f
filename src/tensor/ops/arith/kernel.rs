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
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::simd::{threads_for_bytes, tuning};
use crate::tensor::traverse::zip::zip_blocks;

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

/// `out <- op(left, right)` over `shape` in logical row-major order (`out`
/// holds the shape's element count), on the threads the output's size
/// allows.
pub(crate) fn arith_blocks<T: Element>(
    op: Arith,
    shape: &[usize],
    left: Strided<'_, '_, T>,
    right: Strided<'_, '_, T>,
    out: &mut [T],
) {
    let threads = arith_threads::<T>(out.len());
    let (l, r) = (left, right);
    match op {
        Arith::Add => zip_blocks(shape, l, r, out, threads, |a, b| Arith::Add.apply(a, b)),
        Arith::Sub => zip_blocks(shape, l, r, out, threads, |a, b| Arith::Sub.apply(a, b)),
        Arith::Mul => zip_blocks(shape, l, r, out, threads, |a, b| Arith::Mul.apply(a, b)),
        Arith::Div => zip_blocks(shape, l, r, out, threads, |a, b| Arith::Div.apply(a, b)),
    }
}

/// Threads for an operation writing `len` values of `T` (three streams:
/// two read, one written), against the memory-bound threshold.
pub(crate) fn arith_threads<T>(len: usize) -> usize {
    threads_for_bytes(len.saturating_mul(3 * size_of::<T>()), tuning())
}
