//! `sum_axis`, `mean_axis`, `max_axis`: single-axis reductions with an exact order.
//!
//! The shared rules are in the [`ops` module docs](crate::tensor::ops#reductions).

mod argmax;
mod fold;
mod kernel;
mod partial_max;
mod rows;
mod tree;
mod tree_rows;

pub use argmax::{argmax_axis, argmax_axis_into};
pub(crate) use fold::LANES;
pub(crate) use kernel::{dense_max, dense_max_lanes};
pub(crate) use tree::{Counter, LEAF, TREE_LANES, leaf_sums, tree_sum_in};

/// The sum of a slice by the fixed tree of `sum_axis` (from +0.0; the
/// rule is in the [`ops` module docs](crate::tensor::ops#reductions)): the
/// same bits as `sum_axis` of any view holding these values along its
/// axis, for reference loops and models of fused kernels.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// use llm_from_scratch::tensor::ops::tree_sum;
/// let x: Vec<f32> = (0..1000).map(|i| i as f32 * 0.1).collect();
/// let t = Tensor::from_vec([1000], x.clone())?;
/// assert_eq!(sum_axis(&t, 0, RemoveDim)?.as_slice()[0], tree_sum(&x));
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn tree_sum<F: Float>(values: &[F]) -> F {
    tree::tree_sum(values)
}

use super::widen::{into_narrowed, narrow, widen};
use super::{check_output_shape, output_buffer, owner};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::float::Float;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::checked_len;
use crate::tensor::shape::rank::ReduceDim;
use crate::tensor::traverse::Strided;
use fold::{Fold, Reduce};
use kernel::reduce;

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
    op: &'static str,
) -> Result<(D, usize), Error> {
    let rank = input.shape.len();
    if axis >= rank {
        return Err(Error::AxisOutOfBounds { op, axis, rank });
    }
    if input.shape[axis] == 0 {
        match reduction {
            Reduction::Mean => return Err(Error::EmptyMeanAxis { op, axis }),
            Reduction::Max => return Err(Error::EmptyMaxAxis { op, axis }),
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
    let len = checked_len(shape.as_slice(), op)?;
    Ok((shape, len))
}

impl Reduction {
    /// Computes the checked reduction into `out` (row-major, output length).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] (naming `op`) if a sum's scratch could
    /// not be reserved.
    pub(crate) fn run<F: Float>(
        self,
        input: Strided<'_, '_, F>,
        axis: usize,
        out: &mut [F],
        op: &'static str,
    ) -> Result<(), Error> {
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
        reduce(&kernel_input, fold, out).map_err(|failed| Error::AllocationFailed {
            op,
            elements: failed.elements,
        })?;
        if self == Reduction::Mean {
            let count = F::from_usize(input.shape[axis]);
            for value in out.iter_mut() {
                *value = *value / count;
            }
        }
        Ok(())
    }

    /// Checks, allocates the output with `try_reserve` and runs the
    /// reduction (the public function `op`).
    /// Half-precision inputs are widened to `f32` after the checks (see
    /// [`widen`]) and the result rounded back.
    fn fresh<T: Element, D: Dimension, E: Dimension>(
        self,
        input: ArrayBase<&[T], D>,
        axis: usize,
        keep_dim: bool,
        op: &'static str,
    ) -> Result<ArrayBase<Vec<T>, E>, Error> {
        let (shape, len) = reduce_core::<T, E::Axes>(input.strided(), axis, keep_dim, self, op)?;
        let input = widen(input, op)?;
        let mut values = output_buffer(len, op)?;
        values.resize(len, T::Acc::ZERO);
        self.run(input.view().strided(), axis, &mut values, op)?;
        narrow(owner(shape, values, op)?, op)
    }

    /// Checks and runs the reduction into a caller's owner (the public
    /// function `op`).
    fn into<T: Element, D: Dimension, E: Dimension>(
        self,
        input: ArrayBase<&[T], D>,
        axis: usize,
        keep_dim: bool,
        out: &mut ArrayBase<Vec<T>, E>,
        op: &'static str,
    ) -> Result<(), Error> {
        let (shape, _) = reduce_core::<T, DynDims>(input.strided(), axis, keep_dim, self, op)?;
        check_output_shape(shape.as_slice(), out.layout.shape(), op)?;
        let input = widen(input, op)?;
        into_narrowed(&mut out.data, op, |out| {
            self.run(input.view().strided(), axis, out, op)
        })
    }
}

/// The sum over one axis by the fixed pairwise tree (see [`tree_sum`]); an empty axis sums to +0.0.
///
/// Shapes: `[.., n, ..]` -> `[.., ..]` (`RemoveDim`) or `[.., 1, ..]`
/// (`KeepDim`; `keep_dim: bool` for a dynamic input); see the
/// [`ops` module docs](crate::tensor::ops#reductions) for the rank rule and the exact order.
///
/// # Errors
/// [`Error::AxisOutOfBounds`], then [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let biased = Tensor::from_vec([2, 3], vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0])?;
/// let s = sum_axis(&biased, 0, RemoveDim)?; // [2, 3] -> [3]
/// assert_eq!(s.as_slice(), &[25.0, 47.0, 69.0]);
/// let d = biased.into_dyn();
/// assert_eq!(sum_axis(&d, 1, true)?.shape(), &[2, 1]); // keep_dim
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn sum_axis<D: Dimension, E: Dimension, T: Element, K: ReduceDim<D, Output = E>>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    keep: K,
) -> Result<ArrayBase<Vec<T>, E>, Error> {
    Reduction::Sum.fresh(input.as_array(), axis, keep.keep(), "sum_axis")
}

/// The mean over one axis: the tree sum divided by the extent.
///
/// Shapes: `[.., n, ..]` -> `[.., ..]` (`RemoveDim`) or `[.., 1, ..]` (`KeepDim`).
///
/// # Errors
/// [`Error::AxisOutOfBounds`], then [`Error::EmptyMeanAxis`] (the mean of
/// nothing is undefined), then [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let biased = Tensor::from_vec([2, 3], vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0])?;
/// let m = mean_axis(&biased, 1, KeepDim)?; // [2, 3] -> [2, 1]
/// assert_eq!((m.shape(), m.as_slice()), (&[2, 1], &[22.0, 25.0][..]));
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn mean_axis<D: Dimension, E: Dimension, T: Element, K: ReduceDim<D, Output = E>>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    keep: K,
) -> Result<ArrayBase<Vec<T>, E>, Error> {
    Reduction::Mean.fresh(input.as_array(), axis, keep.keep(), "mean_axis")
}

