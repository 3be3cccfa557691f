//! `map_unary` and `map_binary`: elementwise closures over views.

mod kernel;

use super::{check_output_shape, output_buffer, owner};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::shape::broadcast::{broadcast_into, broadcast_strides};
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::checked_len;
use crate::tensor::shape::rank::BroadcastRank;
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::sink::{Sink, SliceSink};
use kernel::Operand;

/// Rank-erased `map_unary` shared by the ranked and dynamic APIs.
pub(crate) fn unary_core<A: Copy, B: Copy>(
    input: Strided<'_, '_, A>,
    op: impl FnMut(A) -> B,
    sink: &mut impl Sink<B>,
) {
    let operand = Operand {
        data: input.data,
        strides: input.strides,
        base: input.base,
    };
    kernel::map_unary(input.shape, operand, op, sink);
}

/// Rank-erased `map_binary` over an already checked broadcast `shape`.
pub(crate) fn binary_core<A: Copy, B: Copy, C: Copy>(
    shape: &[usize],
    left: Strided<'_, '_, A>,
    right: Strided<'_, '_, B>,
    op: impl FnMut(A, B) -> C,
    sink: &mut impl Sink<C>,
) {
    let mut left_strides = DynDims::zeros(shape.len());
    let mut right_strides = DynDims::zeros(shape.len());
    broadcast_strides(left.shape, left.strides, shape, left_strides.as_mut_slice());
    broadcast_strides(
        right.shape,
        right.strides,
        shape,
        right_strides.as_mut_slice(),
    );
    let left = Operand {
        data: left.data,
        strides: left_strides.as_slice(),
        base: left.base,
    };
    let right = Operand {
        data: right.data,
        strides: right_strides.as_slice(),
        base: right.base,
    };
    kernel::map_binary(shape, left, right, op, sink);
}

/// The broadcast shape of two operands (NumPy's rule) and its element count.
pub(crate) fn broadcast_of<A: Dims>(
    left: &[usize],
    right: &[usize],
    op: &'static str,
) -> Result<(A, usize), Error> {
    let mut shape = A::zeros(left.len().max(right.len()));
    let len = broadcast_into(left, right, shape.as_mut_slice(), op)?;
    Ok((shape, len))
}

/// Applies `f` to every value, in logical row-major order, into a new owner.
///
/// Shapes: `[..]` -> the same shape and dimension; any `Copy` types
/// `A -> B` (e.g. `f64 -> bool` for a mask). `f` runs exactly once per
/// value, in logical row-major order whatever the layout, and never for an
/// empty input. ≈ NumPy ufuncs, PyTorch elementwise ops.
///
/// # Errors
/// [`Error::ShapeOverflow`] for an empty view whose shape has no row-major
/// layout; [`Error::AllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let t = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let squares = map_unary(&t, |x| x * x)?;          // [2, 3] -> [2, 3]
/// assert_eq!(squares.as_slice(), &[1.0, 4.0, 9.0, 16.0, 25.0, 36.0]);
/// let mask: Tensor<2, bool> = map_unary(&t, |x| x > 3.0)?;
/// assert_eq!(mask.as_slice(), &[false, false, false, true, true, true]);
/// let d = t.clone().into_dyn();
/// assert_eq!(map_unary(&d, |x| -x)?.shape(), &[2, 3]); // a DynTensor
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn map_unary<D: Dimension, A: Copy, B: Copy>(
    input: &(impl AsArray<D, A> + ?Sized),
    f: impl FnMut(A) -> B,
) -> Result<ArrayBase<Vec<B>, D>, Error> {
    let input = input.as_array();
    let input = input.strided();
    let mut values = output_buffer(checked_len(input.shape, "map_unary")?, "map_unary")?;
    unary_core(input, f, &mut values);
    owner(D::Axes::from_slice(input.shape), values, "map_unary")
}

/// [`map_unary`] into a caller's owner of the same shape, reusing its storage.
///
/// # Errors
/// [`Error::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// let t = Tensor::from_vec([2, 2], vec![1.0, -2.0, 3.0, -4.0])?;
/// let mut out = Tensor::<2>::zeros([2, 2])?;
/// map_unary_into(&t, |x: f64| x.abs(), &mut out)?;
/// assert_eq!(out.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
/// let mut wrong = Tensor::<2>::zeros([1, 4])?;
/// assert!(matches!(map_unary_into(&t, |x| x, &mut wrong), Err(Error::OutputShapeMismatch { .. })));
/// # Ok::<(), Error>(())
/// ```
pub fn map_unary_into<D: Dimension, A: Copy, B: Copy>(
    input: &(impl AsArray<D, A> + ?Sized),
    f: impl FnMut(A) -> B,
    out: &mut ArrayBase<Vec<B>, D>,
) -> Result<(), Error> {
    let input = input.as_array();
    check_output_shape(input.layout.shape(), out.layout.shape(), "map_unary_into")?;
    unary_core(input.strided(), f, &mut SliceSink::new(&mut out.data));
    Ok(())
}

