//! The model's hyperparameters, read from the GGUF metadata (`llama.*`
//! keys, llama.cpp's names).

use crate::weights::ModelError;
use llm_from_scratch::tensor::gguf::Gguf;

/// A Llama-family decoder's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Blocks (`llama.block_count`).
    pub layers: usize,
    /// Width `C` (`llama.embedding_length`).
    pub width: usize,
    /// Query heads `H` (`llama.attention.head_count`).
    pub heads: usize,
    /// Key/value heads `H_kv` (`llama.attention.head_count_kv`; `H` if absent).
    pub kv_heads: usize,
    /// Head width `D = C / H`.
    pub head_dim: usize,
    /// SwiGLU width (`llama.feed_forward_length`).
    pub ffn: usize,
    /// RMSNorm epsilon (`llama.attention.layer_norm_rms_epsilon`).
    pub eps: f32,
    /// RoPE base (`llama.rope.freq_base`; 10000 if absent, as llama.cpp).
    pub rope_base: f64,
    /// Trained context (`llama.context_length`).
    pub context: usize,
}

impl Config {
    /// Reads the configuration of a `general.architecture = "llama"` file.
    ///
    /// # Errors
    /// [`ModelError::Architecture`] for another architecture; a missing or
    /// mistyped key (the crate's error names it); [`ModelError::Heads`]
    /// when the heads do not divide the width or the KV heads the heads.
    pub fn from_gguf(gguf: &Gguf<'_>) -> Result<Self, ModelError> {
        let architecture = gguf.get_str("general.architecture")?;
        if architecture != "llama" {
            return Err(ModelError::Architecture(architecture.to_string()));
        }
        let width = gguf.get_usize("llama.embedding_length")?;
        let heads = gguf.get_usize("llama.attention.head_count")?;
        let kv_heads = match gguf.get("llama.attention.head_count_kv") {
            Some(_) => gguf.get_usize("llama.attention.head_count_kv")?,
            None => heads,
        };
        if heads == 0
            || kv_heads == 0
            || width % heads != 0
            || heads % kv_heads != 0
            || (width / heads) % 2 != 0
        {
            return Err(ModelError::Heads {
                heads,
                kv_heads,
                width,
            });
        }
        let rope_base = match gguf.get("llama.rope.freq_base") {
            Some(_) => f64::from(gguf.get_f32("llama.rope.freq_base")?),
            None => 10_000.0,
        };
        Ok(Config {
            layers: gguf.get_usize("llama.block_count")?,
            width,
            heads,
            kv_heads,
            head_dim: width / heads,
            ffn: gguf.get_usize("llama.feed_forward_length")?,
            eps: gguf.get_f32("llama.attention.layer_norm_rms_epsilon")?,
            rope_base,
            context: gguf.get_usize("llama.context_length")?,
        })
    }
}
