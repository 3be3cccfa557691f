//! GPT-2's parameters in Hugging Face's safetensors layout, as views.
//!
//! Keys (`GPT2LMHeadModel.save_pretrained` writes them with a
//! `transformer.` prefix; `GPT2Model` without): `wte.weight [V, C]`,
//! `wpe.weight [P, C]`, per block `h.{i}.ln_1.{weight,bias} [C]`,
//! `attn.c_attn.{weight [C, 3C], bias [3C]}`, `attn.c_proj [C, C]`,
//! `ln_2`, `mlp.c_fc [C, 4C]`, `mlp.c_proj [4C, C]`, then `ln_f`. The
//! linear layers are Conv1D (`x · W + b`, `W` stored `[in, out]`); the LM
//! head is `wte` itself (tied). From an f32 file every parameter is a view
//! of the file's buffer (no copy); `--dtype f64` converts each once.

#[path = "../common/prng.rs"]
#[allow(dead_code)] // the generator only; not the attention fixture's seeded tensors
mod prng;

use crate::config::Config;
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::weights::{Weight, Weights};
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
    /// A tensor is not f32 (or has the wrong rank, or its bytes do not
    /// match): what `Weights::get` said about it, without its name again.
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
        let weight: Weight<'_, 2, f32> = lookup(weights, prefix, name)?;
        Ok(weight.view().shape().to_vec())
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
    /// Every parameter of `config` from a safetensors file of f32 values:
    /// views of the buffer when `F` is f32, one conversion each otherwise.
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

/// The f32 tensor `{prefix}{name}`: [`ModelError::Missing`] names it
/// without the prefix, [`ModelError::Read`] with it.
fn lookup<'b, const R: usize>(
    weights: &Weights<'b>,
    prefix: &str,
    name: &str,
) -> Result<Weight<'b, R, f32>, ModelError> {
    let full = format!("{prefix}{name}");
    weights.get(&full).map_err(|source| match source {
        Error::MissingTensor { .. } => ModelError::Missing {
            name: name.to_string(),
        },
        Error::InTensor { source, .. } => ModelError::Read {
            name: full,
            source: *source,
        },
        source => ModelError::Read { name: full, source },
    })
}

/// One parameter of `shape` read as f32 and viewed (or converted) as `F`.
fn read<'b, const R: usize, F: Element>(
    weights: &Weights<'b>,
    prefix: &str,
    name: &str,
    shape: [usize; R],
    copied_bytes: &mut usize,
) -> Result<Param<'b, R, F>, ModelError> {
    let weight: Weight<'b, R, f32> = lookup(weights, prefix, name)?;
    let found = *weight.view().shape();
    if found != shape {
        return Err(ModelError::Shape {
            name: format!("{prefix}{name}"),
            expected: shape.to_vec(),
            found: found.to_vec(),
        });
    }
    let (param, copied) = F::param(weight)?;
    *copied_bytes += copied;
    Ok(param)
}

/// The element types a model runs in (floats the crate's reductions,
/// softmax and matmul compute in), and how an f32 parameter becomes one.
pub trait Element: Float + llm_from_scratch::tensor::Element {
    /// The parameter in this precision and the bytes copied to get it.
    ///
    /// # Errors
    /// An allocation failure of the conversion.
    fn param<const R: usize>(
        weight: Weight<'_, R, f32>,
    ) -> Result<(Param<'_, R, Self>, usize), ModelError>;
}

impl Element for f32 {
    /// The file's own values: a view when the buffer is aligned (always, with
    /// `AlignedBytes`), else the one copy the reader made.
    fn param<const R: usize>(
        weight: Weight<'_, R, f32>,
    ) -> Result<(Param<'_, R, f32>, usize), ModelError> {
        Ok(match weight {
            Weight::Borrowed(view) => (Param::File(view), 0),
            Weight::Copied(tensor) => {
                let bytes = tensor.len() * 4;
                (Param::Owned(tensor), bytes)
            }
        })
    }
}

impl Element for f64 {
    /// Each value widened once (exact).
    fn param<const R: usize>(
        weight: Weight<'_, R, f32>,
    ) -> Result<(Param<'_, R, f64>, usize), ModelError> {
        let converted = weight.view().map_unary(f64::from)?;
        let bytes = converted.len() * 8;
        Ok((Param::Owned(converted), bytes))
    }
}
