//! The self-check on the committed fixture: a 2-layer GPT-2 with seeded
//! weights and the logits transformers computed for it
//! (`scripts/gpt2_fixture.py`, eager attention).

use crate::config::Config;
use crate::generate::{Keep, generate};
use crate::model::{Gpt2, KvCache};
use crate::weights::{Element, ModelError, Params, config_of};
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

/// Runs the fixture model in precision `F` and compares it with the
/// reference (`prompt_logits` / `step_logits`, or their `_f64` twins).
///
/// # Errors
/// A missing or unreadable fixture file, or a failed forward pass.
pub fn verify<F: Element>() -> Result<Verdict, ModelError> {
    let dir = fixture_dir();
    let read = |name: &str| {
        AlignedBytes::read(dir.join(name))
            .map_err(|e| ModelError::Io(format!("{}: {e}", dir.join(name).display())))
    };
    let model_bytes = read("model.safetensors")?;
    let reference_bytes = read("reference.safetensors")?;
    let weights = Weights::parse(model_bytes.as_bytes()).map_err(ModelError::File)?;
    let reference = Weights::parse(reference_bytes.as_bytes()).map_err(ModelError::File)?;
    let heads = Config::heads_from_json(&dir).unwrap_or(4);
    let config = config_of(&weights, heads)?;
    let params = Params::<F>::from_file(&weights, config)?;
    let model = Gpt2 { params: &params };

    let ids = |name: &str| -> Result<Vec<usize>, ModelError> {
        let view = reference.get::<1, i64>(name).map_err(ModelError::File)?;
        Ok(view.view().iter().map(|&id| id as usize).collect())
    };
    let prompt = ids("prompt_ids")?;
    let expected_ids = ids("generated_ids")?;
    let suffix = if size_of::<F>() == 8 { "_f64" } else { "" };
    let expected = |name: &str| -> Result<Vec<f64>, ModelError> {
        let name = format!("{name}{suffix}");
        Ok(if size_of::<F>() == 8 {
            reference
                .get::<2, f64>(&name)
                .map_err(ModelError::File)?
                .view()
                .iter()
                .copied()
                .collect()
        } else {
            reference
                .get::<2, f32>(&name)
                .map_err(ModelError::File)?
                .view()
                .iter()
                .map(|&x| f64::from(x))
                .collect()
        })
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
    let error = max_error(&ours_prompt, &expected("prompt_logits")?)
        .max(max_error(&ours_steps, &expected("step_logits")?));
    Ok(Verdict {
        config,
        prompt_positions: prompt.len(),
        steps: expected_ids.len(),
        max_error: error,
        same_tokens: run.ids == expected_ids,
    })
}
