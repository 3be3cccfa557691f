//! The sizes of a run: the flags `--batch`, `--seq`, `--heads`, `--width`
//! (GPT-2 small by default), checked before anything is allocated, and the
//! query rows the plain-loop reference checks. Every problem is a message
//! for a person, never a panic.

use crate::flags::{self, FlagsError};
use std::ffi::OsString;

/// The sizes of one run: batch `B`, sequence `T`, heads `H`, head width `D`,
/// and the model width `C = H * D` (GPT-2 small: 1, 1024, 12, 64, 768).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    batch: usize,
    seq: usize,
    heads: usize,
    head_width: usize,
}

impl Dims {
    /// Checked sizes: `None` if `B * T * 3 * H * D` (the packed projection's
    /// element count) does not fit in `usize`.
    pub fn new(batch: usize, seq: usize, heads: usize, head_width: usize) -> Option<Self> {
        [seq, 3, heads, head_width]
            .iter()
            .try_fold(batch, |count, &extent| count.checked_mul(extent))?;
        Some(Self {
            batch,
            seq,
            heads,
            head_width,
        })
    }

    /// `B`.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// `T`.
    pub fn seq(&self) -> usize {
        self.seq
    }

    /// `H`.
    pub fn heads(&self) -> usize {
        self.heads
    }

    /// `D`.
    pub fn head_width(&self) -> usize {
        self.head_width
    }

    /// `C = H * D` (cannot overflow: checked by [`Dims::new`]).
    pub fn width(&self) -> usize {
        self.heads * self.head_width
    }

    /// `[B, T, H, D]`: the shape of one of Q, K, V with its heads split off.
    pub fn split(&self) -> [usize; 4] {
        [self.batch, self.seq, self.heads, self.head_width]
    }
}

