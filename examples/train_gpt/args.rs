//! The example's flags: the exact check contract of issue 23 and the
//! options of a real training run.

#[path = "../common/flags.rs"]
mod flags;
pub use flags::FlagsError;

use std::path::PathBuf;

/// Where the model comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// Hugging Face GPT-2 weights with `config.json` beside them (`--init`).
    Init(PathBuf),
    /// A checkpoint folder of this example: model, config, optimizer state,
    /// the losses so far (`--resume`).
    Resume(PathBuf),
    /// A new byte-level model (`--layers`, `--width`, `--heads`, `--seed`).
    Fresh {
        layers: usize,
        width: usize,
        heads: usize,
    },
}

/// What to train on.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// Fixed batches: `inputs`, `targets` I64 `[S, B, T]` (`--batches`).
    Batches(PathBuf),
    /// Random windows of a text file's bytes (`--corpus`, `--batch`, `--seq`).
    Corpus {
        path: PathBuf,
        batch: usize,
        seq: usize,
    },
    /// Seeded random bytes (`--bench-steps` without `--corpus`): the time of
    /// a step does not depend on the text.
    Random { batch: usize, seq: usize },
}

/// Every flag, interpreted.
#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    pub start: Start,
    pub data: Data,
    /// The run's length in steps (`--steps`), counted from the run's
    /// start: a resumed run continues to it, so the schedule (and every
    /// bit) is the uninterrupted run's. `None`: every batch of `--batches`,
    /// or [`DEFAULT_CORPUS_STEPS`] on a corpus.
    pub steps: Option<usize>,
    /// Peak learning rate (`--lr`).
    pub lr: f64,
    /// The floor of the cosine (`--min-lr`); `None`: `lr` (a constant rate).
    pub min_lr: Option<f64>,
    /// Linear warmup steps (`--warmup`, default 0).
    pub warmup: u64,
    /// The step the cosine reaches `min_lr` (`--decay-steps`); `None`: the
    /// run's length. Give it to stop a run early and resume it on the same
    /// schedule.
    pub decay_steps: Option<u64>,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    pub weight_decay: f64,
    /// `clip_grad_norm_`'s `max_norm` (`--clip-norm`); `None`: no clipping.
    pub clip_norm: Option<f64>,
    pub threads: Option<usize>,
    pub seed: u64,
    pub grads_out: Option<PathBuf>,
    pub losses_out: Option<PathBuf>,
    pub weights_out: Option<PathBuf>,
    /// A loss-curve image (`--plot`, SVG).
    pub plot: Option<PathBuf>,
    /// A folder to write the model, its config, the optimizer state and the
    /// losses to at the end (`--checkpoint`), for `--resume` and for the
    /// `gpt2` example and transformers.
    pub checkpoint: Option<PathBuf>,
    /// Also write the checkpoint after every `N` steps (`--checkpoint-every`).
    pub checkpoint_every: Option<usize>,
    /// Bytes of text to generate at the end (`--sample`, default 0).
    pub sample: usize,
    /// The sampling temperature (`--temperature`, default 0.8; 0: greedy).
    pub temperature: f64,
    /// The text the sample continues (`--prompt`, default a newline).
    pub prompt: String,
    /// Time this many full training steps after [`BENCH_WARMUP`] untimed
    /// ones and print tokens/s as JSON, instead of a training run
    /// (`--bench-steps`).
    pub bench_steps: Option<usize>,
}

/// Untimed steps before a `--bench-steps` measurement.
pub const BENCH_WARMUP: usize = 3;

/// Steps on a corpus when `--steps` is not given.
pub const DEFAULT_CORPUS_STEPS: usize = 1000;
/// The most threads `--threads` accepts.
pub const MAX_THREADS: usize = 256;

