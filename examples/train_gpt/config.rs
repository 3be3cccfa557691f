//! The model shape from a Hugging Face GPT-2 `config.json`.

use llm_from_scratch::Error;
use serde_json::Value;

/// The fields of a GPT-2 `config.json` the training step reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GptConfig {
    /// `vocab_size`: rows of `wte`.
    pub vocab_size: usize,
    /// `n_positions`: rows of `wpe`, the longest sequence.
    pub n_positions: usize,
    /// `n_embd`: the model width C.
    pub n_embd: usize,
    /// `n_layer`: the number of blocks.
    pub n_layer: usize,
    /// `n_head`: attention heads (C must be a multiple).
    pub n_head: usize,
    /// `layer_norm_epsilon`.
    pub layer_norm_epsilon: f64,
}

fn invalid(message: String) -> Error {
    Error::InvalidFile {
        format: "config.json",
        message,
    }
}

impl GptConfig {
    /// Parses `config.json` text (dropout fields are ignored: treated as 0).
    ///
    /// # Errors
    /// [`Error::InvalidFile`] if the JSON is malformed, a field is missing or
    /// not a positive integer, the activation is not `gelu_new`, or `n_embd`
    /// is not a multiple of `n_head`.
    pub fn from_json(text: &str) -> Result<Self, Error> {
        let v: Value = serde_json::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let int = |key: &str| -> Result<usize, Error> {
            v.get(key)
                .and_then(Value::as_u64)
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| invalid(format!("`{key}` is missing or not a positive integer")))
        };
        if let Some(act) = v.get("activation_function").and_then(Value::as_str)
            && act != "gelu_new"
        {
            return Err(invalid(format!(
                "activation `{act}`: only gelu_new (GPT-2's) is built"
            )));
        }
        let config = GptConfig {
            vocab_size: int("vocab_size")?,
            n_positions: int("n_positions")?,
            n_embd: int("n_embd")?,
            n_layer: int("n_layer")?,
            n_head: int("n_head")?,
            layer_norm_epsilon: v
                .get("layer_norm_epsilon")
                .and_then(Value::as_f64)
                .unwrap_or(1e-5),
        };
        if !config.n_embd.is_multiple_of(config.n_head) {
            return Err(invalid(format!(
                "n_embd {} is not a multiple of n_head {}",
                config.n_embd, config.n_head
            )));
        }
        Ok(config)
    }
}
