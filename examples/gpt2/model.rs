//! The GPT-2 forward pass on the crate, one position chunk at a time, with
//! a key/value cache written in place.
//!
//! Per block (OpenAI's `model.py`, Hugging Face's `GPT2Block`):
//! `x += attn(ln_1(x))`, `x += mlp(ln_2(x))`; `attn` splits the packed
//! `c_attn` projection into Q, K, V and heads with views, appends K and V
//! to the cache, attends (`attention`: the scores are never stored), and
//! merges the heads back; `mlp` is `c_fc`, GELU (the tanh
//! approximation, `gelu_new`) and `c_proj`; with `--weights bf16|f16` the
//! four matrices and the head are products with half-precision weights
//! (`half_linear`, f32 activations). Layer norm's epsilon is 1e-5,
//! scores are scaled by `1/sqrt(D)`, the mask is causal, and the LM head is
//! `wte` (tied): `logits = ln_f(x) · wteᵀ`, read as a transposed view.

use crate::config::{Config, LAYER_NORM_EPS};
use crate::weights::{Element, Linear, ModelError, Params};
use llm_from_scratch::prelude::*;

/// Keys and values of every layer for positions `0..len`, preallocated for
/// `capacity` positions. K is stored transposed, `[H, D, T_max]`, so the
/// scores `q · Kᵀ` of a new position read the cache contiguously across
/// their output columns; V is `[H, T_max, D]`.
pub struct KvCache<F> {
    pub keys: Vec<Tensor<3, F>>,
    pub values: Vec<Tensor<3, F>>,
    pub len: usize,
}

impl<F: Element> KvCache<F> {
    /// An empty cache of `capacity` positions for `config`.
    ///
    /// # Errors
    /// An allocation failure.
    pub fn new(config: &Config, capacity: usize) -> Result<Self, ModelError> {
        let (h, d) = (config.heads, config.head_width());
        let keys = (0..config.layers)
            .map(|_| Tensor::zeros([h, d, capacity]))
            .collect::<Result<_, _>>()?;
        let values = (0..config.layers)
            .map(|_| Tensor::zeros([h, capacity, d]))
            .collect::<Result<_, _>>()?;
        Ok(KvCache {
            keys,
            values,
            len: 0,
        })
    }

    /// Forgets every position (`len = 0`); the next pass writes from
    /// position 0 over the old keys and values, which are never read.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The positions the cache can hold.
    pub fn capacity(&self) -> usize {
        self.keys.first().map_or(0, |k| k.shape()[2])
    }

    /// Bytes of keys and values held (the whole preallocation).
    pub fn bytes(&self) -> usize {
        let one: usize = self.keys.iter().chain(&self.values).map(Tensor::len).sum();
        one * size_of::<F>()
    }
}

/// Layer norm over the last axis of `[T, C]`: `(x - mean) / sqrt(var + eps) · g + b`
/// (the biased variance, as `torch.nn.LayerNorm`), the crate's fused
/// `layer_norm` (bit-identical to mean, center, mean of squares, divide,
/// scale, shift done op by op).
pub fn layer_norm<F: Element>(
    x: &Tensor<2, F>,
    gain: View<'_, 1, F>,
    bias: View<'_, 1, F>,
) -> Result<Tensor<2, F>, Error> {
    x.layer_norm(&gain, &bias, LAYER_NORM_EPS)
}

/// `x · W` for a Conv1D layer's weight: `matmul` of `[in, out]` in the
/// compute type, or `half_linear` of `[out, in]` in half precision.
fn project<F: Element>(
    x: &impl AsView<2, F>,
    weight: Linear<'_, F>,
) -> Result<Tensor<2, F>, ModelError> {
    match weight {
        Linear::Dense(w) => Ok(matmul(x, &w)?),
        Linear::Half(w) => F::half_linear(x.as_view(), w),
    }
}

/// `x · W + b` for a Conv1D layer: one `matmul_affine` (the bias added as
/// each block of the product is finished, the same bits as adding it after)
/// in the compute type, or `half_linear` and the bias in half precision.
fn linear<F: Element>(
    x: &impl AsView<2, F>,
    weight: Linear<'_, F>,
    bias: View<'_, 1, F>,
) -> Result<Tensor<2, F>, ModelError> {
    match weight {
        Linear::Dense(w) => Ok(matmul_affine(x, &w, F::one(), Some(bias))?),
        Linear::Half(w) => {
            let mut out = F::half_linear(x.as_view(), w)?;
            out.view_mut().add_assign(&bias)?;
            Ok(out)
        }
    }
}

/// The model: parameters as views, and the forward pass.
pub struct Gpt2<'p, F> {
    pub params: &'p Params<'p, F>,
}