pub const USAGE: &str = "usage: train_gpt (--init DIR/model.safetensors | --resume DIR | [--layers L --width C --heads H])
                 (--batches F.safetensors | --corpus TEXT [--batch B] [--seq T]) [options]
  --init PATH          Hugging Face GPT-2 weights (F32 safetensors), config.json beside them
  --resume DIR         continue a run from a --checkpoint folder (model, optimizer state, losses)
  --layers/--width/--heads  a fresh byte-level model (defaults 4, 128, 4; context = --seq)
  --batches PATH       inputs, targets I64 [S, B, T]: step s trains on batch s
  --corpus PATH        a text file, byte-level tokens (scripts/fetch_corpus.sh: data/austen.txt)
  --batch B, --seq T   corpus batches: B random windows of T + 1 bytes (defaults 8, 64)
  --steps S            the run's length, resumed runs included (default: every batch of --batches;
                       1000 on a corpus)
  --lr LR              peak learning rate (default 3e-3)
  --min-lr LR          cosine floor; with it the rate warms up and decays (default: constant)
  --warmup W           linear warmup steps (default 0)
  --decay-steps D      the step the cosine reaches --min-lr (default: --steps)
  --betas B1,B2        AdamW betas (default 0.9,0.95)
  --eps EPS            AdamW eps (default 1e-8)
  --weight-decay WD    AdamW decoupled weight decay, every parameter (default 0.1)
  --clip-norm C        clip_grad_norm_'s max_norm (default: no clipping)
  --threads K          1 to 256 threads (default: RAYON_NUM_THREADS, else every core)
  --seed N             fresh weights and corpus windows (default 0)
  --grads-out PATH     the first step's gradients (step 0 unless resumed), before clipping, F32
  --losses-out PATH    losses, F32 [S]
  --weights-out PATH   every parameter after the last step, Hugging Face names, F32
  --plot PATH.svg      the loss curve
  --checkpoint DIR     write model.safetensors, config.json, optimizer.safetensors, losses.safetensors
                       at the end (and every N steps with --checkpoint-every N)
  --sample N           generate N bytes at the end (--temperature T, default 0.8; --prompt TEXT)
  --bench-steps N      time N full steps (forward, backward, clip, AdamW) after 3 untimed ones and
                       print one JSON line with tokens/s; seeded random bytes unless --corpus";

const FLAGS: [&str; 30] = [
    "--init",
    "--resume",
    "--layers",
    "--width",
    "--heads",
    "--batches",
    "--corpus",
    "--batch",
    "--seq",
    "--steps",
    "--lr",
    "--min-lr",
    "--warmup",
    "--decay-steps",
    "--betas",
    "--eps",
    "--weight-decay",
    "--clip-norm",
    "--threads",
    "--seed",
    "--grads-out",
    "--losses-out",
    "--weights-out",
    "--plot",
    "--checkpoint",
    "--checkpoint-every",
    "--sample",
    "--temperature",
    "--prompt",
    "--bench-steps",
];

/// Parses the flags (without the program name).
///
/// # Errors
/// [`FlagsError::Help`] for `-h` / `--help`; [`FlagsError::Usage`], one
/// sentence, for anything else that is not a valid set of flags.
pub fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Args, FlagsError> {
    let values = flags::parse(args, FLAGS)?;
    interpret(values).map_err(FlagsError::Usage)
}

fn whole(flag: &str, value: &str) -> Result<usize, String> {
    value
        .parse()
        .map_err(|_| format!("{flag} needs a whole number, got `{value}`"))
}

fn positive(flag: &str, value: &str) -> Result<usize, String> {
    match whole(flag, value)? {
        0 => Err(format!("{flag} needs at least 1")),
        n => Ok(n),
    }
}

fn real(flag: &str, value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("{flag} needs a finite number, got `{value}`")),
    }
}

