//! The example's flags.

#[path = "../common/flags.rs"]
mod flags;
pub use flags::FlagsError;

use crate::sample::Sampling;
use std::path::PathBuf;

/// Where the prompt comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum Prompt {
    /// `--prompt TEXT`.
    Text(String),
    /// `--prompt-file PATH`.
    File(PathBuf),
}

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct Args {
    /// The GGUF file (`--model`); none: say how to fetch it, exit 2.
    pub model: Option<PathBuf>,
    /// The prompt (`--prompt` or `--prompt-file`, exactly one with `--model`).
    pub prompt: Option<Prompt>,
    /// Render the prompt as one user message through the model's chat template (`--chat`).
    pub chat: bool,
    /// New tokens at most (`--generate`, default 64); `0` prefills only.
    pub generate: usize,
    /// Threads (`--threads`, 1 to [`MAX_THREADS`]); none: rayon's default.
    pub threads: Option<usize>,
    /// How to choose each token (`--temperature`, `--top-k`, `--top-p`).
    pub sampling: Sampling,
    /// The sampler's seed (`--seed`, default 0).
    pub seed: u64,
    /// Where to write prompt ids, generated ids and logits (`--logits-out`).
    pub logits_out: Option<PathBuf>,
    /// Where to write the generated text (`--text-out`).
    pub text_out: Option<PathBuf>,
    /// Whose reading of the GGUF's pre-tokenizer to follow (`--pre-tokenizer`).
    pub split: Split,
}

/// Whose split of text into pieces the tokenizer follows
/// (`--pre-tokenizer transformers|gguf`).
///
/// For a `gpt2`-model GGUF, Hugging Face `transformers` (the reference this
/// example is checked against) builds GPT-2's byte-level regex whatever
/// `tokenizer.ggml.pre` says; llama.cpp applies the rule the key names
/// (`smollm`: each digit alone first, as the model's own `tokenizer.json`).
/// They differ where two or more whitespace characters precede a digit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Split {
    /// GPT-2's regex, as transformers reads the file (the default).
    #[default]
    Transformers,
    /// The rule `tokenizer.ggml.pre` names, as llama.cpp reads the file.
    Gguf,
}

/// The most threads `--threads` accepts.
pub const MAX_THREADS: usize = 256;

pub const USAGE: &str = "usage: llama --model PATH.gguf (--prompt TEXT | --prompt-file PATH) [--chat] [--generate N]
             [--threads K] [--temperature T] [--top-k K] [--top-p P] [--seed S]
             [--logits-out F.safetensors] [--text-out F.txt] [--pre-tokenizer transformers|gguf]
  --model PATH        a Llama-family GGUF file (F32, F16, Q8_0, Q4_0 or Q4_1 tensors), e.g.
                      SmolLM2-135M-Instruct.Q4_1.gguf: `bash scripts/fetch_smollm2.sh` puts it in models/
  --prompt TEXT       the prompt; --prompt-file PATH reads it from a UTF-8 file
  --chat              render the prompt as a user message through the model's chat template
  --generate N        at most N new tokens (default 64; stops at end-of-sequence); 0 prefills only
  --threads K         1 to 256 threads (default: RAYON_NUM_THREADS, else every core)
  --temperature T     0 (default) is greedy; above 0 samples
  --top-k K           sample among the K most likely tokens (default 0: all)
  --top-p P           sample among the most likely tokens up to probability P (default 1)
  --seed S            the sampler's seed (default 0): the same seed, the same tokens
  --logits-out F      write prompt_ids (I64 [P]), generated_ids (I64 [n]), logits (F32 [n, vocab])
  --text-out F        write the decoding of the generated ids
  --pre-tokenizer R   transformers (default): split text as transformers does loading the GGUF;
                      gguf: the rule tokenizer.ggml.pre names, as llama.cpp does (they differ
                      where two or more whitespace characters precede a digit)";

/// Parses the flags (without the program name).
///
/// # Errors
/// [`FlagsError::Help`] for `-h` / `--help`; [`FlagsError::Usage`], one
/// sentence, for anything else that is not a valid set of flags.
pub fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Args, FlagsError> {
    let values = flags::parse(
        normalize(args),
        [
            "--model",
            "--prompt",
            "--prompt-file",
            "--chat",
            "--generate",
            "--threads",
            "--temperature",
            "--top-k",
            "--top-p",
            "--seed",
            "--logits-out",
            "--text-out",
            "--pre-tokenizer",
        ],
    )?;
    interpret(values).map_err(FlagsError::Usage)
}

/// `--chat` takes no value; the shared parser wants one, so a bare
/// `--chat` becomes `--chat=yes` before parsing.
fn normalize(args: impl IntoIterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    args.into_iter()
        .map(|arg| {
            if arg == "--chat" {
                "--chat=yes".into()
            } else {
                arg
            }
        })
        .collect()
}

