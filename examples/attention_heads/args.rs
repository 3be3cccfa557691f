//! Command-line flags: `--batch`, `--seq`, `--heads`, `--width` (GPT-2 small
//! by default), checked before anything is allocated. Every problem is a
//! message for a person, never a panic.

use crate::pipeline::Dims;
use std::ffi::OsString;

/// The usage text printed by `--help` and after a usage error.
pub const USAGE: &str = "\
usage: cargo run --release --example attention_heads -- [FLAGS]

  --batch B   batch size                     (default 1)
  --seq T     context length                 (default 1024, GPT-2's n_ctx)
  --heads H   attention heads                (default 12, GPT-2 small's n_head)
  --width C   model width, a multiple of H   (default 768, GPT-2 small's n_embd)
  -h, --help  this text

Values may also be written --seq=128. Attention itself runs on the first
min(T, 128) positions (fewer if the broadcast temporaries would exceed
256 MiB); the layout steps, split and merge run at the full size.";

/// The longest prefix attention runs on.
pub const MAX_PREFIX: usize = 128;
/// Budget for one broadcast temporary `[B, H, Ta, Ta, D]`, in bytes.
const TEMPORARY_BUDGET: u128 = 256 << 20;
/// Everything this example keeps in memory at once must fit in this many bytes.
pub const MEMORY_CAP: u128 = 2 << 30;

/// A validated run configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// The sizes.
    pub dims: Dims,
    /// Positions attention runs on (`Ta <= T`).
    pub prefix: usize,
    /// Estimated peak memory, in bytes.
    pub memory: u128,
}

/// Why parsing stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgsError {
    /// `--help` was asked for.
    Help,
    /// A usage problem, as a sentence.
    Usage(String),
}

const FLAGS: [&str; 4] = ["--batch", "--seq", "--heads", "--width"];

/// Parses the flags (without the program name) and checks the sizes.
///
/// # Errors
/// [`ArgsError::Help`] for `-h` / `--help`; [`ArgsError::Usage`] for an
/// unknown or repeated flag, a missing or non-numeric value, a zero size, a
/// width that `--heads` does not divide, sizes whose element counts
/// overflow, or an estimated memory use above [`MEMORY_CAP`].
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Config, ArgsError> {
    let mut values: [Option<usize>; 4] = [None; 4];
    let mut args = args.into_iter();
    while let Some(raw) = args.next() {
        let arg = raw
            .to_str()
            .ok_or_else(|| ArgsError::Usage(format!("argument {raw:?} is not valid UTF-8")))?;
        if arg == "-h" || arg == "--help" {
            return Err(ArgsError::Help);
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
            _ => (arg, None),
        };
        let index = FLAGS
            .iter()
            .position(|&known| known == flag)
            .ok_or_else(|| ArgsError::Usage(format!("unknown argument `{arg}`")))?;
        if values[index].is_some() {
            return Err(ArgsError::Usage(format!("{flag} is given twice")));
        }
        let text = match inline {
            Some(text) => text,
            None => args
                .next()
                .and_then(|value| value.into_string().ok())
                .ok_or_else(|| {
                    ArgsError::Usage(format!("{flag} needs a value, e.g. `{flag} 12`"))
                })?,
        };
        let value: usize = text
            .trim()
            .parse()
            .map_err(|error: std::num::ParseIntError| {
                ArgsError::Usage(match error.kind() {
                    std::num::IntErrorKind::PosOverflow => {
                        format!(
                            "{flag} {text} is larger than this machine's usize ({})",
                            usize::MAX
                        )
                    }
                    _ => format!("{flag} expects a whole number, got `{text}`"),
                })
            })?;
        if value == 0 {
            return Err(ArgsError::Usage(format!(
                "{flag} must be at least 1, got 0"
            )));
        }
        values[index] = Some(value);
    }
    let [batch, seq, heads, width] = [
        values[0].unwrap_or(1),
        values[1].unwrap_or(1024),
        values[2].unwrap_or(12),
        values[3].unwrap_or(768),
    ];
    check(batch, seq, heads, width)
}

/// The size checks of [`parse`], on numbers that are all at least 1.
fn check(batch: usize, seq: usize, heads: usize, width: usize) -> Result<Config, ArgsError> {
    if width % heads != 0 {
        return Err(ArgsError::Usage(format!(
            "--width {width} is not a multiple of --heads {heads}: each head needs the same whole \
             width D = C / H (GPT-2 small: 768 / 12 = 64)"
        )));
    }
    let dims = Dims::new(batch, seq, heads, width / heads).ok_or_else(|| {
        ArgsError::Usage(format!(
            "the packed projection [B, T, 3C] = [{batch}, {seq}, 3 × {width}] has more elements \
             than usize can count"
        ))
    })?;
    let prefix = prefix(&dims);
    let memory = memory(&dims, prefix);
    if memory > MEMORY_CAP {
        return Err(ArgsError::Usage(format!(
            "these sizes need about {} MiB of memory; this example keeps every tensor in memory \
             and stops at {} MiB",
            memory >> 20,
            MEMORY_CAP >> 20
        )));
    }
    Ok(Config {
        dims,
        prefix,
        memory,
    })
}

/// `Ta`: `min(T, 128)`, halved while one broadcast temporary
/// `[B, H, Ta, Ta, D]` of `f64` would exceed its budget.
fn prefix(dims: &Dims) -> usize {
    let mut prefix = dims.seq().min(MAX_PREFIX);
    while prefix > 1 && temporary(dims, prefix) > TEMPORARY_BUDGET {
        prefix /= 2;
    }
    prefix
}

/// Bytes of one `[B, H, Ta, Ta, D]` temporary (`B * Ta² * C` values).
fn temporary(dims: &Dims, prefix: usize) -> u128 {
    let values = dims.batch() as u128 * (prefix as u128).pow(2) * dims.width() as u128;
    values * 8
}

/// Estimated peak bytes: at full size `n = B * T * C` values held about 11
/// times (qkv 3n, Q/K/V copies 3n, stand-in n, merged n, reference up to
/// 3n); on the prefix one temporary, ten `[B, H, Ta, Ta]` and four
/// `[B, Ta, C]` tensors.
fn memory(dims: &Dims, prefix: usize) -> u128 {
    let [b, t, h, c, ta] =
        [dims.batch(), dims.seq(), dims.heads(), dims.width(), prefix].map(|x| x as u128);
    let full = 11 * b * t * c;
    let square = 10 * b * h * ta * ta + 4 * b * ta * c;
    (full + square) * 8 + temporary(dims, prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Config, ArgsError> {
        parse(args.iter().map(OsString::from))
    }

    fn usage(args: &[&str]) -> String {
        match run(args) {
            Err(ArgsError::Usage(message)) => message,
            other => panic!("expected a usage error for {args:?}, got {other:?}"),
        }
    }

    #[test]
    fn defaults_are_gpt2_small() {
        let config = run(&[]).unwrap();
        assert_eq!(config.dims, Dims::new(1, 1024, 12, 64).unwrap());
        assert_eq!(config.prefix, 128);
    }

    #[test]
    fn flags_take_separate_or_inline_values() {
        let config = run(&["--batch", "2", "--seq=8", "--heads", "4", "--width=32"]).unwrap();
        assert_eq!(config.dims, Dims::new(2, 8, 4, 8).unwrap());
        assert_eq!(config.prefix, 8);
    }

    #[test]
    fn bad_flags_are_sentences() {
        assert!(usage(&["--heads", "0"]).contains("at least 1"));
        assert!(usage(&["--width", "770"]).contains("not a multiple of --heads 12"));
        assert!(usage(&["--seq"]).contains("needs a value"));
        assert!(usage(&["--seq", "ten"]).contains("whole number"));
        assert!(usage(&["--seq", "-3"]).contains("whole number"));
        assert!(usage(&["--depth", "3"]).contains("unknown argument"));
        assert!(usage(&["--seq", "4", "--seq", "5"]).contains("twice"));
        assert!(usage(&["--batch", &usize::MAX.to_string()]).contains("usize can count"));
        assert!(usage(&["--batch", "99999999999999999999999"]).contains("larger than"));
        assert!(usage(&["--seq", "100000000"]).contains("MiB"));
        assert_eq!(run(&["-h"]), Err(ArgsError::Help));
    }

    #[test]
    fn the_usage_names_every_flag() {
        for flag in FLAGS {
            assert!(
                USAGE.contains(flag),
                "{flag} is missing from the usage text"
            );
        }
    }

    #[test]
    fn a_wide_head_shrinks_the_prefix() {
        let config = run(&["--heads", "1", "--width", "4096"]).unwrap();
        assert!(config.prefix < 128 && temporary(&config.dims, config.prefix) <= TEMPORARY_BUDGET);
    }
}
