//! `tanh`, `sigmoid` and `silu`, on the pieces of `exp`.
//!
//! - `tanh`: below `|x| = 0.625` the odd minimax `x + x^3 P(x^2)`
//!   (`scripts/math_minimax.py`, fit `tanh`); above, `em / (em + 2)` with
//!   `em = expm1(2|x|) = fma(2^n, expm1(r), 2^n - 1)` (one rounding: no
//!   cancellation near 0, unlike `1 - 2 / (e^2x + 1)`), the sign put back.
//!   `|x|` is clamped to 10 (f32) / 20 (f64), where `tanh` is 1.
//! - `sigmoid`: with `e = exp(-|x|) = y 2^n`, `1 / (1 + e)` for `x >= 0`
//!   and `scale(y / (1 + e))` below, so the quotient is formed at full
//!   precision and rounded into the subnormal range once, at the end.
//! - `silu`: `x / (1 + e)` for `x >= 0`, `scale(x y / (1 + e))` below.
//!   `silu(-inf) = -0` (the limit; `-inf * 0` would be NaN).
//!
//! In both, `y`, `1 + e` and `x y` are carried as two words (fast
//! two-sums, FMA products) and the quotient is `n / d` corrected once by
//! its exact remainder, so the result is rounded about once: the roundings
//! of a plain `x * y / (1 + e)` cost up to 3 ulp.

use super::exp::{ExpConsts, Pow2, expm1_reduced, reduce};
use super::{V, horner, keep_nan, or_sign_of};
use crate::tensor::lanes::Lanes;
use pulp::Simd;

/// The constants of `tanh`, `sigmoid` and `silu` for one element type.
pub(crate) trait TanhConsts: ExpConsts {
    /// Below this `|x|`, the odd polynomial.
    const SMALL: Self;
    /// `|x|` is clamped to this (`tanh` rounds to 1 well before).
    const BIG: Self;
    /// `silu`'s `x` in the numerator of the negative branch is clamped to
    /// this (the result is `-0` well before).
    const SILU_MIN: Self;
    /// From here `x sigmoid(t)` is `x` (`exp(-t)` is below half an ulp).
    const SATURATE: Self;
    /// `P` in `tanh x = x + x^3 P(x^2)`, highest degree first.
    const TANH: &'static [Self];
}

impl TanhConsts for f32 {
    const SMALL: f32 = 0.625;
    const BIG: f32 = 10.0;
    const SILU_MIN: f32 = -200.0;
    const SATURATE: f32 = 20.0;
    // tanh f32: degree 5 on x^2 <= 0.390625, relative error of P 2^-24.6.
    const TANH: &'static [f32] = &[
        0.0022928303,
        -0.008344029,
        0.021768948,
        -0.053959265,
        0.13333304,
        -0.33333334,
    ];
}

impl TanhConsts for f64 {
    const SMALL: f64 = 0.625;
    const BIG: f64 = 20.0;
    const SILU_MIN: f64 = -2000.0;
    const SATURATE: f64 = 40.0;
    // tanh f64: degree 12 on x^2 <= 0.390625, relative error of P 2^-53.5.
    const TANH: &'static [f64] = &[
        -2.4389225951176338e-6,
        1.221013534417836e-5,
        -3.708128859504249e-5,
        9.604122105537452e-5,
        -0.0002388894948434576,
        0.0005899818278282804,
        -0.001455828401808949,
        0.0035921275078142642,
        -0.00886323549981681,
        0.021869488535133826,
        -0.053968253968235916,
        0.13333333333333322,
        -0.3333333333333333,
    ];
}

