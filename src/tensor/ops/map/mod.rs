//! `map_unary` and `map_binary`: elementwise closures over views.

mod kernel;

use super::{check_output_shape, output_buffer};
use crate::tensor::array::owned::Tensor;
use crate::tensor::array::view::AsView;
use crate::tensor::error::TensorOpError;
use crate::tensor::shape::broadcast::{broadcast_into, broadcast_strides};
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::checked_len;
use crate::tensor::shape::rank::{BroadcastRank, Rank};
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

/// Fresh-output `map_unary` of any rank: the input's shape and the values.
pub(crate) fn unary_fresh<A: Copy, B: Copy, D: Dims>(
    input: Strided<'_, '_, A>,
    op: impl FnMut(A) -> B,
) -> Result<(D, Vec<B>), TensorOpError> {
    let shape = D::from_slice(input.shape);
    let mut values = output_buffer(checked_len(input.shape)?)?;
    unary_core(input, op, &mut values);
    Ok((shape, values))
}

/// `map_unary` into a caller's row-major output of shape `out_shape`.
pub(crate) fn unary_into<A: Copy, B: Copy>(
    input: Strided<'_, '_, A>,
    op: impl FnMut(A) -> B,
    out_shape: &[usize],
    out: &mut [B],
) -> Result<(), TensorOpError> {
    check_output_shape(input.shape, out_shape)?;
    unary_core(input, op, &mut SliceSink::new(out));
    Ok(())
}

/// The broadcast shape of two operands (NumPy's rule) and its element count.
fn broadcast_of<D: Dims>(left: &[usize], right: &[usize]) -> Result<(D, usize), TensorOpError> {
    let mut shape = D::zeros(left.len().max(right.len()));
    let len = broadcast_into(left, right, shape.as_mut_slice())?;
    Ok((shape, len))
}

/// Fresh-output `map_binary` of any ranks: the broadcast shape and the values.
pub(crate) fn binary_fresh<A: Copy, B: Copy, C: Copy, D: Dims>(
    left: Strided<'_, '_, A>,
    right: Strided<'_, '_, B>,
    op: impl FnMut(A, B) -> C,
) -> Result<(D, Vec<C>), TensorOpError> {
    let (shape, len) = broadcast_of::<D>(left.shape, right.shape)?;
    let mut values = output_buffer(len)?;
    binary_core(shape.as_slice(), left, right, op, &mut values);
    Ok((shape, values))
}

/// `map_binary` into a caller's row-major output of shape `out_shape`.
pub(crate) fn binary_into<A: Copy, B: Copy, C: Copy>(
    left: Strided<'_, '_, A>,
    right: Strided<'_, '_, B>,
    op: impl FnMut(A, B) -> C,
    out_shape: &[usize],
    out: &mut [C],
) -> Result<(), TensorOpError> {
    let (shape, _) = broadcast_of::<DynDims>(left.shape, right.shape)?;
    check_output_shape(shape.as_slice(), out_shape)?;
    binary_core(shape.as_slice(), left, right, op, &mut SliceSink::new(out));
    Ok(())
}

/// Applies `op` to every value, in logical row-major order, into a new tensor.
///
/// Shapes: `[..]` -> the same shape, rank `R` kept; any `Copy` types
/// `A -> B` (e.g. `f64 -> bool` for a mask). `op` runs exactly once per
/// value, in logical row-major order whatever the layout, and never for an
/// empty view. ≈ NumPy ufuncs, PyTorch elementwise ops.
///
/// # Errors
/// [`TensorOpError::OutputAllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::tensor::{ops::map_unary, Tensor};
/// let t = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let squares = map_unary(&t, |x| x * x)?;          // [2, 3] -> [2, 3]
/// assert_eq!(squares.as_slice(), &[1.0, 4.0, 9.0, 16.0, 25.0, 36.0]);
/// let mask: Tensor<2, bool> = map_unary(&t, |x| x > 3.0)?;
/// assert_eq!(mask.as_slice(), &[false, false, false, true, true, true]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn map_unary<const R: usize, A: Copy, B: Copy>(
    input: &(impl AsView<R, A> + ?Sized),
    op: impl FnMut(A) -> B,
) -> Result<Tensor<R, B>, TensorOpError> {
    let (shape, values) = unary_fresh(input.as_view().strided(), op)?;
    Ok(Tensor::from_vec(shape, values)?)
}