/// The maximum over one axis: the first NaN wins with its exact bits; ties
/// keep the earlier value (`[-0.0, +0.0]` gives -0.0). Not `f64::max`.
///
/// Shapes: `[.., n, ..]` -> `[.., ..]` (`RemoveDim`) or `[.., 1, ..]` (`KeepDim`).
///
/// # Errors
/// [`Error::AxisOutOfBounds`], then [`Error::EmptyMaxAxis`] (the maximum of
/// nothing is undefined), then [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let biased = Tensor::from_vec([2, 3], vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0])?;
/// let m = max_axis(&biased, 1, RemoveDim)?; // [2, 3] -> [2]
/// assert_eq!(m.as_slice(), &[33.0, 36.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn max_axis<D: Dimension, E: Dimension, T: Element, K: ReduceDim<D, Output = E>>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    keep: K,
) -> Result<ArrayBase<Vec<T>, E>, Error> {
    Reduction::Max.fresh(input.as_array(), axis, keep.keep(), "max_axis")
}

/// [`sum_axis`] into `out` (the output shape), reusing its storage.
///
/// # Errors
/// As for [`sum_axis`] but no allocation; [`Error::OutputShapeMismatch`] for another shape.
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// let t = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut out = Tensor::<2>::zeros([2, 1])?;
/// sum_axis_into(&t, 1, KeepDim, &mut out)?; // [2, 3] -> [2, 1]
/// assert_eq!(out.as_slice(), &[6.0, 15.0]);
/// let mut wrong = Tensor::<1>::zeros([3])?;
/// assert!(matches!(sum_axis_into(&t, 1, RemoveDim, &mut wrong), Err(Error::OutputShapeMismatch { .. })));
/// # Ok::<(), Error>(())
/// ```
pub fn sum_axis_into<D: Dimension, E: Dimension, T: Element, K: ReduceDim<D, Output = E>>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    keep: K,
    out: &mut ArrayBase<Vec<T>, E>,
) -> Result<(), Error> {
    Reduction::Sum.into(input.as_array(), axis, keep.keep(), out, "sum_axis_into")
}

