//! The tensor core: one array type over storages and dimensions, layouts,
//! rank arithmetic, kernels and ops.
//!
//! Every item is re-exported here (and the common ones at the crate root
//! and in the [prelude](crate::prelude)): one path per item.
//!
//! | where | what |
//! |---|---|
//! | [`ArrayBase`] and its aliases [`Tensor`], [`View`], [`ViewMut`], [`CellView`], [`DynTensor`], [`DynView`], [`DynViewMut`], [`DynCellView`] | the one array type: owner, view, mutable view, split piece, at a typed or a run-time rank |
//! | [`AsArray`], [`AsView`] | operands: any owner, view or mutable view |
//! | [`Dimension`]: [`Rank`], [`DynRank`]; [`IntoShape`] | the dimension parameter and shape arguments |
//! | [`Storage`], [`Readable`], [`Borrowed`], [`Writable`], [`Cells`] | the storage parameter and what each storage allows |
//! | [`Element`], [`Float`] | element types: what a kernel stores, and the type it computes in |
//! | [`ops`] | broadcasting, maps, named elementwise functions and arithmetic, reductions, matrix products, gathers, softmax (free functions; each is also a method) |
//! | [`rank`] | rank arithmetic in the type system ([`RemoveAxis`], [`InsertAxis`], [`BroadcastRank`], ...) |
//! | [`Axes1`] … [`Axes8`] | compile-time axis lists for `permute_axes` |
//! | [`Error`] | the one error type |
//! | [`LayoutTrace`] | a table of layouts: shape, strides, offsets, shared or new owner |
//! | [`weights`] | [`AlignedBytes`](weights::AlignedBytes); with feature `safetensors`, views over a safetensors buffer |
//! | [`gguf`] | GGUF files: typed metadata, tensor infos, tensors as views or quantized blocks |
//! | [`quant`] | block-quantized weights (`Q8_0`, `Q4_0`, `Q4_1`): [`QBlocks`](quant::QBlocks), dequantize, `x · Wᵀ` ([`linear`](quant::linear)); `x · Wᵀ` from `bf16` / `f16` weights ([`half_linear`](quant::half_linear)) |
//! | `View::to_ndarray`, `View::try_from(array_view)` (feature `ndarray`) | the same storage, shape and strides as ndarray's `ArrayView`, both ways, no copy |
//!
//! Inside, imports point one way: `element` and `shape` (no values) <-
//! `traverse` (the odometer, copies, SIMD) <- `array` (the array type) <-
//! `ops` <- `quant` <- `fmt` / `trace` / `weights` / `gguf`.

mod array;
mod element;
pub mod error;
mod float;
mod fmt;
pub mod gguf;
pub(crate) mod lanes;
mod math;
pub mod ops;
pub mod quant;
mod shape;
mod trace;
pub(crate) mod traverse;
pub mod weights;

#[doc(no_inline)]
pub use crate::error::{Error, TensorError, TensorOpError, TensorViewError};
pub use array::base::{
    ArrayBase, CellView, DynCellView, DynTensor, DynView, DynViewMut, Tensor, View, ViewMut,
};
pub use array::borrow::{AsArray, AsView};
pub use array::iter::{AxisChunksIter, AxisIter};
pub use array::materialize::copying_transpose;
pub use array::storage::{Borrowed, Cells, Readable, Storage, Writable};
pub use element::{Element, bf16, f16};
pub use float::Float;
/// A read-only memory map of a weights file (feature `mmap`): parse its
/// [`bytes`](MappedFile::bytes) with `weights::Weights::parse` (or the GGUF reader). See the
/// `llm_from_scratch_mmap` crate for the one rule it relies on (do not
/// modify a file while it is mapped).
#[cfg(feature = "mmap")]
pub use llm_from_scratch_mmap::MappedFile;
pub use shape::axes::{Axes1, Axes2, Axes3, Axes4, Axes5, Axes6, Axes7, Axes8, AxisList};
pub use shape::dimension::{Dimension, DynRank, IntoShape};
pub use shape::rank;
pub use shape::rank::{
    BroadcastRank, InsertAxis, KeepDim, MAX_RANK, MatrixRank, Rank, RankAtMost, ReduceDim,
    RemoveAxis, RemoveDim,
};
pub use trace::{LayoutTrace, TraceRow};
pub use traverse::offsets::{StridedOffsets, StridedValues};

/// A row-major owner of rank `D` over `values` (the caller checked that
/// `shape` has `D`'s rank and `values` its element count): for modules
/// outside `tensor` (autograd) that build results of a generic rank.
pub(crate) fn owned_with_shape<D: Dimension, T>(
    shape: &[usize],
    values: Vec<T>,
    op: &'static str,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    use shape::dims::Dims;
    ops::owner::<D, T>(D::Axes::from_slice(shape), values, op)
}

/// The run-time-rank names: [`DynTensor`], [`DynView`], [`DynViewMut`] and
/// the operations, which are the same generic functions as in [`ops`]
/// (a `DynView` operand gives a `DynTensor` result; `keep_dim` is a `bool`).
///
/// Use them for ranks above [`MAX_RANK`] or ranks read from a file, and
/// convert with `into_ranked::<R>()` as soon as the rank is known.
pub mod dynamic {
    #[doc(no_inline)]
    pub use super::ops::{
        AttentionMask, argmax_axis, argmax_axis_into, attention, broadcast_shape, causal_softmax,
        causal_softmax_into, concat, concat_into, index_select, index_select_into, layer_norm,
        layer_norm_into, map_binary, map_binary_into, map_unary, map_unary_into, matmul,
        matmul_into, max_axis, max_axis_into, mean_axis, mean_axis_into, rms_norm, rms_norm_into,
        softmax_axis, softmax_axis_into, stack, stack_into, sum_axis, sum_axis_into,
    };
    #[doc(no_inline)]
    pub use super::ops::{
        Function, add, add_into, div, div_into, mul, mul_into, sub, sub_into, unary, unary_into,
    };
    #[doc(no_inline)]
    pub use super::{DynCellView, DynRank, DynTensor, DynView, DynViewMut};
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
