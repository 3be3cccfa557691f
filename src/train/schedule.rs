//! [`WarmupCosine`]: linear warmup then cosine decay to a floor, the
//! schedule of GPT-3 (Brown et al. 2020, §B) as nanoGPT writes it.

use crate::error::Error;

/// A learning rate per step: a linear warmup to `max_lr`, then a half
/// cosine from `max_lr` down to `min_lr` at `decay_steps`, then `min_lr`.
///
/// For step `s` (from 0), with `W = warmup_steps`, `D = decay_steps`
/// (nanoGPT's `get_lr`, `train.py`):
///
/// ```text
/// s <  W:       max_lr · (s + 1) / (W + 1)
/// W <= s <= D:  min_lr + ½ (1 + cos(π (s - W) / (D - W))) · (max_lr - min_lr)
/// s >  D:       min_lr
/// ```
///
/// With `D == W` the cosine part is empty: `min_lr` from step `W` on.
/// `WarmupCosine::constant(lr)` is a flat schedule.
///
/// ```
/// use llm_from_scratch::train::WarmupCosine;
/// let schedule = WarmupCosine::new(6e-4, 6e-5, 3, 13)?;
/// assert_eq!(schedule.lr(0), 6e-4 * 1.0 / 4.0);
/// assert!((schedule.lr(3) - 6e-4).abs() < 1e-18);        // the peak
/// assert!((schedule.lr(8) - (6e-5 + 0.5 * (6e-4 - 6e-5))).abs() < 1e-18); // half way
/// assert_eq!(schedule.lr(13), 6e-5);
/// assert_eq!(schedule.lr(1000), 6e-5);
/// assert_eq!(WarmupCosine::constant(3e-3)?.lr(77), 3e-3);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WarmupCosine {
    max_lr: f64,
    min_lr: f64,
    warmup_steps: u64,
    decay_steps: u64,
}

impl WarmupCosine {
    /// A schedule peaking at `max_lr` after `warmup_steps` and reaching
    /// `min_lr` at step `decay_steps`.
    ///
    /// # Errors
    /// [`Error::InvalidHyperparameter`] unless `0 <= min_lr <= max_lr`
    /// (finite) and `warmup_steps <= decay_steps`.
    ///
    /// ```
    /// use llm_from_scratch::train::WarmupCosine;
    /// assert!(WarmupCosine::new(1e-4, 1e-3, 0, 10).is_err()); // min above max
    /// assert!(WarmupCosine::new(1e-3, 0.0, 20, 10).is_err()); // warmup after the decay
    /// ```
    pub fn new(
        max_lr: f64,
        min_lr: f64,
        warmup_steps: u64,
        decay_steps: u64,
    ) -> Result<Self, Error> {
        let invalid = |name, rule, value: String| Error::InvalidHyperparameter {
            op: "WarmupCosine::new",
            name,
            rule,
            value,
        };
        if !(max_lr.is_finite() && max_lr >= 0.0) {
            return Err(invalid("max_lr", "finite and >= 0", max_lr.to_string()));
        }
        if !(min_lr.is_finite() && (0.0..=max_lr).contains(&min_lr)) {
            return Err(invalid("min_lr", "in [0, max_lr]", min_lr.to_string()));
        }
        if warmup_steps > decay_steps {
            return Err(invalid(
                "warmup_steps",
                "at most decay_steps",
                warmup_steps.to_string(),
            ));
        }
        Ok(WarmupCosine {
            max_lr,
            min_lr,
            warmup_steps,
            decay_steps,
        })
    }

    /// The same rate at every step (no warmup, no decay).
    ///
    /// # Errors
    /// [`Error::InvalidHyperparameter`] for a negative or non-finite `lr`.
    pub fn constant(lr: f64) -> Result<Self, Error> {
        Self::new(lr, lr, 0, 0)
    }

    /// The rate of step `step` (from 0).
    pub fn lr(&self, step: u64) -> f64 {
        let (w, d) = (self.warmup_steps, self.decay_steps);
        if step < w {
            return self.max_lr * (step + 1) as f64 / (w + 1) as f64;
        }
        if step > d || d == w {
            return self.min_lr;
        }
        let ratio = (step - w) as f64 / (d - w) as f64;
        let coeff = 0.5 * (1.0 + (std::f64::consts::PI * ratio).cos());
        self.min_lr + coeff * (self.max_lr - self.min_lr)
    }
}
