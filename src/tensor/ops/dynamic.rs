//! The operations with run-time ranks: the same cores, numerics and error
//! order as the ranked ones in [`crate::tensor::ops`], each with an `_into`
//! twin that writes into a caller's [`DynTensor`].

use super::map::{binary_fresh, binary_into, unary_fresh, unary_into};
use super::matmul::{matmul_fresh, matmul_into_core};
use super::reduce::Reduction;
use crate::tensor::array::dynamic::{DynTensor, DynView};
use crate::tensor::error::TensorOpError;
use crate::tensor::float::Float;
use crate::tensor::shape::broadcast::broadcast_into;
use crate::tensor::shape::dims::DynDims;
use crate::tensor::shape::layout::Layout;

/// A new owner of `values` laid out row-major in the checked `shape`.
pub(super) fn owner<T>((shape, values): (DynDims, Vec<T>)) -> Result<DynTensor<T>, TensorOpError> {
    let layout = Layout::row_major(shape)?;
    Ok(DynTensor { layout, values })
}

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
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{map_unary, DynTensor};
/// let d = DynTensor::from_vec(vec![2], vec![1.0, -2.0])?;
/// assert_eq!(map_unary(&d.view(), |x: f64| x.abs())?.as_slice(), &[1.0, 2.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn map_unary<A: Copy, B: Copy>(
    input: &DynView<'_, A>,
    op: impl FnMut(A) -> B,
) -> Result<DynTensor<B>, TensorOpError> {
    owner(unary_fresh(input.strided(), op)?)
}

/// [`map_unary`] into `out` (the input's shape), reusing its storage.
///
/// # Errors
/// [`TensorOpError::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{map_unary_into, DynTensor};
/// use llm_from_scratch::tensor::TensorOpError;
/// let d = DynTensor::from_vec(vec![2], vec![1.0, -2.0])?;
/// let mut out = DynTensor::<f64>::zeros(vec![2])?;
/// map_unary_into(&d.view(), |x: f64| x.abs(), &mut out)?;
/// assert_eq!(out.as_slice(), &[1.0, 2.0]);
/// let mut wrong = DynTensor::<f64>::zeros(vec![1, 2])?;
/// assert!(matches!(map_unary_into(&d.view(), |x| x, &mut wrong), Err(TensorOpError::OutputShapeMismatch { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn map_unary_into<A: Copy, B: Copy>(
    input: &DynView<'_, A>,
    op: impl FnMut(A) -> B,
    out: &mut DynTensor<B>,
) -> Result<(), TensorOpError> {
    unary_into(input.strided(), op, out.layout.shape(), &mut out.values)
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
    owner(binary_fresh(left.strided(), right.strided(), op)?)
}

/// [`map_binary`] into `out` (the broadcast shape), reusing its storage.
///
/// # Errors
/// As for [`map_binary`] but no allocation, then
/// [`TensorOpError::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{map_binary_into, DynTensor};
/// let tokens = DynTensor::from_vec(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let bias = DynTensor::from_vec(vec![3], vec![10.0, 20.0, 30.0])?;
/// let mut out = DynTensor::<f64>::zeros(vec![2, 3])?;
/// map_binary_into(&tokens.view(), &bias.view(), |x, b| x + b, &mut out)?;
/// assert_eq!(out.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn map_binary_into<A: Copy, B: Copy, C: Copy>(
    left: &DynView<'_, A>,
    right: &DynView<'_, B>,
    op: impl FnMut(A, B) -> C,
    out: &mut DynTensor<C>,
) -> Result<(), TensorOpError> {
    let (left, right) = (left.strided(), right.strided());
    binary_into(left, right, op, out.layout.shape(), &mut out.values)
}

/// Ascending sum over one axis; `keep_dim` keeps it with extent 1. See
/// [`crate::tensor::ops::sum_axis`].
///
/// # Errors
/// `ReductionAxisOutOfBounds`, then `OutputAllocationFailed`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{sum_axis, DynTensor};
/// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// assert_eq!(sum_axis(&d.view(), 0, false)?.as_slice(), &[4.0, 6.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sum_axis<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
) -> Result<DynTensor<F>, TensorOpError> {
    owner(Reduction::Sum.fresh(input.strided(), axis, keep_dim)?)
}

/// Mean over one non-empty axis. See [`crate::tensor::ops::mean_axis`].
///
/// # Errors
/// `ReductionAxisOutOfBounds`, then `EmptyMeanAxis`, then `OutputAllocationFailed`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{mean_axis, DynTensor};
/// use llm_from_scratch::tensor::TensorOpError;
/// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let m = mean_axis(&d.view(), 1, true)?; // keep_dim: [2, 2] -> [2, 1]
/// assert_eq!((m.shape(), m.as_slice()), (&[2, 1][..], &[1.5, 3.5][..]));
/// let empty = DynTensor::<f64>::zeros(vec![2, 0])?;
/// assert!(matches!(mean_axis(&empty.view(), 1, false), Err(TensorOpError::EmptyMeanAxis { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mean_axis<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
) -> Result<DynTensor<F>, TensorOpError> {
    owner(Reduction::Mean.fresh(input.strided(), axis, keep_dim)?)
}

