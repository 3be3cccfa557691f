//! `layer_norm`: LayerNorm over the last axis, fused.

use super::{Params, fresh, into};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::shape::dimension::Dimension;

/// LayerNorm over the last axis: `y = (x - mean) / sqrt(var + eps) · gamma
/// + beta` per row, with the row's mean and its biased variance (the mean
/// of the squared deviations, divided by `C`, not `C - 1`).
///
/// Shapes: `x [.., C]`, `gamma [C]`, `beta [C]` -> `[.., C]` (rank `R`
/// kept). Source: Ba, Kiros & Hinton, "Layer Normalization" (2016); ≈
/// PyTorch `torch.nn.functional.layer_norm(x, (C,), gamma, beta, eps)`,
/// GPT-2's `ln_1` / `ln_2` / `ln_f` (`eps = 1e-5`), BERT's `LayerNorm`
/// (`eps = 1e-12`). `eps` is rounded once to the compute type.
///
/// Numerics: bit-identical, for every layout, thread count and SIMD level,
/// to the composition `mean = mean_axis(x, R - 1, KeepDim)`,
/// `c = sub(x, mean)`, `var = mean_axis(c.square(), R - 1, KeepDim)`,
/// `s = sqrt(var + eps)` (one rounding each), `y = add(mul(div(c, s),
/// gamma), beta)`: the same operations on the same operands, so the mean
/// and the variance are the fixed-tree sums of `sum_axis` divided by `C`
/// and the affine step is a multiply and an add (two roundings, no fused
/// multiply-add). `f16` / `bf16` inputs and parameters are computed in
/// `f32` and rounded once at the end (PyTorch's CPU rule). Fused: the input
/// is read once, each row is copied into the output and normalized there
/// while it is in cache, nothing is allocated but the output (and a dense
/// copy of a strided `gamma` / `beta`). A row of NaN or ±inf gives NaN; an
/// axis of extent 0 gives an empty result.
///
/// # Errors
/// In this order: [`Error::RankTooSmall`] for a rank-0 input (there is no
/// last axis), [`Error::NormParamMismatch`] if `gamma`, then `beta`, is not
/// of shape `[C]`, [`Error::ShapeOverflow`] for a shape whose row-major
/// strides overflow, then [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let x = Tensor::from_vec([2, 2], vec![1.0_f64, 3.0, -2.0, 2.0])?;
/// let gamma = Tensor::from_vec([2], vec![1.0, 2.0])?;
/// let beta = Tensor::from_vec([2], vec![0.5, 0.0])?;
/// let y = layer_norm(&x, &gamma, &beta, 0.0)?; // [2, 2] -> [2, 2]
/// assert_eq!(y.as_slice(), &[-0.5, 2.0, -0.5, 2.0]);
/// // Bit-identical to the composition:
/// let c = x.sub(&x.mean_axis(1, KeepDim)?)?;
/// let var = c.square()?.mean_axis(1, KeepDim)?;
/// let s = map_unary(&var, |v| (v + 0.0).sqrt())?;
/// assert_eq!(y, c.div(&s)?.mul(&gamma)?.add(&beta)?);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn layer_norm<D: Dimension, G: Dimension, B: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    gamma: &(impl AsArray<G, T> + ?Sized),
    beta: &(impl AsArray<B, T> + ?Sized),
    eps: f64,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    let params = Params {
        gamma: gamma.as_array().into_dyn(),
        beta: Some(beta.as_array().into_dyn()),
    };
    fresh(input.as_array(), params, eps, "layer_norm")
}

/// [`layer_norm`] into `out` (the input's shape), reusing its storage;
/// allocates nothing for `f32` / `f64`.
///
/// # Errors
/// As for [`layer_norm`], then [`Error::OutputShapeMismatch`] if `out` has
/// another shape (checked before any value is written).
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let x = Tensor::from_vec([1, 2], vec![0.0, 2.0])?;
/// let ones = Tensor::full([2], 1.0)?;
/// let zeros = Tensor::zeros([2])?;
/// let mut y = Tensor::zeros([1, 2])?;
/// layer_norm_into(&x, &ones, &zeros, 0.0, &mut y)?;
/// assert_eq!(y.as_slice(), &[-1.0, 1.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn layer_norm_into<D: Dimension, G: Dimension, B: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    gamma: &(impl AsArray<G, T> + ?Sized),
    beta: &(impl AsArray<B, T> + ?Sized),
    eps: f64,
    out: &mut ArrayBase<Vec<T>, D>,
) -> Result<(), Error> {
    let params = Params {
        gamma: gamma.as_array().into_dyn(),
        beta: Some(beta.as_array().into_dyn()),
    };
    into(input.as_array(), params, eps, out, "layer_norm_into")
}

impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// [`layer_norm`] as a method: LayerNorm over the last axis, fused,
    /// bit-identical to its composition.
    ///
    /// # Errors
    /// As for [`layer_norm`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([1, 2], vec![5.0_f32, 7.0])?;
    /// let (g, b) = (Tensor::full([2], 1.0_f32)?, Tensor::zeros([2])?);
    /// assert_eq!(x.layer_norm(&g, &b, 0.0)?.as_slice(), &[-1.0, 1.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn layer_norm<G: Dimension, B: Dimension>(
        &self,
        gamma: &(impl AsArray<G, S::Elem> + ?Sized),
        beta: &(impl AsArray<B, S::Elem> + ?Sized),
        eps: f64,
    ) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        layer_norm(self, gamma, beta, eps)
    }
}
