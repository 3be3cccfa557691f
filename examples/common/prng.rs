//! Deterministic input: SplitMix64 (Steele, Lea and Flood, 2014), the
//! generator `scripts/attention_fixture.py` re-implements, so Rust and NumPy
//! start from the same bits.
//!
//! Included by `attention_heads` with `#[path = "../common/prng.rs"] mod prng;`
//! (see `examples/common/README.md`).

use llm_from_scratch::prelude::*;

/// The seed of every run; the fixture script uses the same one.
pub const SEED: u64 = 2019;

/// SplitMix64: a 64-bit state advanced by a Weyl step and mixed.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose first output depends only on `seed`.
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `[-1, 1)` on a grid of 2^-52: the top 53 bits scaled,
    /// computed exactly (no rounding), so any language gets the same `f64`.
    pub fn next_signed_unit(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64) * f64::EPSILON - 1.0
    }
}

/// A tensor of `shape` filled in row-major order from `SplitMix64::new(seed)`
/// with values in `[-1, 1)`.
///
/// # Errors
/// `ShapeOverflow` or `AllocationFailed` from [`Tensor::from_fn`].
pub fn tensor<const R: usize>(shape: [usize; R], seed: u64) -> Result<Tensor<R>, Error> {
    let mut rng = SplitMix64::new(seed);
    Tensor::from_fn(shape, |_| rng.next_signed_unit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixture_input_is_the_examples_seeded_input() {
        // scripts/attention_fixture.py re-implements SplitMix64 in Python and
        // writes the packed projection it drew from SEED as the fixture's
        // first tensor: Rust and NumPy must start from the same bits.
        let text = include_str!("../../tests/fixtures/attention_small.txt");
        let mut lines = text.lines().filter(|line| !line.starts_with('#'));
        let config = lines.next().expect("a config line");
        let seed = format!("seed={SEED}");
        assert!(
            config.split_whitespace().any(|pair| pair == seed),
            "{config}"
        );
        let header: Vec<&str> = lines.next().expect("a header").split_whitespace().collect();
        assert_eq!(
            header[..2],
            ["tensor", "qkv"],
            "the first tensor is the input"
        );
        let extents: Vec<usize> = header[2..].iter().map(|n| n.parse().unwrap()).collect();
        let [batch, seq, packed] = extents[..] else {
            panic!("qkv is [B, T, 3C], got {extents:?}")
        };
        let numpy: Vec<f64> = lines
            .map(|v| v.parse().unwrap())
            .take(batch * seq * packed)
            .collect();
        let ours = tensor([batch, seq, packed], SEED).unwrap();
        assert_eq!(
            ours.as_slice(),
            numpy,
            "Rust and NumPy must start from the same bits"
        );
    }
}
