//! Text from the trained model: byte-level tokens continued one at a time
//! from a prompt, greedy or with a temperature (the `llama` example's seeded
//! sampler), each step on the last `n_positions` tokens.
//!
//! It needs a forward pass to the last position's logits:
//! `model::logits(config, params, tokens) -> Result<Vec<f32>, Error>`
//! (`[vocab]`, `tokens` at most `n_positions` long). No KV cache: each new
//! byte reruns the window, fine for the few hundred bytes shown.

use crate::choose::{Sampler, Sampling};
use crate::config::GptConfig;
use crate::model;
use crate::params::Params;

/// `count` new bytes after `prompt`.
///
/// # Errors
/// The model's error, or a sentence if the logits hold a NaN.
pub fn sample(
    config: &GptConfig,
    params: &Params,
    prompt: &[u8],
    count: usize,
    temperature: f64,
    seed: u64,
) -> Result<Vec<u8>, String> {
    let sampling = Sampling {
        temperature,
        top_k: 0,
        top_p: 1.0,
    };
    let mut sampler = Sampler::new(sampling, seed);
    let mut tokens: Vec<usize> = prompt.iter().map(|&b| usize::from(b)).collect();
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let window = &tokens[tokens.len().saturating_sub(config.n_positions)..];
        let logits = model::logits(config, params, window).map_err(|e| e.to_string())?;
        // A byte-level model has 256 logits; a larger vocabulary's ids past
        // 255 are not bytes: keep the bytes only.
        let bytes = &logits[..logits.len().min(256)];
        if bytes.iter().any(|l| l.is_nan()) {
            return Err(format!(
                "the logits after {} sampled bytes hold a NaN",
                out.len()
            ));
        }
        let next = sampler.choose(bytes);
        tokens.push(next);
        out.push(next as u8);
    }
    Ok(out)
}
