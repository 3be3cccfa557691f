//! The Llama forward pass on the crate, one chunk of positions at a time,
//! with a preallocated key/value cache written in place.
//!
//! Per block (Meta's `model.py`, Hugging Face's `LlamaDecoderLayer`):
//! `x += attn(rms_norm(x))`, `x += mlp(rms_norm(x))`, then a final
//! `rms_norm` and the tied head `x · embᵀ`.
//! - RMSNorm: `x / sqrt(mean(x²) + eps) · w` (Zhang and Sennrich, 2019).
//! - RoPE (Su et al., 2021) on adjacent pairs `(2i, 2i + 1)` of each head,
//!   angle `p · base^(-2i/D)`: llama.cpp's "normal" rotation, which is the
//!   one GGUF's Llama Q and K rows are stored for (the converter permuted
//!   them; transformers un-permutes and rotates halves, the same attention).
//! - Grouped-query attention (Ainslie et al., 2023): query head `h` reads KV
//!   head `h / G`, `G = H / H_kv`. The query heads are split as
//!   `[H_kv, G, T, D]` and K, V carry a unit group axis that broadcasts:
//!   no KV head is ever copied.
//! - SwiGLU (Shazeer, 2020): `down(silu(gate(x)) * up(x))`.

use crate::config::Config;
use crate::weights::{ModelError, Params};
use llm_from_scratch::prelude::*;

/// Keys and values of every layer for positions `0..len`, preallocated for
/// `capacity` positions. K is stored transposed, `[H_kv, D, T_max]`, so the
/// scores `q · Kᵀ` of a new position read the cache contiguously across
/// their output columns; V is `[H_kv, T_max, D]`.
pub struct KvCache {
    pub keys: Vec<Tensor<3, f32>>,
    pub values: Vec<Tensor<3, f32>>,
    pub len: usize,
}

impl KvCache {
    /// An empty cache of `capacity` positions for `config`.
    ///
    /// # Errors
    /// An allocation failure.
    pub fn new(config: &Config, capacity: usize) -> Result<Self, ModelError> {
        let (h, d) = (config.kv_heads, config.head_dim);
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

    /// The positions the cache can hold.
    pub fn capacity(&self) -> usize {
        self.keys.first().map_or(0, |k| k.shape()[2])
    }

    /// Bytes of keys and values held (the whole preallocation).
    pub fn bytes(&self) -> usize {
        let one: usize = self.keys.iter().chain(&self.values).map(Tensor::len).sum();
        one * size_of::<f32>()
    }
}

/// RMSNorm over the last axis of `[T, C]`: `x / sqrt(mean(x²) + eps) · w`,
/// the crate's fused `rms_norm` (bit-identical to `square`, `mean_axis`,
/// `sqrt(ms + eps)`, broadcast `div`, then `mul` by the weight).
pub fn rms_norm(
    x: &Tensor<2, f32>,
    weight: View<'_, 1, f32>,
    eps: f32,
) -> Result<Tensor<2, f32>, Error> {
    x.rms_norm(&weight, f64::from(eps))
}

/// The rotation of RoPE for positions `start..start + t`: `cos` and `sin`
/// `[t, D/2]`, angle `p · base^(-2i/D)` computed in f64 and rounded once.
pub fn rope_tables(
    start: usize,
    t: usize,
    dim: usize,
    base: f64,
) -> Result<(Tensor<2, f32>, Tensor<2, f32>), Error> {
    let half = dim / 2;
    let angle = |index: [usize; 2]| {
        let [p, i] = index;
        (start + p) as f64 * base.powf(-2.0 * i as f64 / dim as f64)
    };
    let cos = Tensor::from_fn([t, half], |index| angle(index).cos() as f32)?;
    let sin = Tensor::from_fn([t, half], |index| angle(index).sin() as f32)?;
    Ok((cos, sin))
}

/// Rotates the adjacent pairs `(2i, 2i + 1)` of every head of `x`
/// `[T, heads·D]` in place by the angles of `cos` / `sin` `[T, D/2]`:
/// `(a, b) -> (a cos - b sin, a sin + b cos)`, a plain loop over the
/// owner's row-major values.
fn rope(x: &mut Tensor<2, f32>, heads: usize, cos: &Tensor<2, f32>, sin: &Tensor<2, f32>) {
    let width = x.shape()[1];
    let half = width / heads / 2;
    let rows = x.as_mut_slice().chunks_exact_mut(width);
    for ((row, cos), sin) in rows
        .zip(cos.as_slice().chunks_exact(half))
        .zip(sin.as_slice().chunks_exact(half))
    {
        for head in row.chunks_exact_mut(2 * half) {
            for ((pair, &c), &s) in head.chunks_exact_mut(2).zip(cos).zip(sin) {
                let (a, b) = (pair[0], pair[1]);
                pair[0] = a * c - b * s;
                pair[1] = a * s + b * c;
            }
        }
    }
}

/// The model: parameters, and the forward pass.
pub struct Llama<'p> {
    pub params: &'p Params<'p>,
}

