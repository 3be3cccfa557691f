//! Generation: the prompt prefilled in chunks (a progress line on stderr
//! for long prompts), then one cached pass per new token, each token chosen
//! by the [`Sampler`] from its logits, until end-of-sequence or the limit.

use crate::model::{KvCache, Llama};
use crate::sample::Sampler;
use crate::weights::ModelError;
use llm_from_scratch::prelude::*;
use std::io::Write;
use std::time::{Duration, Instant};

/// Positions per prefill pass: long prompts go through in chunks of this
/// many rows, so the scores `[H, chunk, total]` stay small and progress
/// can be shown.
pub const PREFILL_CHUNK: usize = 128;

/// What a generation produced and how long it took.
pub struct Generation {
    /// The generated token ids (the end-of-sequence id included when drawn).
    pub ids: Vec<usize>,
    /// Row `i`: the logits `ids[i]` was drawn from, `[n, V]` row-major.
    pub logits: Vec<f32>,
    /// The prompt's passes, and the cached passes after them.
    pub prefill: Duration,
    pub decode: Duration,
}

/// Generates up to `steps` tokens after `prompt` into the empty `cache`,
/// stopping after `eos`; `on_token` sees each id as it is chosen (to
/// stream its text).
///
/// # Errors
/// [`ModelError::EmptyPrompt`], [`ModelError::PromptTooLong`] if prompt and
/// steps do not fit the cache, a token id past the vocabulary,
/// [`ModelError::NanLogits`] when logits that choose a token hold NaN, and
/// whatever `on_token` returns.
pub fn generate(
    model: &Llama<'_>,
    prompt: &[usize],
    steps: usize,
    eos: Option<usize>,
    sampler: &mut Sampler,
    cache: &mut KvCache,
    mut on_token: impl FnMut(usize) -> Result<(), ModelError>,
) -> Result<Generation, ModelError> {
    if prompt.is_empty() {
        return Err(ModelError::EmptyPrompt);
    }
    let needed = prompt.len() + steps.saturating_sub(1);
    if needed > cache.capacity() {
        return Err(ModelError::PromptTooLong {
            length: needed,
            context: cache.capacity(),
        });
    }
    let started = Instant::now();
    let mut hidden = None;
    for (n, chunk) in prompt.chunks(PREFILL_CHUNK).enumerate() {
        hidden = Some(model.forward(chunk, cache)?);
        if prompt.len() > PREFILL_CHUNK {
            let done = (n * PREFILL_CHUNK + chunk.len()).min(prompt.len());
            eprint!("\rprefill {done}/{} tokens", prompt.len());
            let _ = std::io::stderr().flush();
        }
    }
    if prompt.len() > PREFILL_CHUNK {
        eprintln!();
    }
    let mut ids = Vec::new();
    let mut logits = Vec::new();
    let prefill = started.elapsed();
    let started = Instant::now();
    if steps > 0 {
        let hidden = hidden.ok_or(ModelError::EmptyPrompt)?;
        let rows = hidden.shape()[0];
        let mut row = model.logits(&hidden.view().slice(0, rows - 1..rows)?)?;
        loop {
            check_logits(row.as_slice(), cache.len - 1)?;
            let next = sampler.choose(row.as_slice());
            ids.push(next);
            logits
                .try_reserve(row.len())
                .map_err(|_| Error::AllocationFailed {
                    op: "generate",
                    elements: row.len(),
                })?;
            logits.extend_from_slice(row.as_slice());
            on_token(next)?;
            if ids.len() == steps || Some(next) == eos {
                break;
            }
            let hidden = model.forward(&[next], cache)?; // [1, C]
            row = model.logits(&hidden)?;
        }
    }
    Ok(Generation {
        ids,
        logits,
        prefill,
        decode: started.elapsed(),
    })
}

/// [`ModelError::NanLogits`] if the logits of `position` hold NaN.
fn check_logits(logits: &[f32], position: usize) -> Result<(), ModelError> {
    let count = logits.iter().filter(|x| x.is_nan()).count();
    if count == 0 {
        return Ok(());
    }
    Err(ModelError::NanLogits { position, count })
}
