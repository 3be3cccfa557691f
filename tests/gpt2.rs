//! GPT-2 on the crate against transformers: a 2-layer `GPT2LMHeadModel`
//! with seeded weights (`scripts/gpt2_fixture.py`, eager attention) and its
//! logits at every prompt position and for 16 greedy steps.
//!
//! This is a second, deliberately plain implementation (the whole sequence
//! recomputed per step, no cache), independent of `examples/gpt2`'s cached
//! one, which checks itself against the same fixture when it runs. Two
//! deliberate layout mistakes (heads split the wrong way, `c_attn` used
//! untransposed) must be caught by the same comparison.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
use std::path::Path;

type TestResult = Result<(), Box<dyn std::error::Error>>;

const TOLERANCE: f64 = 1e-4;

/// How the attention reads its weights: right, or one of two layout mistakes.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Variant {
    Correct,
    /// `[T, C]` split as `[T, D, H]` instead of `[T, H, D]`.
    HeadsSplitWrong,
    /// `c_attn`'s `[C, 3C]` read as if it were PyTorch Linear's `[out, in]`.
    AttnUntransposed,
}

struct Fixture {
    model: AlignedBytes,
    reference: AlignedBytes,
}

fn fixture() -> Result<Fixture, Box<dyn std::error::Error>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gpt2");
    Ok(Fixture {
        model: AlignedBytes::read(dir.join("model.safetensors"))?,
        reference: AlignedBytes::read(dir.join("reference.safetensors"))?,
    })
}

/// The fixture's weights by name (all f32 views of the file).
struct Model<'w> {
    weights: Weights<'w>,
    layers: usize,
    heads: usize,
}

impl Model<'_> {
    fn matrix(&self, name: &str) -> Result<View<'_, 2, f32>, Box<dyn std::error::Error>> {
        Ok(self.weights.get::<2, f32>(&format!("transformer.{name}"))?)
    }

    fn vector(&self, name: &str) -> Result<View<'_, 1, f32>, Box<dyn std::error::Error>> {
        Ok(self.weights.get::<1, f32>(&format!("transformer.{name}"))?)
    }

    fn layer_norm(
        &self,
        x: &Tensor<2, f32>,
        name: &str,
    ) -> Result<Tensor<2, f32>, Box<dyn std::error::Error>> {
        let mean = x.mean_axis(1, KeepDim)?;
        let centered = x.map_binary(&mean, |v, m| v - m)?;
        let variance = centered.map_unary(|v| v * v)?.mean_axis(1, KeepDim)?;
        let normed = centered.map_binary(&variance, |c, v| c / (v + 1e-5).sqrt())?;
        let gained = normed.map_binary(&self.vector(&format!("{name}.weight"))?, |v, g| v * g)?;
        Ok(gained.map_binary(&self.vector(&format!("{name}.bias"))?, |v, b| v + b)?)
    }

    fn linear(
        &self,
        x: &Tensor<2, f32>,
        name: &str,
    ) -> Result<Tensor<2, f32>, Box<dyn std::error::Error>> {
        let product = matmul(x, &self.matrix(&format!("{name}.weight"))?)?;
        Ok(product.map_binary(&self.vector(&format!("{name}.bias"))?, |v, b| v + b)?)
    }

    /// Logits `[T, V]` of the whole sequence `tokens`, recomputed from scratch.
    fn logits(
        &self,
        tokens: &[usize],
        variant: Variant,
    ) -> Result<Tensor<2, f32>, Box<dyn std::error::Error>> {
        let t = tokens.len();
        let wte = self.matrix("wte.weight")?;
        let c = wte.shape()[1];
        let (h, d) = (self.heads, c / self.heads);
        let embedded = index_select(&wte, 0, tokens)?;
        let mut x =
            embedded.map_binary(&self.matrix("wpe.weight")?.slice(0, 0..t)?, |e, p| e + p)?;
        for layer in 0..self.layers {
            let name = |suffix: &str| format!("h.{layer}.{suffix}");
            let a = self.layer_norm(&x, &name("ln_1"))?;
            let qkv = match variant {
                Variant::AttnUntransposed => {
                    // Reads W [C, 3C] as [3C, C] and transposes it back: a layout mistake.
                    let w = self
                        .matrix(&name("attn.c_attn.weight"))?
                        .reshape([3 * c, c])?;
                    let product = matmul(&a, &w.transpose(0, 1)?)?;
                    product.map_binary(&self.vector(&name("attn.c_attn.bias"))?, |v, b| v + b)?
                }
                _ => self.linear(&a, &name("attn.c_attn"))?,
            };
            let [q, k, v] = qkv.view().chunk::<3>(1)?;
            let heads = |part| split_heads(part, h, d, variant);
            let (q, k, v) = (heads(q)?, heads(k)?, heads(v)?); // [H, T, D]
            let scores = matmul(&q, &k.transpose(1, 2)?)?;
            let masked = Tensor::from_fn([h, t, t], |[head, i, j]| {
                if j > i {
                    f32::NEG_INFINITY
                } else {
                    scores.get([head, i, j]).copied().unwrap_or(f32::NAN) / (d as f32).sqrt()
                }
            })?;
            let y = matmul(&masked.softmax_axis(2)?, &v)?; // [H, T, D]
            let merged = match variant {
                Variant::HeadsSplitWrong => y
                    .view()
                    .permute([1, 2, 0])?
                    .materialize()?
                    .into_shape([t, c])?,
                _ => y
                    .view()
                    .permute([1, 0, 2])?
                    .materialize()?
                    .into_shape([t, c])?,
            };
            let attended = self.linear(&merged, &name("attn.c_proj"))?;
            x = x.map_binary(&attended, |v, a| v + a)?;
            let m = self.layer_norm(&x, &name("ln_2"))?;
            let hidden = self.linear(&m, &name("mlp.c_fc"))?.map_unary(gelu)?;
            let out = self.linear(&hidden, &name("mlp.c_proj"))?;
            x = x.map_binary(&out, |v, o| v + o)?;
        }
        let x = self.layer_norm(&x, "ln_f")?;
        Ok(matmul(&x, &wte.transpose(0, 1)?)?)
    }
}

