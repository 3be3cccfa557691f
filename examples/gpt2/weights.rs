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
use llm_from_scratch::tensor::quant::half_linear;
use llm_from_scratch::tensor::weights::{SafetensorsElement, Weights};
use llm_from_scratch::tensor::{bf16, f16};
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
    /// A `--tokens` id is not below the vocabulary size (GPT-2's embedding
    /// has one row per id `0..vocab`).
    #[error(
        "--tokens: id {id} at position {position} is outside this model's vocabulary of {vocab} tokens (ids 0..{vocab})"
    )]
    TokenOutsideVocab {
        position: usize,
        id: usize,
        vocab: usize,
    },
    /// The prompt does not fit the context.
    #[error("the prompt has {length} tokens, the model's context is {context}")]
    PromptTooLong { length: usize, context: usize },
    /// Half-precision weights (`--weights bf16|f16`) with a compute type
    /// other than f32: the half kernel's activations are f32.
    #[error("half-precision weights need f32 compute (--dtype f32)")]
    HalfNeedsF32,
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

/// How the linear layers' matrices and the tied head `wte` are stored
/// (`--weights`): in the compute type, or in half precision (the rest,
/// `wpe`, layer norms and biases, stays in the compute type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// In the compute type, as the file or the seed gives them.
    Compute,
    /// `bf16` (Google Brain's bfloat16), rounded once to nearest even.
    Bf16,
    /// `f16` (IEEE 754 binary16), rounded once to nearest even.
    F16,
}

/// A matrix kept in half precision, stored `[out, in]` (PyTorch Linear's
/// layout, what `half_linear` reads): the Conv1D weights transposed once
/// at load, `wte` as it is (`[V, C]` is the head's `[out, in]`).
pub enum HalfMatrix {
    Bf16(Tensor<2, bf16>),
    F16(Tensor<2, f16>),
}

impl HalfMatrix {
    /// Its values.
    pub fn len(&self) -> usize {
        match self {
            HalfMatrix::Bf16(w) => w.len(),
            HalfMatrix::F16(w) => w.len(),
        }
    }
}

/// A linear layer's weight as the forward pass reads it.
#[derive(Clone, Copy)]
pub enum Linear<'p, F> {
    /// `[in, out]` in the compute type: `x · W` by `matmul`.
    Dense(View<'p, 2, F>),
    /// `[out, in]` in half precision: `x · Wᵀ` by `half_linear`.
    Half(&'p HalfMatrix),
}

/// Every parameter by its name without the `transformer.` prefix.
pub struct Params<'b, F> {
    pub config: Config,
    matrices: BTreeMap<String, Param<'b, 2, F>>,
    /// The matrices [`Params::into_storage`] moved to half precision.
    halves: BTreeMap<String, HalfMatrix>,
    vectors: BTreeMap<String, Param<'b, 1, F>>,
    /// Bytes of parameters copied or converted out of the file (0 for f32
    /// from an aligned file; every converted matrix for bf16 / f16 storage).
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
            halves: BTreeMap::new(),
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
            halves: BTreeMap::new(),
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

    /// The parameters with the linear layers' matrices and `wte` in
    /// `storage`: for half precision each is rounded once (to nearest
    /// even), the Conv1D ones transposed to `[out, in]`, and the
    /// compute-type copy dropped.
    ///
    /// # Errors
    /// [`ModelError::HalfNeedsF32`] for half precision unless `F` is f32;
    /// an allocation failure.
    pub fn into_storage(mut self, storage: Storage) -> Result<Self, ModelError> {
        if storage == Storage::Compute {
            return Ok(self);
        }
        if size_of::<F>() != 4 {
            return Err(ModelError::HalfNeedsF32);
        }
        let mut names = vec!["wte.weight".to_string()];
        for i in 0..self.config.layers {
            for suffix in [
                "attn.c_attn.weight",
                "attn.c_proj.weight",
                "mlp.c_fc.weight",
                "mlp.c_proj.weight",
            ] {
                names.push(format!("h.{i}.{suffix}"));
            }
        }
        for name in names {
            let Some(param) = self.matrices.remove(&name) else {
                unreachable!("{name} is checked on load")
            };
            let view = param.view();
            self.copied_bytes += view.len() * 2;
            let out_in = if name == "wte.weight" {
                view
            } else {
                view.transpose(0, 1)?
            };
            let half = match storage {
                Storage::Bf16 => HalfMatrix::Bf16(out_in.cast()?),
                _ => HalfMatrix::F16(out_in.cast()?),
            };
            self.halves.insert(name, half);
        }
        Ok(self)
    }

    /// The weight of the linear layer `name` (a Conv1D weight's name).
    pub fn linear(&self, name: &str) -> Linear<'_, F> {
        match self.halves.get(name) {
            Some(half) => Linear::Half(half),
            None => Linear::Dense(self.matrix(name)),
        }
    }

    /// The tied LM head: `wte` as `[C, V]` (a transposed view), or `[V, C]`
    /// in half precision.
    ///
    /// # Errors
    /// None in practice (a transpose of a rank-2 view).
    pub fn head(&self) -> Result<Linear<'_, F>, Error> {
        Ok(match self.halves.get("wte.weight") {
            Some(half) => Linear::Half(half),
            None => Linear::Dense(self.matrix("wte.weight").transpose(0, 1)?),
        })
    }

    /// The token embeddings `[T, C]`: rows of `wte` (widened, exactly, when
    /// it is kept in half precision).
    ///
    /// # Errors
    /// A token id past the vocabulary; an allocation failure.
    pub fn embed(&self, tokens: &[usize]) -> Result<Tensor<2, F>, Error> {
        match self.halves.get("wte.weight") {
            Some(HalfMatrix::Bf16(wte)) => index_select(wte, 0, tokens)?.cast(),
            Some(HalfMatrix::F16(wte)) => index_select(wte, 0, tokens)?.cast(),
            None => index_select(&self.matrix("wte.weight"), 0, tokens),
        }
    }

    /// The matrix `name` (present: checked when the parameters were built;
    /// not one moved to half precision).
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
        let halves: usize = self.halves.values().map(HalfMatrix::len).sum();
        (matrices + vectors) * size_of::<F>() + halves * 2
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
pub trait Element: Float + llm_from_scratch::tensor::Element + SafetensorsElement {
    /// `x · Wᵀ` for a half-precision `W` `[out, in]` (`half_linear`:
    /// f32 activations and accumulation).
    ///
    /// # Errors
    /// [`ModelError::HalfNeedsF32`] unless `Self` is f32; the kernel's errors.
    fn half_linear(x: View<'_, 2, Self>, w: &HalfMatrix) -> Result<Tensor<2, Self>, ModelError>;
}

impl Element for f32 {
    fn half_linear(x: View<'_, 2, f32>, w: &HalfMatrix) -> Result<Tensor<2, f32>, ModelError> {
        Ok(match w {
            HalfMatrix::Bf16(w) => half_linear(&x, w)?,
            HalfMatrix::F16(w) => half_linear(&x, w)?,
        })
    }
}

impl Element for f64 {
    fn half_linear(_: View<'_, 2, f64>, _: &HalfMatrix) -> Result<Tensor<2, f64>, ModelError> {
        Err(ModelError::HalfNeedsF32)
    }
}
