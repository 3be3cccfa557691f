//! The example's flags.

#[path = "../common/flags.rs"]
mod flags;
pub use flags::FlagsError;

use crate::weights::Storage;
use std::path::PathBuf;

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    /// A GPT-2 safetensors file (`--model`); none: the fixture check and the speed run.
    pub model: Option<PathBuf>,
    /// The prompt's token ids (`--tokens 464,3290`).
    pub tokens: Option<Vec<usize>>,
    /// New tokens to generate (`--generate`).
    pub generate: Option<usize>,
    /// Compute in f64 (`--dtype f64`) instead of f32; the file may store
    /// any float dtype (`F16`, `BF16`, `F32`, `F64`), converted once where it
    /// is not the compute type.
    pub f64: bool,
    /// How the linear layers' matrices and the head are stored
    /// (`--weights f32|bf16|f16`; half precision needs f32 compute).
    pub weights: Storage,
    /// Where to write the chosen logits (`--logits-out`).
    pub logits_out: Option<PathBuf>,
    /// Threads (`--threads`, 1 to [`MAX_THREADS`]); none: rayon's default
    /// (RAYON_NUM_THREADS or the cores).
    pub threads: Option<usize>,
    /// Generations to run (`--runs`, 1 to [`MAX_RUNS`], default 1). From
    /// two on, the first only warms the thread pool, the allocator and the
    /// caches, and the speed line gives the median of the others (as
    /// `scripts/bench_torch.py` does for PyTorch: one warm-up generate,
    /// then medians).
    pub runs: usize,
}

/// The most threads `--threads` accepts: more threads than cores only
/// slow a decoder down, and starting a hundred thousand takes minutes.
pub const MAX_THREADS: usize = 256;

/// The most generations `--runs` accepts (a typo's guard: each one is a
/// whole generation).
pub const MAX_RUNS: usize = 1000;

pub const USAGE: &str = "usage: gpt2 [--model PATH --tokens ID,ID,...] [--generate N] [--dtype f32|f64] [--weights f32|bf16|f16] [--logits-out FILE] [--threads N] [--runs N]
  no --model: check the committed 2-layer fixture against transformers, then time GPT-2 small (seeded weights)
  --model PATH      a Hugging Face GPT-2 safetensors file (F16, BF16, F32 or F64); its config.json
                    (for n_head) must sit beside it, unless the width is GPT-2's 768/1024/1280/1600
  --tokens IDS      the prompt's token ids (default with --model: 464,2068,7586,21831, \"The quick brown fox\")
  --generate N      new tokens (default 16 with --model, 64 without)
  --dtype f32|f64   the compute type (default f32); any stored float dtype is converted once
  --weights f32|bf16|f16
                    how the layers' matrices and the head are kept (default f32: in the compute type, so f64 under --dtype f64):
                    bf16 / f16 round them once and multiply straight from half precision (f32 compute
                    only; the self-check then runs the fixture stored in that precision)
  --logits-out FILE write the logits of every generated step, [steps, vocab] f32 safetensors
  --threads N       1 to 256 threads (default: RAYON_NUM_THREADS, else every core)
  --runs N          generate N times (1 to 1000, default 1); from 2 on, the speed is the median of runs 2..N
                    (the first warms the threads and caches) and every run must choose the same tokens";

/// Parses the flags (without the program name).
///
/// # Errors
/// [`FlagsError::Help`] for `-h` / `--help`; [`FlagsError::Usage`], one
/// sentence, for anything else that is not a valid set of flags.
pub fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Args, FlagsError> {
    let values = flags::parse(
        args,
        [
            "--model",
            "--tokens",
            "--generate",
            "--dtype",
            "--weights",
            "--logits-out",
            "--threads",
            "--runs",
        ],
    )?;
    interpret(values).map_err(FlagsError::Usage)
}

/// The flags' values (in [`parse`]'s order) as [`Args`]; `Err` is one sentence.
fn interpret(values: [Option<String>; 8]) -> Result<Args, String> {
    let [
        model,
        tokens,
        generate,
        dtype,
        weights,
        logits_out,
        threads,
        runs,
    ] = values;
    let count = |flag: &str, value: &str| -> Result<usize, String> {
        value
            .parse()
            .map_err(|_| format!("{flag} needs a whole number, got `{value}`"))
    };
    if tokens.as_deref().is_some_and(|list| list.trim().is_empty()) {
        return Err("--tokens needs at least one id".to_string());
    }
    let tokens = tokens
        .map(|list| {
            list.split(',')
                .map(|id| count("--tokens", id.trim()))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    if tokens.is_some() && model.is_none() {
        return Err(
            "--tokens needs --model (without it the self-check runs on its own prompt)".to_string(),
        );
    }
    let f64 = match dtype.as_deref() {
        None | Some("f32") => false,
        Some("f64") => true,
        Some(other) => return Err(format!("--dtype is f32 or f64, got `{other}`")),
    };
    let weights = match weights.as_deref() {
        None | Some("f32") => Storage::Compute,
        Some("bf16") => Storage::Bf16,
        Some("f16") => Storage::F16,
        Some(other) => return Err(format!("--weights is f32, bf16 or f16, got `{other}`")),
    };
    if f64 && weights != Storage::Compute {
        return Err(
            "--weights bf16 and f16 need --dtype f32 (the half kernel computes in f32)".to_string(),
        );
    }
    let threads = threads.map(|n| count("--threads", &n)).transpose()?;
    if threads == Some(0) {
        return Err("--threads needs at least 1".to_string());
    }
    if let Some(threads) = threads.filter(|&n| n > MAX_THREADS) {
        return Err(format!(
            "--threads is at most {MAX_THREADS} (more threads than cores only slow decoding), got {threads}"
        ));
    }
    let runs = runs.map(|n| count("--runs", &n)).transpose()?.unwrap_or(1);
    if !(1..=MAX_RUNS).contains(&runs) {
        return Err(format!("--runs is 1 to {MAX_RUNS}, got {runs}"));
    }
    Ok(Args {
        model: model.map(PathBuf::from),
        tokens,
        generate: generate.map(|n| count("--generate", &n)).transpose()?,
        f64,
        weights,
        logits_out: logits_out.map(PathBuf::from),
        threads,
        runs,
    })
}
