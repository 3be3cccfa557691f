//! The whole all-MiniLM-L6-v2 sentence encoder on a full checkpoint: the
//! embeddings, six post-norm BERT layers, mean pooling over the tokens and
//! L2 normalization (sentence-transformers' `Pooling` and `Normalize`).
//!
//! Per layer (transformers' `modeling_bert.py`, eager):
//! `x = LN(x + dense(attention(x)))`, `x = LN(x + out(gelu(inter(x))))`,
//! every linear layer `x · Wᵀ + b` with `W` stored `[out, in]`, GELU the
//! exact erf form, layer-norm epsilon 1e-12, scores scaled by `D^-1/2`.

use crate::pipeline::{Fallible, layer_norm, linear};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::weights::Weights;

/// A `[C]` or `[out, in]` parameter of the checkpoint, as a view of its
/// buffer (a misaligned buffer is `Error::NotBorrowable`: read the file
/// with `AlignedBytes`).
fn view<'w, const R: usize>(weights: &'w Weights<'w>, name: &str) -> Fallible<View<'w, R, f32>> {
    Ok(weights.get::<R, f32>(name)?)
}

/// `x · Wᵀ + b` for the checkpoint's layer `name`.
fn dense(weights: &Weights<'_>, x: &View<'_, 2, f32>, name: &str) -> Fallible<Tensor<2, f32>> {
    let w = view::<2>(weights, &format!("{name}.weight"))?;
    let b = view::<1>(weights, &format!("{name}.bias"))?;
    linear(x, &w, &b)
}

/// `[T, H·D]` -> `[H, T, D]`: the heads of a projection as a view.
fn heads_of(m: &Tensor<2, f32>, heads: usize) -> Fallible<View<'_, 3, f32>> {
    let d = m.shape()[1] / heads;
    Ok(m.view().split_axis(1, [heads, d])?.permute([1, 0, 2])?)
}

/// `LN(x)` with the checkpoint's LayerNorm `name`.
fn norm(weights: &Weights<'_>, x: &Tensor<2, f32>, name: &str) -> Fallible<Tensor<2, f32>> {
    let gain = view::<1>(weights, &format!("{name}.weight"))?;
    let bias = view::<1>(weights, &format!("{name}.bias"))?;
    layer_norm(&x.view(), &gain, &bias)
}

/// The L2-normalized sentence embedding `[C]` of one sentence's token ids
/// (unpadded: every token is pooled).
pub fn embed(
    weights: &Weights<'_>,
    ids: &[usize],
    layers: usize,
    heads: usize,
) -> Fallible<Tensor<1, f32>> {
    let t = ids.len();
    let words = view::<2>(weights, "embeddings.word_embeddings.weight")?;
    let positions = view::<2>(weights, "embeddings.position_embeddings.weight")?.slice(0, 0..t)?;
    let token_type = view::<2>(weights, "embeddings.token_type_embeddings.weight")?.select(0, 0)?;
    let summed = index_select(&words, 0, ids)?
        .map_binary(&positions, |w, p| w + p)?
        .map_binary(&token_type, |s, k| s + k)?;
    let mut x = norm(weights, &summed, "embeddings.LayerNorm")?;
    let width = x.shape()[1];
    let d = width / heads;
    for layer in 0..layers {
        let name = |suffix: &str| format!("encoder.layer.{layer}.{suffix}");
        let project =
            |part: &str| dense(weights, &x.view(), &name(&format!("attention.self.{part}")));
        let (q, k, v) = (project("query")?, project("key")?, project("value")?);
        // Split heads as views, [T, C] -> [H, T, D] (no copy); every query
        // sees every token: softmax(Q · Kᵀ / √D) · V in one call.
        let (q, k, v) = (
            heads_of(&q, heads)?,
            heads_of(&k, heads)?,
            heads_of(&v, heads)?,
        );
        let scale = (d as f32).powf(-0.5);
        let context = attention(&q, &k, &v, scale, AttentionMask::Full)?; // [H, T, D]
        let merged = context
            .view()
            .permute([1, 0, 2])?
            .materialize()?
            .into_shape([t, width])?;
        let attended = dense(weights, &merged.view(), &name("attention.output.dense"))?;
        x.view_mut().add_assign(&attended)?; // the residual, in place
        x = norm(weights, &x, &name("attention.output.LayerNorm"))?;
        // BERT's exact GELU, `0.5 x (1 + erf(x / √2))`: the crate's vectorized `gelu_erf`.
        let inner = dense(weights, &x.view(), &name("intermediate.dense"))?.gelu_erf()?;
        let out = dense(weights, &inner.view(), &name("output.dense"))?;
        x.view_mut().add_assign(&out)?;
        x = norm(weights, &x, &name("output.LayerNorm"))?;
    }
    let pooled = x.mean_axis(0, RemoveDim)?; // [C]
    let norm2 = pooled.map_unary(|v| v * v)?.sum_axis(0, RemoveDim)?;
    let length = norm2.as_slice()[0].sqrt().max(1e-12);
    Ok(pooled.map_unary(|v| v / length)?)
}