impl Llama<'_> {
    /// The hidden states `[T, C]` after the last block and the final norm
    /// for the tokens at positions `cache.len ..`, appending their keys and
    /// values to the cache.
    ///
    /// # Errors
    /// [`ModelError::PromptTooLong`] past the cache; a token id past the
    /// vocabulary.
    pub fn forward(
        &self,
        tokens: &[usize],
        cache: &mut KvCache,
    ) -> Result<Tensor<2, f32>, ModelError> {
        let config = &self.params.config;
        let (start, t) = (cache.len, tokens.len());
        if start + t > cache.capacity() {
            return Err(ModelError::PromptTooLong {
                length: start + t,
                context: cache.capacity(),
            });
        }
        let mut x = self.params.embedding.rows(tokens)?; // [T, C]
        let (cos, sin) = rope_tables(start, t, config.head_dim, config.rope_base)?;
        for (layer, block) in self.params.blocks.iter().enumerate() {
            let h = rms_norm(&x, block.attn_norm.view(), config.eps)?;
            let attended = self.attention(layer, &h, &cos, &sin, cache)?;
            x.view_mut().add_assign(&attended)?;
            let h = rms_norm(&x, block.ffn_norm.view(), config.eps)?;
            let mut hidden = block.gate.linear(&h)?.silu()?; // [T, F]
            hidden.view_mut().mul_assign(&block.up.linear(&h)?)?;
            let out = block.down.linear(&hidden)?; // [T, C]
            x.view_mut().add_assign(&out)?;
        }
        cache.len += t;
        Ok(rms_norm(&x, self.params.output_norm.view(), config.eps)?)
    }

    /// Grouped-query causal self-attention of block `layer` for the `T` new
    /// rows `h` `[T, C]`; their K and V go into the cache at `cache.len ..`.
    fn attention(
        &self,
        layer: usize,
        h: &Tensor<2, f32>,
        cos: &Tensor<2, f32>,
        sin: &Tensor<2, f32>,
        cache: &mut KvCache,
    ) -> Result<Tensor<2, f32>, ModelError> {
        let config = &self.params.config;
        let block = &self.params.blocks[layer];
        let (heads, kv_heads, d) = (config.heads, config.kv_heads, config.head_dim);
        let group = heads / kv_heads;
        let (start, t) = (cache.len, h.shape()[0]);
        let total = start + t;
        let mut q = block.q.linear(h)?; // [T, H·D]
        let mut k = block.k.linear(h)?; // [T, H_kv·D]
        let v = block.v.linear(h)?;
        rope(&mut q, heads, cos, sin);
        rope(&mut k, kv_heads, cos, sin);
        let k = k.view().split_axis(1, [kv_heads, d])?.permute([1, 2, 0])?; // [H_kv, D, T]
        let v = v.view().split_axis(1, [kv_heads, d])?.permute([1, 0, 2])?; // [H_kv, T, D]
        cache.keys[layer]
            .view_mut()
            .slice(2, start..total)?
            .assign(&k)?;
        cache.values[layer]
            .view_mut()
            .slice(1, start..total)?
            .assign(&v)?;
        // K read back from its transposed cache as a view, one axis for the group.
        let keys: View<'_, 4, f32> = cache.keys[layer]
            .view()
            .slice(2, 0..total)?
            .transpose(1, 2)?
            .unsqueeze(1)?; // [H_kv, 1, total, D]
        let values: View<'_, 4, f32> = cache.values[layer]
            .view()
            .slice(1, 0..total)?
            .unsqueeze(1)?; // [H_kv, 1, total, D]
        // Query head h = kv · G + g: [T, H·D] -> [H_kv, G, T, D], a view.
        let q = q
            .view()
            .split_axis(1, [kv_heads, group * d])?
            .split_axis(2, [group, d])?
            .permute([1, 2, 0, 3])?;
        // softmax(mask(q · Kᵀ / √D)) · V in one call: the G query heads of
        // a group meet their shared K and V through the stride-0 axis, the
        // [H_kv, G, T, total] scores are never stored, and new row i
        // (position start + i) sees positions 0..=start + i (offset `start`).
        // Scaled by 1/√D, as transformers' `scaling` (exact for D = 64).
        let scale = 1.0 / (d as f32).sqrt();
        let causal = AttentionMask::Causal { offset: start };
        let heads_out = attention(&q, &keys, &values, scale, causal)?; // [H_kv, G, T, D]
        // Merge heads: [H_kv, G, T, D] -> [T, H_kv, G, D] -> [T, H·D].
        let merged = heads_out.view().permute([2, 0, 1, 3])?;
        let rows = match merged.reshape_strided([t, heads * d]) {
            Ok(rows) => block.output.linear(&rows)?,
            Err(_) => block
                .output
                .linear(&merged.materialize()?.into_shape([t, heads * d])?)?,
        };
        Ok(rows)
    }

    /// The logits `[rows, V]` of hidden states `[rows, C]`: the tied head,
    /// `x · embᵀ`.
    ///
    /// # Errors
    /// An allocation failure.
    pub fn logits(&self, hidden: &impl AsView<2, f32>) -> Result<Tensor<2, f32>, ModelError> {
        Ok(self.params.head().linear(hidden)?)
    }
}
