//! GPT-2's forward pass on the autograd tape, and the training step's loss
//! and gradients (Radford et al. 2019; Hugging Face `GPT2LMHeadModel` with
//! dropout 0): pre-norm blocks, causal attention, `gelu_new`, tied head.

use llm_from_scratch::autograd::{Tape, Var};
use llm_from_scratch::prelude::*;

use crate::config::GptConfig;
use crate::params::{Params, find};

type V2<'t> = Var<'t, Rank<2>, f32>;

/// The mean cross-entropy over all `batch · seq` positions of
/// `inputs`/`targets` (row-major `[batch, seq]` token ids), and its gradient
/// for every parameter: same names and order as `params`, the tied head's
/// gradient included in `wte`'s. Runs on a rayon pool of `threads` threads
/// (the current pool when it has that many, so a training loop does not
/// start threads every step); results are bit-identical for every thread
/// count.
///
/// # Errors
/// [`Error::ElementCountMismatch`] if `inputs` or `targets` is not
/// `batch · seq` long; [`Error::IndexOutOfBounds`] if `seq` exceeds
/// `n_positions`; [`Error::IndexSelectOutOfBounds`] for an id ≥ vocabulary;
/// [`Error::MissingTensor`] / shape errors for a malformed parameter list;
/// [`Error::InvalidArgument`] if the thread pool cannot be built.
pub fn loss_and_grads(
    config: &GptConfig,
    params: &Params,
    inputs: &[usize],
    targets: &[usize],
    batch: usize,
    seq: usize,
    threads: usize,
) -> Result<(f32, Params), Error> {
    let (loss, grads, _) =
        loss_grads_and_bytes(config, params, inputs, targets, batch, seq, threads)?;
    Ok((loss, grads))
}

/// What one step held at its peak, in bytes: the tape's values (the
/// activations and its copies of the parameters) and the most gradient
/// buffers the backward pass held at once (`Grads::peak_bytes`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepBytes {
    pub tape: usize,
    pub grads: usize,
}

/// [`loss_and_grads`], and the bytes the step's tape and gradients held.
///
/// # Errors
/// As [`loss_and_grads`].
pub fn loss_grads_and_bytes(
    config: &GptConfig,
    params: &Params,
    inputs: &[usize],
    targets: &[usize],
    batch: usize,
    seq: usize,
    threads: usize,
) -> Result<(f32, Params, StepBytes), Error> {
    // The step runs on a worker of the pool either way: every parallel
    // region in it is then a rayon join (the other worker steals its half,
    // often while still spinning) instead of an injection from outside the
    // pool that blocks this thread until a worker has woken up and finished
    // (README model, 2 threads, 60 steps: 6.8-7.4k -> 8.0-8.9k tokens/s).
    if rayon::current_num_threads() == threads {
        return rayon::scope(|_| step(config, params, inputs, targets, batch, seq));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::InvalidArgument {
            op: "loss_and_grads",
            message: e.to_string(),
        })?;
    pool.install(|| step(config, params, inputs, targets, batch, seq))
}

/// The `[vocab]` logits of the last of `tokens` (one sequence, at most
/// `n_positions` long): the forward pass of [`loss_and_grads`] without the
/// loss, for sampling text.
///
/// # Errors
/// As [`loss_and_grads`] (an empty `tokens` is [`Error::ElementCountMismatch`]).
pub fn logits(config: &GptConfig, params: &Params, tokens: &[usize]) -> Result<Vec<f32>, Error> {
    if tokens.is_empty() {
        return Err(Error::ElementCountMismatch {
            op: "logits",
            expected: 1,
            actual: 0,
        });
    }
    let tape = Tape::<f32>::new();
    let (_, logits) = forward(&tape, config, params, tokens, 1, tokens.len(), "logits")?;
    let value = logits.value()?;
    let vocab = config.vocab_size;
    let all = value.as_slice();
    Ok(all[all.len() - vocab..].to_vec())
}

fn step(
    config: &GptConfig,
    params: &Params,
    inputs: &[usize],
    targets: &[usize],
    batch: usize,
    seq: usize,
) -> Result<(f32, Params, StepBytes), Error> {
    let op = "loss_and_grads";
    if targets.len() != inputs.len() {
        return Err(Error::ElementCountMismatch {
            op,
            expected: inputs.len(),
            actual: targets.len(),
        });
    }
    let tape = Tape::<f32>::new();
    let (m, logits) = forward(&tape, config, params, inputs, batch, seq, op)?;
    let loss = logits.cross_entropy(targets)?;
    let value = loss.value()?.as_slice()[0];
    let grads = loss.backward_leaves()?;
    let out = params
        .iter()
        .zip(&m.leaves)
        .map(|((name, _), leaf)| Ok((name.clone(), grads.get(leaf)?)))
        .collect::<Result<Params, Error>>()?;
    let bytes = StepBytes {
        tape: tape.value_bytes(),
        grads: grads.peak_bytes(),
    };
    Ok((value, out, bytes))
}

