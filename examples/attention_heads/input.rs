//! The example's seeded input: a tensor drawn from SplitMix64 in row-major
//! order, the input `scripts/attention_fixture.py` re-implements, so Rust
//! and NumPy start from the same bits.

use crate::prng::SplitMix64;
use llm_from_scratch::prelude::*;

/// The seed of every run; the fixture script uses the same one.
pub const SEED: u64 = 2019;

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
