//! `sum_axis`, `mean_axis`, `max_axis`: single-axis reductions with an exact order.
//!
//! The shared rules are in the [`ops` module docs](crate::tensor::ops#reductions).

mod argmax;
mod kernel;
mod partial_max;
mod rows;

pub use argmax::{argmax_axis, argmax_axis_into};
pub(crate) use argmax::{argmax_fresh, argmax_into};
pub(crate) use kernel::{LANES, dense_max, dense_max_lanes, dense_sums};

use super::{check_output_shape, output_buffer};
use crate::tensor::array::owned::Tensor;
use crate::tensor::array::view::AsView;
use crate::tensor::error::TensorOpError;
use crate::tensor::float::Float;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::checked_len;
use crate::tensor::shape::rank::{Rank, ReduceDim};
use crate::tensor::traverse::Strided;
use kernel::{Fold, Reduce, reduce};

/// Which reduction: sum, mean or max.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reduction {
    Sum,
    Mean,
    Max,
}

/// Rank-erased reduction shared by the ranked and dynamic APIs.
///
/// Checks in this order: axis bound, then an empty selected axis (mean,
/// max); returns the output shape and its element count. `run` then
/// computes into a buffer of that length.
pub(crate) fn reduce_core<F, D: Dims>(
    input: Strided<'_, '_, F>,
    axis: usize,
    keep_dim: bool,
    reduction: Reduction,
) -> Result<(D, usize), TensorOpError> {
    let rank = input.shape.len();
    if axis >= rank {
        return Err(TensorOpError::ReductionAxisOutOfBounds { axis, rank });
    }
    if input.shape[axis] == 0 {
        match reduction {
            Reduction::Mean => return Err(TensorOpError::EmptyMeanAxis { axis }),
            Reduction::Max => return Err(TensorOpError::EmptyMaxAxis { axis }),
            Reduction::Sum => {}
        }
    }
    let rank = if keep_dim { rank } else { rank - 1 };
    let mut shape = D::zeros(rank);
    let mut position = 0;
    for (source_axis, &extent) in input.shape.iter().enumerate() {
        if source_axis != axis || keep_dim {
            shape.as_mut_slice()[position] = if source_axis == axis { 1 } else { extent };
            position += 1;
        }
    }
    let len = checked_len(shape.as_slice())?;
    Ok((shape, len))
}

impl Reduction {
    /// Computes the checked reduction into `out` (row-major, output length).
    pub(crate) fn run<F: Float>(self, input: Strided<'_, '_, F>, axis: usize, out: &mut [F]) {
        let fold = if self == Reduction::Max {
            Fold::Max
        } else {
            Fold::Sum
        };
        let kernel_input = Reduce {
            data: input.data,
            shape: input.shape,
            strides: input.strides,
            base: input.base,
            axis,
        };
        reduce(&kernel_input, fold, out);
        if self == Reduction::Mean {
            let count = F::from_usize(input.shape[axis]);
            for value in out.iter_mut() {
                *value = *value / count;
            }
        }
    }

    /// Allocates the output with `try_reserve` and runs the reduction.
    pub(crate) fn fresh<F: Float, D: Dims>(
        self,
        input: Strided<'_, '_, F>,
        axis: usize,
        keep_dim: bool,
    ) -> Result<(D, Vec<F>), TensorOpError> {
        let (shape, len) = reduce_core(input, axis, keep_dim, self)?;
        let mut values = output_buffer(len)?;
        values.resize(len, F::ZERO);
        self.run(input, axis, &mut values);
        Ok((shape, values))
    }

    /// Runs the reduction into a caller's output of shape `out_shape`.
    pub(crate) fn into<F: Float>(
        self,
        input: Strided<'_, '_, F>,
        axis: usize,
        keep_dim: bool,
        out_shape: &[usize],
        out: &mut [F],
    ) -> Result<(), TensorOpError> {
        let (shape, _) = reduce_core::<F, DynDims>(input, axis, keep_dim, self)?;
        check_output_shape(shape.as_slice(), out_shape)?;
        self.run(input, axis, out);
        Ok(())
    }

    fn ranked<const R: usize, const S: usize, F: Float, K: ReduceDim<R>>(
        self,
        input: &(impl AsView<R, F> + ?Sized),
        axis: usize,
    ) -> Result<Tensor<S, F>, TensorOpError> {
        let (shape, values) =
            self.fresh::<F, [usize; S]>(input.as_view().strided(), axis, K::KEEP)?;
        Ok(Tensor::from_vec(shape, values)?)
    }

    fn ranked_into<const R: usize, const S: usize, F: Float, K: ReduceDim<R>>(
        self,
        input: &(impl AsView<R, F> + ?Sized),
        axis: usize,
        out: &mut Tensor<S, F>,
    ) -> Result<(), TensorOpError> {
        let shape = *out.shape();
        self.into(
            input.as_view().strided(),
            axis,
            K::KEEP,
            &shape,
            out.as_mut_slice(),
        )
    }
}

/// The sum over one axis, from +0.0 in ascending index order; an empty axis sums to +0.0.
///
/// Shapes: `[.., n, ..]` -> `[.., ..]` (`RemoveDim`) or `[.., 1, ..]` (`KeepDim`); see the
/// [`ops` module docs](crate::tensor::ops#reductions) for the rank rule and the exact order.
///
/// # Errors
/// [`TensorOpError::ReductionAxisOutOfBounds`], then [`TensorOpError::OutputAllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let biased = Tensor::from_vec([2, 3], vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0])?;
/// let s = sum_axis(&biased, 0, RemoveDim)?; // [2, 3] -> [3]
/// assert_eq!(s.as_slice(), &[25.0, 47.0, 69.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sum_axis<const R: usize, const S: usize, F: Float, K: ReduceDim<R, Output = Rank<S>>>(
    input: &(impl AsView<R, F> + ?Sized),
    axis: usize,
    _keep: K,
) -> Result<Tensor<S, F>, TensorOpError> {
    Reduction::Sum.ranked::<R, S, F, K>(input, axis)
}