fn number<T: std::str::FromStr>(
    flag: &str,
    value: &Option<String>,
    what: &str,
) -> Result<Option<T>, String> {
    value
        .as_ref()
        .map(|v| {
            v.parse::<T>()
                .map_err(|_| format!("{flag} takes {what}, not `{v}`"))
        })
        .transpose()
}

fn interpret(values: [Option<String>; 13]) -> Result<Args, String> {
    let [
        model,
        prompt,
        prompt_file,
        chat,
        generate,
        threads,
        temperature,
        top_k,
        top_p,
        seed,
        logits_out,
        text_out,
        split,
    ] = values;
    let split = match split.as_deref() {
        None | Some("transformers") => Split::Transformers,
        Some("gguf") => Split::Gguf,
        Some(other) => {
            return Err(format!(
                "--pre-tokenizer takes `transformers` or `gguf`, not `{other}`"
            ));
        }
    };
    let prompt = match (prompt, prompt_file) {
        (Some(_), Some(_)) => return Err("give --prompt or --prompt-file, not both".into()),
        (Some(text), None) => Some(Prompt::Text(text)),
        (None, Some(path)) => Some(Prompt::File(path.into())),
        (None, None) => None,
    };
    if model.is_some() && prompt.is_none() {
        return Err("--model needs --prompt TEXT or --prompt-file PATH".into());
    }
    let chat = match chat.as_deref() {
        None => false,
        Some("yes") => true,
        Some(other) => return Err(format!("--chat takes no value, got `{other}`")),
    };
    let threads = number::<usize>("--threads", &threads, "a whole number")?;
    if let Some(n) = threads
        && !(1..=MAX_THREADS).contains(&n)
    {
        return Err(format!("--threads takes 1 to {MAX_THREADS}, not {n}"));
    }
    let temperature = number::<f64>("--temperature", &temperature, "a number")?.unwrap_or(0.0);
    if !(temperature.is_finite() && temperature >= 0.0) {
        return Err(format!(
            "--temperature takes a finite number >= 0, not {temperature}"
        ));
    }
    let top_p = number::<f64>("--top-p", &top_p, "a number")?.unwrap_or(1.0);
    if !(top_p > 0.0 && top_p <= 1.0) {
        return Err(format!("--top-p takes a number in (0, 1], not {top_p}"));
    }
    Ok(Args {
        model: model.map(PathBuf::from),
        prompt,
        chat,
        generate: number::<usize>("--generate", &generate, "a whole number")?.unwrap_or(64),
        threads,
        sampling: Sampling {
            temperature,
            top_k: number::<usize>("--top-k", &top_k, "a whole number")?.unwrap_or(0),
            top_p,
        },
        seed: number::<u64>("--seed", &seed, "a whole number")?.unwrap_or(0),
        logits_out: logits_out.map(PathBuf::from),
        text_out: text_out.map(PathBuf::from),
        split,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_strs(args: &[&str]) -> Result<Args, FlagsError> {
        parse(args.iter().map(std::ffi::OsString::from))
    }

    #[test]
    fn the_contract_flags_parse() {
        let args = parse_strs(&[
            "--model",
            "m.gguf",
            "--prompt",
            "Hi",
            "--chat",
            "--generate",
            "0",
            "--threads",
            "2",
            "--temperature",
            "0.7",
            "--top-k",
            "40",
            "--top-p",
            "0.9",
            "--seed",
            "5",
            "--logits-out",
            "l.safetensors",
            "--text-out",
            "t.txt",
        ])
        .unwrap();
        assert!(args.chat);
        assert_eq!(args.generate, 0);
        assert_eq!(args.prompt, Some(Prompt::Text("Hi".into())));
        assert_eq!(
            args.sampling,
            Sampling {
                temperature: 0.7,
                top_k: 40,
                top_p: 0.9
            }
        );
        assert_eq!((args.seed, args.threads), (5, Some(2)));
        assert_eq!(args.split, Split::Transformers);
        let gguf = parse_strs(&["--prompt", "a", "--pre-tokenizer", "gguf"]).unwrap();
        assert_eq!(gguf.split, Split::Gguf);
    }

    #[test]
    fn bad_flags_are_sentences() {
        let usage = |args: &[&str]| match parse_strs(args) {
            Err(FlagsError::Usage(message)) => message,
            other => panic!("{other:?}"),
        };
        assert!(usage(&["--model", "m"]).contains("--prompt"));
        assert!(usage(&["--prompt", "a", "--prompt-file", "b"]).contains("not both"));
        assert!(usage(&["--threads", "0"]).contains("1 to 256"));
        assert!(usage(&["--top-p", "0"]).contains("(0, 1]"));
        assert!(usage(&["--temperature", "-1"]).contains(">= 0"));
        assert!(usage(&["--chat=no"]).contains("no value"));
        assert!(usage(&["--pre-tokenizer", "llama"]).contains("`transformers` or `gguf`"));
    }
}
