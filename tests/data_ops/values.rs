//! Float inputs for the argmax and softmax tests: both precisions, and
//! values that stress the max policy and the softmax (NaNs with distinct
//! payloads, both zeros, ties, ±inf, values whose `exp` overflows or
//! underflows), plus fully masked (-inf) groups.

#![allow(dead_code)] // each test file uses a part

use super::layout::{Layout, coordinates, mix};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::DynTensor;

/// `f32` or `f64` in the tests.
pub trait Elem: Float + std::fmt::Debug {
    const NAME: &'static str;
    fn from_f64(x: f64) -> Self;
    /// A NaN whose payload is `payload` (nonzero, small).
    fn nan_with(payload: u64) -> Self;
    fn bits(self) -> u64;
}

impl Elem for f64 {
    const NAME: &'static str = "f64";
    fn from_f64(x: f64) -> Self {
        x
    }
    fn nan_with(payload: u64) -> Self {
        f64::from_bits(0x7ff8_0000_0000_0000 | payload)
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

impl Elem for f32 {
    const NAME: &'static str = "f32";
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn nan_with(payload: u64) -> Self {
        f32::from_bits(0x7fc0_0000 | (payload as u32 & 0xffff))
    }
    fn bits(self) -> u64 {
        self.to_bits().into()
    }
}

/// The tricky value for owner offset `k`; `nan_free` leaves NaN out.
pub fn tricky<F: Elem>(seed: u64, k: usize, nan_free: bool) -> F {
    let h = mix(seed, k);
    let sign = if h & 1 == 0 { 1.0 } else { -1.0 };
    match (h >> 1) % 32 {
        0 if !nan_free => F::nan_with(1 + (h >> 40) % 4096),
        1 => F::from_f64(-0.0),
        2 => F::from_f64(0.0),
        3 | 4 => F::neg_infinity(),
        5 => F::infinity(),
        6 => F::from_f64(sign * 1e3), // exp(±1000) overflows / underflows
        7..=14 => F::from_f64(((h >> 8) % 5) as f64 - 2.0), // ties
        _ => F::from_f64(sign * ((h >> 8) % 2000) as f64 / 97.0),
    }
}

/// An owner for `layout` holding tricky values; when `masked`, some groups
/// along `axis` (all other coordinates fixed) are set to -inf entirely, as a
/// causal mask does to a row of attention scores.
pub fn owner<F: Elem>(
    layout: &Layout,
    seed: u64,
    nan_free: bool,
    masked: Option<usize>,
) -> DynTensor<F> {
    let mut owner = layout.owner(|k| tricky::<F>(seed, k, nan_free));
    if let Some(axis) = masked {
        for c in coordinates(&layout.shape) {
            let mut group = c.clone();
            group.remove(axis);
            let id = group.iter().fold(0, |id, &i| id * 8 + i);
            if mix(seed ^ 0x5eed, id).is_multiple_of(3) {
                owner.as_mut_slice()[layout.offset(&c)] = F::neg_infinity();
            }
        }
    }
    owner
}

/// Bits, with every NaN folded to one pattern: Rust and LLVM do not specify
/// the payload of a NaN produced by arithmetic (an addition may swap its
/// operands), so results are compared bit for bit except that any NaN
/// matches any NaN.
pub fn canonical<F: Elem>(values: &[F]) -> Vec<u64> {
    values
        .iter()
        .map(|x| if x.is_nan() { u64::MAX } else { x.bits() })
        .collect()
}

/// The exact bits (payloads included), for values that are copies, not results of arithmetic.
pub fn exact<F: Elem>(values: &[F]) -> Vec<u64> {
    values.iter().map(|x| x.bits()).collect()
}