/// GPT-2's forward pass on `tape` up to the logits `[batch · seq, vocab]`.
fn forward<'p, 't>(
    tape: &'t Tape<f32>,
    config: &GptConfig,
    params: &'p Params,
    inputs: &[usize],
    batch: usize,
    seq: usize,
    op: &'static str,
) -> Result<(Leaves<'p, 't>, V2<'t>), Error> {
    let rows = batch.checked_mul(seq).ok_or(Error::ShapeOverflow { op })?;
    if inputs.len() != rows {
        return Err(Error::ElementCountMismatch {
            op,
            expected: rows,
            actual: inputs.len(),
        });
    }
    if seq > config.n_positions {
        return Err(Error::IndexOutOfBounds {
            op,
            axis: 1,
            index: seq,
            dimension: config.n_positions,
        });
    }
    let leaves: Vec<Var<'t, DynRank, f32>> = params
        .iter()
        .map(|(_, t)| tape.leaf(t))
        .collect::<Result<_, _>>()?;
    let m = Leaves {
        params,
        leaves,
        eps: config.layer_norm_epsilon,
    };
    let (c, heads) = (config.n_embd, config.n_head);
    let d = c / heads;

    let wte = m.p2("wte.weight")?;
    let positions: Vec<usize> = (0..rows).map(|r| r % seq).collect();
    let mut h = wte
        .index_select(0, inputs)?
        .add(&m.p2("wpe.weight")?.index_select(0, &positions)?)?;

    // Causal mask (HF: scores where allowed, the dtype's minimum elsewhere).
    let mask = tape.constant(Tensor::from_fn([seq, seq], |[i, j]| {
        if j > i { f32::MIN } else { 0.0 }
    })?)?;
    let scale = tape.constant(Tensor::from_vec([], vec![1.0 / (d as f32).sqrt()])?)?;
    for l in 0..config.n_layer {
        let pre = format!("h.{l}");
        let qkv = m.linear(
            m.norm(h, &format!("{pre}.ln_1"))?,
            &format!("{pre}.attn.c_attn"),
        )?;
        let head = |k: usize| -> Result<Var<'_, Rank<4>, f32>, Error> {
            qkv.narrow(1, k * c, c)?
                .reshape::<Rank<4>>(&[batch, seq, heads, d])?
                .permute(&[0, 2, 1, 3])
        };
        let (q, k, v) = (head(0)?, head(1)?, head(2)?);
        let scores = q.matmul(&k.transpose(2, 3)?)?.mul(&scale)?.add(&mask)?;
        let attn = scores.softmax(3)?.matmul(&v)?;
        let merged = attn
            .permute(&[0, 2, 1, 3])?
            .reshape::<Rank<2>>(&[rows, c])?;
        h = h.add(&m.linear(merged, &format!("{pre}.attn.c_proj"))?)?;
        let up = m.linear(
            m.norm(h, &format!("{pre}.ln_2"))?,
            &format!("{pre}.mlp.c_fc"),
        )?;
        h = h.add(&m.linear(up.map(Function::GeluTanh)?, &format!("{pre}.mlp.c_proj"))?)?;
    }
    let logits = m.norm(h, "ln_f")?.matmul(&wte.transpose(0, 1)?)?;
    Ok((m, logits))
}

/// The tape's leaves by parameter name, and the Conv1D / LayerNorm layers.
struct Leaves<'p, 't> {
    params: &'p Params,
    leaves: Vec<Var<'t, DynRank, f32>>,
    eps: f64,
}

impl<'t> Leaves<'_, 't> {
    fn p2(&self, name: &str) -> Result<V2<'t>, Error> {
        self.leaves[find(self.params, name)?.0].into_rank()
    }

    fn p1(&self, name: &str) -> Result<Var<'t, Rank<1>, f32>, Error> {
        self.leaves[find(self.params, name)?.0].into_rank()
    }

    /// Conv1D: `x · W + b`, `W` stored `[in, out]`.
    fn linear(&self, x: V2<'t>, layer: &str) -> Result<V2<'t>, Error> {
        let w = self.p2(&format!("{layer}.weight"))?;
        x.matmul(&w)?.add(&self.p1(&format!("{layer}.bias"))?)
    }

    fn norm(&self, x: V2<'t>, layer: &str) -> Result<V2<'t>, Error> {
        let w = self.p1(&format!("{layer}.weight"))?;
        x.layer_norm(&w, &self.p1(&format!("{layer}.bias"))?, self.eps)
    }
}
