//! A fresh GPT-2: every parameter's Hugging Face name and shape, and
//! seeded initial values as GPT-2 draws them.
//!
//! transformers' `GPT2PreTrainedModel._init_weights` (and nanoGPT's
//! `_init_weights`): `wte`, `wpe` and every Conv1D weight ~ N(0, 0.02²), the
//! two residual projections (`attn.c_proj.weight`, `mlp.c_proj.weight`) ~
//! N(0, (0.02 / √(2·n_layer))²) (GPT-2 paper, §2.3), biases 0, layer norm
//! weights 1. The normal draws come from SplitMix64 with Box–Muller, in the
//! order of [`shapes`] (the `named_parameters()` order), so a seed fixes
//! every value on every machine; they are not PyTorch's generator's values.

use crate::config::GptConfig;
use crate::params::Params;
use crate::prng::SplitMix64;
use llm_from_scratch::{DynTensor, Error};

/// GPT-2's initializer range (`initializer_range`).
const STD: f64 = 0.02;

/// Every parameter's name and shape in `named_parameters()` order (the
/// files hold them sorted by name).
pub fn shapes(config: &GptConfig) -> Vec<(String, Vec<usize>)> {
    let (c, v, p) = (config.n_embd, config.vocab_size, config.n_positions);
    let mut list = vec![
        ("transformer.wte.weight".to_string(), vec![v, c]),
        ("transformer.wpe.weight".to_string(), vec![p, c]),
    ];
    for i in 0..config.n_layer {
        let blocks: [(&str, Vec<usize>); 12] = [
            ("ln_1.weight", vec![c]),
            ("ln_1.bias", vec![c]),
            ("attn.c_attn.weight", vec![c, 3 * c]),
            ("attn.c_attn.bias", vec![3 * c]),
            ("attn.c_proj.weight", vec![c, c]),
            ("attn.c_proj.bias", vec![c]),
            ("ln_2.weight", vec![c]),
            ("ln_2.bias", vec![c]),
            ("mlp.c_fc.weight", vec![c, 4 * c]),
            ("mlp.c_fc.bias", vec![4 * c]),
            ("mlp.c_proj.weight", vec![4 * c, c]),
            ("mlp.c_proj.bias", vec![c]),
        ];
        list.extend(
            blocks
                .into_iter()
                .map(|(suffix, shape)| (format!("transformer.h.{i}.{suffix}"), shape)),
        );
    }
    list.push(("transformer.ln_f.weight".to_string(), vec![c]));
    list.push(("transformer.ln_f.bias".to_string(), vec![c]));
    list
}

/// The expected names and shapes sorted by name: the order of the files
/// and of [`Params`].
pub fn sorted_shapes(config: &GptConfig) -> Vec<(String, Vec<usize>)> {
    let mut list = shapes(config);
    list.sort_by(|a, b| a.0.cmp(&b.0));
    list
}

/// Standard normal draws: Box–Muller on two uniforms in (0, 1].
struct Normal {
    rng: SplitMix64,
    spare: Option<f64>,
}

impl Normal {
    fn next(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        // (x + 1) / 2 of a value in [-1, 1) is in [0, 1); 1 - that is in (0, 1].
        let u1 = 1.0 - (self.rng.next_signed_unit() + 1.0) / 2.0;
        let u2 = (self.rng.next_signed_unit() + 1.0) / 2.0;
        let radius = (-2.0 * u1.ln()).sqrt();
        let angle = std::f64::consts::TAU * u2;
        self.spare = Some(radius * angle.sin());
        radius * angle.cos()
    }
}

/// A fresh model's parameters, seeded, sorted by name.
///
/// # Errors
/// [`Error::ShapeOverflow`] or [`Error::AllocationFailed`] for a
/// configuration too large to hold.
pub fn init(config: &GptConfig, seed: u64) -> Result<Params, Error> {
    let mut normal = Normal {
        rng: SplitMix64::new(seed),
        spare: None,
    };
    let projection_std = STD / ((2 * config.n_layer.max(1)) as f64).sqrt();
    let mut params: Params = Vec::new();
    for (name, shape) in shapes(config) {
        let mut tensor = DynTensor::<f32>::zeros(shape)?;
        let values = tensor.as_mut_slice();
        if name.ends_with("c_proj.weight") {
            values
                .iter_mut()
                .for_each(|x| *x = (normal.next() * projection_std) as f32);
        } else if name.ends_with(".weight") && name.contains(".ln_") {
            values.fill(1.0);
        } else if name.ends_with(".weight") {
            values
                .iter_mut()
                .for_each(|x| *x = (normal.next() * STD) as f32);
        }
        params.push((name, tensor));
    }
    params.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(params)
}
