//! The self-check on the committed fixture: a 2-layer GPT-2 with seeded
//! weights and the logits transformers computed for it
//! (`scripts/gpt2_fixture.py`, eager attention).

use crate::config::Config;
use crate::generate::{Keep, generate};
use crate::model::{Gpt2, KvCache};
use crate::weights::{Element, ModelError, Params, Storage, config_of};
use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
use std::path::{Path, PathBuf};

/// Where the fixture lives in the repository.
pub fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gpt2")
}

/// The comparison of our logits with the reference.
pub struct Verdict {
    pub config: Config,
    pub prompt_positions: usize,
    pub steps: usize,
    /// Max |ours - transformers| over every prompt position and every step.
    pub max_error: f64,
    pub same_tokens: bool,
}

/// Runs the committed fixture model in precision `F` and compares it with
/// transformers' logits (see [`verify_dir`]). With half-precision weights
/// it runs the fixture whose weights are stored in that precision
/// (`gpt2_bf16`, `gpt2_f16`: transformers ran the same rounded values
/// widened to f32), so the comparison is as tight as for f32.
///
/// # Errors
/// As [`verify_dir`].
pub fn verify<F: Element>(storage: Storage) -> Result<Verdict, ModelError> {
    let dir = match storage {
        Storage::Compute => fixture_dir(),
        Storage::Bf16 => fixture_dir().with_file_name("gpt2_bf16"),
        Storage::F16 => fixture_dir().with_file_name("gpt2_f16"),
    };
    verify_dir::<F>(&dir, storage)
}

/// Runs the model of a fixture directory (`model.safetensors` in any float
/// dtype, `reference.safetensors`, `config.json`) computing in `F`, and
/// compares it with the reference: `prompt_logits` and, where present,
/// `step_logits`, or their `_f64` twins when `F` is f64 and they exist.
/// The matrices are kept in `storage` ([`Params::into_storage`]).
///
/// # Errors
/// A missing or unreadable fixture file, or a failed forward pass.
pub fn verify_dir<F: Element>(dir: &Path, storage: Storage) -> Result<Verdict, ModelError> {
    let read = |name: &str| {
        AlignedBytes::read(dir.join(name))
            .map_err(|e| ModelError::Io(format!("{}: {e}", dir.join(name).display())))
    };
    let model_bytes = read("model.safetensors")?;
    let reference_bytes = read("reference.safetensors")?;
    let weights = Weights::parse(model_bytes.as_bytes()).map_err(ModelError::File)?;
    let reference = Weights::parse(reference_bytes.as_bytes()).map_err(ModelError::File)?;
    let heads = Config::heads_from_json(dir).unwrap_or(4);
    let config = config_of(&weights, heads)?;
    let params = Params::<F>::from_file(&weights, config)?.into_storage(storage)?;
    let model = Gpt2 { params: &params };

    let ids = |name: &str| -> Result<Vec<usize>, ModelError> {
        let view = reference.get::<1, i64>(name).map_err(ModelError::File)?;
        Ok(view.iter().map(|&id| id as usize).collect())
    };
    let prompt = ids("prompt_ids")?;
    let expected_ids = ids("generated_ids")?;
    // The reference in the compute precision where the fixture has it, read
    // as f64 whatever its dtype; `None` when the fixture has neither name.
    let expected = |name: &str| -> Result<Option<Vec<f64>>, ModelError> {
        let wide = format!("{name}_f64");
        let chosen = if size_of::<F>() == 8 && reference.dtype(&wide).is_some() {
            wide
        } else {
            name.to_string()
        };
        if reference.dtype(&chosen).is_none() {
            return Ok(None);
        }
        let values = reference
            .get_as::<2, f64>(&chosen)
            .map_err(ModelError::File)?;
        Ok(Some(values.as_slice().to_vec()))
    };
    let mut cache = KvCache::new(&config, prompt.len() + expected_ids.len())?;
    let keep = Keep {
        step_logits: true,
        prompt_logits: true,
    };
    let run = generate(&model, &prompt, expected_ids.len(), &mut cache, keep)?;
    let ours_prompt = run
        .prompt_logits
        .as_ref()
        .map(|t| t.as_slice().to_vec())
        .unwrap_or_default();
    let ours_steps: Vec<F> = run.step_logits.unwrap_or_default().concat();
    let max_error = |ours: &[F], theirs: &[f64]| {
        ours.iter()
            .zip(theirs)
            .map(|(a, b)| (a.to_f64().unwrap_or(f64::NAN) - b).abs())
            .fold(
                if ours.len() == theirs.len() {
                    0.0
                } else {
                    f64::INFINITY
                },
                |m, e| if e > m || e.is_nan() { e } else { m },
            )
    };
    let prompt_expected = expected("prompt_logits")?.ok_or_else(|| {
        ModelError::Io(format!(
            "{}: no prompt_logits in the reference",
            dir.display()
        ))
    })?;
    let mut error = max_error(&ours_prompt, &prompt_expected);
    if let Some(steps) = expected("step_logits")? {
        error = error.max(max_error(&ours_steps, &steps));
    }
    Ok(Verdict {
        config,
        prompt_positions: prompt.len(),
        steps: expected_ids.len(),
        max_error: error,
        same_tokens: run.ids == expected_ids,
    })
}