/// The usage text printed by `--help` and after a usage error.
pub const USAGE: &str = "\
usage: cargo run --release --example attention_heads -- [FLAGS]

  --batch B   batch size                     (default 1)
  --seq T     context length                 (default 1024, GPT-2's n_ctx)
  --heads H   attention heads                (default 12, GPT-2 small's n_head)
  --width C   model width, a multiple of H   (default 768, GPT-2 small's n_embd)
  -h, --help  this text

Values may also be written --seq=128. Every step runs at the full size,
attention included (matmul). The plain-loop reference checks every query
row when that costs at most 2^27 multiply-adds, otherwise every 37th query
row of every head plus the last one.";

/// Everything this example keeps in memory at once must fit in this many bytes.
pub const MEMORY_CAP: u128 = 2 << 30;
/// The reference checks every query row while `2·B·T²·C` (its multiply-adds) stays within this.
pub const FULL_CHECK_BUDGET: u128 = 1 << 27;
/// Above the budget the reference checks every `SAMPLE_EVERY`-th query row, plus the last.
pub const SAMPLE_EVERY: usize = 37;

/// A validated run configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// The sizes.
    pub dims: Dims,
    /// The reference checks query rows `0, every, 2·every, …` and the last.
    pub check_every: usize,
    /// Estimated peak memory, in bytes.
    pub memory: u128,
}

impl Config {
    /// The query rows the plain-loop reference checks (in every batch and head):
    /// `0, every, 2·every, …` and `T - 1`, ascending.
    pub fn checked_rows(&self) -> Vec<usize> {
        let seq = self.dims.seq();
        let mut rows: Vec<usize> = (0..seq).step_by(self.check_every).collect();
        if rows.last() != Some(&(seq - 1)) {
            rows.push(seq - 1);
        }
        rows
    }
}

const FLAGS: [&str; 4] = ["--batch", "--seq", "--heads", "--width"];

/// Parses the flags (without the program name) and checks the sizes.
///
/// # Errors
/// [`FlagsError::Help`] for `-h` / `--help`; [`FlagsError::Usage`] for the
/// flag problems of [`flags::parse`], a non-numeric value, a zero size, a
/// width that `--heads` does not divide, sizes whose element counts
/// overflow, or an estimated memory use above [`MEMORY_CAP`].
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Config, FlagsError> {
    let texts = flags::parse(args, FLAGS)?;
    let mut sizes = [1, 1024, 12, 768]; // the defaults: GPT-2 small
    for ((size, text), flag) in sizes.iter_mut().zip(texts).zip(FLAGS) {
        if let Some(text) = text {
            *size = whole_number(flag, &text)?;
        }
    }
    let [batch, seq, heads, width] = sizes;
    check(batch, seq, heads, width)
}

/// A size of at least 1, or a sentence saying why `text` is not one.
fn whole_number(flag: &str, text: &str) -> Result<usize, FlagsError> {
    let value: usize = text
        .trim()
        .parse()
        .map_err(|error: std::num::ParseIntError| {
            FlagsError::Usage(match error.kind() {
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
        return Err(FlagsError::Usage(format!(
            "{flag} must be at least 1, got 0"
        )));
    }
    Ok(value)
}

/// The size checks of [`parse`], on numbers that are all at least 1.
fn check(batch: usize, seq: usize, heads: usize, width: usize) -> Result<Config, FlagsError> {
    if !width.is_multiple_of(heads) {
        return Err(FlagsError::Usage(format!(
            "--width {width} is not a multiple of --heads {heads}: each head needs the same whole \
             width D = C / H (GPT-2 small: 768 / 12 = 64)"
        )));
    }
    let dims = Dims::new(batch, seq, heads, width / heads).ok_or_else(|| {
        FlagsError::Usage(format!(
            "the packed projection [B, T, 3C] = [{batch}, {seq}, 3 × {width}] has more elements \
             than usize can count"
        ))
    })?;
    let memory = memory(&dims);
    if memory > MEMORY_CAP {
        return Err(FlagsError::Usage(format!(
            "these sizes need about {} MiB of memory; this example keeps every tensor in memory \
             (two [B, H, T, T] attention tensors among them) and stops at {} MiB",
            memory >> 20,
            MEMORY_CAP >> 20
        )));
    }
    let check_every = if reference_work(&dims) <= FULL_CHECK_BUDGET {
        1
    } else {
        SAMPLE_EVERY
    };
    Ok(Config {
        dims,
        check_every,
        memory,
    })
}

/// Multiply-adds of the full plain-loop reference: `Q·Kᵀ` and `P·V`, each
/// `B·H·T²·D = B·T²·C` (saturating: only compared against a budget).
fn reference_work(dims: &Dims) -> u128 {
    let [b, t, c] = [dims.batch(), dims.seq(), dims.width()].map(|x| x as u128);
    [t, t, c, 2]
        .iter()
        .fold(b, |work, &x| work.saturating_mul(x))
}

/// Estimated peak bytes (saturating): `n = B·T·C` values held about 14 times
/// (qkv 3n, Q/K/V copies 3n, Y n, merged Y n, the checks up to 6n: growing
/// reference vectors double their capacity) and two `[B, H, T, T]`
/// attention tensors of `f64` at once, the scores and P: `matmul_affine`
/// scales the scores inside its one output (no raw `Q·Kᵀ` beside them),
/// and `causal_softmax` builds no `[T, T]` mask nor masked copy.
fn memory(dims: &Dims) -> u128 {
    let [b, t, h, c] = [dims.batch(), dims.seq(), dims.heads(), dims.width()].map(|x| x as u128);
    let full = 14 * b * t * c * 8;
    let square = [h, t, t, 2 * 8]
        .iter()
        .fold(b, |bytes, &x| bytes.saturating_mul(x));
    full.saturating_add(square)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Config, FlagsError> {
        parse(args.iter().map(OsString::from))
    }

    fn usage(args: &[&str]) -> String {
        match run(args) {
            Err(FlagsError::Usage(message)) => message,
            other => panic!("expected a usage error for {args:?}, got {other:?}"),
        }
    }

    #[test]
    fn defaults_are_gpt2_small_with_a_sampled_check() {
        let config = run(&[]).unwrap();
        assert_eq!(config.dims, Dims::new(1, 1024, 12, 64).unwrap());
        assert_eq!(config.check_every, 37);
        let rows = config.checked_rows();
        assert_eq!(rows.len(), 29, "0, 37, …, 999 and 1023");
        assert_eq!(&rows[..3], &[0, 37, 74]);
        assert_eq!(&rows[26..], &[962, 999, 1023]);
    }

    #[test]
    fn flags_take_separate_or_inline_values() {
        let config = run(&["--batch", "2", "--seq=8", "--heads", "4", "--width=32"]).unwrap();
        assert_eq!(config.dims, Dims::new(2, 8, 4, 8).unwrap());
        assert_eq!(config.check_every, 1);
        assert_eq!(config.checked_rows(), (0..8).collect::<Vec<_>>());
    }

    #[test]
    fn the_last_row_is_checked_once() {
        // T = 75: rows 0, 37 and 74, where 74 is both a multiple and the last.
        let config = Config {
            check_every: 37,
            ..run(&["--seq", "75"]).unwrap()
        };
        assert_eq!(config.checked_rows(), [0, 37, 74]);
        let single = Config {
            check_every: 37,
            ..run(&["--seq", "1"]).unwrap()
        };
        assert_eq!(single.checked_rows(), [0]);
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
        assert_eq!(run(&["-h"]), Err(FlagsError::Help));
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
    fn the_memory_cap_counts_the_attention_tensors() {
        // Two [B, 12, 1024, 1024] f64 tensors (scores, P) are 192 MiB per
        // batch row: about 276 MiB per batch row in all, so 7 fit under
        // 2 GiB and 8 do not.
        assert_eq!(run(&[]).unwrap().memory >> 20, 276);
        assert!(run(&["--batch", "7"]).unwrap().memory <= MEMORY_CAP);
        assert!(usage(&["--batch", "8"]).contains("[B, H, T, T]"));
        assert!(usage(&["--seq", "8192"]).contains("MiB"));
    }
}
