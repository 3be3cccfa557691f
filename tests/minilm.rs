//! A real model's numbers out of our views: the embeddings and the layer-0
//! self-attention block of all-MiniLM-L6-v2 (a BERT encoder: hidden 384,
//! 12 heads of width 32), computed here with the library alone from weights
//! borrowed straight from a safetensors fixture, and compared with Hugging
//! Face `transformers` (feature `safetensors`; fixture and script:
//! `scripts/minilm_fixture.py`). The example `minilm_attention` computes the
//! same layer, also from a full checkpoint, and compares itself with the
//! same reference when it runs.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/minilm/layer0.safetensors"
);
/// The fixture sentence's length and the model width.
const TOKENS: usize = 16;
const WIDTH: usize = 384;

fn fixture() -> AlignedBytes {
    AlignedBytes::read(FIXTURE).expect("the committed fixture is readable")
}

/// The fixture's f32 tensor `name` of rank `R` (a view of the buffer).
fn weight<'a, const R: usize>(weights: &Weights<'a>, name: &str) -> View<'a, R, f32> {
    weights.get::<R, f32>(name).unwrap()
}

/// `torch.nn.LayerNorm` over the last axis of `[T, C]`: biased variance,
/// BERT's `layer_norm_eps = 1e-12`, then `* gamma + beta`.
fn layer_norm(
    x: &View<'_, 2, f32>,
    gamma: &View<'_, 1, f32>,
    beta: &View<'_, 1, f32>,
) -> Tensor<2, f32> {
    let mean = mean_axis(x, 1, KeepDim).unwrap(); // [T, 1]
    let centered = map_binary(x, &mean.view(), |v, m| v - m).unwrap();
    let squared = map_unary(&centered, |c| c * c).unwrap();
    let deviation = map_unary(&mean_axis(&squared, 1, KeepDim).unwrap().view(), |v| {
        (v + 1e-12).sqrt()
    })
    .unwrap();
    let normalized = map_binary(&centered, &deviation, |c, s| c / s).unwrap();
    let scaled = map_binary(&normalized, gamma, |n, g| n * g).unwrap();
    map_binary(&scaled, beta, |s, b| s + b).unwrap()
}

/// `torch.nn.Linear`: `x · Wᵀ + b` with `W` stored `[out, in]`; `Wᵀ` is a
/// transposed view of the weights buffer, read by `matmul` as it is.
fn linear(weights: &Weights<'_>, name: &str, x: &View<'_, 2, f32>) -> Tensor<2, f32> {
    let w = weight::<2>(weights, &format!("{name}.weight"));
    let b = weight::<1>(weights, &format!("{name}.bias"));
    let product = matmul(x, &w.view().transpose(0, 1).unwrap()).unwrap();
    map_binary(&product, &b.view(), |p, b| p + b).unwrap()
}

/// Split heads, `[T, C]` -> reshape `[1, T, H, D]` -> permute `[1, H, T, D]`:
/// a view of the projection `x`, nothing copied.
fn split_heads(x: &Tensor<2, f32>, heads: usize) -> View<'_, 4, f32> {
    let split = x.view().reshape([1, TOKENS, heads, WIDTH / heads]).unwrap();
    let split = split.permute([0, 2, 1, 3]).unwrap();
    assert_eq!(
        split.storage().as_ptr(),
        x.as_slice().as_ptr(),
        "a view of x"
    );
    split
}

/// The stages `transformers` records, and the bytes the head merge copied.
struct Stages {
    embeddings: Tensor<2, f32>,
    probabilities: Tensor<4, f32>,
    context: Tensor<3, f32>,
    output: Tensor<2, f32>,
    copied_bytes: usize,
}