/// First-NaN, earlier-tie maximum over one non-empty axis. See
/// [`crate::tensor::ops::max_axis`].
///
/// # Errors
/// `ReductionAxisOutOfBounds`, then `EmptyMaxAxis`, then `OutputAllocationFailed`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{max_axis, DynTensor};
/// use llm_from_scratch::tensor::TensorOpError;
/// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 4.0, 3.0, 2.0])?;
/// assert_eq!(max_axis(&d.view(), 0, false)?.as_slice(), &[3.0, 4.0]);
/// assert!(matches!(max_axis(&d.view(), 2, false), Err(TensorOpError::ReductionAxisOutOfBounds { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn max_axis<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
) -> Result<DynTensor<F>, TensorOpError> {
    owner(Reduction::Max.fresh(input.strided(), axis, keep_dim)?)
}

/// [`sum_axis`] into `out` (the reduced shape), reusing its storage.
///
/// # Errors
/// As for [`sum_axis`] but no allocation; `OutputShapeMismatch` for another shape.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{sum_axis_into, DynTensor};
/// use llm_from_scratch::tensor::TensorOpError;
/// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let mut out = DynTensor::<f64>::zeros(vec![2])?;
/// sum_axis_into(&d.view(), 0, false, &mut out)?;
/// assert_eq!(out.as_slice(), &[4.0, 6.0]);
/// assert!(matches!(sum_axis_into(&d.view(), 0, true, &mut out), Err(TensorOpError::OutputShapeMismatch { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sum_axis_into<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
    out: &mut DynTensor<F>,
) -> Result<(), TensorOpError> {
    let shape = out.layout.shape();
    Reduction::Sum.into(input.strided(), axis, keep_dim, shape, &mut out.values)
}

/// [`mean_axis`] into `out` (the reduced shape), reusing its storage.
///
/// # Errors
/// As for [`mean_axis`] but no allocation; `OutputShapeMismatch` for another shape.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{mean_axis_into, DynTensor};
/// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let mut out = DynTensor::<f64>::zeros(vec![1, 2])?;
/// mean_axis_into(&d.view(), 0, true, &mut out)?; // keep_dim: [2, 2] -> [1, 2]
/// assert_eq!(out.as_slice(), &[2.0, 3.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mean_axis_into<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
    out: &mut DynTensor<F>,
) -> Result<(), TensorOpError> {
    let shape = out.layout.shape();
    Reduction::Mean.into(input.strided(), axis, keep_dim, shape, &mut out.values)
}

/// [`max_axis`] into `out` (the reduced shape), reusing its storage.
///
/// # Errors
/// As for [`max_axis`] but no allocation; `OutputShapeMismatch` for another shape.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{max_axis_into, DynTensor};
/// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 4.0, 3.0, 2.0])?;
/// let mut out = DynTensor::<f64>::zeros(vec![2])?;
/// max_axis_into(&d.view(), 1, false, &mut out)?;
/// assert_eq!(out.as_slice(), &[4.0, 3.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn max_axis_into<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
    out: &mut DynTensor<F>,
) -> Result<(), TensorOpError> {
    let shape = out.layout.shape();
    Reduction::Max.into(input.strided(), axis, keep_dim, shape, &mut out.values)
}

/// `MatmulRankTooSmall` for an operand of rank 0 or 1, the left one first.
fn check_matrix_ranks<F>(
    left: &DynView<'_, F>,
    right: &DynView<'_, F>,
) -> Result<(), TensorOpError> {
    for rank in [left.rank(), right.rank()] {
        if rank < 2 {
            return Err(TensorOpError::MatmulRankTooSmall { rank });
        }
    }
    Ok(())
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
    check_matrix_ranks(left, right)?;
    owner(matmul_fresh(left.strided(), right.strided())?)
}

/// [`matmul`] into `out` (shape `[batch.., m, n]`), reusing its storage.
///
/// # Errors
/// As for [`matmul`] but no allocation, then `OutputShapeMismatch`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{matmul_into, DynTensor};
/// use llm_from_scratch::tensor::TensorOpError;
/// let a = DynTensor::from_vec(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let b = DynTensor::from_vec(vec![3, 1], vec![1.0, 0.0, -1.0])?;
/// let mut out = DynTensor::<f64>::zeros(vec![2, 1])?;
/// matmul_into(&a.view(), &b.view(), &mut out)?; // [2, 3] x [3, 1] -> [2, 1]
/// assert_eq!(out.as_slice(), &[-2.0, -2.0]);
/// let mut wrong = DynTensor::<f64>::zeros(vec![1, 2])?;
/// assert!(matches!(matmul_into(&a.view(), &b.view(), &mut wrong), Err(TensorOpError::OutputShapeMismatch { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn matmul_into<F: Float>(
    left: &DynView<'_, F>,
    right: &DynView<'_, F>,
    out: &mut DynTensor<F>,
) -> Result<(), TensorOpError> {
    check_matrix_ranks(left, right)?;
    matmul_into_core(
        left.strided(),
        right.strided(),
        out.layout.shape(),
        &mut out.values,
    )
}
