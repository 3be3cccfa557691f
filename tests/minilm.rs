//! A real model's numbers out of our views: all-MiniLM-L6-v2's embeddings
//! and layer-0 attention block, computed from weights borrowed straight from
//! a safetensors fixture and compared with Hugging Face `transformers`
//! (feature `safetensors`; fixture and script: `scripts/minilm_fixture.py`).

#[path = "../examples/minilm_attention/pipeline.rs"]
#[allow(dead_code)]
mod pipeline;

use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
use pipeline::{Naming, max_abs_diff, reference_values};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/minilm/layer0.safetensors"
);

fn fixture() -> AlignedBytes {
    AlignedBytes::read(FIXTURE).expect("the committed fixture is readable")
}

#[test]
fn every_stage_matches_transformers_within_tolerance() {
    let bytes = fixture();
    let weights = Weights::parse(bytes.as_bytes()).unwrap();
    let ids: Vec<usize> = weights
        .get::<1, i64>("input.token_ids")
        .unwrap()
        .view()
        .iter()
        .map(|&id| id as usize)
        .collect();
    assert_eq!((ids.len(), ids[0], ids[15]), (16, 101, 102)); // [CLS] … [SEP]
    let out = pipeline::run(&weights, Naming::Fixture, &ids, 12).unwrap();
    assert_eq!(out.probabilities.shape(), &[1, 12, 16, 16]);
    assert_eq!(out.context.shape(), &[1, 16, 384]);
    let stages = [
        (
            out.embeddings.as_slice(),
            "reference.embedding_output",
            1e-4,
        ),
        (
            out.probabilities.as_slice(),
            "reference.attention_probs",
            1e-5,
        ),
        (out.context.as_slice(), "reference.context", 1e-4),
        (
            out.attention_output.as_slice(),
            "reference.attention_output",
            1e-4,
        ),
    ];
    for (ours, name, tolerance) in stages {
        let reference = reference_values(&weights, name).unwrap();
        assert_eq!(ours.len(), reference.len(), "{name}");
        let diff = max_abs_diff(ours.iter(), reference.iter());
        println!("{name}: max |ours - reference| = {diff:.3e} (tolerance {tolerance:.0e})");
        assert!(diff <= tolerance, "{name}: {diff} > {tolerance}");
    }
    // Every probability row sums to 1.
    for row in out.probabilities.as_slice().chunks(16) {
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
    // Only the head merge was materialized: T·C f32 values.
    assert_eq!(out.copied_bytes, 16 * 384 * 4);
}

#[test]
fn the_weights_are_borrowed_not_copied() {
    let bytes = fixture();
    let weights = Weights::parse(bytes.as_bytes()).unwrap();
    for name in [
        "attention.query.weight",
        "attention.key.weight",
        "attention.value.weight",
    ] {
        assert!(weights.get::<2, f32>(name).unwrap().is_borrowed(), "{name}");
    }
}

#[test]
fn a_layout_mistake_is_caught_by_the_reference() {
    // Splitting heads with the wrong head count keeps every shape valid but
    // mixes features across heads: the comparison must notice.
    let bytes = fixture();
    let weights = Weights::parse(bytes.as_bytes()).unwrap();
    let ids: Vec<usize> = (0..16).collect();
    let wrong = pipeline::run(&weights, Naming::Fixture, &ids, 6).unwrap();
    let reference = reference_values(&weights, "reference.context").unwrap();
    assert!(max_abs_diff(wrong.context.as_slice().iter(), reference.iter()) > 1e-2);
}
