//! The embeddings and the layer-0 self-attention block of a BERT encoder
//! (all-MiniLM-L6-v2: hidden 384, 12 heads of width 32), built only from the
//! crate's views and ops over weights borrowed from a safetensors buffer.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::ops::matmul;
use llm_from_scratch::tensor::weights::Weights;
use std::error::Error;

/// Result type of the pipeline: any crate error, boxed.
pub type Fallible<T> = Result<T, Box<dyn Error>>;

/// Where the weights come from: the small fixture or a full `model.safetensors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// `tests/fixtures/minilm/layer0.safetensors` (embedding rows already gathered).
    Fixture,
    /// A full checkpoint (`embeddings.word_embeddings.weight`, `encoder.layer.0…`).
    Checkpoint,
}

impl Naming {
    fn name(self, short: &str) -> String {
        if self == Naming::Fixture {
            return short.to_string();
        }
        let checkpoint = match short {
            "embeddings.word_rows" => "embeddings.word_embeddings.weight",
            "embeddings.position_rows" => "embeddings.position_embeddings.weight",
            "embeddings.token_type_row" => "embeddings.token_type_embeddings.weight",
            "embeddings.layer_norm.weight" => "embeddings.LayerNorm.weight",
            "embeddings.layer_norm.bias" => "embeddings.LayerNorm.bias",
            "attention.output.layer_norm.weight" => {
                "encoder.layer.0.attention.output.LayerNorm.weight"
            }
            "attention.output.layer_norm.bias" => "encoder.layer.0.attention.output.LayerNorm.bias",
            other => {
                return format!(
                    "encoder.layer.0.{}",
                    other
                        .replace("attention.", "attention.self.")
                        .replace("self.output", "output")
                );
            }
        };
        checkpoint.to_string()
    }
}

/// BERT's layer-norm epsilon (`layer_norm_eps` in the model config).
pub const LAYER_NORM_EPS: f32 = 1e-12;

/// Every stage's output, for comparison and printing.
pub struct Outputs {
    /// Embedding output after layer norm, `[T, C]`.
    pub embeddings: Tensor<2, f32>,
    /// Attention probabilities, `[1, H, T, T]`.
    pub probabilities: Tensor<4, f32>,
    /// Merged attention context, `[1, T, C]`.
    pub context: Tensor<3, f32>,
    /// Attention block output (dense, residual, layer norm), `[T, C]`.
    pub attention_output: Tensor<2, f32>,
    /// The layout trace of the head split / merge.
    pub trace: LayoutTrace,
    /// Bytes copied by announced materializes.
    pub copied_bytes: usize,
}

/// Reads a rank-`R` f32 weight as a view of the file's buffer (no copy).
pub fn weight<'a, const R: usize>(
    weights: &Weights<'a>,
    naming: Naming,
    name: &str,
) -> Result<View<'a, R, f32>, llm_from_scratch::Error> {
    weights.get::<R, f32>(&naming.name(name))
}

/// Layer norm over the last axis: `(x - mean) / sqrt(var + eps) * gamma + beta`,
/// biased variance as in `torch.nn.LayerNorm`. `[T, C]` -> `[T, C]`. The
/// crate's fused `layer_norm`: bit-identical to `mean_axis`, centering,
/// the mean of the squares, `/ sqrt(var + eps)`, `* gamma`, `+ beta` op by op.
pub fn layer_norm(
    x: &View<'_, 2, f32>,
    gamma: &View<'_, 1, f32>,
    beta: &View<'_, 1, f32>,
) -> Fallible<Tensor<2, f32>> {
    Ok(x.layer_norm(gamma, beta, f64::from(LAYER_NORM_EPS))?)
}

/// A linear layer `x · Wᵀ + b` with `W` in PyTorch's `[out, in]` layout:
/// `Wᵀ` is a zero-copy transposed view, and the bias is added as each block
/// of the product is finished (`matmul_affine`: one output, the same bits as
/// `matmul` then `+ b`). `[T, in]` -> `[T, out]`.
pub fn linear(
    x: &View<'_, 2, f32>,
    weight: &View<'_, 2, f32>,
    bias: &View<'_, 1, f32>,
) -> Fallible<Tensor<2, f32>> {
    Ok(matmul_affine(
        x,
        &weight.transpose(0, 1)?,
        1.0,
        Some(*bias),
    )?)
}

/// `[T, C]` -> reshape `[1, T, H, D]` -> permute `[1, H, T, D]`, zero-copy.
pub fn split_heads<'a>(x: &View<'a, 2, f32>, heads: usize) -> Fallible<View<'a, 4, f32>> {
    let [tokens, width] = *x.shape();
    Ok(x.reshape([1, tokens, heads, width / heads])?
        .permute([0, 2, 1, 3])?)
}