fn interpret(values: [Option<String>; 30]) -> Result<Args, String> {
    let [
        init,
        resume,
        layers,
        width,
        heads,
        batches,
        corpus,
        batch,
        seq,
        steps,
        lr,
        min_lr,
        warmup,
        decay_steps,
        betas,
        eps,
        weight_decay,
        clip_norm,
        threads,
        seed,
        grads_out,
        losses_out,
        weights_out,
        plot,
        checkpoint,
        checkpoint_every,
        sample,
        temperature,
        prompt,
        bench_steps,
    ] = values;
    let bench_steps = bench_steps
        .map(|n| positive("--bench-steps", &n))
        .transpose()?;
    let fresh_flags = layers.is_some() || width.is_some() || heads.is_some();
    let start = match (init, resume) {
        (Some(_), Some(_)) => return Err("--init and --resume exclude each other".to_string()),
        (Some(_), None) | (None, Some(_)) if fresh_flags => {
            return Err(
                "--layers/--width/--heads shape a fresh model: not with --init or --resume"
                    .to_string(),
            );
        }
        (Some(path), None) => Start::Init(PathBuf::from(path)),
        (None, Some(dir)) => Start::Resume(PathBuf::from(dir)),
        (None, None) => {
            let get = |flag: &str, value: Option<String>, default: usize| {
                value.map_or(Ok(default), |v| positive(flag, &v))
            };
            let (layers, width, heads) = (
                get("--layers", layers, 4)?,
                get("--width", width, 128)?,
                get("--heads", heads, 4)?,
            );
            if width % heads != 0 {
                return Err(format!(
                    "--width {width} is not a multiple of --heads {heads}"
                ));
            }
            Start::Fresh {
                layers,
                width,
                heads,
            }
        }
    };
    let data = match (batches, corpus) {
        (Some(_), Some(_)) => return Err("--batches and --corpus exclude each other".to_string()),
        (None, None) if bench_steps.is_some() => Data::Random {
            batch: batch.map_or(Ok(8), |v| positive("--batch", &v))?,
            seq: seq.map_or(Ok(64), |v| positive("--seq", &v))?,
        },
        (None, None) => {
            return Err("give --batches F.safetensors or --corpus TEXT; try --help".to_string());
        }
        (Some(_), None) if batch.is_some() || seq.is_some() => {
            return Err(
                "--batch and --seq shape corpus batches; --batches files carry their own [S, B, T]"
                    .to_string(),
            );
        }
        (Some(path), None) => Data::Batches(PathBuf::from(path)),
        (None, Some(path)) => Data::Corpus {
            path: PathBuf::from(path),
            batch: batch.map_or(Ok(8), |v| positive("--batch", &v))?,
            seq: seq.map_or(Ok(64), |v| positive("--seq", &v))?,
        },
    };
    let (beta1, beta2) = match betas {
        None => (0.9, 0.95),
        Some(pair) => {
            let (b1, b2) = pair
                .split_once(',')
                .ok_or_else(|| format!("--betas needs two numbers B1,B2, got `{pair}`"))?;
            (real("--betas", b1.trim())?, real("--betas", b2.trim())?)
        }
    };
    let threads = threads.map(|n| positive("--threads", &n)).transpose()?;
    if let Some(n) = threads.filter(|&n| n > MAX_THREADS) {
        return Err(format!("--threads is at most {MAX_THREADS}, got {n}"));
    }
    let clip_norm = clip_norm.map(|c| real("--clip-norm", &c)).transpose()?;
    if clip_norm.is_some_and(|c| c <= 0.0) {
        return Err(
            "--clip-norm needs a number above 0 (leave it out for no clipping)".to_string(),
        );
    }
    let temperature = temperature.map_or(Ok(0.8), |t| real("--temperature", &t))?;
    if temperature < 0.0 {
        return Err(format!(
            "--temperature needs 0 (greedy) or more, got {temperature}"
        ));
    }
    let checkpoint_every = checkpoint_every
        .map(|n| positive("--checkpoint-every", &n))
        .transpose()?;
    if checkpoint_every.is_some() && checkpoint.is_none() {
        return Err("--checkpoint-every needs --checkpoint DIR".to_string());
    }
    if let Some(path) = plot.as_deref().filter(|p| !p.ends_with(".svg")) {
        return Err(format!(
            "--plot writes an SVG image: name it *.svg, got `{path}`"
        ));
    }
    let prompt = prompt.unwrap_or_else(|| "\n".to_string());
    if prompt.is_empty() {
        return Err("--prompt needs at least one byte".to_string());
    }
    Ok(Args {
        start,
        data,
        steps: steps.map(|s| positive("--steps", &s)).transpose()?,
        lr: lr.map_or(Ok(3e-3), |v| real("--lr", &v))?,
        min_lr: min_lr.map(|v| real("--min-lr", &v)).transpose()?,
        warmup: warmup.map_or(Ok(0), |v| whole("--warmup", &v))? as u64,
        decay_steps: decay_steps
            .map(|v| whole("--decay-steps", &v))
            .transpose()?
            .map(|d| d as u64),
        beta1,
        beta2,
        eps: eps.map_or(Ok(1e-8), |v| real("--eps", &v))?,
        weight_decay: weight_decay.map_or(Ok(0.1), |v| real("--weight-decay", &v))?,
        clip_norm,
        threads,
        seed: seed.map_or(Ok(0), |v| whole("--seed", &v))? as u64,
        grads_out: grads_out.map(PathBuf::from),
        losses_out: losses_out.map(PathBuf::from),
        weights_out: weights_out.map(PathBuf::from),
        plot: plot.map(PathBuf::from),
        checkpoint: checkpoint.map(PathBuf::from),
        checkpoint_every,
        sample: sample.map_or(Ok(0), |v| whole("--sample", &v))?,
        temperature,
        prompt,
        bench_steps,
    })
}
