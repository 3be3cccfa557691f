//! `rms_norm`: RMSNorm over the last axis, fused.

use super::{Params, fresh, into};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::shape::dimension::Dimension;

/// RMSNorm over the last axis: `y = x / sqrt(mean(x²) + eps) · gamma` per
/// row (no centering, no bias).
///
/// Shapes: `x [.., C]`, `gamma [C]` -> `[.., C]` (rank `R` kept). Source:
/// Zhang & Sennrich, "Root Mean Square Layer Normalization" (2019); Llama's
/// `attn_norm` / `ffn_norm` / `output_norm` (`eps` from
/// `llama.attention.layer_norm_rms_epsilon`); ≈ Hugging Face's
/// `LlamaRMSNorm` (computed in f32, the weight multiplied last; it
/// multiplies by `rsqrt` where this divides by `sqrt`, within 1 ulp), PyTorch
/// `torch.nn.functional.rms_norm(x, (C,), gamma, eps)`. `eps` is rounded
/// once to the compute type.
///
/// Numerics: bit-identical, for every layout, thread count and SIMD level,
/// to the composition `ms = mean_axis(x.square(), R - 1, KeepDim)`,
/// `r = sqrt(ms + eps)` (one rounding each), `y = mul(div(x, r), gamma)`:
/// the mean square is the fixed-tree sum of `sum_axis` divided by `C`.
/// `f16` / `bf16` are computed in `f32` and rounded once at the end. Fused
/// as [`layer_norm`](crate::tensor::ops::layer_norm) is: one read, one
/// write, nothing allocated but the output. An axis of extent 0 gives an
/// empty result.
///
/// # Errors
/// In this order: [`Error::RankTooSmall`] for a rank-0 input,
/// [`Error::NormParamMismatch`] if `gamma` is not of shape `[C]`,
/// [`Error::ShapeOverflow`], then [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let x = Tensor::from_vec([1, 2], vec![3.0_f32, -3.0])?;
/// let gamma = Tensor::from_vec([2], vec![1.0, 0.5])?;
/// let y = rms_norm(&x, &gamma, 0.0)?; // [1, 2] -> [1, 2]
/// assert_eq!(y.as_slice(), &[1.0, -0.5]);
/// // Bit-identical to the composition:
/// let ms = x.square()?.mean_axis(1, KeepDim)?;
/// let r = map_unary(&ms, |m| (m + 0.0).sqrt())?;
/// assert_eq!(y, x.div(&r)?.mul(&gamma)?);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn rms_norm<D: Dimension, G: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    gamma: &(impl AsArray<G, T> + ?Sized),
    eps: f64,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    let params = Params {
        gamma: gamma.as_array().into_dyn(),
        beta: None,
    };
    fresh(input.as_array(), params, eps, "rms_norm")
}

/// [`rms_norm`] into `out` (the input's shape), reusing its storage;
/// allocates nothing for `f32` / `f64`.
///
/// # Errors
/// As for [`rms_norm`], then [`Error::OutputShapeMismatch`] if `out` has
/// another shape (checked before any value is written).
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let x = Tensor::from_vec([1, 2], vec![2.0, 2.0])?;
/// let mut y = Tensor::zeros([1, 2])?;
/// rms_norm_into(&x, &Tensor::full([2], 3.0)?, 0.0, &mut y)?;
/// assert_eq!(y.as_slice(), &[3.0, 3.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn rms_norm_into<D: Dimension, G: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    gamma: &(impl AsArray<G, T> + ?Sized),
    eps: f64,
    out: &mut ArrayBase<Vec<T>, D>,
) -> Result<(), Error> {
    let params = Params {
        gamma: gamma.as_array().into_dyn(),
        beta: None,
    };
    into(input.as_array(), params, eps, out, "rms_norm_into")
}

impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// [`rms_norm`] as a method: RMSNorm over the last axis, fused,
    /// bit-identical to its composition.
    ///
    /// # Errors
    /// As for [`rms_norm`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([1, 2], vec![-4.0_f32, 4.0])?;
    /// assert_eq!(x.rms_norm(&Tensor::full([2], 1.0_f32)?, 0.0)?.as_slice(), &[-1.0, 1.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn rms_norm<G: Dimension>(
        &self,
        gamma: &(impl AsArray<G, S::Elem> + ?Sized),
        eps: f64,
    ) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        rms_norm(self, gamma, eps)
    }
}
