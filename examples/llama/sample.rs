//! Choosing the next token from a row of logits: greedy, or sampling with
//! temperature, top-k and top-p (nucleus, Holtzman et al., 2019), seeded
//! and reproducible.
//!
//! The order is transformers' logits processors: divide by the temperature,
//! keep the `k` largest (ties kept by lower id), softmax, keep the smallest
//! set of the most probable tokens whose probability reaches `p`, renormalize,
//! then one draw `u` in `[0, 1)` from SplitMix64 picks the first token whose
//! cumulative probability exceeds `u` (tokens in descending probability,
//! ties by lower id). Probabilities are computed in f64, so the draw does
//! not depend on the thread count (the logits themselves are bit-identical
//! for every thread count).
//!
//! Also included by `train_gpt` (`#[path = "../llama/sample.rs"] mod choose;`),
//! which needs `crate::prng` the same way.

use crate::prng::SplitMix64;

/// How to choose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// Temperature; `0` means greedy (the argmax, the lower id on ties).
    pub temperature: f64,
    /// Keep the `k` most likely tokens (`0`: all).
    pub top_k: usize,
    /// Keep the most likely tokens up to cumulative probability `p` (`1`: all).
    pub top_p: f64,
}

/// A seeded chooser.
pub struct Sampler {
    pub sampling: Sampling,
    rng: SplitMix64,
}

impl Sampler {
    /// A chooser whose draws depend only on `seed`.
    pub fn new(sampling: Sampling, seed: u64) -> Self {
        Sampler {
            sampling,
            rng: SplitMix64::new(seed),
        }
    }

    /// The next token from `logits` (one row, no NaN: the caller checks).
    pub fn choose(&mut self, logits: &[f32]) -> usize {
        let s = self.sampling;
        if s.temperature == 0.0 || s.top_k == 1 {
            return argmax(logits);
        }
        // Candidates in descending logit, ties by lower id.
        let mut order: Vec<usize> = (0..logits.len()).collect();
        order.sort_by(|&a, &b| logits[b].total_cmp(&logits[a]).then(a.cmp(&b)));
        if s.top_k > 0 {
            order.truncate(s.top_k);
        }
        let max = f64::from(logits[order[0]]) / s.temperature;
        let weights: Vec<f64> = order
            .iter()
            .map(|&id| (f64::from(logits[id]) / s.temperature - max).exp())
            .collect();
        let total: f64 = weights.iter().sum();
        let mut keep = weights.len();
        if s.top_p < 1.0 {
            let mut cumulative = 0.0;
            for (n, w) in weights.iter().enumerate() {
                cumulative += w / total;
                if cumulative >= s.top_p {
                    keep = n + 1;
                    break;
                }
            }
        }
        let kept_total: f64 = weights[..keep].iter().sum();
        // [0, 1) on a grid of 2^-53, exact: (x + 1) / 2 of a value in [-1, 1).
        let u = (self.rng.next_signed_unit() + 1.0) / 2.0;
        let mut cumulative = 0.0;
        for (n, w) in weights[..keep].iter().enumerate() {
            cumulative += w / kept_total;
            if u < cumulative {
                return order[n];
            }
        }
        order[keep - 1]
    }
}

/// The index of the largest value, the lower index on ties.
pub fn argmax(values: &[f32]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_is_the_argmax_with_the_lower_id_on_ties() {
        let mut s = Sampler::new(
            Sampling {
                temperature: 0.0,
                top_k: 0,
                top_p: 1.0,
            },
            1,
        );
        assert_eq!(s.choose(&[1.0, 3.0, 3.0, -1.0]), 1);
    }

    #[test]
    fn top_k_one_and_tiny_top_p_are_greedy() {
        let logits = [0.5, 2.0, 1.0];
        let mut k1 = Sampler::new(
            Sampling {
                temperature: 1.0,
                top_k: 1,
                top_p: 1.0,
            },
            7,
        );
        let mut p0 = Sampler::new(
            Sampling {
                temperature: 1.0,
                top_k: 0,
                top_p: 1e-9,
            },
            7,
        );
        for _ in 0..20 {
            assert_eq!(k1.choose(&logits), 1);
            assert_eq!(p0.choose(&logits), 1);
        }
    }

    #[test]
    fn draws_follow_the_distribution_and_repeat_with_the_seed() {
        // Logits ln(1), ln(2), ln(7): probabilities 0.1, 0.2, 0.7.
        let logits = [0.0, 2f32.ln(), 7f32.ln()];
        let sampling = Sampling {
            temperature: 1.0,
            top_k: 0,
            top_p: 1.0,
        };
        let mut s = Sampler::new(sampling, 42);
        let draws: Vec<usize> = (0..20_000).map(|_| s.choose(&logits)).collect();
        let share = |id| draws.iter().filter(|&&d| d == id).count() as f64 / draws.len() as f64;
        assert!((share(0) - 0.1).abs() < 0.01, "{}", share(0));
        assert!((share(1) - 0.2).abs() < 0.01, "{}", share(1));
        assert!((share(2) - 0.7).abs() < 0.01, "{}", share(2));
        let mut again = Sampler::new(sampling, 42);
        let repeat: Vec<usize> = (0..20_000).map(|_| again.choose(&logits)).collect();
        assert_eq!(draws, repeat, "the same seed draws the same tokens");
    }

    #[test]
    fn top_k_and_top_p_remove_the_tail() {
        let logits = [0.0, 2f32.ln(), 7f32.ln()];
        let mut k2 = Sampler::new(
            Sampling {
                temperature: 1.0,
                top_k: 2,
                top_p: 1.0,
            },
            3,
        );
        let mut p = Sampler::new(
            Sampling {
                temperature: 1.0,
                top_k: 0,
                top_p: 0.85,
            },
            3,
        );
        for _ in 0..2_000 {
            assert_ne!(k2.choose(&logits), 0, "top-2 keeps ids 2 and 1");
            assert_ne!(p.choose(&logits), 0, "0.7 + 0.2 reaches 0.85 before id 0");
        }
    }
}
