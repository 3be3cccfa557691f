//! Deterministic input: SplitMix64 (Steele, Lea and Flood, 2014), the
//! generator `scripts/attention_fixture.py` re-implements, so Rust and NumPy
//! start from the same bits.
//!
//! Included by `attention_heads` (its seeded input, `attention_heads/input.rs`)
//! and `llama` (its sampler) with `#[path = "../common/prng.rs"] mod prng;`
//! (see `examples/common/README.md`).

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

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    #[test]
    fn the_first_outputs_of_seed_zero_are_the_published_ones() {
        // SplitMix64's reference outputs for seed 0 (Vigna's splitmix64.c).
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }
}
