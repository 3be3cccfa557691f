//! Reading and writing models, gradients, losses and optimizer state as
//! safetensors, in Hugging Face's GPT-2 layout: `transformer.`-prefixed
//! names (what `GPT2LMHeadModel.save_pretrained` writes), F32, no
//! `lm_head.weight` (tied to `transformer.wte.weight`), a `config.json`
//! beside the weights. The repository's `gpt2` example and transformers'
//! `from_pretrained` load such a folder.
//!
//! The files go through the `safetensors` crate directly: this example runs
//! without the crate's `safetensors` feature (the check contract's command
//! has no `--features`), which is what gates `tensor::weights`.

use crate::config::GptConfig;
use crate::init::sorted_shapes;
use crate::params::Params;
use llm_from_scratch::DynTensor;
use llm_from_scratch::train::{AdamW, AdamWConfig, Moments};
use safetensors::{Dtype, SafeTensors};
use std::collections::HashMap;
use std::path::Path;

/// A file problem, as a sentence naming the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FileError {
    pub path: String,
    pub message: String,
}

fn error(path: &Path, message: impl ToString) -> FileError {
    FileError {
        path: path.display().to_string(),
        message: message.to_string(),
    }
}

/// The safetensors `View` of one borrowed f32 or f64 buffer.
struct Entry<'a> {
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: &'a [u8],
}

