//! A progress line on stderr: step, loss, learning rate, tokens/s, time left.
//! On a terminal one line redrawn in place; otherwise (a log file, CI) a
//! line every `1/20` of the run.

use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    start_step: usize,
    total: usize,
    tokens_per_step: usize,
    started: Instant,
    terminal: bool,
}

/// `width` cells of `#` and `-` for `done / total`.
pub fn bar(done: usize, total: usize, width: usize) -> String {
    let filled = (done * width)
        .checked_div(total)
        .unwrap_or(width)
        .min(width);
    format!("{}{}", "#".repeat(filled), "-".repeat(width - filled))
}

/// `seconds` as `1h02m`, `3m05s` or `42s`.
pub fn duration(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m{s:02}s"),
        (h, m, _) => format!("{h}h{m:02}m"),
    }
}

impl Progress {
    /// A run of steps `start_step..total`, `tokens_per_step = B·T`.
    pub fn new(start_step: usize, total: usize, tokens_per_step: usize) -> Self {
        Progress {
            start_step,
            total,
            tokens_per_step,
            started: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
        }
    }

    /// Tokens per second since the start (0 before any time passed).
    pub fn tokens_per_second(&self, done: usize) -> f64 {
        let elapsed = self.started.elapsed().as_secs_f64();
        if elapsed > 0.0 {
            (done * self.tokens_per_step) as f64 / elapsed
        } else {
            0.0
        }
    }

    /// Reports step `step` (0-based) done with `loss` at rate `lr`.
    pub fn update(&self, step: usize, loss: f32, lr: f64) {
        let done = step + 1 - self.start_step;
        let remaining = self.total - self.start_step;
        let every = (remaining / 20).max(1);
        let last = step + 1 == self.total;
        if !self.terminal && !last && !done.is_multiple_of(every) {
            return;
        }
        let rate = self.tokens_per_second(done);
        let left = if rate > 0.0 {
            ((remaining - done) * self.tokens_per_step) as f64 / rate
        } else {
            0.0
        };
        let line = format!(
            "[{}] step {}/{} loss {loss:.4} lr {lr:.2e} {rate:.0} tok/s, {} left",
            bar(step + 1, self.total, 24),
            step + 1,
            self.total,
            duration(left)
        );
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            write!(err, "\r{line}\x1b[K{}", if last { "\n" } else { "" })
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
    }
}