/// Combines two operands elementwise after broadcasting them (NumPy's rule,
/// see [`broadcast_shape`](super::broadcast_shape)); no input is copied:
/// broadcast axes are read with stride 0.
///
/// Shapes: `[L]` and `[M]` -> the broadcast shape, rank `max(L, M)`
/// inferred through [`BroadcastRank`] (two dynamic operands give a dynamic
/// result); a rank-0 operand broadcasts to anything. `f(left, right)` runs
/// exactly once per output element, in logical row-major order, left value
/// first, and never for an empty output.
///
/// # Errors
/// - [`Error::IncompatibleBroadcast`] (leftmost failing output axis);
/// - [`Error::ShapeOverflow`] for an overflowing output;
/// - [`Error::AllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let tokens = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
/// let biased = map_binary(&tokens, &bias, |x, b| x + b)?; // [2,3] + [3] -> [2,3]
/// assert_eq!(biased.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn map_binary<L, M, O, A: Copy, B: Copy, C: Copy>(
    left: &(impl AsArray<L, A> + ?Sized),
    right: &(impl AsArray<M, B> + ?Sized),
    f: impl FnMut(A, B) -> C,
) -> Result<ArrayBase<Vec<C>, O>, Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    let (left, right) = (left.as_array(), right.as_array());
    let (left, right) = (left.strided(), right.strided());
    let (shape, len) = broadcast_of::<O::Axes>(left.shape, right.shape, "map_binary")?;
    let mut values = output_buffer(len, "map_binary")?;
    binary_core(shape.as_slice(), left, right, f, &mut values);
    owner(shape, values, "map_binary")
}

/// [`map_binary`] into a caller's owner of the broadcast shape, reusing its storage.
///
/// # Errors
/// As for [`map_binary`] (but no allocation), and
/// [`Error::OutputShapeMismatch`] if `out` does not have the broadcast shape.
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// let tokens = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
/// let mut out = Tensor::<2>::zeros([2, 3])?;
/// map_binary_into(&tokens, &bias, |x, b| x + b, &mut out)?; // [2,3] + [3] -> [2,3]
/// assert_eq!(out.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
/// let mut wrong = Tensor::<2>::zeros([3, 2])?;
/// assert!(matches!(map_binary_into(&tokens, &bias, |x, b| x + b, &mut wrong), Err(Error::OutputShapeMismatch { .. })));
/// # Ok::<(), Error>(())
/// ```
pub fn map_binary_into<L, M, O, A: Copy, B: Copy, C: Copy>(
    left: &(impl AsArray<L, A> + ?Sized),
    right: &(impl AsArray<M, B> + ?Sized),
    f: impl FnMut(A, B) -> C,
    out: &mut ArrayBase<Vec<C>, O>,
) -> Result<(), Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    let op = "map_binary_into";
    let (left, right) = (left.as_array(), right.as_array());
    let (left, right) = (left.strided(), right.strided());
    let (shape, _) = broadcast_of::<DynDims>(left.shape, right.shape, op)?;
    check_output_shape(shape.as_slice(), out.layout.shape(), op)?;
    binary_core(
        shape.as_slice(),
        left,
        right,
        f,
        &mut SliceSink::new(&mut out.data),
    );
    Ok(())
}

/// The elementwise maps as methods of every readable array: the same rules
/// and errors as [`map_unary`] and [`map_binary`].
impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Copy,
{
    /// [`map_unary`] as a method.
    ///
    /// # Errors
    /// As for [`map_unary`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let t = Tensor::from_vec([2], vec![1.0, -2.0])?;
    /// assert_eq!(t.map_unary(|x: f64| x.abs())?.as_slice(), &[1.0, 2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn map_unary<B: Copy>(
        &self,
        f: impl FnMut(S::Elem) -> B,
    ) -> Result<ArrayBase<Vec<B>, D>, Error> {
        map_unary(self, f)
    }

    /// [`map_binary`] as a method: `f(self, other)` after broadcasting.
    ///
    /// # Errors
    /// As for [`map_binary`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let bias = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// assert_eq!(x.map_binary(&bias, |a, b| a + b)?.as_slice(), &[11.0, 22.0, 13.0, 24.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn map_binary<M: Dimension, O: Dimension, U: Copy, C: Copy>(
        &self,
        other: &(impl AsArray<M, U> + ?Sized),
        f: impl FnMut(S::Elem, U) -> C,
    ) -> Result<ArrayBase<Vec<C>, O>, Error>
    where
        D: BroadcastRank<M, Output = O>,
    {
        map_binary(self, other, f)
    }
}
