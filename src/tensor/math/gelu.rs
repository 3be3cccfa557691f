//! `gelu_tanh`: GPT-2's GELU, `0.5 x (1 + tanh(√(2/π) (x + 0.044715 x^3)))`.
//!
//! `1 + tanh u = 2 sigmoid(2u)`, so `gelu_tanh(x) = x sigmoid(v)` with
//! `v = 2u = c1 x + c2 x^3`, `c1 = 2√(2/π)`, `c2 = 0.044715 c1`: no
//! cancellation for negative `x` (where `1 + tanh u` would lose every bit).
//! For `x < 0` the result is `x e^v / (1 + e^v)`, whose relative error is
//! about `|v|` times that of `v` (`|v|` reaches 100 before the result
//! underflows), so `v` is computed in double-word arithmetic (`c1`, `c2`
//! as two words, exact products by FMA, a two-sum) and its low word joins
//! the reduced argument of `exp`. The sigmoid part is [`times_sigmoid`],
//! shared with `silu`. `x` is clamped to `±SATURATE` for `v` (the result
//! is `x` above, `-0` below); `gelu_tanh(-inf) = -0`, `gelu_tanh(+inf) = +inf`.

use super::tanh::{TanhConsts, decay, times_sigmoid};
use super::{V, keep_nan, square_exact};
use pulp::Simd;

/// The constants of `gelu_tanh` for one element type.
pub(crate) trait GeluConsts: TanhConsts {
    /// `2√(2/π)` as two words.
    const C1: (Self, Self);
    /// `0.044715 * 2√(2/π)` as two words.
    const C2: (Self, Self);
}

impl GeluConsts for f32 {
    const C1: (f32, f32) = (1.595_769_2, -4.534_068e-8);
    const C2: (f32, f32) = (0.071_354_814, 2.398_832_5e-9);
}

impl GeluConsts for f64 {
    const C1: (f64, f64) = (1.595_769_121_605_730_8, -9.969_308_809_110_92e-17);
    const C2: (f64, f64) = (0.071_354_816_272_600_25, -6.175_149_918_155_315e-19);
}

/// `v = c1 x + c2 x^3` as `(hi, lo)`, `hi + lo` within a few units of the
/// second word of `v`.
#[inline(always)]
fn inner<E: GeluConsts, S: Simd>(simd: S, x: V<E, S>) -> (V<E, S>, V<E, S>) {
    let (c1h, c1l) = (E::splat(simd, E::C1.0), E::splat(simd, E::C1.1));
    let (c2h, c2l) = (E::splat(simd, E::C2.0), E::splat(simd, E::C2.1));
    let (x2h, x2l) = square_exact::<E, S>(simd, x);
    // c2 x^2 = ph + pl exactly (for the high words)
    let ph = E::mul(simd, c2h, x2h);
    let pl = E::mul_add(simd, c2h, x2h, E::neg(simd, ph));
    // w = c1 + c2 x^2: two-sum of the high words, then the small terms
    let wh = E::add(simd, c1h, ph);
    let bb = E::sub(simd, wh, c1h);
    let err = E::add(
        simd,
        E::sub(simd, c1h, E::sub(simd, wh, bb)),
        E::sub(simd, ph, bb),
    );
    let small = E::mul_add(simd, c2h, x2l, pl);
    let small = E::mul_add(simd, c2l, x2h, small);
    let small = E::add(simd, small, c1l);
    let wl = E::add(simd, err, small);
    // v = x w
    let vh = E::mul(simd, x, wh);
    let vl = E::mul_add(simd, x, wh, E::neg(simd, vh));
    let vl = E::mul_add(simd, x, wl, vl);
    (vh, vl)
}

/// `0.5 x (1 + tanh(√(2/π) (x + 0.044715 x^3)))` lane-wise.
#[inline(always)]
pub(crate) fn gelu_tanh<E: GeluConsts, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    let limit = E::splat(simd, E::SATURATE);
    let xc = E::max(simd, E::min(simd, x, limit), E::neg(simd, limit));
    let (vh, vl) = inner::<E, S>(simd, xc);
    let zero = E::splat(simd, E::ZERO);
    let v_positive = E::greater_equal(simd, vh, zero);
    // -|v| = -|vh| - sign(vh) vl
    let lo = E::select(simd, v_positive, E::neg(simd, vl), vl);
    let d = decay::<E, S>(simd, E::neg(simd, E::abs(simd, vh)), lo);
    let positive = E::greater_equal(simd, x, zero);
    keep_nan::<E, S>(simd, x, times_sigmoid::<E, S>(simd, x, xc, positive, d))
}

#[cfg(test)]
mod tests {
    use super::super::apply::Function;
    use super::super::testing::{Case, check_f32_sampled, check_f64_fixture, check_levels};

    #[test]
    fn bit_identical_on_every_level() {
        check_levels(Function::GeluTanh);
    }

    #[test]
    fn f32_accuracy_sampled() {
        check_f32_sampled(Case::of(Function::GeluTanh));
    }

    #[test]
    fn f64_accuracy_against_mpmath() {
        check_f64_fixture(Case::of(Function::GeluTanh));
    }

    #[test]
    fn special_values() {
        use super::super::scalar::gelu_tanh;
        assert_eq!(gelu_tanh(0.0_f32).to_bits(), 0);
        assert_eq!(gelu_tanh(-0.0_f64).to_bits(), (-0.0_f64).to_bits());
        assert_eq!(gelu_tanh(f32::INFINITY), f32::INFINITY);
        assert_eq!(gelu_tanh(f64::NEG_INFINITY).to_bits(), (-0.0_f64).to_bits());
        assert_eq!(gelu_tanh(30.0_f32), 30.0);
        assert!(gelu_tanh(-10.0_f32) < 0.0); // about -1.3e-37, not flushed
        assert!(gelu_tanh(f64::NAN).is_nan());
    }
}