/// Runs the embeddings and the layer-0 attention block for `ids`.
pub fn run(
    weights: &Weights<'_>,
    naming: Naming,
    ids: &[usize],
    heads: usize,
) -> Fallible<Outputs> {
    let mut trace = LayoutTrace::new();
    let words = weight::<2>(weights, naming, "embeddings.word_rows")?;
    let positions = weight::<2>(weights, naming, "embeddings.position_rows")?;
    let token_types = weight::<2>(weights, naming, "embeddings.token_type_row");
    let token_type_row = match token_types {
        Ok(table) => table.view().slice(0, 0..1)?.materialize()?.into_vec(),
        Err(_) => weight::<1>(weights, naming, "embeddings.token_type_row")?
            .view()
            .materialize()?
            .into_vec(),
    };
    let tokens = ids.len();
    let word_ids: Vec<usize> = if naming == Naming::Fixture {
        (0..tokens).collect()
    } else {
        ids.to_vec()
    };
    // The embedding lookup: rows `word_ids` of the `[V, C]` table -> `[T, C]`,
    // the one copy of this step; an id past the vocabulary is an error
    // naming its position in the list.
    let gathered = index_select(&words.view(), 0, &word_ids)?;
    let position_rows = positions.view().slice(0, 0..tokens)?; // zero-copy
    let token_type = Tensor::from_vec([token_type_row.len()], token_type_row)?;
    let summed = map_binary(&gathered, &position_rows, |w, p| w + p)?;
    let summed = map_binary(&summed, &token_type, |s, t| s + t)?;
    let ln_w = weight::<1>(weights, naming, "embeddings.layer_norm.weight")?;
    let ln_b = weight::<1>(weights, naming, "embeddings.layer_norm.bias")?;
    let embeddings = layer_norm(&summed.view(), &ln_w.view(), &ln_b.view())?;

    let mut project = |name: &str| -> Fallible<Tensor<2, f32>> {
        let w = weight::<2>(weights, naming, &format!("attention.{name}.weight"))?;
        let b = weight::<1>(weights, naming, &format!("attention.{name}.bias"))?;
        trace
            .source("the weights file", w.view().storage())
            .view(&format!("W_{name} [out, in]"), &w.view())
            .view(
                &format!("W_{name}ᵀ [in, out] for x·Wᵀ"),
                &w.view().transpose(0, 1)?,
            );
        linear(&embeddings.view(), &w.view(), &b.view())
    };
    let (q, k, v) = (project("query")?, project("key")?, project("value")?);
    let q_heads = split_heads(&q.view(), heads)?;
    let k_heads = split_heads(&k.view(), heads)?;
    let v_heads = split_heads(&v.view(), heads)?;
    let k_t = k_heads.transpose(2, 3)?; // [1, H, D, T], zero-copy
    trace
        .owner("Q = x·W_qᵀ + b_q", &q)
        .view("Q split heads [1,H,T,D]", &q_heads);
    trace.owner("K", &k).view("Kᵀ [1,H,D,T]", &k_t);
    // Q·Kᵀ / √D in one output: the scale applied as the product is finished.
    let scale = 1.0 / ((q_heads.shape()[3]) as f32).sqrt();
    let scores = matmul_affine(&q_heads, &k_t, scale, None)?;
    let probabilities = softmax_axis(&scores, 3)?; // the stable softmax, fused
    let context_heads = matmul(&probabilities, &v_heads)?; // [1, H, T, D]
    let merged_view = context_heads.view().permute([0, 2, 1, 3])?; // [1, T, H, D], not contiguous
    let merged = merged_view.materialize()?;
    trace
        .owner("P·V [1,H,T,D]", &context_heads)
        .view("permute [1,T,H,D]", &merged_view);
    trace.owner("materialize (merge heads)", &merged);
    let copied_bytes = merged.len() * size_of::<f32>();
    // Reshaping an owner's contiguous values into [1, T, C] moves the Vec: no copy.
    let context = Tensor::from_vec([1, tokens, q.shape()[1]], merged.into_vec())?;

    let flat = context.view().reshape([tokens, q.shape()[1]])?;
    let dense_w = weight::<2>(weights, naming, "attention.output.dense.weight")?;
    let dense_b = weight::<1>(weights, naming, "attention.output.dense.bias")?;
    let dense = linear(&flat, &dense_w.view(), &dense_b.view())?;
    let mut residual = dense;
    residual.view_mut().add_assign(&embeddings)?; // in place: dense + x
    let out_w = weight::<1>(weights, naming, "attention.output.layer_norm.weight")?;
    let out_b = weight::<1>(weights, naming, "attention.output.layer_norm.bias")?;
    let attention_output = layer_norm(&residual.view(), &out_w.view(), &out_b.view())?;
    Ok(Outputs {
        embeddings,
        probabilities,
        context,
        attention_output,
        trace,
        copied_bytes,
    })
}

/// The largest absolute difference between our values and a reference.
pub fn max_abs_diff<'a>(
    ours: impl Iterator<Item = &'a f32>,
    reference: impl Iterator<Item = &'a f32>,
) -> f32 {
    ours.zip(reference)
        .fold(0.0, |worst, (a, b)| worst.max((a - b).abs()))
}

/// A reference tensor of the fixture, flattened in row-major order (any rank).
pub fn reference_values(
    fixture: &Weights<'_>,
    name: &str,
) -> Result<Vec<f32>, llm_from_scratch::Error> {
    match fixture.get::<3, f32>(name) {
        Ok(weight) => Ok(weight.view().iter().copied().collect()),
        // A rank error names its tensor: `InTensor` wraps the `RankMismatch`.
        Err(llm_from_scratch::Error::InTensor { source, .. })
            if matches!(*source, llm_from_scratch::Error::RankMismatch { .. }) =>
        {
            Ok(fixture
                .get::<4, f32>(name)?
                .view()
                .iter()
                .copied()
                .collect())
        }
        Err(other) => Err(other),
    }
}
