//! The model's parameters, borrowed from the GGUF file in their stored
//! types (quantized matrices stay quantized: `x · Wᵀ` reads the blocks),
//! and the example's error type.
//!
//! Tensor names are llama.cpp's: `token_embd`, `blk.N.attn_{norm,q,k,v,output}`,
//! `blk.N.ffn_{norm,gate,up,down}`, `output_norm`, and `output` (absent
//! when the head is tied to the embedding, as in SmolLM2).

use crate::config::Config;
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::gguf::{Gguf, GgufTensor};

/// Everything that can go wrong, as a sentence.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The crate refused something (its message names the op, tensor or key).
    #[error(transparent)]
    Tensor(#[from] Error),
    /// The file is not a Llama-family model.
    #[error(
        "the file's architecture is `{0}`; this example runs `llama` (SmolLM2, Llama, TinyLlama, ...)"
    )]
    Architecture(String),
    /// The heads do not split the width evenly.
    #[error(
        "{heads} heads and {kv_heads} KV heads cannot split the width {width} (H must divide C, H_kv must divide H, C/H must be even)"
    )]
    Heads {
        heads: usize,
        kv_heads: usize,
        width: usize,
    },
    /// A tensor's shape is not the one the configuration needs.
    #[error("tensor `{name}` has shape {found:?}, the configuration needs {expected:?}")]
    Shape {
        name: String,
        expected: Vec<usize>,
        found: Vec<usize>,
    },
    /// The prompt has no token.
    #[error("the prompt is empty after tokenization: nothing to continue")]
    EmptyPrompt,
    /// Prompt and generation do not fit the context.
    #[error("the prompt and generation need {length} positions, the context holds {context}")]
    PromptTooLong { length: usize, context: usize },
    /// A forward pass produced NaN logits.
    #[error(
        "the logits at position {position} hold {count} NaN values: the weights hold NaN or infinities, or the computation overflowed"
    )]
    NanLogits { position: usize, count: usize },
    /// A file could not be read or written.
    #[error("{0}")]
    Io(String),
}

/// One block's parameters.
pub struct Block<'a> {
    pub attn_norm: Tensor<1, f32>,
    pub q: GgufTensor<'a, 2>,
    pub k: GgufTensor<'a, 2>,
    pub v: GgufTensor<'a, 2>,
    pub output: GgufTensor<'a, 2>,
    pub ffn_norm: Tensor<1, f32>,
    pub gate: GgufTensor<'a, 2>,
    pub up: GgufTensor<'a, 2>,
    pub down: GgufTensor<'a, 2>,
}

/// The token embedding `[V, C]`, in its stored type.
pub struct Embedding<'a>(pub GgufTensor<'a, 2>);

impl Embedding<'_> {
    /// The rows of `tokens`, `[T, C]` in f32 (only those rows are dequantized).
    ///
    /// # Errors
    /// A token id past the vocabulary (`IndexSelectOutOfBounds`).
    pub fn rows(&self, tokens: &[usize]) -> Result<Tensor<2, f32>, Error> {
        self.0.rows(tokens)
    }
}

/// All parameters of the model.
pub struct Params<'a> {
    pub config: Config,
    pub embedding: Embedding<'a>,
    pub blocks: Vec<Block<'a>>,
    pub output_norm: Tensor<1, f32>,
    /// `output.weight`, or `None` when the head is tied to the embedding.
    pub output: Option<GgufTensor<'a, 2>>,
    /// The bytes of every tensor in the file.
    pub weight_bytes: usize,
}

impl<'a> Params<'a> {
    /// Reads every parameter of `config` from `gguf` and checks its shape.
    ///
    /// # Errors
    /// A missing tensor or one of an unsupported type (the crate's error
    /// names both); [`ModelError::Shape`].
    pub fn from_gguf(gguf: &Gguf<'a>, config: Config) -> Result<Self, ModelError> {
        let (c, f) = (config.width, config.ffn);
        let kv = config.kv_heads * config.head_dim;
        let matrix = |name: &str, expected: [usize; 2]| -> Result<GgufTensor<'a, 2>, ModelError> {
            let tensor = gguf.tensor::<2>(name)?;
            check(name, &tensor.shape(), &expected)?;
            Ok(tensor)
        };
        let vector = |name: &str| -> Result<Tensor<1, f32>, ModelError> {
            let tensor = gguf.tensor::<1>(name)?;
            check(name, &tensor.shape(), &[c])?;
            Ok(tensor.dequantize()?)
        };
        let embedding = gguf.tensor::<2>("token_embd.weight")?;
        let vocab = embedding.shape()[0];
        check("token_embd.weight", &embedding.shape(), &[vocab, c])?;
        let blocks = (0..config.layers)
            .map(|n| {
                let name = |suffix: &str| format!("blk.{n}.{suffix}.weight");
                Ok(Block {
                    attn_norm: vector(&name("attn_norm"))?,
                    q: matrix(&name("attn_q"), [c, c])?,
                    k: matrix(&name("attn_k"), [kv, c])?,
                    v: matrix(&name("attn_v"), [kv, c])?,
                    output: matrix(&name("attn_output"), [c, c])?,
                    ffn_norm: vector(&name("ffn_norm"))?,
                    gate: matrix(&name("ffn_gate"), [f, c])?,
                    up: matrix(&name("ffn_up"), [f, c])?,
                    down: matrix(&name("ffn_down"), [c, f])?,
                })
            })
            .collect::<Result<_, ModelError>>()?;
        let output = match gguf.tensor_info("output.weight") {
            Some(_) => Some(matrix("output.weight", [vocab, c])?),
            None => None,
        };
        Ok(Params {
            weight_bytes: gguf
                .tensor_infos()
                .iter()
                .map(|info| info.data().len())
                .sum(),
            output_norm: vector("output_norm.weight")?,
            embedding: Embedding(embedding),
            blocks,
            output,
            config,
        })
    }

    /// The vocabulary size `V`.
    pub fn vocab(&self) -> usize {
        self.embedding.0.shape()[0]
    }

    /// The head `[V, C]`: `output.weight`, or the embedding when tied.
    pub fn head(&self) -> &GgufTensor<'a, 2> {
        self.output.as_ref().unwrap_or(&self.embedding.0)
    }

    /// Bytes of weights one decode step reads: every tensor of the file
    /// once (the tied head reads the whole embedding table).
    pub fn bytes_per_token(&self) -> usize {
        self.weight_bytes
    }
}

fn check(name: &str, found: &[usize], expected: &[usize]) -> Result<(), ModelError> {
    if found == expected {
        return Ok(());
    }
    Err(ModelError::Shape {
        name: name.to_string(),
        expected: expected.to_vec(),
        found: found.to_vec(),
    })
}