/// The mean over one axis: the ascending sum divided by the extent.
///
/// Shapes: `[.., n, ..]` -> `[.., ..]` (`RemoveDim`) or `[.., 1, ..]` (`KeepDim`).
///
/// # Errors
/// [`TensorOpError::ReductionAxisOutOfBounds`], then
/// [`TensorOpError::EmptyMeanAxis`] (the mean of nothing is undefined), then
/// [`TensorOpError::OutputAllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let biased = Tensor::from_vec([2, 3], vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0])?;
/// let m = mean_axis(&biased, 1, KeepDim)?; // [2, 3] -> [2, 1]
/// assert_eq!((m.shape(), m.as_slice()), (&[2, 1], &[22.0, 25.0][..]));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mean_axis<const R: usize, const S: usize, F: Float, K: ReduceDim<R, Output = Rank<S>>>(
    input: &(impl AsView<R, F> + ?Sized),
    axis: usize,
    _keep: K,
) -> Result<Tensor<S, F>, TensorOpError> {
    Reduction::Mean.ranked::<R, S, F, K>(input, axis)
}

/// The maximum over one axis: the first NaN wins with its exact bits; ties
/// keep the earlier value (`[-0.0, +0.0]` gives -0.0). Not `f64::max`.
///
/// Shapes: `[.., n, ..]` -> `[.., ..]` (`RemoveDim`) or `[.., 1, ..]` (`KeepDim`).
///
/// # Errors
/// [`TensorOpError::ReductionAxisOutOfBounds`], then
/// [`TensorOpError::EmptyMaxAxis`] (the maximum of nothing is undefined), then
/// [`TensorOpError::OutputAllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let biased = Tensor::from_vec([2, 3], vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0])?;
/// let m = max_axis(&biased, 1, RemoveDim)?; // [2, 3] -> [2]
/// assert_eq!(m.as_slice(), &[33.0, 36.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn max_axis<const R: usize, const S: usize, F: Float, K: ReduceDim<R, Output = Rank<S>>>(
    input: &(impl AsView<R, F> + ?Sized),
    axis: usize,
    _keep: K,
) -> Result<Tensor<S, F>, TensorOpError> {
    Reduction::Max.ranked::<R, S, F, K>(input, axis)
}

/// [`sum_axis`] into `out` (the output shape), reusing its storage.
///
/// # Errors
/// As for [`sum_axis`] but no allocation; [`TensorOpError::OutputShapeMismatch`] for another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let t = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut out = Tensor::<2>::zeros([2, 1])?;
/// sum_axis_into(&t, 1, KeepDim, &mut out)?; // [2, 3] -> [2, 1]
/// assert_eq!(out.as_slice(), &[6.0, 15.0]);
/// let mut wrong = Tensor::<1>::zeros([3])?;
/// assert!(matches!(sum_axis_into(&t, 1, RemoveDim, &mut wrong), Err(TensorOpError::OutputShapeMismatch { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn sum_axis_into<const R: usize, const S: usize, F: Float, K>(
    input: &(impl AsView<R, F> + ?Sized),
    axis: usize,
    _keep: K,
    out: &mut Tensor<S, F>,
) -> Result<(), TensorOpError>
where
    K: ReduceDim<R, Output = Rank<S>>,
{
    Reduction::Sum.ranked_into::<R, S, F, K>(input, axis, out)
}

/// [`mean_axis`] into `out` (the output shape), reusing its storage.
///
/// # Errors
/// As for [`mean_axis`] but no allocation; [`TensorOpError::OutputShapeMismatch`] for another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let t = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut out = Tensor::<1>::zeros([3])?;
/// mean_axis_into(&t, 0, RemoveDim, &mut out)?; // [2, 3] -> [3]
/// assert_eq!(out.as_slice(), &[2.5, 3.5, 4.5]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn mean_axis_into<const R: usize, const S: usize, F: Float, K>(
    input: &(impl AsView<R, F> + ?Sized),
    axis: usize,
    _keep: K,
    out: &mut Tensor<S, F>,
) -> Result<(), TensorOpError>
where
    K: ReduceDim<R, Output = Rank<S>>,
{
    Reduction::Mean.ranked_into::<R, S, F, K>(input, axis, out)
}

/// [`max_axis`] into `out` (the output shape), reusing its storage.
///
/// # Errors
/// As for [`max_axis`] but no allocation; [`TensorOpError::OutputShapeMismatch`] for another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let t = Tensor::from_vec([2, 3], vec![1.0, 9.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut out = Tensor::<1>::zeros([2])?;
/// max_axis_into(&t, 1, RemoveDim, &mut out)?; // [2, 3] -> [2]
/// assert_eq!(out.as_slice(), &[9.0, 6.0]);
/// let empty = Tensor::<2>::zeros([2, 0])?;
/// assert!(matches!(max_axis_into(&empty, 1, RemoveDim, &mut out), Err(TensorOpError::EmptyMaxAxis { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn max_axis_into<const R: usize, const S: usize, F: Float, K>(
    input: &(impl AsView<R, F> + ?Sized),
    axis: usize,
    _keep: K,
    out: &mut Tensor<S, F>,
) -> Result<(), TensorOpError>
where
    K: ReduceDim<R, Output = Rank<S>>,
{
    Reduction::Max.ranked_into::<R, S, F, K>(input, axis, out)
}
