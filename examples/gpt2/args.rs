//! The example's flags.

#[path = "../common/flags.rs"]
mod flags;
pub use flags::FlagsError;

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
    /// Run in f64 (`--dtype f64`) instead of f32.
    pub f64: bool,
    /// Where to write the chosen logits (`--logits-out`).
    pub logits_out: Option<PathBuf>,
    /// Threads (`--threads`); none: rayon's default (RAYON_NUM_THREADS or the cores).
    pub threads: Option<usize>,
}

pub const USAGE: &str = "usage: gpt2 [--model PATH] [--tokens ID,ID,...] [--generate N] [--dtype f32|f64] [--logits-out FILE] [--threads N]
  no --model: check the committed 2-layer fixture against transformers, then time GPT-2 small (seeded weights)";

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
            "--logits-out",
            "--threads",
        ],
    )?;
    interpret(values).map_err(FlagsError::Usage)
}

/// The flags' values (in [`parse`]'s order) as [`Args`]; `Err` is one sentence.
fn interpret(values: [Option<String>; 6]) -> Result<Args, String> {
    let [model, tokens, generate, dtype, logits_out, threads] = values;
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
    let threads = threads.map(|n| count("--threads", &n)).transpose()?;
    if threads == Some(0) {
        return Err("--threads needs at least 1".to_string());
    }
    Ok(Args {
        model: model.map(PathBuf::from),
        tokens,
        generate: generate.map(|n| count("--generate", &n)).transpose()?,
        f64,
        logits_out: logits_out.map(PathBuf::from),
        threads,
    })
}