impl safetensors::View for &Entry<'_> {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> std::borrow::Cow<'_, [u8]> {
        std::borrow::Cow::Borrowed(self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

/// Writes named F32 tensors (no copy: each tensor's own bytes) with metadata.
pub fn write_tensors<'a>(
    path: &Path,
    tensors: impl IntoIterator<Item = (String, &'a DynTensor<f32>)>,
    metadata: Option<HashMap<String, String>>,
) -> Result<(), FileError> {
    let entries: Vec<(String, Entry<'_>)> = tensors
        .into_iter()
        .map(|(name, t)| {
            let entry = Entry {
                dtype: Dtype::F32,
                shape: t.shape().to_vec(),
                bytes: bytemuck::cast_slice(t.as_slice()),
            };
            (name, entry)
        })
        .collect();
    let views = entries.iter().map(|(name, entry)| (name.as_str(), entry));
    safetensors::serialize_to_file(views, metadata, path).map_err(|e| error(path, e))
}

/// Every F32 tensor of a safetensors file, by name, sorted by name.
pub fn read_tensors(path: &Path) -> Result<(Params, HashMap<String, String>), FileError> {
    let bytes = std::fs::read(path).map_err(|e| error(path, e))?;
    let (_, header) = SafeTensors::read_metadata(&bytes).map_err(|e| error(path, e))?;
    let metadata = header.metadata().clone().unwrap_or_default();
    let file = SafeTensors::deserialize(&bytes).map_err(|e| error(path, e))?;
    let mut out = Vec::new();
    for (name, view) in file.tensors() {
        if view.dtype() != Dtype::F32 {
            return Err(error(
                path,
                format!(
                    "`{name}` is {:?}; this example trains F32 weights",
                    view.dtype()
                ),
            ));
        }
        let values: Vec<f32> = view
            .data()
            .chunks_exact(4)
            .map(bytemuck::pod_read_unaligned)
            .collect();
        let tensor =
            DynTensor::from_vec(view.shape().to_vec(), values).map_err(|e| error(path, e))?;
        out.push((name, tensor));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok((out, metadata))
}

/// A Hugging Face GPT-2 `model.safetensors` and the `config.json` beside it.
///
/// Names without the `transformer.` prefix (`GPT2Model`'s files, OpenAI's
/// original conversion) get it; `lm_head.weight` (the tied head) and the
/// causal-mask buffers of older transformers (`attn.bias`,
/// `attn.masked_bias`) are skipped. Every GPT-2 parameter of the config's
/// shape must be there, nothing else.
pub fn read_model(path: &Path) -> Result<(GptConfig, Params), FileError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let config_path = dir.join("config.json");
    let text = std::fs::read_to_string(&config_path).map_err(|e| error(&config_path, e))?;
    let config = GptConfig::from_json(&text).map_err(|e| error(&config_path, e.to_string()))?;
    let (tensors, _) = read_tensors(path)?;
    let mut params: Params = tensors
        .into_iter()
        .filter(|(name, _)| {
            name != "lm_head.weight"
                && !name.ends_with(".attn.bias")
                && !name.ends_with(".attn.masked_bias")
        })
        .map(|(name, t)| {
            let name = if name.starts_with("transformer.") {
                name
            } else {
                format!("transformer.{name}")
            };
            (name, t)
        })
        .collect();
    params.sort_by(|a, b| a.0.cmp(&b.0));
    check_model(&config, &params).map_err(|e| error(path, e))?;
    Ok((config, params))
}

/// The parameters are exactly GPT-2's for `config`: names and shapes.
pub fn check_model(config: &GptConfig, params: &Params) -> Result<(), String> {
    let expected = sorted_shapes(config);
    if expected.len() != params.len() {
        let missing: Vec<&str> = expected
            .iter()
            .filter(|(name, _)| !params.iter().any(|(n, _)| n == name))
            .map(|(name, _)| name.as_str())
            .collect();
        let extra: Vec<&str> = params
            .iter()
            .filter(|(name, _)| !expected.iter().any(|(n, _)| n == name))
            .map(|(name, _)| name.as_str())
            .collect();
        return Err(format!(
            "{} GPT-2 parameters expected for the config, {} found (missing {missing:?}, unexpected {extra:?})",
            expected.len(),
            params.len()
        ));
    }
    for ((name, shape), (found, tensor)) in expected.iter().zip(params) {
        if name != found {
            return Err(format!("expected parameter `{name}`, found `{found}`"));
        }
        if shape.as_slice() != tensor.shape() {
            return Err(format!(
                "`{name}` has shape {:?}, the config needs {shape:?}",
                tensor.shape()
            ));
        }
    }
    Ok(())
}

/// `config.json` for `config` as `GPT2Config` writes it (the fields
/// transformers reads; dropout 0, tied embeddings, gelu_new, no special
/// token ids: GPT-2's default 50256 is outside a byte-level vocabulary).
pub fn config_json(config: &GptConfig) -> String {
    format!(
        r#"{{
  "activation_function": "gelu_new",
  "architectures": ["GPT2LMHeadModel"],
  "attn_pdrop": 0.0,
  "bos_token_id": null,
  "embd_pdrop": 0.0,
  "eos_token_id": null,
  "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05,
  "model_type": "gpt2",
  "n_embd": {},
  "n_head": {},
  "n_inner": null,
  "n_layer": {},
  "n_positions": {},
  "pad_token_id": null,
  "resid_pdrop": 0.0,
  "scale_attn_weights": true,
  "tie_word_embeddings": true,
  "torch_dtype": "float32",
  "vocab_size": {}
}}
"#,
        config.n_embd, config.n_head, config.n_layer, config.n_positions, config.vocab_size
    )
}

/// A checkpoint folder: `model.safetensors` + `config.json` (Hugging Face
/// layout), `optimizer.safetensors` (`exp_avg.NAME`, `exp_avg_sq.NAME`,
/// metadata `step` and the hyperparameters) and `losses.safetensors`.
pub fn write_checkpoint(
    dir: &Path,
    config: &GptConfig,
    params: &Params,
    optimizer: &AdamW<f32>,
    losses: &[f32],
) -> Result<(), FileError> {
    std::fs::create_dir_all(dir).map_err(|e| error(dir, e))?;
    let meta = HashMap::from([("format".to_string(), "pt".to_string())]);
    write_tensors(
        &dir.join("model.safetensors"),
        params.iter().map(|(n, t)| (n.clone(), t)),
        Some(meta),
    )?;
    let config_path = dir.join("config.json");
    std::fs::write(&config_path, config_json(config)).map_err(|e| error(&config_path, e))?;
    let c = optimizer.config();
    let meta = HashMap::from([
        ("step".to_string(), optimizer.step_count().to_string()),
        ("betas".to_string(), format!("{},{}", c.beta1, c.beta2)),
        ("eps".to_string(), c.eps.to_string()),
        ("weight_decay".to_string(), c.weight_decay.to_string()),
    ]);
    let moments = optimizer.moments().iter().flat_map(|m| {
        [
            (format!("exp_avg.{}", m.name), &m.exp_avg),
            (format!("exp_avg_sq.{}", m.name), &m.exp_avg_sq),
        ]
    });
    write_tensors(&dir.join("optimizer.safetensors"), moments, Some(meta))?;
    write_losses(&dir.join("losses.safetensors"), losses)
}

/// What a checkpoint folder holds.
pub struct Resumed {
    pub config: GptConfig,
    pub params: Params,
    pub optimizer: AdamW<f32>,
    pub losses: Vec<f32>,
}

/// Reads a [`write_checkpoint`] folder; the optimizer continues with
/// `hyper` (this run's flags) from the saved step and moments.
pub fn read_checkpoint(dir: &Path, hyper: AdamWConfig) -> Result<Resumed, FileError> {
    let (config, params) = read_model(&dir.join("model.safetensors"))?;
    let path = dir.join("optimizer.safetensors");
    let (tensors, metadata) = read_tensors(&path)?;
    let step: u64 = metadata
        .get("step")
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| error(&path, "no `step` in the metadata"))?;
    let mut by_name: HashMap<String, DynTensor<f32>> = tensors.into_iter().collect();
    let mut moments = Vec::new();
    if step > 0 {
        for (name, _) in &params {
            let mut take = |kind: &str| {
                by_name
                    .remove(&format!("{kind}.{name}"))
                    .ok_or_else(|| error(&path, format!("no `{kind}.{name}`")))
            };
            let (exp_avg, exp_avg_sq) = (take("exp_avg")?, take("exp_avg_sq")?);
            moments.push(Moments {
                name: name.clone(),
                exp_avg,
                exp_avg_sq,
            });
        }
    }
    // The moments' pairing with the parameters (names, shapes) is checked
    // by `AdamW::step`, before it writes anything.
    let optimizer = AdamW::resume(hyper, step, moments).map_err(|e| error(&path, e))?;
    let losses_path = dir.join("losses.safetensors");
    let (losses, _) = read_tensors(&losses_path)?;
    let losses = losses
        .into_iter()
        .find(|(name, _)| name == "losses")
        .map(|(_, t)| t.as_slice().to_vec())
        .ok_or_else(|| error(&losses_path, "no `losses`"))?;
    if losses.len() as u64 != step {
        return Err(error(
            &losses_path,
            format!("{} losses for {step} steps", losses.len()),
        ));
    }
    Ok(Resumed {
        config,
        params,
        optimizer,
        losses,
    })
}

/// `losses`, F32 `[S]`.
pub fn write_losses(path: &Path, losses: &[f32]) -> Result<(), FileError> {
    let tensor =
        DynTensor::from_vec(vec![losses.len()], losses.to_vec()).map_err(|e| error(path, e))?;
    write_tensors(path, [("losses".to_string(), &tensor)], None)
}
