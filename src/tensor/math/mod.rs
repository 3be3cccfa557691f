//! The crate's own transcendental functions, for `f32` and `f64`, scalar
//! and SIMD, with the same bits everywhere.
//!
//! Each function is written once, generic over the lane type
//! ([`Lanes`]) and `pulp`'s instruction set, as one fixed sequence of
//! exactly rounded IEEE operations (add, sub, mul, div, sqrt, fused
//! multiply-add, comparisons, selects and bit manipulation). Every SIMD
//! level (`pulp::Scalar`, AVX2 + FMA, AVX-512) therefore gives the same
//! bits for every input, and so does the scalar model ([`scalar`]: the
//! same code with `pulp::Scalar`'s one-lane vectors). Branches are lane
//! selects: every piece is computed and the lane keeps its own. No std or
//! libm transcendental appears here (they are the tests' references only).
//!
//! | function | method | max error f32 (all 2^32 inputs) | max error f64 (2048 sampled) | source |
//! |---|---|---|---|---|
//! | `exp` | Cody–Waite reduction with FMA, degree-5 / 10 minimax `expm1` in Horner form, scale by `2^n` as two exponent-bit factors | 1 ulp | 1 ulp | SLEEF-style reduction and scaling; own Remez fit |
//! | `ln` | `x = 2^k m`, `m` in `[√½, √2)` from the bits; `ln(1+f) = f - f²/2 + s(f²/2 + R(s²))`, `s = f/(2+f)` | 1 ulp | 1 ulp | fdlibm `e_log.c` form; own Remez fit of `R` |
//! | `tanh` | odd minimax below 0.625; above `em / (em + 2)`, `em = expm1(2 abs(x))` in one fused step | 1 ulp | 1 ulp | Cephes-style split; own Remez fit |
//! | `sigmoid` | `1 / (1 + e)` for `x ≥ 0`, `e / (1 + e)` below, `e = exp(-abs(x))`; two-word terms, remainder-corrected quotient, scale last | 1 ulp | 1 ulp | own |
//! | `silu` | `x / (1 + e)`, `x e / (1 + e)`, as `sigmoid` | 1 ulp | 1 ulp | own |
//! | `gelu_tanh` | `x · sigmoid(2u)` (`1 + tanh u = 2 sigmoid 2u`), `2u` in double-word arithmetic | 1 ulp | 1 ulp | own |
//! | `erf` | `x + x P(x²)` below 0.5; `1 - erfc`, `erfc(z) = exp(-z²) Q(z)`, `Q` in four lane-selected pieces, `z²` as two words | 1 ulp | 1 ulp | fdlibm-style split, SLEEF-style coefficient selection; own Remez fits |
//! | `gelu_erf` | `0.5 x (1 + erf(x/√2))` in two-word steps below `abs(x)/√2 = 0.5`; beyond `x - c` / `-c`, `c = 0.5 abs(x) erfc(abs(x)/√2)` (no cancellation for negative `x`) | 1 ulp | 1 ulp | own |
//! | `sqrt` | hardware (correctly rounded) | 0 ulp | 0 ulp | IEEE 754 |
//! | `rsqrt` | `1 / sqrt(x)`, two correct roundings | 1 ulp | 1 ulp | — |
//! | `recip` | `1 / x` (correctly rounded) | 0 ulp | 0 ulp | IEEE 754 |
//!
//! The f32 column is measured against the f64 functions of std / libm
//! rounded to f32 (`sigmoid`, `silu`, `gelu_*` in their stable f64 forms)
//! over every bit pattern (`cargo test --release --lib math -- --ignored`,
//! about 20 minutes on two cores); the f64 column against mpmath at 60
//! digits on 2048 inputs per function, dense where the method changes
//! (`scripts/math_reference.py`, `tests/fixtures/math/f64_reference.bin`).
//! Errors are distances in representable numbers to the correctly rounded
//! result (1 ulp: not always the nearest, never further). The sampled f32
//! tests and the f64 fixture test run by default and assert these bounds.
//! Polynomial coefficients come from `scripts/math_minimax.py` (a Remez
//! exchange in mpmath, coefficients rounded greedily).
//!
//! NaN inputs come back NaN with their payload (`sqrt`, `rsqrt`, `recip`
//! and `square` compute with them, which quiets a signaling NaN, as IEEE
//! 754 arithmetic does); results that are NaN for a number
//! (`ln` of a negative) are the canonical quiet NaN. At the infinities the
//! functions take their limits: `silu(-inf) = gelu_*(-inf) = -0` (where
//! the textbook formulas give `-inf * 0 = NaN`), `tanh(±inf) = ±1`,
//! `sigmoid(-inf) = +0`, `exp(-inf) = +0`, `ln(+0) = -inf`. Subnormal
//! results are produced, not flushed, and rounded once.