/// `[T, C]` -> `[H, T, D]` (or the mistaken `[T, D, H]` split).
fn split_heads(
    part: View<'_, 2, f32>,
    h: usize,
    d: usize,
    variant: Variant,
) -> Result<View<'_, 3, f32>, Error> {
    match variant {
        Variant::HeadsSplitWrong => part.split_axis(1, [d, h])?.permute([2, 0, 1]),
        _ => part.split_axis(1, [h, d])?.permute([1, 0, 2]),
    }
}

/// GPT-2's `gelu_new`.
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + ((2.0 / std::f32::consts::PI).sqrt() * (x + 0.044715 * x.powi(3))).tanh())
}

/// Max |ours - reference| over the prompt positions and the greedy steps,
/// our greedy ids and the reference's.
struct Comparison {
    error: f64,
    generated: Vec<usize>,
    expected: Vec<usize>,
}

/// Compares every prompt position and greedy step (each step recomputes
/// the whole sequence).
fn compare(fixture: &Fixture, variant: Variant) -> Result<Comparison, Box<dyn std::error::Error>> {
    let weights = Weights::parse(fixture.model.as_bytes())?;
    let model = Model {
        weights,
        layers: 2,
        heads: 4,
    };
    let reference = Weights::parse(fixture.reference.as_bytes())?;
    let ids = |name: &str| -> Result<Vec<usize>, Box<dyn std::error::Error>> {
        Ok(reference
            .get::<1, i64>(name)?
            .view()
            .iter()
            .map(|&id| id as usize)
            .collect())
    };
    let prompt = ids("prompt_ids")?;
    let expected_ids = ids("generated_ids")?;
    let prompt_logits = reference.get::<2, f32>("prompt_logits")?;
    let step_logits = reference.get::<2, f32>("step_logits")?;
    let max_error = |ours: View<'_, 2, f32>, theirs: View<'_, 2, f32>| {
        assert_eq!(ours.shape(), theirs.shape());
        ours.iter()
            .zip(theirs.iter())
            .map(|(a, b)| f64::from((a - b).abs()))
            .fold(0.0, |m, e| if e > m || e.is_nan() { e } else { m })
    };
    let mut error = max_error(model.logits(&prompt, variant)?.view(), prompt_logits.view());
    let mut sequence = prompt.clone();
    let mut generated = Vec::new();
    for (step, &expected_id) in expected_ids.iter().enumerate() {
        let logits = model.logits(&sequence, variant)?;
        let last = logits.view().slice(0, sequence.len() - 1..sequence.len())?;
        error = error.max(max_error(
            last,
            step_logits.view().slice(0, step..step + 1)?,
        ));
        let next = last.argmax_axis(1, RemoveDim)?.as_slice()[0];
        generated.push(next);
        // Follow the reference's tokens so one early flip does not derail the comparison.
        sequence.push(expected_id);
    }
    Ok(Comparison {
        error,
        generated,
        expected: expected_ids,
    })
}

#[test]
fn logits_and_greedy_tokens_match_transformers() -> TestResult {
    let fixture = fixture()?;
    let Comparison {
        error,
        generated,
        expected,
    } = compare(&fixture, Variant::Correct)?;
    // f32 sums in a fixed ascending order against PyTorch's blocked, fused
    // BLAS sums: a few ulps per dot product of 64 to 256 terms, through two
    // layers, on logits of magnitude ~2.4 (the fixture's diagnostics: the
    // f32-vs-f64 spread of transformers itself is 3.5e-6).
    println!("max |ours - transformers| = {error:.2e} over every prompt position and step");
    assert!(error <= TOLERANCE, "max |ours - transformers| = {error:e}");
    assert_eq!(generated, expected, "the greedy tokens");
    Ok(())
}

#[test]
fn layout_mistakes_are_caught_by_the_comparison() -> TestResult {
    let fixture = fixture()?;
    for variant in [Variant::HeadsSplitWrong, Variant::AttnUntransposed] {
        let error = compare(&fixture, variant)?.error;
        assert!(
            error > 1e-2,
            "{variant:?} went unnoticed: max error {error:e}"
        );
    }
    Ok(())
}
