//! The operations with run-time ranks: the same cores, numerics and error
//! order as the ranked ones in [`crate::tensor::ops`].

use super::map::{binary_core, unary_core};
use super::matmul::matmul_fresh;
use super::output_buffer;
use super::reduce::Reduction;
use crate::tensor::array::dynamic::{DynTensor, DynView};
use crate::tensor::error::TensorOpError;
use crate::tensor::float::Float;
use crate::tensor::shape::broadcast::broadcast_into;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::checked_len;

/// The broadcast shape of two runtime shapes (NumPy's rule); see
/// [`crate::tensor::ops::broadcast_shape`].
///
/// # Errors
/// [`TensorOpError::IncompatibleBroadcast`] (leftmost failing output axis), then
/// `ShapeOverflow`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::broadcast_shape;
/// assert_eq!(broadcast_shape(&[2, 1, 3], &[4, 3]).unwrap(), vec![2, 4, 3]);
/// ```
pub fn broadcast_shape(left: &[usize], right: &[usize]) -> Result<Vec<usize>, TensorOpError> {
    let mut output = vec![0; left.len().max(right.len())];
    broadcast_into(left, right, &mut output)?;
    Ok(output)
}

/// Elementwise `op` over a dynamic view; see [`crate::tensor::ops::map_unary`].
///
/// # Errors
/// [`TensorOpError::OutputAllocationFailed`].
pub fn map_unary<A: Copy, B: Copy>(
    input: &DynView<'_, A>,
    op: impl FnMut(A) -> B,
) -> Result<DynTensor<B>, TensorOpError> {
    let mut values = output_buffer(input.len())?;
    unary_core(input.strided(), op, &mut values);
    Ok(DynTensor::from_vec(input.shape().to_vec(), values)?)
}

/// Broadcast elementwise `op`; see [`crate::tensor::ops::map_binary`].
///
/// # Errors
/// `IncompatibleBroadcast`, `ShapeOverflow`, `OutputAllocationFailed`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{map_binary, DynTensor};
/// let tokens = DynTensor::from_vec(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let bias = DynTensor::from_vec(vec![3], vec![10.0, 20.0, 30.0])?;
/// let out = map_binary(&tokens.view(), &bias.view(), |x, b| x + b)?; // [2,3] + [3] -> [2,3]
/// assert_eq!(out.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn map_binary<A: Copy, B: Copy, C: Copy>(
    left: &DynView<'_, A>,
    right: &DynView<'_, B>,
    op: impl FnMut(A, B) -> C,
) -> Result<DynTensor<C>, TensorOpError> {
    let shape = broadcast_shape(left.shape(), right.shape())?;
    let mut values = output_buffer(checked_len(&shape)?)?;
    binary_core(&shape, left.strided(), right.strided(), op, &mut values);
    Ok(DynTensor::from_vec(shape, values)?)
}

fn reduce_dyn<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
    reduction: Reduction,
) -> Result<DynTensor<F>, TensorOpError> {
    let (shape, values) = reduction.fresh::<F, DynDims>(input.strided(), axis, keep_dim)?;
    Ok(DynTensor::from_vec(shape.as_slice().to_vec(), values)?)
}

/// Ascending sum over one axis; `keep_dim` keeps it with extent 1. See
/// [`crate::tensor::ops::sum_axis`].
///
/// # Errors
/// `ReductionAxisOutOfBounds`, then `OutputAllocationFailed`.
pub fn sum_axis<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
) -> Result<DynTensor<F>, TensorOpError> {
    reduce_dyn(input, axis, keep_dim, Reduction::Sum)
}

/// Mean over one non-empty axis. See [`crate::tensor::ops::mean_axis`].
///
/// # Errors
/// `ReductionAxisOutOfBounds`, then `EmptyMeanAxis`, then `OutputAllocationFailed`.
pub fn mean_axis<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
) -> Result<DynTensor<F>, TensorOpError> {
    reduce_dyn(input, axis, keep_dim, Reduction::Mean)
}

/// First-NaN, earlier-tie maximum over one non-empty axis. See
/// [`crate::tensor::ops::max_axis`].
///
/// # Errors
/// `ReductionAxisOutOfBounds`, then `EmptyMaxAxis`, then `OutputAllocationFailed`.
pub fn max_axis<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
) -> Result<DynTensor<F>, TensorOpError> {
    reduce_dyn(input, axis, keep_dim, Reduction::Max)
}

/// The batched matrix product with runtime ranks: `[.., m, k] x [.., k, n]
/// -> [batch.., m, n]`, batch axes broadcast (NumPy's rule); the same core,
/// numerics and error order as [`crate::tensor::ops::matmul`], any rank ≥ 2.
///
/// # Errors
/// [`TensorOpError::MatmulRankTooSmall`] for an operand of rank 0 or 1 (the
/// left one first); then, as for the ranked op, `MatmulInnerMismatch`,
/// `IncompatibleBroadcast` (an output axis), `ShapeOverflow`,
/// `OutputAllocationFailed`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{matmul, DynTensor};
/// use llm_from_scratch::tensor::TensorOpError;
/// let a = DynTensor::from_vec(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let b = DynTensor::from_vec(vec![3, 1], vec![1.0, 0.0, -1.0])?;
/// let c = matmul(&a.view(), &b.view())?; // [2, 3] x [3, 1] -> [2, 1]
/// assert_eq!((c.shape(), c.as_slice()), (&[2, 1][..], &[-2.0, -2.0][..]));
/// let v = DynTensor::from_vec(vec![3], vec![1.0, 0.0, -1.0])?;
/// assert_eq!(matmul(&a.view(), &v.view()), Err(TensorOpError::MatmulRankTooSmall { rank: 1 }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn matmul<F: Float>(
    left: &DynView<'_, F>,
    right: &DynView<'_, F>,
) -> Result<DynTensor<F>, TensorOpError> {
    for rank in [left.rank(), right.rank()] {
        if rank < 2 {
            return Err(TensorOpError::MatmulRankTooSmall { rank });
        }
    }
    let mut shape = vec![0; left.rank().max(right.rank())];
    let values = matmul_fresh(left.strided(), right.strided(), &mut shape)?;
    Ok(DynTensor::from_vec(shape, values)?)
}
