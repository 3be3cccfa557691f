//! # llm_from_scratch: a rank-typed tensor core
//!
//! Owned row-major tensors ([`Tensor<R, T>`](tensor::Tensor)), borrowed
//! strided views ([`View<'a, R, T>`](tensor::View)), zero-copy reshape /
//! transpose / permute / slice, explicit [`materialize`](tensor::View::materialize),
//! NumPy broadcasting and exact single-axis reductions — with the rank in
//! the type, so rank mistakes are compile errors.
//!
//! ```
//! use llm_from_scratch::prelude::*;
//!
//! // GPT-2 split heads: [B, T, C] -> [B, T, H, D] -> [B, H, T, D], zero-copy.
//! let (b, t, h, d) = (1, 4, 2, 3);
//! let x = Tensor::from_fn([b, t, h * d], |[_, i, c]| (10 * i + c) as f64)?;
//! let heads = x.view().reshape([b, t, h, d])?.permute([0, 2, 1, 3])?;
//! assert_eq!(heads.shape(), &[1, 2, 4, 3]);
//! assert_eq!(heads.get([0, 1, 2, 0])?, &23.0); // token 2, head 1, lane 0 = channel 3
//!
//! // A stable softmax over the last axis: max kept, subtract, exp, sum kept, divide.
//! let scores: Tensor<2> = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 1.0, 1.0, 1.0])?;
//! let max = max_axis(&scores, 1, KeepDim)?;                  // [2, 1]
//! let e = map_binary(&scores, &max, |s, m| (s - m).exp())?;
//! let z = sum_axis(&e, 1, KeepDim)?;                         // [2, 1]
//! let p = map_binary(&e, &z, |e, z| e / z)?;          // [2, 3]
//! assert!((sum_axis(&p, 1, RemoveDim)?.as_slice()[0] - 1.0).abs() < 1e-15);
//! assert_eq!(softmax_axis(&scores, 1)?, p); // the same, fused, bit for bit
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![doc(test(attr(deny(warnings))))]

pub mod error;
pub mod tensor;

pub use error::{Error, TensorError, TensorOpError, TensorViewError};
pub use tensor::{
    ArrayBase, AsArray, AsView, CellView, DynCellView, DynTensor, DynView, DynViewMut, Tensor,
    View, ViewMut,
};

/// Everything a model file usually needs: the types, the traits, the
/// markers and the ops.
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::error::{Error, TensorError, TensorOpError, TensorViewError};
    #[doc(no_inline)]
    pub use crate::tensor::ops::{
        argmax_axis, argmax_axis_into, cast, concat, concat_into, index_select, index_select_into,
        softmax_axis, softmax_axis_into, stack, stack_into,
    };
    #[doc(no_inline)]
    pub use crate::tensor::ops::{
        broadcast_shape, map_binary, map_binary_into, map_unary, map_unary_into, matmul,
        matmul_into, max_axis, max_axis_into, mean_axis, mean_axis_into, sum_axis, sum_axis_into,
    };
    #[doc(no_inline)]
    pub use crate::tensor::{
        ArrayBase, AsArray, AsView, Axes1, Axes2, Axes3, Axes4, Axes5, Axes6, Axes7, Axes8,
        AxisList, BroadcastRank, CellView, Dimension, DynCellView, DynRank, DynTensor, DynView,
        DynViewMut, Element, Float, InsertAxis, KeepDim, LayoutTrace, MatrixRank, Rank, RankAtMost,
        ReduceDim, RemoveAxis, RemoveDim, Tensor, View, ViewMut, copying_transpose,
    };
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
