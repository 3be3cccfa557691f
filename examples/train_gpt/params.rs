//! GPT-2 parameters by Hugging Face name (`checkpoint.rs` reads and writes them).

use llm_from_scratch::{DynTensor, Error};

/// Parameters (or gradients) by Hugging Face name, in the file's name order
/// (safetensors headers are sorted by name), e.g.
/// `transformer.h.0.attn.c_attn.weight` (Conv1D weights are `[in, out]`).
/// A tied `lm_head.weight` is not listed: `wte` plays its part.
pub type Params = Vec<(String, DynTensor<f32>)>;

/// The parameter called `name` or `transformer.{name}` (both layouts of
/// Hugging Face GPT-2 files).
///
/// # Errors
/// [`Error::MissingTensor`] if neither is present.
pub fn find<'p>(params: &'p Params, name: &str) -> Result<(usize, &'p DynTensor<f32>), Error> {
    let prefixed = format!("transformer.{name}");
    params
        .iter()
        .enumerate()
        .find(|(_, (n, _))| n == name || *n == prefixed)
        .map(|(i, (_, t))| (i, t))
        .ok_or(Error::MissingTensor { name: prefixed })
}