/// [`mean_axis`] into `out` (the output shape), reusing its storage.
///
/// # Errors
/// As for [`mean_axis`] but no allocation; [`Error::OutputShapeMismatch`] for another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let t = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut out = Tensor::<1>::zeros([3])?;
/// mean_axis_into(&t, 0, RemoveDim, &mut out)?; // [2, 3] -> [3]
/// assert_eq!(out.as_slice(), &[2.5, 3.5, 4.5]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn mean_axis_into<D: Dimension, E: Dimension, T: Element, K: ReduceDim<D, Output = E>>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    keep: K,
    out: &mut ArrayBase<Vec<T>, E>,
) -> Result<(), Error> {
    Reduction::Mean.into(input.as_array(), axis, keep.keep(), out, "mean_axis_into")
}

/// [`max_axis`] into `out` (the output shape), reusing its storage.
///
/// # Errors
/// As for [`max_axis`] but no allocation; [`Error::OutputShapeMismatch`] for another shape.
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// let t = Tensor::from_vec([2, 3], vec![1.0, 9.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut out = Tensor::<1>::zeros([2])?;
/// max_axis_into(&t, 1, RemoveDim, &mut out)?; // [2, 3] -> [2]
/// assert_eq!(out.as_slice(), &[9.0, 6.0]);
/// let empty = Tensor::<2>::zeros([2, 0])?;
/// assert!(matches!(max_axis_into(&empty, 1, RemoveDim, &mut out), Err(Error::EmptyMaxAxis { .. })));
/// # Ok::<(), Error>(())
/// ```
pub fn max_axis_into<D: Dimension, E: Dimension, T: Element, K: ReduceDim<D, Output = E>>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    keep: K,
    out: &mut ArrayBase<Vec<T>, E>,
) -> Result<(), Error> {
    Reduction::Max.into(input.as_array(), axis, keep.keep(), out, "max_axis_into")
}

/// The reductions as methods of every readable array: the same names, rules
/// and errors as the free functions.
impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// [`sum_axis`] as a method.
    ///
    /// # Errors
    /// As for [`sum_axis`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    /// let s = x.sum_axis(1, KeepDim)?; // [2, 3] -> [2, 1]
    /// assert_eq!((s.shape(), s.as_slice()), (&[2, 1], &[6.0, 15.0][..]));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn sum_axis<E: Dimension, K: ReduceDim<D, Output = E>>(
        &self,
        axis: usize,
        keep: K,
    ) -> Result<ArrayBase<Vec<S::Elem>, E>, Error> {
        sum_axis(self, axis, keep)
    }

    /// [`mean_axis`] as a method.
    ///
    /// # Errors
    /// As for [`mean_axis`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2, 2], vec![1.0, 3.0, 5.0, 7.0])?;
    /// assert_eq!(x.mean_axis(0, RemoveDim)?.as_slice(), &[3.0, 5.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn mean_axis<E: Dimension, K: ReduceDim<D, Output = E>>(
        &self,
        axis: usize,
        keep: K,
    ) -> Result<ArrayBase<Vec<S::Elem>, E>, Error> {
        mean_axis(self, axis, keep)
    }

    /// [`max_axis`] as a method.
    ///
    /// # Errors
    /// As for [`max_axis`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2, 2], vec![1.0, 3.0, 7.0, 5.0])?;
    /// assert_eq!(x.max_axis(1, RemoveDim)?.as_slice(), &[3.0, 7.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn max_axis<E: Dimension, K: ReduceDim<D, Output = E>>(
        &self,
        axis: usize,
        keep: K,
    ) -> Result<ArrayBase<Vec<S::Elem>, E>, Error> {
        max_axis(self, axis, keep)
    }
}
