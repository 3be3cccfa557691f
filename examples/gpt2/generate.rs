//! Greedy generation: one prefill pass over the prompt, then one cached
//! pass per new token, each token the `argmax_axis` of its logits.

use crate::model::{Gpt2, KvCache};
use crate::weights::{Element, ModelError};
use llm_from_scratch::prelude::*;
use std::time::{Duration, Instant};

/// What a generation produced and how long it took.
pub struct Generation<F> {
    /// The generated token ids (not the prompt).
    pub ids: Vec<usize>,
    /// The logits that chose each generated id, `[steps, V]` (step 0 at the
    /// last prompt position), when asked for.
    pub step_logits: Option<Vec<Vec<F>>>,
    /// The logits at every prompt position `[P, V]`, when asked for.
    pub prompt_logits: Option<Tensor<2, F>>,
    /// The prompt's pass, and the cached passes after it.
    pub prefill: Duration,
    pub decode: Duration,
    /// Why generation stopped before `steps` tokens, if it did.
    pub stopped: Option<String>,
}

/// What to keep besides the ids.
#[derive(Clone, Copy, Default)]
pub struct Keep {
    pub step_logits: bool,
    pub prompt_logits: bool,
}

/// Generates up to `steps` tokens after `prompt` into `cache` (which must
/// be empty), greedily; stops early, with a message, when the cache is full.
///
/// # Errors
/// [`ModelError::PromptTooLong`] if the prompt does not fit; a token id
/// past the vocabulary (naming its position in the prompt);
/// [`ModelError::NanLogits`] when the logits that choose a token hold NaN
/// (no token is chosen from them).
pub fn generate<F: Element>(
    model: &Gpt2<'_, F>,
    prompt: &[usize],
    steps: usize,
    cache: &mut KvCache<F>,
    keep: Keep,
) -> Result<Generation<F>, ModelError> {
    if prompt.is_empty() {
        return Err(ModelError::EmptyPrompt);
    }
    if prompt.len() > cache.capacity() {
        return Err(ModelError::PromptTooLong {
            length: prompt.len(),
            context: cache.capacity(),
        });
    }
    let started = Instant::now();
    let hidden = model.forward(prompt, cache)?; // [P, C]
    let last = hidden.view().slice(0, prompt.len() - 1..prompt.len())?;
    let (prompt_logits, mut logits) = if keep.prompt_logits {
        let all = model.logits(&hidden)?;
        let last_row = all
            .view()
            .slice(0, prompt.len() - 1..prompt.len())?
            .materialize()?;
        (Some(all), last_row)
    } else {
        (None, model.logits(&last)?)
    };
    check_logits(&logits, prompt.len() - 1)?;
    let prefill = started.elapsed();
    let started = Instant::now();
    // At most the cache's free positions (+1: the last one needs no room).
    let room = cache.capacity() - prompt.len() + 1;
    let mut ids = Vec::with_capacity(steps.min(room));
    let mut step_logits = keep.step_logits.then(Vec::new);
    let mut stopped = None;
    while ids.len() < steps {
        let next = logits.argmax_axis(1, RemoveDim)?.as_slice()[0];
        ids.push(next);
        if let Some(kept) = step_logits.as_mut() {
            kept.push(logits.as_slice().to_vec());
        }
        if ids.len() == steps {
            break;
        }
        if cache.len == cache.capacity() {
            stopped = Some(format!(
                "stopped after {} of {steps} tokens: the context holds {} positions",
                ids.len(),
                cache.capacity()
            ));
            break;
        }
        let hidden = model.forward(&[next], cache)?; // [1, C]
        logits = model.logits(&hidden)?;
        check_logits(&logits, cache.len - 1)?;
    }
    Ok(Generation {
        ids,
        step_logits,
        prompt_logits,
        prefill,
        decode: started.elapsed(),
        stopped,
    })
}

/// [`ModelError::NanLogits`] if the `[1, V]` logits of `position` hold NaN.
fn check_logits<F: Element>(logits: &Tensor<2, F>, position: usize) -> Result<(), ModelError> {
    let count = logits.as_slice().iter().filter(|x| x.is_nan()).count();
    if count == 0 {
        return Ok(());
    }
    Err(ModelError::NanLogits { position, count })
}