/// `tanh x` lane-wise.
#[inline(always)]
pub(crate) fn tanh<E: TanhConsts, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    let a = E::abs(simd, x);
    let z = E::mul(simd, x, x);
    let small = E::mul_add(simd, E::mul(simd, x, z), horner(simd, z, E::TANH), x);
    // tanh(-0) = -0: the sum above is +0 there
    let small = or_sign_of::<E, S>(simd, small, x);

    let a = E::min(simd, a, E::splat(simd, E::BIG));
    let reduced = reduce::<E, S>(simd, E::add(simd, a, a));
    let p = Pow2::<E, S>::new(simd, reduced.k).value(simd);
    let one = E::splat(simd, E::ONE);
    let em = E::mul_add(
        simd,
        p,
        expm1_reduced::<E, S>(simd, reduced.r),
        E::sub(simd, p, one),
    );
    let big = E::div(simd, em, E::add(simd, em, E::splat(simd, E::TWO)));
    let zero = E::splat(simd, E::ZERO);
    let big = E::select(simd, E::less_than(simd, x, zero), E::neg(simd, big), big);

    let is_small = E::less_than(simd, E::abs(simd, x), E::splat(simd, E::SMALL));
    keep_nan::<E, S>(simd, x, E::select(simd, is_small, small, big))
}

/// `exp(-|t|)` in parts, each as two words: the mantissa part
/// `y + y_lo = 1 + expm1(r)` (`y` in `[√½, √2]`), its scale `2^n`, and
/// `d + d_lo = 1 + exp(-|t|)`.
pub(super) struct Decay<E: Lanes, S: Simd> {
    y: V<E, S>,
    y_lo: V<E, S>,
    scale: Pow2<E, S>,
    d: V<E, S>,
    d_lo: V<E, S>,
}

/// [`Decay`] of `minus_abs + lo` (`lo` a small correction, e.g. the low
/// word of a double-word argument).
#[inline(always)]
pub(super) fn decay<E: TanhConsts, S: Simd>(
    simd: S,
    minus_abs: V<E, S>,
    lo: V<E, S>,
) -> Decay<E, S> {
    let reduced = reduce::<E, S>(simd, minus_abs);
    let r = E::add(simd, reduced.r, lo);
    let one = E::splat(simd, E::ONE);
    let s = expm1_reduced::<E, S>(simd, r);
    // fast two-sums: |s| < 1, and e = exp(-|t|) <= 1
    let y = E::add(simd, one, s);
    let y_lo = E::sub(simd, s, E::sub(simd, y, one));
    let scale = Pow2::<E, S>::new(simd, reduced.k);
    let e = scale.scale(simd, y);
    let d = E::add(simd, one, e);
    let d_lo = E::add(
        simd,
        E::sub(simd, e, E::sub(simd, d, one)),
        scale.scale(simd, y_lo),
    );
    Decay {
        y,
        y_lo,
        scale,
        d,
        d_lo,
    }
}

/// `(n + n_lo) / (d + d_lo)` rounded once up to a small fraction of an
/// ulp: the product by `1 / d`, corrected once by the exact remainder
/// `fma(-q, d, n)` (finite `n` only).
#[inline(always)]
fn divide<E: TanhConsts, S: Simd>(
    simd: S,
    n: V<E, S>,
    n_lo: V<E, S>,
    decay: &Decay<E, S>,
) -> V<E, S> {
    let inv = E::div(simd, E::splat(simd, E::ONE), decay.d);
    let q = E::mul(simd, n, inv);
    let rem = E::mul_add(simd, E::neg(simd, q), decay.d, n);
    let rem = E::mul_add(simd, E::neg(simd, q), decay.d_lo, E::add(simd, rem, n_lo));
    // the correction turns a -0 quotient into +0; the sign is n's
    or_sign_of::<E, S>(simd, E::mul_add(simd, rem, inv, q), n)
}

/// `x / (1 + exp(-x))` where `x >= 0`, `x e^x / (1 + e^x)` below, for a
/// `t` of the sign of `x` whose `exp(-|t|)` is `decay` (`silu`: `t = x`;
/// `gelu_tanh`: `t = 2u`). `x_low` is `x` clamped from below, `x_high`
/// from above to [`SATURATE`](TanhConsts::SATURATE), from where the
/// result is `x` itself (`+inf` included).
#[inline(always)]
pub(super) fn times_sigmoid<E: TanhConsts, S: Simd>(
    simd: S,
    x: V<E, S>,
    x_low: V<E, S>,
    positive: E::Mask<S>,
    decay: Decay<E, S>,
) -> V<E, S> {
    let saturate = E::splat(simd, E::SATURATE);
    let x_high = E::min(simd, x, saturate);
    // below: x y / d, with x y as two words
    let xy = E::mul(simd, x_low, decay.y);
    let xy_lo = E::mul_add(
        simd,
        x_low,
        decay.y_lo,
        E::mul_add(simd, x_low, decay.y, E::neg(simd, xy)),
    );
    let zero = E::splat(simd, E::ZERO);
    let n = E::select(simd, positive, x_high, xy);
    let n_lo = E::select(simd, positive, zero, xy_lo);
    let q = divide::<E, S>(simd, n, n_lo, &decay);
    let result = E::select(simd, positive, q, decay.scale.scale(simd, q));
    E::select(simd, E::greater_equal(simd, x, saturate), x, result)
}

