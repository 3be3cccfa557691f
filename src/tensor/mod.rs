//! The tensor core: owners, views, layouts, rank arithmetic, kernels and ops.
//!
//! Every item is re-exported here (and the common ones at the crate root
//! and in the [prelude](crate::prelude)): one path per item.
//!
//! | where | what |
//! |---|---|
//! | [`Tensor`], [`View`], [`AsView`] | the owner, the borrowed view, operands of either kind |
//! | [`dynamic`] | [`DynTensor`] / [`DynView`] and the ops with run-time ranks |
//! | [`ops`] | broadcasting, maps, reductions, matrix products, gathers, softmax (free functions) |
//! | [`rank`] | rank arithmetic in the type system ([`Rank`], [`RemoveAxis`], [`BroadcastRank`]) |
//! | [`Axes1`] … [`Axes8`] | compile-time axis lists for `permute_axes` |
//! | [`Error`], [`TensorError`], [`TensorViewError`], [`TensorOpError`] | typed errors |
//! | [`LayoutTrace`] | a table of layouts: shape, strides, offsets, shared or new owner |
//! | `weights` (feature `safetensors`) | views over a safetensors buffer |
//! | `View::to_ndarray`, `View::try_from(array_view)` (feature `ndarray`) | the same storage, shape and strides as ndarray's `ArrayView`, both ways, no copy |
//!
//! Inside, imports point one way: `shape` (layouts, no values) <-
//! `traverse` (the odometer, copies) <- `array` (the value types) <- `ops`
//! <- `fmt` / `trace`.

mod array;
pub mod error;
mod float;
mod fmt;
mod math;
pub mod ops;
mod shape;
mod trace;
mod traverse;
#[cfg(feature = "safetensors")]
pub mod weights;

pub use array::dynamic::{DynTensor, DynView};
pub use array::iter::{AxisChunksIter, AxisIter};
pub use array::materialize::copying_transpose;
pub use array::owned::Tensor;
pub use array::view::{AsView, View};
pub use array::view_mut::ViewMut;
pub use error::{Error, TensorError, TensorOpError, TensorViewError};
pub use float::Float;
pub use shape::axes::{Axes1, Axes2, Axes3, Axes4, Axes5, Axes6, Axes7, Axes8, AxisList};
pub use shape::rank;
pub use shape::rank::{
    BroadcastRank, InsertAxis, KeepDim, MAX_RANK, MatrixRank, Rank, RankAtMost, ReduceDim,
    RemoveAxis, RemoveDim,
};
pub use trace::{LayoutTrace, TraceRow};
pub use traverse::offsets::{StridedOffsets, StridedValues};

/// The run-time-rank fallback: [`DynTensor`], [`DynView`] and the ops on them.
///
/// They keep runtime-checked signatures (`Vec<usize>` / `&[usize]` shapes
/// and axis lists, `keep_dim: bool`,
/// [`PermutationLengthMismatch`](crate::tensor::TensorViewError::PermutationLengthMismatch))
/// and are thin shells over the same layout code and kernels as the ranked
/// API, so both give identical results. Use them for ranks above
/// [`MAX_RANK`] or ranks read from a file, and convert with
/// `into_ranked::<R>()` as soon as the rank is known.
pub mod dynamic {
    pub use super::array::dynamic::{DynTensor, DynView};
    pub use super::array::dynamic_mut::DynViewMut;
    pub use super::ops::dynamic::{
        broadcast_shape, map_binary, map_binary_into, map_unary, map_unary_into, matmul,
        matmul_into, max_axis, max_axis_into, mean_axis, mean_axis_into, sum_axis, sum_axis_into,
    };
    pub use super::ops::dynamic_llm::{
        argmax_axis, argmax_axis_into, concat, concat_into, index_select, index_select_into,
        softmax_axis, softmax_axis_into, stack, stack_into,
    };
}

/// Old path of [`Tensor`] and [`copying_transpose`]; use `tensor::Tensor`.
#[deprecated(
    since = "0.2.0",
    note = "use `llm_from_scratch::tensor::{Tensor, copying_transpose}`"
)]
#[doc(hidden)]
pub mod storage {
    pub use super::{Tensor, copying_transpose};
}

/// Old path of [`View`]; use `tensor::View`.
#[deprecated(since = "0.2.0", note = "use `llm_from_scratch::tensor::View`")]
#[doc(hidden)]
pub mod view {
    pub use super::View;
}

/// Old path of [`LayoutTrace`] and [`TraceRow`]; use `tensor::LayoutTrace`.
#[deprecated(
    since = "0.2.0",
    note = "use `llm_from_scratch::tensor::{LayoutTrace, TraceRow}`"
)]
#[doc(hidden)]
pub mod display {
    pub use super::{LayoutTrace, TraceRow};
}

/// Old path of the axis markers; use `tensor::{Axes1, .., AxisList}`.
#[deprecated(
    since = "0.2.0",
    note = "use `llm_from_scratch::tensor::{Axes1, .., Axes8, AxisList}`"
)]
#[doc(hidden)]
pub mod axes {
    pub use super::{Axes1, Axes2, Axes3, Axes4, Axes5, Axes6, Axes7, Axes8, AxisList};
}

/// Test and bench hook, not part of the API: run kernels on the baseline
/// SIMD path or split small work over threads (see `traverse/simd.rs`).
#[doc(hidden)]
pub use traverse::simd::{KernelTuning, SimdLevel, with_kernel_tuning};