// The one-value scalar forms (`scalar.rs`), `map_slice` and
// `Function::ALL` serve the tests and the exhaustive checks only.
#![allow(dead_code)]

pub(crate) mod apply;
mod erf;
#[cfg(test)]
mod exhaustive;
mod exp;
mod gelu;
mod log;
mod roots;
pub(crate) mod scalar;
#[cfg(test)]
mod speed;
mod tanh;
#[cfg(test)]
mod testing;

use crate::tensor::lanes::Lanes;
use pulp::Simd;

/// One vector of `E` lanes under `S`.
pub(crate) type V<E, S> = <E as Lanes>::Vector<S>;

/// The plain constants every function uses, per element type.
pub(crate) trait Real: Lanes {
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// `2`.
    const TWO: Self;
    /// `0.5`.
    const HALF: Self;
    /// `+inf`.
    const INFINITY: Self;
    /// The canonical quiet NaN.
    const NAN: Self;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const TWO: f32 = 2.0;
    const HALF: f32 = 0.5;
    const INFINITY: f32 = f32::INFINITY;
    const NAN: f32 = f32::NAN;
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const TWO: f64 = 2.0;
    const HALF: f64 = 0.5;
    const INFINITY: f64 = f64::INFINITY;
    const NAN: f64 = f64::NAN;
}

/// Every function's constants: what [`apply::map_slice`] needs of its element.
pub(crate) trait Math:
    exp::ExpConsts + log::LnConsts + tanh::TanhConsts + erf::ErfConsts + gelu::GeluConsts
{
}

impl Math for f32 {}
impl Math for f64 {}

/// `c[0] x^(n-1) + ... + c[n-1]` in Horner form with fused multiply-adds
/// (highest degree first; the loop is unrolled, `c` being a constant).
#[inline(always)]
pub(crate) fn horner<E: Lanes, S: Simd>(simd: S, x: V<E, S>, c: &[E]) -> V<E, S> {
    let mut acc = E::splat(simd, c[0]);
    for &coefficient in &c[1..] {
        acc = E::mul_add(simd, acc, x, E::splat(simd, coefficient));
    }
    acc
}

/// `x * x` exactly, as `(hi, lo)` with `hi = x * x` rounded and
/// `lo = fma(x, x, -hi)` (exact unless `x * x` underflows).
#[inline(always)]
pub(crate) fn square_exact<E: Lanes, S: Simd>(simd: S, x: V<E, S>) -> (V<E, S>, V<E, S>) {
    let hi = E::mul(simd, x, x);
    let lo = E::mul_add(simd, x, x, E::neg(simd, hi));
    (hi, lo)
}

/// `x` where the lane is NaN, else `value` (every function ends with it).
#[inline(always)]
pub(crate) fn keep_nan<E: Lanes, S: Simd>(simd: S, x: V<E, S>, value: V<E, S>) -> V<E, S> {
    E::select(simd, E::is_nan(simd, x), x, value)
}

/// `v` with the sign bit of `x` or-ed in: gives a zero `v` the sign of `x`
/// (for results known to have the sign of `x` when nonzero, whose last
/// step is a sum that turns `-0` into `+0`).
#[inline(always)]
pub(crate) fn or_sign_of<E: Real, S: Simd>(simd: S, v: V<E, S>, x: V<E, S>) -> V<E, S> {
    let negative_zero = E::neg(simd, E::splat(simd, E::ZERO));
    let sign = E::and_bits(simd, E::to_bits(simd, x), E::to_bits(simd, negative_zero));
    E::from_bits(simd, E::or_bits(simd, E::to_bits(simd, v), sign))
}