/// `1 / (1 + exp(-x))` lane-wise.
#[inline(always)]
pub(crate) fn sigmoid<E: TanhConsts, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    let zero = E::splat(simd, E::ZERO);
    let decay = decay::<E, S>(simd, E::neg(simd, E::abs(simd, x)), zero);
    let positive = E::greater_equal(simd, x, zero);
    let n = E::select(simd, positive, E::splat(simd, E::ONE), decay.y);
    let n_lo = E::select(simd, positive, zero, decay.y_lo);
    let q = divide::<E, S>(simd, n, n_lo, &decay);
    let result = E::select(simd, positive, q, decay.scale.scale(simd, q));
    keep_nan::<E, S>(simd, x, result)
}

/// `x * sigmoid(x)` lane-wise.
#[inline(always)]
pub(crate) fn silu<E: TanhConsts, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    let zero = E::splat(simd, E::ZERO);
    let decay = decay::<E, S>(simd, E::neg(simd, E::abs(simd, x)), zero);
    let positive = E::greater_equal(simd, x, zero);
    let x_low = E::max(simd, x, E::splat(simd, E::SILU_MIN));
    keep_nan::<E, S>(
        simd,
        x,
        times_sigmoid::<E, S>(simd, x, x_low, positive, decay),
    )
}

#[cfg(test)]
mod tests {
    use super::super::apply::Function;
    use super::super::testing::{Case, check_f32_sampled, check_f64_fixture, check_levels};

    #[test]
    fn bit_identical_on_every_level() {
        for f in [Function::Tanh, Function::Sigmoid, Function::Silu] {
            check_levels(f);
        }
    }

    #[test]
    fn f32_accuracy_sampled() {
        for f in [Function::Tanh, Function::Sigmoid, Function::Silu] {
            check_f32_sampled(Case::of(f));
        }
    }

    #[test]
    fn f64_accuracy_against_mpmath() {
        for f in [Function::Tanh, Function::Sigmoid, Function::Silu] {
            check_f64_fixture(Case::of(f));
        }
    }

    #[test]
    fn special_values() {
        use super::super::scalar::{sigmoid, silu, tanh};
        assert_eq!(tanh(0.0_f32).to_bits(), 0);
        assert_eq!(tanh(-0.0_f64).to_bits(), (-0.0_f64).to_bits());
        assert_eq!(tanh(f32::INFINITY), 1.0);
        assert_eq!(tanh(f64::NEG_INFINITY), -1.0);
        assert_eq!(tanh(1e-30_f32), 1e-30);
        assert_eq!(sigmoid(0.0_f32), 0.5);
        assert_eq!(sigmoid(-0.0_f64), 0.5);
        assert_eq!(sigmoid(f32::INFINITY), 1.0);
        assert_eq!(sigmoid(f64::NEG_INFINITY).to_bits(), 0);
        assert!(sigmoid(-100.0_f32) > 0.0); // subnormal, not flushed
        assert_eq!(silu(0.0_f32).to_bits(), 0);
        assert_eq!(silu(-0.0_f32).to_bits(), (-0.0_f32).to_bits());
        assert_eq!(silu(f32::INFINITY), f32::INFINITY);
        assert_eq!(silu(f64::NEG_INFINITY).to_bits(), (-0.0_f64).to_bits());
        assert!(silu(-100.0_f32) < 0.0);
        for f in [tanh::<f32>, sigmoid::<f32>, silu::<f32>] {
            assert!(f(f32::NAN).is_nan());
        }
    }
}
