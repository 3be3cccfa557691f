//! Pieces of the scalar models of the 16-lane `x · Wᵀ` kernels (`linear`
//! and `half_linear`), shared by their tests: the lanes' pairwise sum and
//! a small deterministic generator of test values.

/// The pairwise sum of 16 lanes of the kernel docs: lane `l` plus lane
/// `l + width` for widths 8, 4, 2, 1.
pub fn tree(mut v: [f32; 16]) -> f32 {
    for width in [8, 4, 2, 1] {
        for l in 0..width {
            v[l] += v[l + width];
        }
    }
    v[0]
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in [-1, 1) with 24 random bits.
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}
