//! The tensor core: owners, views, layouts, rank arithmetic, kernels and ops.
//!
//! | module | concept |
//! |---|---|
//! | [`storage`] | [`Tensor<R, T>`](Tensor), the owner of row-major values |
//! | [`view`] | [`View<'a, R, T>`](View), a borrowed strided interpretation |
//! | [`axes`] | compile-time axis lists for `transpose_axes` / `permute_axes` |
//! | [`rank`] | rank arithmetic in the type system ([`Rank`], [`RemoveAxis`], [`BroadcastRank`]) |
//! | [`ops`] | broadcasting, maps, reductions, matrix products |
//! | [`dynamic`] | the runtime-rank fallback [`DynTensor`] / [`DynView`] |
//! | [`error`] | [`TensorError`], [`TensorViewError`], [`TensorOpError`] |
//! | `weights` (feature `safetensors`) | views over a safetensors buffer |
//! | [`display`] | nested printing and the [`LayoutTrace`] table |
//! | `layout` (private) | checked shape arithmetic on `&[usize]` |
//! | `kernels` (private) | rank-erased traversal and compute loops |

pub mod axes;
pub mod display;
pub mod dynamic;
pub mod error;
pub mod float;
pub(crate) mod kernels;
pub(crate) mod layout;
pub mod ops;
pub mod rank;
pub mod storage;
pub mod view;
#[cfg(feature = "safetensors")]
pub mod weights;

pub use axes::{Axes1, Axes2, Axes3, Axes4, Axes5, Axes6, Axes7, Axes8, AxisList};
pub use display::{LayoutTrace, TraceRow};
pub use dynamic::{DynTensor, DynView};
pub use error::{TensorError, TensorOpError, TensorViewError};
pub use float::Float;
pub use rank::{
    BroadcastRank, KeepDim, MAX_RANK, MatrixRank, Rank, ReduceDim, RemoveAxis, RemoveDim,
};
pub use storage::{Tensor, copying_transpose};
pub use view::View;

/// Test and bench hook, not part of the API: run kernels on the baseline
/// SIMD path or split small work over threads (see `kernels/simd.rs`).
#[doc(hidden)]
pub use kernels::simd::{KernelTuning, SimdLevel, with_kernel_tuning};
