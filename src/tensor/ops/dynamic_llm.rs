//! The data-movement and fused operations with run-time ranks: the same
//! cores, checks and numerics as [`concat()`](crate::tensor::ops::concat),
//! [`stack`](crate::tensor::ops::stack),
//! [`index_select`](crate::tensor::ops::index_select),
//! [`argmax_axis`](crate::tensor::ops::argmax_axis) and
//! [`softmax_axis`](crate::tensor::ops::softmax_axis), each with an `_into`
//! twin that writes into a caller's [`DynTensor`].

use super::dynamic::owner;
use super::gather::{Join, join_fresh, join_into, select_fresh, select_into};
use super::reduce::{argmax_fresh, argmax_into};
use super::softmax::{softmax_fresh, softmax_into};
use crate::tensor::array::dynamic::{DynTensor, DynView};
use crate::tensor::error::TensorOpError;
use crate::tensor::float::Float;
use crate::tensor::shape::dims::DynDims;

/// Joins dynamic views along an existing axis; see [`crate::tensor::ops::concat`].
///
/// # Errors
/// In this order: [`TensorOpError::EmptyInputList`],
/// [`TensorOpError::AxisOutOfBounds`] (against the first input's rank), then
/// input by input from the second: [`TensorOpError::ConcatRankMismatch`] if its
/// rank differs from the first input's, [`TensorOpError::ConcatShapeMismatch`]
/// for its first differing axis other than `axis`; then `ShapeOverflow`,
/// `OutputAllocationFailed`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{concat, DynTensor};
/// let a = DynTensor::from_vec(vec![1, 2], vec![1.0, 2.0])?;
/// let b = DynTensor::from_vec(vec![2, 2], vec![3.0, 4.0, 5.0, 6.0])?;
/// let c = concat(&[a.view(), b.view()], 0)?; // [1, 2] + [2, 2] -> [3, 2]
/// assert_eq!((c.shape(), c.as_slice()), (&[3, 2][..], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn concat<T: Copy>(
    inputs: &[DynView<'_, T>],
    axis: usize,
) -> Result<DynTensor<T>, TensorOpError> {
    owner(join_fresh::<T, _, DynDims>(inputs, axis, Join::Concat)?)
}

/// [`concat()`] into `out` (the joined shape), reusing its storage.
///
/// # Errors
/// As for [`concat()`] but no allocation, then `OutputShapeMismatch`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{concat_into, DynTensor};
/// use llm_from_scratch::tensor::TensorOpError;
/// let a = DynTensor::from_vec(vec![1, 2], vec![1.0, 2.0])?;
/// let b = DynTensor::from_vec(vec![2, 2], vec![3.0, 4.0, 5.0, 6.0])?;
/// let mut out = DynTensor::<f64>::zeros(vec![3, 2])?;
/// concat_into(&[a.view(), b.view()], 0, &mut out)?; // [1, 2] + [2, 2] -> [3, 2]
/// assert_eq!(out.as_slice(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
/// let mut wrong = DynTensor::<f64>::zeros(vec![2, 3])?;
/// assert!(matches!(concat_into(&[a.view(), b.view()], 0, &mut wrong), Err(TensorOpError::OutputShapeMismatch { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn concat_into<T: Copy>(
    inputs: &[DynView<'_, T>],
    axis: usize,
    out: &mut DynTensor<T>,
) -> Result<(), TensorOpError> {
    let shape = out.layout.shape();
    join_into(inputs, axis, Join::Concat, shape, &mut out.values)
}

/// Joins dynamic views of one shape along a new axis at `axis` (`0..=rank`);
/// see [`crate::tensor::ops::stack`]. Any rank, also above `MAX_RANK`.
///
/// # Errors
/// In this order: [`TensorOpError::EmptyInputList`],
/// [`TensorOpError::AxisOutOfBounds`] if `axis` exceeds the first input's
/// rank, then input by input from the second: [`TensorOpError::ConcatRankMismatch`],
/// [`TensorOpError::ConcatShapeMismatch`]; then `ShapeOverflow`,
/// `OutputAllocationFailed`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{stack, DynTensor};
/// let a = DynTensor::from_vec(vec![2], vec![1.0, 2.0])?;
/// let b = DynTensor::from_vec(vec![2], vec![3.0, 4.0])?;
/// let s = stack(&[a.view(), b.view()], 1)?; // 2 × [2] -> [2, 2]
/// assert_eq!((s.shape(), s.as_slice()), (&[2, 2][..], &[1.0, 3.0, 2.0, 4.0][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn stack<T: Copy>(
    inputs: &[DynView<'_, T>],
    axis: usize,
) -> Result<DynTensor<T>, TensorOpError> {
    owner(join_fresh::<T, _, DynDims>(inputs, axis, Join::Stack)?)
}

/// [`stack`] into `out` (the stacked shape), reusing its storage.
///
/// # Errors
/// As for [`stack`] but no allocation, then `OutputShapeMismatch`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{stack_into, DynTensor};
/// let a = DynTensor::from_vec(vec![2], vec![1.0, 2.0])?;
/// let b = DynTensor::from_vec(vec![2], vec![3.0, 4.0])?;
/// let mut out = DynTensor::<f64>::zeros(vec![2, 2])?;
/// stack_into(&[a.view(), b.view()], 0, &mut out)?; // 2 × [2] -> [2, 2]
/// assert_eq!(out.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn stack_into<T: Copy>(
    inputs: &[DynView<'_, T>],
    axis: usize,
    out: &mut DynTensor<T>,
) -> Result<(), TensorOpError> {
    let shape = out.layout.shape();
    join_into(inputs, axis, Join::Stack, shape, &mut out.values)
}

