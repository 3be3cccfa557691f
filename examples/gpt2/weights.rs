//! GPT-2's parameters in Hugging Face's safetensors layout, as views.
//!
//! Keys (`GPT2LMHeadModel.save_pretrained` writes them with a
//! `transformer.` prefix; `GPT2Model` without): `wte.weight [V, C]`,
//! `wpe.weight [P, C]`, per block `h.{i}.ln_1.{weight,bias} [C]`,
//! `attn.c_attn.{weight [C, 3C], bias [3C]}`, `attn.c_proj [C, C]`,
//! `ln_2`, `mlp.c_fc [C, 4C]`, `mlp.c_proj [4C, C]`, then `ln_f`. The
//! linear layers are Conv1D (`x · W + b`, `W` stored `[in, out]`); the LM
//! head is `wte` itself (tied). The file may store `F16`, `BF16`, `F32` or
//! `F64`: a parameter whose stored dtype is the compute type (`--dtype`) is
//! a view of the file's buffer (no copy); any other is converted once.

#[path = "../common/prng.rs"]
#[allow(dead_code)] // the generator only; not the attention fixture's seeded tensors
mod prng;

use crate::config::Config;
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::weights::{SafetensorsElement, Weights};
use std::collections::BTreeMap;
use thiserror::Error;

/// Why a model could not be built or run; each names what was wrong.
#[derive(Debug, Error)]
pub enum ModelError {
    /// The file has no tensor of this name (with or without `transformer.`).
    #[error("the weights have no tensor `{name}` (looked for `{name}` and `transformer.{name}`)")]
    Missing { name: String },
    /// A tensor's shape is not the one the configuration needs.
    #[error("tensor `{name}` has shape {found:?}, GPT-2 needs {expected:?} here")]
    Shape {
        name: String,
        expected: Vec<usize>,
        found: Vec<usize>,
    },
    /// A tensor is not a float tensor (or has the wrong rank, or its bytes
    /// do not match): what `Weights` said about it, without its name again.
    #[error("tensor `{name}`: {source}")]
    Read { name: String, source: Error },
    /// A file could not be read.
    #[error("{0}")]
    Io(String),
    /// The file is not a safetensors file, or is truncated.
    #[error("{0}")]
    File(Error),
    /// `n_head` is zero or does not divide the width (heads split `C`
    /// into `H` equal parts of `D = C / H`).
    #[error("n_head = {heads} does not divide the model width n_embd = {width} into equal heads")]
    Heads { heads: usize, width: usize },
    /// The prompt has no token: there is nothing to continue.
    #[error("the prompt is empty: give at least one token id")]
    EmptyPrompt,
    /// No `--tokens` and the default prompt's ids are past the vocabulary.
    #[error(
        "the default prompt {prompt:?} (GPT-2's \"The quick brown fox\") is outside this model's vocabulary of {vocab} tokens: give --tokens"
    )]
    DefaultPromptOutsideVocab { prompt: Vec<usize>, vocab: usize },
    /// A forward pass produced NaN logits (bad weights, or an overflow).
    #[error(
        "the logits at position {position} hold {count} NaN values: the weights hold NaN or infinities, or the computation overflowed"
    )]
    NanLogits { position: usize, count: usize },
    /// The prompt does not fit the context.
    #[error("the prompt has {length} tokens, the model's context is {context}")]
    PromptTooLong { length: usize, context: usize },
    /// A tensor operation failed (a token id past the vocabulary, an allocation).
    #[error(transparent)]
    Tensor(#[from] Error),
}

/// One parameter: a view of the file's buffer, or an owner (converted to
/// f64, or generated for the speed run).
pub enum Param<'b, const R: usize, F> {
    /// Borrowed from the weights file, no copy.
    File(View<'b, R, F>),
    /// Owned values.
    Owned(Tensor<R, F>),
}

impl<const R: usize, F> Param<'_, R, F> {
    /// The parameter as a view.
    pub fn view(&self) -> View<'_, R, F> {
        match self {
            Param::File(view) => *view,
            Param::Owned(tensor) => tensor.view(),
        }
    }
}

/// Every parameter by its name without the `transformer.` prefix.
pub struct Params<'b, F> {
    pub config: Config,
    matrices: BTreeMap<String, Param<'b, 2, F>>,
    vectors: BTreeMap<String, Param<'b, 1, F>>,
    /// Bytes of parameters copied out of the file (0 for f32 from an aligned file).
    pub copied_bytes: usize,
}

