//! GPT-2's hyperparameters: read from the weights' shapes (and `n_head`
//! from a `config.json` beside them), or GPT-2 small's for the speed run.

use std::path::Path;

/// The shape of a GPT-2 model (Hugging Face's `GPT2Config` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Blocks (`n_layer`).
    pub layers: usize,
    /// Attention heads per block (`n_head`).
    pub heads: usize,
    /// Model width `C` (`n_embd`).
    pub width: usize,
    /// Context length: rows of `wpe` (`n_positions`).
    pub context: usize,
    /// Vocabulary size: rows of `wte` (`vocab_size`).
    pub vocab: usize,
}

/// Layer norm's epsilon in GPT-2 (`layer_norm_epsilon`).
pub const LAYER_NORM_EPS: f64 = 1e-5;

impl Config {
    /// GPT-2 small: 12 layers, 12 heads, 768 wide, 1024 positions, 50257 tokens (124M parameters).
    pub const SMALL: Config = Config {
        layers: 12,
        heads: 12,
        width: 768,
        context: 1024,
        vocab: 50257,
    };

    /// The width of one head, `D = C / H`.
    pub fn head_width(&self) -> usize {
        self.width / self.heads
    }

    /// The number of parameters (the LM head is tied to `wte`).
    pub fn parameters(&self) -> usize {
        let c = self.width;
        let block =
            2 * 2 * c + (c * 3 * c + 3 * c) + (c * c + c) + (c * 4 * c + 4 * c) + (4 * c * c + c);
        self.vocab * c + self.context * c + self.layers * block + 2 * c
    }

    /// `n_head` from the `config.json` in `directory`, if there is one: the
    /// only hyperparameter the weights' shapes do not tell.
    pub fn heads_from_json(directory: &Path) -> Option<usize> {
        let text = std::fs::read_to_string(directory.join("config.json")).ok()?;
        let after = text.split("\"n_head\"").nth(1)?;
        let digits: String = after
            .trim_start_matches([' ', ':', '\n', '\t'])
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    }
}
