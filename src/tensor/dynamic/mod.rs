//! The dynamic-rank fallback: rank known only at run time.
//!
//! [`DynTensor`] and [`DynView`] keep the course chapters' runtime-checked
//! signatures (`Vec<usize>` / `&[usize]` shapes and axis lists,
//! `keep_dim: bool`, [`PermutationLengthMismatch`](crate::tensor::TensorViewError::PermutationLengthMismatch)).
//! They are thin shells over the same layout functions and kernels as the
//! ranked API, so both give identical results. Use them for ranks above
//! [`MAX_RANK`](crate::tensor::MAX_RANK) or ranks read from a file, and
//! convert with `into_ranked::<R>()` as soon as the rank is known.

mod ops;
mod tensor;
mod view;

pub use ops::{broadcast_shape, map_binary, map_unary, matmul, max_axis, mean_axis, sum_axis};
pub use tensor::DynTensor;
pub use view::DynView;
