//! GPT-2 parameters by Hugging Face name, loaded from a safetensors file.

use llm_from_scratch::{DynTensor, Error};
use safetensors::{Dtype, SafeTensors};

/// Parameters (or gradients) by Hugging Face name, in the file's name order
/// (safetensors headers are sorted by name), e.g.
/// `transformer.h.0.attn.c_attn.weight` (Conv1D weights are `[in, out]`).
/// A tied `lm_head.weight` is not listed: `wte` plays its part.
pub type Params = Vec<(String, DynTensor<f32>)>;

/// Loads every F32 tensor of a GPT-2 safetensors buffer, sorted by name,
/// skipping the tied `lm_head.weight`.
///
/// # Errors
/// [`Error::InvalidFile`] if the buffer is not safetensors;
/// [`Error::WrongDtype`] for a tensor that is not F32.
pub fn load(bytes: &[u8]) -> Result<Params, Error> {
    let file = SafeTensors::deserialize(bytes).map_err(|e| Error::InvalidFile {
        format: "safetensors",
        message: e.to_string(),
    })?;
    let mut names: Vec<String> = file.names().into_iter().map(str::to_string).collect();
    names.sort();
    let mut params = Vec::with_capacity(names.len());
    for name in names {
        if name == "lm_head.weight" {
            continue;
        }
        let t = file.tensor(&name).map_err(|e| Error::InvalidFile {
            format: "safetensors",
            message: e.to_string(),
        })?;
        if t.dtype() != Dtype::F32 {
            return Err(Error::WrongDtype {
                op: "params::load",
                expected: "F32".into(),
                actual: format!("{:?}", t.dtype()),
            });
        }
        let values = t
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        params.push((name, DynTensor::from_vec(t.shape().to_vec(), values)?));
    }
    Ok(params)
}

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