impl<F: Element> Gpt2<'_, F> {
    /// The hidden states `[T, C]` after the last block and `ln_f` for the
    /// tokens at positions `cache.len ..`, appending their keys and values.
    ///
    /// # Errors
    /// [`ModelError::PromptTooLong`] past the cache; a token id past the
    /// vocabulary (`IndexSelectOutOfBounds`, naming its position).
    pub fn forward(
        &self,
        tokens: &[usize],
        cache: &mut KvCache<F>,
    ) -> Result<Tensor<2, F>, ModelError> {
        let config = &self.params.config;
        let (start, t) = (cache.len, tokens.len());
        if start + t > cache.capacity() {
            return Err(ModelError::PromptTooLong {
                length: start + t,
                context: cache.capacity(),
            });
        }
        // Token and position embeddings: a gather of `wte` rows, plus `wpe` rows in place.
        let mut x = self.params.embed(tokens)?; // [T, C]
        let positions = self
            .params
            .matrix("wpe.weight")
            .slice(0, start..start + t)?;
        x.view_mut().add_assign(&positions)?;
        for layer in 0..config.layers {
            let name = |suffix: &str| format!("h.{layer}.{suffix}");
            let h = layer_norm(
                &x,
                self.params.vector(&name("ln_1.weight")),
                self.params.vector(&name("ln_1.bias")),
            )?;
            let attended = self.attention(layer, &h, cache)?;
            x.view_mut().add_assign(&attended)?;
            let h = layer_norm(
                &x,
                self.params.vector(&name("ln_2.weight")),
                self.params.vector(&name("ln_2.bias")),
            )?;
            // [T, 4C]: the bias in the product's epilogue, then the crate's
            // vectorized GELU (a scalar closure with std's `tanh` was a
            // seventh of a 32-token prefill).
            let hidden = linear(
                &h,
                self.params.linear(&name("mlp.c_fc.weight")),
                self.params.vector(&name("mlp.c_fc.bias")),
            )?
            .gelu_tanh()?;
            let out = linear(
                &hidden,
                self.params.linear(&name("mlp.c_proj.weight")),
                self.params.vector(&name("mlp.c_proj.bias")),
            )?;
            x.view_mut().add_assign(&out)?;
        }
        cache.len += t;
        Ok(layer_norm(
            &x,
            self.params.vector("ln_f.weight"),
            self.params.vector("ln_f.bias"),
        )?)
    }

    /// Causal self-attention of block `layer` for the `T` new rows `h`
    /// `[T, C]`; their K and V go into the cache at `cache.len ..`.
    fn attention(
        &self,
        layer: usize,
        h: &Tensor<2, F>,
        cache: &mut KvCache<F>,
    ) -> Result<Tensor<2, F>, ModelError> {
        let config = &self.params.config;
        let (heads, d) = (config.heads, config.head_width());
        let (start, t) = (cache.len, h.shape()[0]);
        let total = start + t;
        let name = |suffix: &str| format!("h.{layer}.{suffix}");
        let qkv = linear(
            h,
            self.params.linear(&name("attn.c_attn.weight")),
            self.params.vector(&name("attn.c_attn.bias")),
        )?;
        // Q, K, V: thirds of the packed [T, 3C] row, each split into heads with no copy.
        let [q, k, v] = qkv.view().chunk::<3>(1)?; // [T, C] each, strides [3C, 1]
        let q = q.split_axis(1, [heads, d])?.permute([1, 0, 2])?; // [H, T, D]
        let k = k.split_axis(1, [heads, d])?.permute([1, 2, 0])?; // [H, D, T]
        let v = v.split_axis(1, [heads, d])?.permute([1, 0, 2])?; // [H, T, D]
        cache.keys[layer]
            .view_mut()
            .slice(2, start..total)?
            .assign(&k)?;
        cache.values[layer]
            .view_mut()
            .slice(1, start..total)?
            .assign(&v)?;
        // K read back from its transposed cache as a view: [H, total, D].
        let keys = cache.keys[layer]
            .view()
            .slice(2, 0..total)?
            .transpose(1, 2)?;
        let values = cache.values[layer].view().slice(1, 0..total)?; // [H, total, D]
        // softmax(mask(q · Kᵀ / √D)) · V in one call, the [H, T, total]
        // scores never stored: new row i (position start + i) sees
        // positions 0..=start + i, so the causal offset is `start`. The
        // scale is the reciprocal 1/√D (exact for GPT-2's D = 64, where
        // `/ √D` and `· 1/√D` round alike).
        let scale = F::one() / F::from_usize(d).sqrt();
        let causal = AttentionMask::Causal { offset: start };
        let heads_out = attention(&q, &keys, &values, scale, causal)?; // [H, T, D]
        // Merge heads: [H, T, D] -> [T, H, D] -> [T, C]; a view when T = 1,
        // one copy otherwise (the strides of the permuted heads do not chain).
        let merged = heads_out.view().permute([1, 0, 2])?;
        let proj_w = self.params.linear(&name("attn.c_proj.weight"));
        let proj_b = self.params.vector(&name("attn.c_proj.bias"));
        Ok(match merged.reshape_strided([t, heads * d]) {
            Ok(rows) => linear(&rows, proj_w, proj_b)?,
            Err(_) => linear(
                &merged.materialize()?.into_shape([t, heads * d])?,
                proj_w,
                proj_b,
            )?,
        })
    }

    /// The logits `[rows, V]` of hidden states `[rows, C]`: `x · wteᵀ`, the
    /// tied LM head read as a transposed view of `wte` (or `wte` `[V, C]`
    /// itself in half precision).
    ///
    /// # Errors
    /// An allocation failure.
    pub fn logits(&self, hidden: &impl AsView<2, F>) -> Result<Tensor<2, F>, ModelError> {
        project(hidden, self.params.head()?)
    }
}
