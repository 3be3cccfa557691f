//! Command-line flags for the examples: `--name value` or `--name=value`,
//! each flag at most once, `-h` / `--help`. Every problem is a sentence for
//! a person, never a panic; what a value means is the caller's business.
//!
//! Included by `attention_heads`, `minilm_attention` and `gpt2` with
//! `#[path = "../common/flags.rs"] mod flags;` (see `examples/common/README.md`).

use std::ffi::OsString;

/// Why parsing stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlagsError {
    /// `-h` or `--help` was given.
    Help,
    /// A usage problem, as a sentence.
    Usage(String),
}

/// The value of each flag of `known`, in the order of `known` (`None` for a
/// flag that was not given). `args` excludes the program name.
///
/// # Errors
/// [`FlagsError::Help`] for `-h` / `--help`; [`FlagsError::Usage`] for an
/// argument that is not valid UTF-8, a flag not in `known`, a flag given
/// twice, or a flag without a value.
pub fn parse<const N: usize>(
    args: impl IntoIterator<Item = OsString>,
    known: [&str; N],
) -> Result<[Option<String>; N], FlagsError> {
    let usage = |message: String| FlagsError::Usage(message);
    let mut values: [Option<String>; N] = std::array::from_fn(|_| None);
    let mut args = args.into_iter();
    while let Some(raw) = args.next() {
        let arg = raw
            .to_str()
            .ok_or_else(|| usage(format!("argument {raw:?} is not valid UTF-8")))?;
        if arg == "-h" || arg == "--help" {
            return Err(FlagsError::Help);
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_string())),
            _ => (arg, None),
        };
        let index = known
            .iter()
            .position(|&name| name == flag)
            .ok_or_else(|| usage(format!("unknown argument `{arg}`; try --help")))?;
        if values[index].is_some() {
            return Err(usage(format!("{flag} is given twice")));
        }
        let value = match inline {
            Some(value) => value,
            None => args
                .next()
                .and_then(|value| value.into_string().ok())
                .ok_or_else(|| usage(format!("{flag} needs a value")))?,
        };
        values[index] = Some(value);
    }
    Ok(values)
}
