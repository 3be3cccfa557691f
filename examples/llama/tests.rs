//! The example against transformers: the tiny committed fixture
//! (`tests/fixtures/llama/`, written by `scripts/llama_fixture.py`: every
//! stored type, grouped-query heads, permuted Q/K rows) always, and
//! SmolLM2-135M-Instruct when `models/SmolLM2-135M-Instruct.Q4_1.gguf` is
//! there (`bash scripts/fetch_smollm2.sh`; skipped with a message otherwise).

use crate::config::Config;
use crate::generate::generate;
use crate::model::{KvCache, Llama};
use crate::sample::{Sampler, Sampling};
use crate::weights::Params;
use llm_from_scratch::tensor::gguf::Gguf;
use llm_from_scratch::tensor::weights::AlignedBytes;
use safetensors::SafeTensors;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A named tensor of a safetensors file as f32 (from F32) or i64 values.
fn f32s(file: &SafeTensors<'_>, name: &str) -> Vec<f32> {
    let view = file.tensor(name).unwrap();
    view.data()
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

fn ids(file: &SafeTensors<'_>, name: &str) -> Vec<usize> {
    let view = file.tensor(name).unwrap();
    view.data()
        .chunks_exact(8)
        .map(|b| i64::from_le_bytes(b.try_into().unwrap()) as usize)
        .collect()
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// The prefill logits `[P, V]` of `prompt` and the greedy generation.
fn run(path: &Path, prompt: &[usize], steps: usize) -> (Vec<f32>, Vec<usize>, Vec<f32>) {
    let buffer = AlignedBytes::read(path).unwrap();
    let gguf = Gguf::parse(buffer.as_bytes()).unwrap();
    let params = Params::from_gguf(&gguf, Config::from_gguf(&gguf).unwrap()).unwrap();
    let model = Llama { params: &params };
    let mut cache = KvCache::new(&params.config, prompt.len() + steps).unwrap();
    let hidden = model.forward(prompt, &mut cache).unwrap();
    let prefill = model.logits(&hidden).unwrap().as_slice().to_vec();
    let mut cache = KvCache::new(&params.config, prompt.len() + steps).unwrap();
    let greedy = Sampling {
        temperature: 0.0,
        top_k: 0,
        top_p: 1.0,
    };
    let generation = generate(
        &model,
        prompt,
        steps,
        None,
        &mut Sampler::new(greedy, 0),
        &mut cache,
        |_| Ok(()),
    )
    .unwrap();
    (prefill, generation.ids, generation.logits)
}

#[test]
fn the_tiny_fixture_matches_transformers_in_every_stored_type() {
    let dir = root().join("tests/fixtures/llama");
    let bytes = std::fs::read(dir.join("reference.safetensors")).unwrap();
    let reference = SafeTensors::deserialize(&bytes).unwrap();
    let prompt = ids(&reference, "prompt_ids");
    let want_ids = ids(&reference, "generated_ids");
    let (prefill, got_ids, steps) = run(&dir.join("tiny.gguf"), &prompt, want_ids.len());
    let prefill_error = max_abs_diff(&prefill, &f32s(&reference, "prefill_logits"));
    eprintln!("tiny fixture: prefill max error {prefill_error:e}");
    assert!(
        prefill_error < 1e-4,
        "prefill logits: max |ours - transformers| = {prefill_error:e}"
    );
    assert_eq!(got_ids, want_ids, "greedy ids");
    let step_error = max_abs_diff(&steps, &f32s(&reference, "step_logits"));
    assert!(
        step_error < 1e-4,
        "cached steps: max |ours - transformers| = {step_error:e}"
    );
}

#[test]
fn logits_are_bit_identical_for_one_and_two_threads() {
    let path = root().join("tests/fixtures/llama/tiny.gguf");
    let prompt = [1, 90, 294, 17, 260, 261, 262, 88, 2, 150, 33, 298];
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let one = pool(1).install(|| run(&path, &prompt, 4));
    let two = pool(2).install(|| run(&path, &prompt, 4));
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&one.0), bits(&two.0));
    assert_eq!(one.1, two.1);
    assert_eq!(bits(&one.2), bits(&two.2));
}

#[test]
fn smollm2_answers_as_transformers_does() {
    let model = root().join("models/SmolLM2-135M-Instruct.Q4_1.gguf");
    if !model.exists() {
        eprintln!(
            "skipped: {} is absent (bash scripts/fetch_smollm2.sh fetches it)",
            model.display()
        );
        return;
    }
    let dir = root().join("tests/fixtures/smollm2");
    let bytes = std::fs::read(dir.join("reference.safetensors")).unwrap();
    let reference = SafeTensors::deserialize(&bytes).unwrap();
    let prompt = ids(&reference, "prompt_ids");
    let want_ids = ids(&reference, "generated_ids");
    let (_, got_ids, steps) = run(&model, &prompt, want_ids.len());
    assert_eq!(
        got_ids, want_ids,
        "greedy ids: \"The capital of France is Paris.\""
    );
    let want = f32s(&reference, "logits"); // rows 0..4
    let error = max_abs_diff(&steps[..want.len()], &want);
    eprintln!("SmolLM2: logits rows 0..4 max error {error:e}");
    assert!(
        error < 1e-3,
        "logits rows 0..4: max |ours - transformers| = {error:e}"
    );
}
