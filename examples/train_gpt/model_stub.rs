//! TEMPORARY STUB of the `train-parts` branch: DELETE THIS FILE AT MERGE.
//!
//! It stands in for the three files the `autograd` branch writes in this
//! folder, so the rest of the example (flags, data, optimizer loop,
//! checkpoints, plot, progress, sampling) compiles and runs before that
//! branch lands. At merge, delete this file and, in `main.rs`, replace
//! `mod model_stub; use model_stub::{config, model, params};` with
//! `mod config; mod model; mod params;`.
//!
//! What `main.rs` and the other files use from them (the interface assumed):
//!
//! - `config::GptConfig { n_layer, n_head, n_embd, n_positions, vocab_size }`
//!   (Hugging Face's names, `usize`) and `GptConfig::from_json(&str) ->
//!   Result<GptConfig, String>` (a `config.json`'s text).
//! - `params::Params = Vec<(String, DynTensor<f32>)>`: Hugging Face GPT-2
//!   names (`transformer.` prefix), sorted (the files' order).
//! - `model::loss_and_grads(config, params, inputs, targets, batch, seq) ->
//!   Result<(f32, Params), Error>`: the mean cross-entropy over `batch·seq`
//!   positions and every parameter's gradient, same names and order.
//! - `model::logits(config, params, tokens) -> Result<Vec<f32>, Error>`: the
//!   logits `[vocab]` of the last of `tokens` (at most `n_positions`), for
//!   sampling.
//!
//! THE STUB MODEL IS NOT GPT-2: its loss is a tied-embedding bigram model,
//! `logits = wte[x] · wteᵀ`, with its exact gradient (`wte` only; every other
//! parameter gets a zero gradient). It trains (the loss falls on real text)
//! so the pipeline can be run end to end; its numbers are not GPT-2's.

pub mod config {
    /// GPT-2's shape, Hugging Face's `GPT2Config` names.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct GptConfig {
        pub n_layer: usize,
        pub n_head: usize,
        pub n_embd: usize,
        pub n_positions: usize,
        pub vocab_size: usize,
    }

    impl GptConfig {
        /// The five fields from a `config.json`'s text.
        pub fn from_json(text: &str) -> Result<GptConfig, String> {
            let json: serde_json::Value =
                serde_json::from_str(text).map_err(|e| format!("config.json: {e}"))?;
            let field = |name: &str| -> Result<usize, String> {
                json.get(name)
                    .and_then(serde_json::Value::as_u64)
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| {
                        format!("config.json: `{name}` is missing or not a whole number")
                    })
            };
            Ok(GptConfig {
                n_layer: field("n_layer")?,
                n_head: field("n_head")?,
                n_embd: field("n_embd")?,
                n_positions: field("n_positions")?,
                vocab_size: field("vocab_size")?,
            })
        }
    }
}

pub mod params {
    use llm_from_scratch::DynTensor;
    /// Every parameter by Hugging Face name, in the files' (sorted) order.
    pub type Params = Vec<(String, DynTensor<f32>)>;
}

pub mod model {
    use super::config::GptConfig;
    use super::params::Params;
    use llm_from_scratch::{DynTensor, Error};

    const WTE: &str = "transformer.wte.weight";

    fn wte(params: &Params) -> Result<&DynTensor<f32>, Error> {
        params
            .iter()
            .find(|(name, _)| name == WTE)
            .map(|(_, t)| t)
            .ok_or(Error::MissingTensor {
                name: WTE.to_string(),
            })
    }

    /// `wte[x] · wteᵀ`: one row of logits.
    fn row(wte: &[f32], c: usize, x: usize, out: &mut [f32]) {
        let h = &wte[x * c..(x + 1) * c];
        for (v, logit) in out.iter_mut().enumerate() {
            *logit = h
                .iter()
                .zip(&wte[v * c..(v + 1) * c])
                .map(|(a, b)| a * b)
                .sum();
        }
    }

    /// STUB (bigram on the tied embedding), see the file's docs.
    pub fn loss_and_grads(
        config: &GptConfig,
        params: &Params,
        inputs: &[usize],
        targets: &[usize],
        batch: usize,
        seq: usize,
    ) -> Result<(f32, Params), Error> {
        let (v, c) = (config.vocab_size, config.n_embd);
        let w = wte(params)?.as_slice();
        let n = batch * seq;
        let mut grads: Params = params
            .iter()
            .map(|(name, p)| Ok((name.clone(), DynTensor::zeros(p.shape())?)))
            .collect::<Result<_, Error>>()?;
        let mut dw = vec![0.0_f64; v * c];
        let mut logits = vec![0.0_f32; v];
        let mut loss = 0.0_f64;
        for (&x, &y) in inputs.iter().zip(targets).take(n) {
            row(w, c, x, &mut logits);
            let max = logits.iter().fold(f32::NEG_INFINITY, |m, &l| m.max(l));
            let z: f64 = logits.iter().map(|&l| f64::from(l - max).exp()).sum();
            loss += z.ln() - f64::from(logits[y] - max);
            for (u, &l) in logits.iter().enumerate() {
                let d = (f64::from(l - max).exp() / z - f64::from(u32::from(u == y))) / n as f64;
                for k in 0..c {
                    // d logit[u] / d wte[u][k] = wte[x][k]; / d wte[x][k] = wte[u][k].
                    dw[u * c + k] += d * f64::from(w[x * c + k]);
                    dw[x * c + k] += d * f64::from(w[u * c + k]);
                }
            }
        }
        if let Some((_, g)) = grads.iter_mut().find(|(name, _)| name == WTE) {
            for (g, d) in g.as_mut_slice().iter_mut().zip(&dw) {
                *g = *d as f32;
            }
        }
        Ok(((loss / n as f64) as f32, grads))
    }

    /// STUB: the bigram logits of the last token.
    pub fn logits(
        config: &GptConfig,
        params: &Params,
        tokens: &[usize],
    ) -> Result<Vec<f32>, Error> {
        let last = *tokens
            .last()
            .ok_or(Error::EmptyInputList { op: "logits" })?;
        let mut out = vec![0.0; config.vocab_size];
        row(wte(params)?.as_slice(), config.n_embd, last, &mut out);
        Ok(out)
    }
}