/// Picks positions `indices` along `axis`; see [`crate::tensor::ops::index_select`].
///
/// # Errors
/// [`TensorOpError::AxisOutOfBounds`], then [`TensorOpError::IndexSelectOutOfBounds`]
/// (the first bad index and its position), then `ShapeOverflow`,
/// `OutputAllocationFailed`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{index_select, DynTensor};
/// let table = DynTensor::from_vec(vec![3, 2], vec![0.0, 1.0, 10.0, 11.0, 20.0, 21.0])?;
/// let rows = index_select(&table.view(), 0, &[2, 2, 0])?; // [3, 2] -> [3, 2]
/// assert_eq!(rows.as_slice(), &[20.0, 21.0, 20.0, 21.0, 0.0, 1.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn index_select<T: Copy>(
    input: &DynView<'_, T>,
    axis: usize,
    indices: &[usize],
) -> Result<DynTensor<T>, TensorOpError> {
    owner(select_fresh::<T, DynDims>(input.strided(), axis, indices)?)
}

/// [`index_select`] into `out` (the selected shape), reusing its storage.
///
/// # Errors
/// As for [`index_select`] but no allocation, then `OutputShapeMismatch`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{index_select_into, DynTensor};
/// use llm_from_scratch::tensor::TensorOpError;
/// let table = DynTensor::from_vec(vec![3, 2], vec![0.0, 1.0, 10.0, 11.0, 20.0, 21.0])?;
/// let mut out = DynTensor::<f64>::zeros(vec![2, 2])?;
/// index_select_into(&table.view(), 0, &[2, 0], &mut out)?; // [3, 2] -> [2, 2]
/// assert_eq!(out.as_slice(), &[20.0, 21.0, 0.0, 1.0]);
/// let bad = index_select_into(&table.view(), 0, &[2, 3], &mut out);
/// assert!(matches!(bad, Err(TensorOpError::IndexSelectOutOfBounds { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn index_select_into<T: Copy>(
    input: &DynView<'_, T>,
    axis: usize,
    indices: &[usize],
    out: &mut DynTensor<T>,
) -> Result<(), TensorOpError> {
    let shape = out.layout.shape();
    select_into(input.strided(), axis, indices, shape, &mut out.values)
}

/// The position along `axis` of the value `max_axis` keeps; `keep_dim`
/// keeps the axis with extent 1. See [`crate::tensor::ops::argmax_axis`].
///
/// # Errors
/// `ReductionAxisOutOfBounds`, then `EmptyMaxAxis`, then `OutputAllocationFailed`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{argmax_axis, DynTensor};
/// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 3.0, 7.0, 5.0])?;
/// assert_eq!(argmax_axis(&d.view(), 1, false)?.as_slice(), &[1, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn argmax_axis<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
) -> Result<DynTensor<usize>, TensorOpError> {
    owner(argmax_fresh::<F, DynDims>(input.strided(), axis, keep_dim)?)
}

/// [`argmax_axis`] into `out` (the reduced shape), reusing its storage.
///
/// # Errors
/// As for [`argmax_axis`] but no allocation; `OutputShapeMismatch` for another shape.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{argmax_axis_into, DynTensor};
/// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 3.0, 7.0, 5.0])?;
/// let mut out = DynTensor::<usize>::zeros(vec![2, 1])?;
/// argmax_axis_into(&d.view(), 1, true, &mut out)?; // keep_dim: [2, 2] -> [2, 1]
/// assert_eq!(out.as_slice(), &[1, 0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn argmax_axis_into<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    keep_dim: bool,
    out: &mut DynTensor<usize>,
) -> Result<(), TensorOpError> {
    let shape = out.layout.shape();
    argmax_into(input.strided(), axis, keep_dim, shape, &mut out.values)
}

/// The fused stable softmax along `axis`; see [`crate::tensor::ops::softmax_axis`].
///
/// # Errors
/// `ReductionAxisOutOfBounds`, then `ShapeOverflow`, then `OutputAllocationFailed`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{softmax_axis, DynTensor};
/// let d = DynTensor::from_vec(vec![2, 1], vec![0.0, f64::NEG_INFINITY])?;
/// assert_eq!(softmax_axis(&d.view(), 0)?.as_slice(), &[1.0, 0.0]); // a masked score gets 0
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn softmax_axis<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
) -> Result<DynTensor<F>, TensorOpError> {
    owner(softmax_fresh::<F, DynDims>(input.strided(), axis)?)
}

/// [`softmax_axis`] into `out` (the input's shape), reusing its storage;
/// allocates nothing.
///
/// # Errors
/// As for [`softmax_axis`] but no allocation; `OutputShapeMismatch` for another shape.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::{softmax_axis_into, DynTensor};
/// use llm_from_scratch::tensor::TensorOpError;
/// let d = DynTensor::from_vec(vec![1, 2], vec![0.0, f64::NEG_INFINITY])?;
/// let mut out = DynTensor::<f64>::zeros(vec![1, 2])?;
/// softmax_axis_into(&d.view(), 1, &mut out)?;
/// assert_eq!(out.as_slice(), &[1.0, 0.0]); // a masked score gets 0
/// let mut wrong = DynTensor::<f64>::zeros(vec![2])?;
/// assert!(matches!(softmax_axis_into(&d.view(), 1, &mut wrong), Err(TensorOpError::OutputShapeMismatch { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn softmax_axis_into<F: Float>(
    input: &DynView<'_, F>,
    axis: usize,
    out: &mut DynTensor<F>,
) -> Result<(), TensorOpError> {
    let shape = out.layout.shape();
    softmax_into(input.strided(), axis, shape, &mut out.values)
}
