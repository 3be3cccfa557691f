//! `sum_axis`, `mean_axis`, `max_axis`: single-axis reductions with an exact order.

use super::{check_output_shape, output_buffer};
use crate::tensor::error::TensorOpError;
use crate::tensor::float::Float;
use crate::tensor::kernels::Strided;
use crate::tensor::kernels::reduce::{Fold, Reduce, reduce};
use crate::tensor::layout;
use crate::tensor::rank::{Rank, ReduceDim};
use crate::tensor::storage::Tensor;
use crate::tensor::view::View;

/// Which reduction: sum, mean or max.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reduction {
    Sum,
    Mean,
    Max,
}

/// Rank-erased reduction shared by the ranked and dynamic APIs.
///
/// Checks in the seed's order: axis bound, then an empty selected axis
/// (mean, max), then writes the output shape into `out_shape` and returns
/// its element count. `run` then computes into a buffer of that length.
pub(crate) fn reduce_core<F: Float>(
    input: Strided<'_, '_, F>,
    axis: usize,
    keep_dim: bool,
    reduction: Reduction,
    out_shape: &mut [usize],
) -> Result<usize, TensorOpError> {
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
    layout::reduced_shape(input.shape, axis, keep_dim, out_shape);
    Ok(layout::checked_len(out_shape)?)
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
    pub(crate) fn fresh<F: Float>(
        self,
        input: Strided<'_, '_, F>,
        axis: usize,
        keep_dim: bool,
        out_shape: &mut [usize],
    ) -> Result<Vec<F>, TensorOpError> {
        let len = reduce_core(input, axis, keep_dim, self, out_shape)?;
        let mut values = output_buffer(len)?;
        values.resize(len, F::ZERO);
        self.run(input, axis, &mut values);
        Ok(values)
    }

    fn ranked<const R: usize, const S: usize, F: Float, K: ReduceDim<R>>(
        self,
        input: &View<'_, R, F>,
        axis: usize,
    ) -> Result<Tensor<S, F>, TensorOpError> {
        let mut shape = [0; S];
        let values = self.fresh(input.strided(), axis, K::KEEP, &mut shape)?;
        Ok(Tensor::from_vec(shape, values)?)
    }

    fn ranked_into<const R: usize, const S: usize, F: Float, K: ReduceDim<R>>(
        self,
        input: &View<'_, R, F>,
        axis: usize,
        out: &mut Tensor<S, F>,
    ) -> Result<(), TensorOpError> {
        let mut shape = [0; S];
        reduce_core(input.strided(), axis, K::KEEP, self, &mut shape)?;
        check_output_shape(&shape, out.shape())?;
        self.run(input.strided(), axis, out.as_mut_slice());
        Ok(())
    }
}

macro_rules! reduction {
    ($name:ident, $into:ident, $variant:ident, $what:literal, $empty:literal, $example:literal) => {
        #[doc = concat!("The ", $what, " over one axis.")]
        ///
        /// Shapes: `[.., n, ..]` -> `[.., ..]` with [`RemoveDim`](crate::tensor::RemoveDim)
        /// (rank `R - 1`, inferred) or `[.., 1, ..]` with
        /// [`KeepDim`](crate::tensor::KeepDim) (rank `R`, NumPy `keepdims=True`).
        /// `RemoveDim` on a rank-0 view does not compile.
        ///
        /// Numerics: each output group is folded in ascending index order along
        /// `axis`, so the result is bit-identical for every layout of the same
        /// logical values (contiguous, transposed, sliced).
        #[doc = $empty]
        ///
        /// # Errors
        /// In this order:
        /// - [`TensorOpError::ReductionAxisOutOfBounds`] if `axis >= R`
        ///   (always, for a rank-0 view with `KeepDim`);
        /// - [`TensorOpError::EmptyMeanAxis`] / [`TensorOpError::EmptyMaxAxis`]
        ///   for an axis of extent 0 (mean and max only);
        /// - [`TensorOpError::OutputAllocationFailed`] if the output cannot be reserved.
        ///
        /// ```
        /// use llm_from_scratch::prelude::*;
        /// let biased = Tensor::from_vec([2, 3], vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0])?;
        #[doc = $example]
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn $name<const R: usize, const S: usize, F: Float, K: ReduceDim<R, Output = Rank<S>>>(
            input: &View<'_, R, F>,
            axis: usize,
            keep: K,
        ) -> Result<Tensor<S, F>, TensorOpError> {
            let _ = keep;
            Reduction::$variant.ranked::<R, S, F, K>(input, axis)
        }

        #[doc = concat!("[`", stringify!($name), "`] into a caller's tensor of the output shape, reusing its storage.")]
        ///
        /// # Errors
        #[doc = concat!("As for [`", stringify!($name), "`] (but no allocation), then")]
        /// [`TensorOpError::OutputShapeMismatch`] if `out` has another shape.
        pub fn $into<const R: usize, const S: usize, F: Float, K: ReduceDim<R, Output = Rank<S>>>(
            input: &View<'_, R, F>,
            axis: usize,
            keep: K,
            out: &mut Tensor<S, F>,
        ) -> Result<(), TensorOpError> {
            let _ = keep;
            Reduction::$variant.ranked_into::<R, S, F, K>(input, axis, out)
        }
    };
}

reduction!(
    sum_axis,
    sum_axis_into,
    Sum,
    "sum (from +0.0, ascending)",
    "An empty axis sums to +0.0 (never -0.0).",
    "let s = sum_axis(&biased.view(), 0, RemoveDim)?; // [2, 3] -> [3]\nassert_eq!(s.as_slice(), &[25.0, 47.0, 69.0]);"
);
reduction!(
    mean_axis,
    mean_axis_into,
    Mean,
    "mean (ascending sum divided by the extent)",
    "An empty axis is an error: the mean of nothing is undefined.",
    "let m = mean_axis(&biased.view(), 1, KeepDim)?; // [2, 3] -> [2, 1]\nassert_eq!((m.shape(), m.as_slice()), (&[2, 1], &[22.0, 25.0][..]));"
);
reduction!(
    max_axis,
    max_axis_into,
    Max,
    "maximum (first NaN wins with its exact bits; ties keep the earlier value, so -0.0 before +0.0 stays -0.0; not `f64::max`)",
    "An empty axis is an error: the maximum of nothing is undefined.",
    "let m = max_axis(&biased.view(), 1, RemoveDim)?; // [2, 3] -> [2]\nassert_eq!(m.as_slice(), &[33.0, 36.0]);"
);