/// BERT's embeddings (the fixture holds the sentence's word rows already
/// gathered) and its layer-0 attention block, splitting the width into `heads`.
fn layer(weights: &Weights<'_>, heads: usize) -> Stages {
    let words = weight::<2>(weights, "embeddings.word_rows");
    let positions = weight::<2>(weights, "embeddings.position_rows");
    let token_type = weight::<1>(weights, "embeddings.token_type_row");
    let summed = map_binary(&words.view(), &positions.view(), |w, p| w + p).unwrap();
    let summed = map_binary(&summed, &token_type.view(), |s, t| s + t).unwrap();
    let norm = |x: &View<'_, 2, f32>, name: &str| {
        let gamma = weight::<1>(weights, &format!("{name}.weight"));
        layer_norm(
            x,
            &gamma.view(),
            &weight::<1>(weights, &format!("{name}.bias")).view(),
        )
    };
    let embeddings = norm(&summed.view(), "embeddings.layer_norm");

    let [q, k, v] = ["query", "key", "value"]
        .map(|name| linear(weights, &format!("attention.{name}"), &embeddings.view()));
    let (qh, kh, vh) = (
        split_heads(&q, heads),
        split_heads(&k, heads),
        split_heads(&v, heads),
    );
    let width = WIDTH / heads;
    let scale = 1.0 / (width as f32).sqrt();
    let scores = map_unary(
        &matmul(&qh, &kh.transpose(2, 3).unwrap()).unwrap().view(),
        |s| s * scale,
    )
    .unwrap();
    // Softmax over the keys, max-subtracted (no mask: BERT attends both ways).
    let max = max_axis(&scores, 3, KeepDim).unwrap();
    let exp = map_binary(&scores, &max, |s, m| (s - m).exp()).unwrap();
    let total = sum_axis(&exp, 3, KeepDim).unwrap();
    let probabilities = map_binary(&exp, &total, |e, z| e / z).unwrap();

    // Merge heads: [1, H, T, D] -> [1, T, H, D] is not contiguous, so reshape
    // refuses it and one materialize copies it.
    let heads_out = matmul(&probabilities, &vh).unwrap();
    let tokens_first = heads_out.view().permute([0, 2, 1, 3]).unwrap();
    assert_eq!(
        tokens_first.reshape([1, TOKENS, WIDTH]).unwrap_err(),
        Error::NonContiguousReshape
    );
    let merged = tokens_first.materialize().unwrap();
    let copied_bytes = merged.len() * size_of::<f32>();
    let context = Tensor::from_vec([1, TOKENS, WIDTH], merged.into_vec()).unwrap();

    let flat = context.view().reshape([TOKENS, WIDTH]).unwrap();
    let dense = linear(weights, "attention.output.dense", &flat);
    let residual = map_binary(&dense, &embeddings, |d, e| d + e).unwrap();
    let output = norm(&residual.view(), "attention.output.layer_norm");
    Stages {
        embeddings,
        probabilities,
        context,
        output,
        copied_bytes,
    }
}

/// The fixture's reference tensor `name` (rank 3 or 4), flattened row-major.
fn reference(weights: &Weights<'_>, name: &str) -> Vec<f32> {
    match weights.get::<3, f32>(name) {
        Ok(tensor) => tensor.view().iter().copied().collect(),
        Err(_) => weights
            .get::<4, f32>(name)
            .unwrap()
            .view()
            .iter()
            .copied()
            .collect(),
    }
}

/// The largest absolute difference between two equally long value lists.
fn max_abs_diff(ours: &[f32], reference: &[f32]) -> f32 {
    assert_eq!(ours.len(), reference.len());
    ours.iter()
        .zip(reference)
        .fold(0.0, |worst, (a, b)| worst.max((a - b).abs()))
}

#[test]
fn every_stage_matches_transformers_within_tolerance() {
    let bytes = fixture();
    let weights = Weights::parse(bytes.as_bytes()).unwrap();
    let ids = weights.get::<1, i64>("input.token_ids").unwrap();
    let ids: Vec<i64> = ids.view().iter().copied().collect();
    assert_eq!((ids.len(), ids[0], ids[15]), (16, 101, 102)); // [CLS] … [SEP]
    let out = layer(&weights, 12);
    assert_eq!(out.probabilities.shape(), &[1, 12, 16, 16]);
    assert_eq!(out.context.shape(), &[1, 16, 384]);
    // f32 tolerances: our sums run in ascending order, PyTorch's BLAS
    // reassociates (a few 1e-6 over 384-term dot products); a layout
    // mistake shows up as errors of order 0.1 to 1.
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
        (out.output.as_slice(), "reference.attention_output", 1e-4),
    ];
    for (ours, name, tolerance) in stages {
        let diff = max_abs_diff(ours, &reference(&weights, name));
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
        // `get` only ever borrows; the values lie inside the file's buffer.
        let view = weights.get::<2, f32>(name).unwrap();
        let at = view.storage().as_ptr() as usize;
        let start = bytes.as_bytes().as_ptr() as usize;
        assert!(at >= start && at < start + bytes.as_bytes().len(), "{name}");
    }
}

#[test]
fn a_layout_mistake_is_caught_by_the_reference() {
    // Splitting heads with the wrong head count keeps every shape valid but
    // mixes features across heads: the comparison must notice.
    let bytes = fixture();
    let weights = Weights::parse(bytes.as_bytes()).unwrap();
    let wrong = layer(&weights, 6);
    let reference = reference(&weights, "reference.context");
    assert!(max_abs_diff(wrong.context.as_slice(), &reference) > 1e-2);
}
