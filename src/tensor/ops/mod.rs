//! Operations: broadcasting, elementwise maps, single-axis reductions,
//! matrix products, gathers and the fused softmax, as free functions (for
//! generic code) and as methods of [`View`](crate::tensor::View) and
//! [`Tensor`](crate::tensor::Tensor) with the same names and rules.
//!
//! Output ranks are computed by the traits of [`crate::tensor::rank`] and
//! inferred at the call site: `sum_axis(&v3, 1, RemoveDim)?` is a
//! `Tensor<2>`, `map_binary(&tokens2, &bias1, f)?` a `Tensor<2>`. Every op
//! has an `_into` twin that writes into a caller's tensor so hot loops can
//! reuse buffers. Operands are `&impl AsView<R, T>`: tensors and views alike
//! (a `ViewMut` is read through `reborrow().materialize()` or written to
//! with its own in-place methods; it is not an `AsView`). The dynamic API (`tensor::dynamic`) calls the same
//! rank-erased cores defined here.
//!
//! # Data movement and fused operations
//!
//! [`concat()`] / [`stack`] join views (the KV cache, a batch), [`index_select`]
//! picks positions along an axis (the embedding lookup), [`argmax_axis`]
//! finds the position `max_axis` keeps (greedy decoding) and
//! [`softmax_axis`] is the stable softmax fused (one read of the input, one
//! write of the output), bit-identical to its four-call composition. Every
//! check runs before the first value is written.
//!
//! # Reductions
//!
//! Shapes, for `sum_axis`, `mean_axis` and `max_axis`: `[.., n, ..]` -> `[.., ..]` with [`RemoveDim`]
//! (rank `R - 1`, inferred; does not compile for `R = 0`) or `[.., 1, ..]`
//! with [`KeepDim`] (rank `R`, NumPy `keepdims=True`).
//!
//! Numerics: each output group is folded in ascending index order along
//! the axis (sum and mean from +0.0), so results are bit-identical for every
//! layout of the same logical values (contiguous, transposed, sliced); a
//! NaN made by arithmetic stays NaN, its payload bits unspecified by Rust.
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
pub(crate) mod dynamic;
pub(crate) mod dynamic_llm;
mod gather;
mod map;
mod matmul;
mod methods;
mod reduce;
mod softmax;

pub use broadcast::broadcast_shape;
pub use gather::{concat, concat_into, index_select, index_select_into, stack, stack_into};
pub use map::{map_binary, map_binary_into, map_unary, map_unary_into};
pub use matmul::{matmul, matmul_into};
pub use reduce::{argmax_axis, argmax_axis_into};
pub use reduce::{max_axis, max_axis_into, mean_axis, mean_axis_into, sum_axis, sum_axis_into};
pub use softmax::{softmax_axis, softmax_axis_into};

use crate::tensor::error::TensorOpError;
use crate::tensor::traverse::alloc::try_buffer;

/// An output buffer for `elements` values, reserved with `try_reserve`.
pub(crate) fn output_buffer<T>(elements: usize) -> Result<Vec<T>, TensorOpError> {
    try_buffer(elements).map_err(|failed| TensorOpError::OutputAllocationFailed {
        elements: failed.elements,
    })
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