/// [`map_unary`] into a caller's tensor of the same shape, reusing its storage.
///
/// # Errors
/// [`TensorOpError::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::tensor::{ops::map_unary_into, Tensor, TensorOpError};
/// let t = Tensor::from_vec([2, 2], vec![1.0, -2.0, 3.0, -4.0])?;
/// let mut out = Tensor::<2>::zeros([2, 2])?;
/// map_unary_into(&t, |x: f64| x.abs(), &mut out)?;
/// assert_eq!(out.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
/// let mut wrong = Tensor::<2>::zeros([1, 4])?;
/// assert!(matches!(map_unary_into(&t, |x| x, &mut wrong), Err(TensorOpError::OutputShapeMismatch { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn map_unary_into<const R: usize, A: Copy, B: Copy>(
    input: &(impl AsView<R, A> + ?Sized),
    op: impl FnMut(A) -> B,
    out: &mut Tensor<R, B>,
) -> Result<(), TensorOpError> {
    let shape = *out.shape();
    unary_into(input.as_view().strided(), op, &shape, out.as_mut_slice())
}

/// Combines two views elementwise after broadcasting them (NumPy's rule,
/// see [`broadcast_shape`](super::broadcast_shape)); no input is copied:
/// broadcast axes are read with stride 0.
///
/// Shapes: `[L]` and `[M]` -> the broadcast shape, rank `max(L, M)`
/// inferred; a rank-0 operand broadcasts to anything. `op(left, right)`
/// runs exactly once per output element, in logical row-major order, left
/// value first, and never for an empty output.
///
/// # Errors
/// - [`TensorOpError::IncompatibleBroadcast`] (leftmost failing output axis);
/// - `TensorOpError::Tensor(TensorError::ShapeOverflow)` for an overflowing output;
/// - [`TensorOpError::OutputAllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::tensor::{ops::map_binary, Tensor};
/// let tokens = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
/// let biased = map_binary(&tokens, &bias, |x, b| x + b)?; // [2,3] + [3] -> [2,3]
/// assert_eq!(biased.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn map_binary<const L: usize, const M: usize, const O: usize, A: Copy, B: Copy, C: Copy>(
    left: &(impl AsView<L, A> + ?Sized),
    right: &(impl AsView<M, B> + ?Sized),
    op: impl FnMut(A, B) -> C,
) -> Result<Tensor<O, C>, TensorOpError>
where
    Rank<L>: BroadcastRank<Rank<M>, Output = Rank<O>>,
{
    let (left, right) = (left.as_view(), right.as_view());
    let (shape, values) = binary_fresh(left.strided(), right.strided(), op)?;
    Ok(Tensor::from_vec(shape, values)?)
}

/// [`map_binary`] into a caller's tensor of the broadcast shape, reusing its storage.
///
/// # Errors
/// As for [`map_binary`] (but no allocation), and
/// [`TensorOpError::OutputShapeMismatch`] if `out` does not have the broadcast shape.
///
/// ```
/// use llm_from_scratch::tensor::{ops::map_binary_into, Tensor, TensorOpError};
/// let tokens = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
/// let mut out = Tensor::<2>::zeros([2, 3])?;
/// map_binary_into(&tokens, &bias, |x, b| x + b, &mut out)?; // [2,3] + [3] -> [2,3]
/// assert_eq!(out.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
/// let mut wrong = Tensor::<2>::zeros([3, 2])?;
/// assert!(matches!(map_binary_into(&tokens, &bias, |x, b| x + b, &mut wrong), Err(TensorOpError::OutputShapeMismatch { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn map_binary_into<const L: usize, const M: usize, const O: usize, A: Copy, B: Copy, C: Copy>(
    left: &(impl AsView<L, A> + ?Sized),
    right: &(impl AsView<M, B> + ?Sized),
    op: impl FnMut(A, B) -> C,
    out: &mut Tensor<O, C>,
) -> Result<(), TensorOpError>
where
    Rank<L>: BroadcastRank<Rank<M>, Output = Rank<O>>,
{
    let (left, right) = (left.as_view(), right.as_view());
    let shape = *out.shape();
    binary_into(
        left.strided(),
        right.strided(),
        op,
        &shape,
        out.as_mut_slice(),
    )
}
