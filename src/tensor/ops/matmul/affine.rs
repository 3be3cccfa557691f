//! `matmul_affine`: a matrix product with its scale and bias applied as the
//! values are finished, `(left · right) · alpha + bias`, one output buffer.

use super::kernel::Epilogue;
use super::product::{fresh_product, matmul_shape};
use crate::error::Error;
use crate::tensor::array::base::{ArrayBase, View};
use crate::tensor::array::borrow::AsArray;
use crate::tensor::element::Element;
use crate::tensor::ops::widen::widen;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::rank::MatrixRank;

/// `(left · right) · alpha + bias`: [`matmul`](super::matmul) with an
/// epilogue, `[.., m, k] x [.., k, n] -> [batch.., m, n]`, `bias` of shape
/// `[n]` (or `[1]`) added to every row, without the temporaries of the
/// three-call composition. The scale of attention scores (`Q · Kᵀ · α`,
/// `α = 1/√d`, Vaswani et al. 2017) and a linear layer (`x · Wᵀ + b`,
/// PyTorch's `torch.addmm(b, x, w.t())` with `beta = 1`) are this call.
///
/// Shapes and the product's numerics are [`matmul`](super::matmul)'s (the
/// output rank is inferred from the operands'). Each finished value `c` is
/// then multiplied by `alpha` (one rounding; skipped for `alpha = 1`) and
/// `bias[j]` added (one rounding), in that order and without a fused
/// multiply-add, so for `f32` and `f64` the result has the same bits as
/// `matmul(left, right)`, then `· alpha`, then `+ bias` broadcast over the
/// rows. The kernel applies it while a finished block of rows is in cache.
/// `f16` / `bf16` inputs are widened to `f32`, the product, scale and bias
/// computed in `f32` exactly as for `f32` inputs, and the result rounded
/// to the half type once: more accurate than the half-precision
/// composition, which rounds after each of its three calls, so the two
/// can differ in the last bit. A bias that is not `n` contiguous `f32` /
/// `f64` values (strided, broadcast from `[1]`, or half precision) is read
/// through a copy of its `n` values; with `n = 0` a `[0]` bias is also
/// accepted (NumPy's broadcasting).
///
/// # Errors
/// As for [`matmul`](super::matmul), then
/// [`Error::IncompatibleBroadcast`] (at the output's last axis) if the
/// bias has neither `n` nor 1 values; [`Error::AllocationFailed`] if the
/// output or a scratch buffer cannot be reserved.
///
/// ```
/// use llm_from_scratch::prelude::*; // matmul_affine is in the prelude
/// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let w = Tensor::from_vec([3, 2], vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0])?; // [out, in]
/// let b = Tensor::from_vec([3], vec![0.5, -0.5, 10.0])?;
/// // A linear layer, x · Wᵀ + b: [2, 2] x [2, 3] -> [2, 3].
/// let y = matmul_affine(&x, &w.view().transpose(0, 1)?, 1.0, Some(b.view()))?;
/// assert_eq!(y.as_slice(), &[1.5, 1.5, 13.0, 3.5, 3.5, 17.0]);
/// // Scaled scores, Q · Kᵀ / 2, no bias.
/// let s = matmul_affine(&x, &x.view().transpose(0, 1)?, 0.5, None)?;
/// assert_eq!(s.as_slice(), &[2.5, 5.5, 5.5, 12.5]);
/// assert_eq!(
///     matmul_affine(&x, &w.view().transpose(0, 1)?, 1.0, Some(x.view().select(0, 0)?)),
///     Err(Error::IncompatibleBroadcast {
///         op: "matmul_affine", axis: 1, left_dimension: 2, right_dimension: 3
///     })
/// );
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn matmul_affine<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
    alpha: T,
    bias: Option<View<'_, 1, T>>,
) -> Result<ArrayBase<Vec<T>, O>, Error>
where
    L: Dimension + MatrixRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    let op = "matmul_affine";
    let (left, right) = (left.as_array(), right.as_array());
    let (shape, len) = matmul_shape::<O::Axes>(left.layout.shape(), right.layout.shape(), op)?;
    let out_shape = shape.as_slice();
    let (rank, n) = (out_shape.len(), out_shape[out_shape.len() - 1]);
    let bias = match bias {
        Some(bias) => {
            let wide = bias.broadcast_to([n]).map_err(|error| match error {
                Error::IncompatibleBroadcast {
                    left_dimension,
                    right_dimension,
                    ..
                } => Error::IncompatibleBroadcast {
                    op,
                    axis: rank - 1,
                    left_dimension,
                    right_dimension,
                },
                other => other,
            })?;
            let widened = widen(wide, op)?;
            Some(widened.view().materialize()?)
        }
        None => None,
    };
    let epilogue = Epilogue {
        alpha: alpha.to_acc(),
        bias: bias.as_ref().map(|b| b.as_slice()),
    };
    fresh_product(left, right, shape, len, Some(epilogue), op)
}
