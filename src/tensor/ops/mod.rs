//! Operations on ranked views: broadcasting, elementwise maps, single-axis
//! reductions (the course's broadcasting chapter) and matrix products.
//!
//! Output ranks are computed by the traits of [`crate::tensor::rank`] and
//! inferred at the call site: `sum_axis(&v3, 1, RemoveDim)?` is a
//! `Tensor<2>`, `map_binary(&tokens2, &bias1, f)?` a `Tensor<2>`. Every op
//! has an `_into` twin that writes into a caller's tensor so hot loops can
//! reuse buffers. The dynamic API (`tensor::dynamic`) calls the same
//! rank-erased cores defined here.
//!
//! # Reductions
//!
//! Shapes, for `sum_axis`, `mean_axis` and `max_axis`: `[.., n, ..]` -> `[.., ..]` with [`RemoveDim`]
//! (rank `R - 1`, inferred; does not compile for `R = 0`) or `[.., 1, ..]`
//! with [`KeepDim`] (rank `R`, NumPy `keepdims=True`).
//!
//! Numerics: each output group is folded in ascending index order along
//! the axis (sum and mean from +0.0), so results are bit-identical for every
//! layout of the same logical values (contiguous, transposed, sliced).
//!
//! Errors, in this order: [`TensorOpError::ReductionAxisOutOfBounds`] if
//! `axis >= R` (always for a rank-0 view), then for mean and max an axis of
//! extent 0 ([`TensorOpError::EmptyMeanAxis`], [`TensorOpError::EmptyMaxAxis`]),
//! then [`TensorOpError::OutputAllocationFailed`]; the `_into` variants
//! allocate nothing and return [`TensorOpError::OutputShapeMismatch`] for an
//! output of another shape.
//!
//! [`RemoveDim`]: crate::tensor::RemoveDim
//! [`KeepDim`]: crate::tensor::KeepDim

mod broadcast;
mod map;
mod matmul;
mod reduce;

pub use broadcast::broadcast_shape;
pub use map::{map_binary, map_binary_into, map_unary, map_unary_into};
pub use matmul::{matmul, matmul_into};
pub use reduce::{max_axis, max_axis_into, mean_axis, mean_axis_into, sum_axis, sum_axis_into};

pub(crate) use map::{binary_core, unary_core};
pub(crate) use matmul::matmul_fresh;
pub(crate) use reduce::Reduction;

use crate::tensor::error::TensorOpError;

/// An output buffer for `elements` values, reserved with `try_reserve`.
pub(crate) fn output_buffer<T>(elements: usize) -> Result<Vec<T>, TensorOpError> {
    crate::tensor::kernels::buffer(elements)
        .ok_or(TensorOpError::OutputAllocationFailed { elements })
}

/// `OutputShapeMismatch` unless the caller's output has the expected shape.
pub(crate) fn check_output_shape(
    expected: &[usize],
    actual: &[usize],
) -> Result<(), TensorOpError> {
    if expected == actual {
        Ok(())
    } else {
        Err(TensorOpError::OutputShapeMismatch {
            expected: expected.to_vec(),
            actual: actual.to_vec(),
        })
    }
}