/// Parameter names with their shapes, of one rank.
type Shapes<const R: usize> = Vec<(String, [usize; R])>;

/// The rank-2 and rank-1 parameter names of a configuration, with shapes.
fn expected_shapes(config: &Config) -> (Shapes<2>, Shapes<1>) {
    let (c, v, p) = (config.width, config.vocab, config.context);
    let mut matrices = vec![
        ("wte.weight".to_string(), [v, c]),
        ("wpe.weight".to_string(), [p, c]),
    ];
    let mut vectors = vec![
        ("ln_f.weight".to_string(), [c]),
        ("ln_f.bias".to_string(), [c]),
    ];
    for i in 0..config.layers {
        let name = |suffix: &str| format!("h.{i}.{suffix}");
        matrices.push((name("attn.c_attn.weight"), [c, 3 * c]));
        matrices.push((name("attn.c_proj.weight"), [c, c]));
        matrices.push((name("mlp.c_fc.weight"), [c, 4 * c]));
        matrices.push((name("mlp.c_proj.weight"), [4 * c, c]));
        for (suffix, extent) in [
            ("ln_1.weight", c),
            ("ln_1.bias", c),
            ("attn.c_attn.bias", 3 * c),
            ("attn.c_proj.bias", c),
            ("ln_2.weight", c),
            ("ln_2.bias", c),
            ("mlp.c_fc.bias", 4 * c),
            ("mlp.c_proj.bias", c),
        ] {
            vectors.push((name(suffix), [extent]));
        }
    }
    (matrices, vectors)
}

/// The configuration a weights file implies: `C` and `V` from `wte`, `P`
/// from `wpe`, the layer count from the `h.{i}` keys, `heads` given.
///
/// # Errors
/// [`ModelError::Missing`] / [`ModelError::Read`] for `wte` or `wpe`;
/// [`ModelError::Heads`] if `heads` is 0 or does not divide the width.
pub fn config_of(weights: &Weights<'_>, heads: usize) -> Result<Config, ModelError> {
    let names = weights.names();
    let prefix = if names.iter().any(|n| n.starts_with("transformer.")) {
        "transformer."
    } else {
        ""
    };
    let shape_of = |name: &str| -> Result<Vec<usize>, ModelError> {
        let shape =
            weights
                .shape(&format!("{prefix}{name}"))
                .ok_or_else(|| ModelError::Missing {
                    name: name.to_string(),
                })?;
        if shape.len() != 2 {
            return Err(ModelError::Read {
                name: format!("{prefix}{name}"),
                source: Error::RankMismatch {
                    op: "Weights::get",
                    expected: 2,
                    actual: shape.len(),
                },
            });
        }
        Ok(shape)
    };
    let wte = shape_of("wte.weight")?;
    let wpe = shape_of("wpe.weight")?;
    let layers = (0..)
        .take_while(|i| names.contains(&format!("{prefix}h.{i}.ln_1.weight").as_str()))
        .count();
    if heads == 0 || !wte[1].is_multiple_of(heads) {
        return Err(ModelError::Heads {
            heads,
            width: wte[1],
        });
    }
    Ok(Config {
        layers,
        heads,
        width: wte[1],
        context: wpe[0],
        vocab: wte[0],
    })
}

impl<'b, F: Element> Params<'b, F> {
    /// Every parameter of `config` from a safetensors file of any float
    /// dtype: views of the buffer where the stored dtype is `F`, one
    /// conversion each otherwise.
    ///
    /// # Errors
    /// [`ModelError::Missing`], [`ModelError::Shape`] or [`ModelError::Read`]
    /// naming the tensor.
    pub fn from_file(weights: &Weights<'b>, config: Config) -> Result<Self, ModelError> {
        let names = weights.names();
        let prefix = if names.iter().any(|n| n.starts_with("transformer.")) {
            "transformer."
        } else {
            ""
        };
        let mut params = Params {
            config,
            matrices: BTreeMap::new(),
            vectors: BTreeMap::new(),
            copied_bytes: 0,
        };
        let (matrices, vectors) = expected_shapes(&config);
        for (name, shape) in matrices {
            let param = read(weights, prefix, &name, shape, &mut params.copied_bytes)?;
            params.matrices.insert(name, param);
        }
        for (name, shape) in vectors {
            let param = read(weights, prefix, &name, shape, &mut params.copied_bytes)?;
            params.vectors.insert(name, param);
        }
        Ok(params)
    }

