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

use super::exp::{ExpConsts, Pow2, expm1_reduced, reduce};
use super::{V, horner, keep_nan};
use crate::tensor::traverse::simd::Element;
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
    /// `P` in `tanh x = x + x^3 P(x^2)`, highest degree first.
    const TANH: &'static [Self];
}

impl TanhConsts for f32 {
    const SMALL: f32 = 0.625;
    const BIG: f32 = 10.0;
    const SILU_MIN: f32 = -200.0;
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
    // tanh(-0) = -0: the sum above is +0 there; elsewhere `small` has the
    // sign of x already
    let sign = E::and_bits(
        simd,
        E::to_bits(simd, x),
        E::to_bits(simd, E::neg(simd, E::splat(simd, E::ZERO))),
    );
    let small = E::from_bits(simd, E::or_bits(simd, E::to_bits(simd, small), sign));

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

/// `exp(-|t|)` in parts: the mantissa part `y` (in `[√½, √2]`), its scale,
/// and `1 + exp(-|t|)`.
pub(super) struct Decay<E: Element, S: Simd> {
    y: V<E, S>,
    scale: Pow2<E, S>,
    one_plus: V<E, S>,
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
    let y = E::add(simd, expm1_reduced::<E, S>(simd, r), one);
    let scale = Pow2::<E, S>::new(simd, reduced.k);
    let one_plus = E::add(simd, one, scale.scale(simd, y));
    Decay { y, scale, one_plus }
}

/// `x / (1 + exp(-x))` where `x >= 0`, `x e^x / (1 + e^x)` below, for a
/// `t` of the sign of `x` whose `exp(-|t|)` is `decay` (`silu`: `t = x`;
/// `gelu_tanh`: `t = 2u`). `x_low` is `x` clamped from below.
#[inline(always)]
pub(super) fn times_sigmoid<E: TanhConsts, S: Simd>(
    simd: S,
    x: V<E, S>,
    x_low: V<E, S>,
    positive: E::Mask<S>,
    d: Decay<E, S>,
) -> V<E, S> {
    let above = E::div(simd, x, d.one_plus);
    let below = d
        .scale
        .scale(simd, E::div(simd, E::mul(simd, x_low, d.y), d.one_plus));
    E::select(simd, positive, above, below)
}

/// `1 / (1 + exp(-x))` lane-wise.
#[inline(always)]
pub(crate) fn sigmoid<E: TanhConsts, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    let zero = E::splat(simd, E::ZERO);
    let d = decay::<E, S>(simd, E::neg(simd, E::abs(simd, x)), zero);
    let positive = E::greater_equal(simd, x, zero);
    let numerator = E::select(simd, positive, E::splat(simd, E::ONE), d.y);
    let q = E::div(simd, numerator, d.one_plus);
    let result = E::select(simd, positive, q, d.scale.scale(simd, q));
    keep_nan::<E, S>(simd, x, result)
}

/// `x * sigmoid(x)` lane-wise.
#[inline(always)]
pub(crate) fn silu<E: TanhConsts, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    let zero = E::splat(simd, E::ZERO);
    let d = decay::<E, S>(simd, E::neg(simd, E::abs(simd, x)), zero);
    let positive = E::greater_equal(simd, x, zero);
    let x_low = E::max(simd, x, E::splat(simd, E::SILU_MIN));
    keep_nan::<E, S>(simd, x, times_sigmoid::<E, S>(simd, x, x_low, positive, d))
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
        assert_eq!(silu(f32::INFINITY), f32::INFINITY);
        assert_eq!(silu(f64::NEG_INFINITY).to_bits(), (-0.0_f64).to_bits());
        assert!(silu(-100.0_f32) < 0.0);
        for f in [tanh::<f32>, sigmoid::<f32>, silu::<f32>] {
            assert!(f(f32::NAN).is_nan());
        }
    }
}