    /// Seeded random parameters of `config` (the speed run): matrices
    /// uniform in ±0.035 (about GPT-2's N(0, 0.02)), layer-norm gains near 1.
    ///
    /// # Errors
    /// An allocation failure, as [`ModelError::Tensor`].
    pub fn seeded(config: Config, seed: u64) -> Result<Self, ModelError> {
        let mut rng = prng::SplitMix64::new(seed);
        let mut values = |n: usize, center: f64, spread: f64| -> Vec<F> {
            (0..n)
                .map(|_| F::from(center + spread * rng.next_signed_unit()).unwrap_or(F::ZERO))
                .collect()
        };
        let mut params = Params {
            config,
            matrices: BTreeMap::new(),
            vectors: BTreeMap::new(),
            copied_bytes: 0,
        };
        let (matrices, vectors) = expected_shapes(&config);
        for (name, shape) in matrices {
            let tensor = Tensor::from_vec(shape, values(shape[0] * shape[1], 0.0, 0.035))?;
            params.matrices.insert(name, Param::Owned(tensor));
        }
        for (name, shape) in vectors {
            let center = if name.ends_with("weight") { 1.0 } else { 0.0 };
            let tensor = Tensor::from_vec(shape, values(shape[0], center, 0.05))?;
            params.vectors.insert(name, Param::Owned(tensor));
        }
        Ok(params)
    }

    /// The matrix `name` (present: checked when the parameters were built).
    pub fn matrix(&self, name: &str) -> View<'_, 2, F> {
        self.matrices
            .get(name)
            .map(Param::view)
            .unwrap_or_else(|| unreachable!("{name} is checked on load"))
    }

    /// The vector `name` (present: checked when the parameters were built).
    pub fn vector(&self, name: &str) -> View<'_, 1, F> {
        self.vectors
            .get(name)
            .map(Param::view)
            .unwrap_or_else(|| unreachable!("{name} is checked on load"))
    }

    /// Bytes of all parameters.
    pub fn bytes(&self) -> usize {
        let matrices: usize = self.matrices.values().map(|p| p.view().len()).sum();
        let vectors: usize = self.vectors.values().map(|p| p.view().len()).sum();
        (matrices + vectors) * size_of::<F>()
    }
}

/// The parameter `{prefix}{name}` of `shape` as `F`: a view of the buffer
/// when the file stores `F` (and the bytes are aligned), else converted once
/// from whatever float dtype it stores (the bytes copied are counted).
///
/// # Errors
/// [`ModelError::Missing`] names it without the prefix; [`ModelError::Shape`]
/// and [`ModelError::Read`] with it (the reader's error, its name once).
fn read<'b, const R: usize, F: Element>(
    weights: &Weights<'b>,
    prefix: &str,
    name: &str,
    shape: [usize; R],
    copied_bytes: &mut usize,
) -> Result<Param<'b, R, F>, ModelError> {
    let full = format!("{prefix}{name}");
    let found = weights.shape(&full).ok_or_else(|| ModelError::Missing {
        name: name.to_string(),
    })?;
    if found != shape {
        return Err(ModelError::Shape {
            name: full,
            expected: shape.to_vec(),
            found,
        });
    }
    let unwrap = |source: Error| match source {
        Error::InTensor { source, .. } => *source,
        source => source,
    };
    let stored_as_compute =
        weights.dtype(&full) == Some(format!("{:?}", <F as SafetensorsElement>::DTYPE));
    if stored_as_compute {
        match weights.get::<R, F>(&full).map_err(unwrap) {
            Ok(view) => return Ok(Param::File(view)),
            // Misaligned in the file (a writer that did not pad): copy below.
            Err(Error::NotBorrowable { .. }) => {}
            Err(source) => return Err(ModelError::Read { name: full, source }),
        }
    }
    let converted = weights
        .get_as::<R, F>(&full)
        .map_err(|source| ModelError::Read {
            name: full,
            source: unwrap(source),
        })?;
    *copied_bytes += converted.len() * size_of::<F>();
    Ok(Param::Owned(converted))
}

/// The element types a model computes in: floats the crate's reductions,
/// softmax and matmul compute in, which a safetensors file can also store
/// (so a parameter stored in the compute type is borrowed, not copied).
pub trait Element: Float + llm_from_scratch::tensor::Element + SafetensorsElement {}

impl<F: Float + llm_from_scratch::tensor::Element + SafetensorsElement> Element for F {}
