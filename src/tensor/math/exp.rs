//! `exp` and the pieces of it the other functions share: Cody–Waite range
//! reduction, the `expm1` polynomial on the reduced argument, and the
//! scale by `2^n` through the exponent bits.
//!
//! `x = n ln2 + r` with `n = round(x log2 e)`, taken from the low bits of
//! `fma(x, log2 e, 1.5 * 2^p)` (the "shifter": the sum lands where the ulp
//! is 1, so its significand holds `n`, rounded to nearest-even by the
//! hardware the same on every level), and `r = x - n ln2_hi - n ln2_lo` in
//! two fused steps (the first is exact: `n ln2_hi` and `x` agree in their
//! leading bits). `e^r = 1 + r + r^2 P(r)` on `|r| <= ln2 / 2`, `P` a
//! minimax fit in Horner form with FMA (`scripts/math_minimax.py`, fit
//! `exp`). The result is `e^r * 2^n` with `2^n` split into two factors
//! `2^floor(n/2) * 2^ceil(n/2)`, each a normal number built from its
//! exponent bits, so results that overflow become `+inf`, and results in
//! the subnormal range round once (the last multiply), as SLEEF's
//! `vldexp2`. The argument is clamped first (`-inf` and very negative
//! arguments give `+0`, `+inf` and very large ones `+inf`); a NaN comes
//! back as is.

use super::{Real, V, horner, keep_nan};
use crate::tensor::lanes::Lanes;
use pulp::Simd;

/// The constants of `exp` for one element type.
pub(crate) trait ExpConsts: Real {
    /// `log2 e` rounded.
    const LOG2E: Self;
    /// `1.5 * 2^MANTISSA_BITS`: adding it rounds to an integer.
    const SHIFTER: Self;
    /// `bits(SHIFTER) - 2 (bias + 1)`: `bits(x + SHIFTER) - this = n + 2 (bias + 1)`.
    const SHIFTER_OFFSET: Self::Uint;
    /// `1` as an integer lane.
    const ONE_BITS: Self::Uint;
    /// `ln 2` rounded, and the rest (`ln 2 - LN2_HI`) rounded.
    const LN2_HI: Self;
    /// See [`LN2_HI`](Self::LN2_HI).
    const LN2_LO: Self;
    /// Arguments are clamped to `[MIN_ARG, MAX_ARG]`: below the smallest
    /// argument with a nonzero result even when the mantissa part is
    /// multiplied by a few hundred before the scaling (`silu`), above the
    /// largest one with a finite result; `n` stays within twice the
    /// exponent range, so both factors of `2^n` are normal.
    const MIN_ARG: Self;
    /// See [`MIN_ARG`](Self::MIN_ARG).
    const MAX_ARG: Self;
    /// `P` in `e^r = 1 + r + r^2 P(r)`, highest degree first.
    const EXPM1: &'static [Self];
}

impl ExpConsts for f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const SHIFTER: f32 = 12_582_912.0;
    const SHIFTER_OFFSET: u32 = 0x4B40_0000 - 256;
    const ONE_BITS: u32 = 1;
    const LN2_HI: f32 = std::f32::consts::LN_2;
    const LN2_LO: f32 = -1.904_654_3e-9;
    const MIN_ARG: f32 = -170.0;
    const MAX_ARG: f32 = 89.0;
    // exp f32: degree 5 on |r| <= 0.34658, relative error of P 2^-26.5.
    const EXPM1: &'static [f32] = &[
        0.00019857801,
        0.00139336,
        0.008333361,
        0.041666467,
        0.16666667,
        0.5,
    ];
}

impl ExpConsts for f64 {
    const LOG2E: f64 = std::f64::consts::LOG2_E;
    const SHIFTER: f64 = 6_755_399_441_055_744.0;
    const SHIFTER_OFFSET: u64 = 0x4338_0000_0000_0000 - 2048;
    const ONE_BITS: u64 = 1;
    const LN2_HI: f64 = std::f64::consts::LN_2;
    const LN2_LO: f64 = 2.319_046_813_846_299_6e-17;
    const MIN_ARG: f64 = -1400.0;
    const MAX_ARG: f64 = 710.0;
    // exp f64: degree 10 on |r| <= 0.34658, relative error of P 2^-57.2.
    const EXPM1: &'static [f64] = &[
        2.0889375313425017e-9,
        2.5105176693310134e-8,
        2.755734962082803e-7,
        2.7557255506863197e-6,
        2.4801587245735247e-5,
        0.0001984126987472661,
        0.0013888888888917963,
        0.008333333333326165,
        0.041666666666666616,
        0.1666666666666667,
        0.5,
    ];
}

/// `x = n ln2 + r`: the reduced argument and `n + 2 (bias + 1)` as an
/// integer lane (what [`Pow2::new`] takes).
pub(super) struct Reduced<E: Lanes, S: Simd> {
    /// `x - n ln2`, within `ln2 / 2` (plus rounding).
    pub(super) r: V<E, S>,
    /// `n + 2 (bias + 1)`, positive for every clamped argument.
    pub(super) k: E::Bits<S>,
}

/// Clamps `x` to `[MIN_ARG, MAX_ARG]` and splits it (a NaN lane gives
/// unspecified lanes: callers select the NaN back at the end).
#[inline(always)]
pub(super) fn reduce<E: ExpConsts, S: Simd>(simd: S, x: V<E, S>) -> Reduced<E, S> {
    let x = E::min(simd, x, E::splat(simd, E::MAX_ARG));
    let x = E::max(simd, x, E::splat(simd, E::MIN_ARG));
    let shifter = E::splat(simd, E::SHIFTER);
    let t = E::mul_add(simd, x, E::splat(simd, E::LOG2E), shifter);
    let n = E::sub(simd, t, shifter);
    let r = E::mul_add(simd, n, E::neg(simd, E::splat(simd, E::LN2_HI)), x);
    let r = E::mul_add(simd, n, E::neg(simd, E::splat(simd, E::LN2_LO)), r);
    let k = E::sub_bits(
        simd,
        E::to_bits(simd, t),
        E::splat_bits(simd, E::SHIFTER_OFFSET),
    );
    Reduced { r, k }
}

/// `e^r - 1 = r + r^2 P(r)` for a reduced argument.
#[inline(always)]
pub(super) fn expm1_reduced<E: ExpConsts, S: Simd>(simd: S, r: V<E, S>) -> V<E, S> {
    let p = horner(simd, r, E::EXPM1);
    E::mul_add(simd, p, E::mul(simd, r, r), r)
}

/// `2^n` as two normal factors `2^floor(n/2)` and `2^ceil(n/2)`.
#[derive(Clone, Copy)]
pub(super) struct Pow2<E: Lanes, S: Simd> {
    low: V<E, S>,
    high: V<E, S>,
}

impl<E: ExpConsts, S: Simd> Pow2<E, S> {
    /// From `k = n + 2 (bias + 1)` (see [`Reduced::k`]).
    #[inline(always)]
    pub(super) fn new(simd: S, k: E::Bits<S>) -> Self {
        let one = E::splat_bits(simd, E::ONE_BITS);
        // h = floor(n / 2) + bias + 1
        let h = E::shr_bits(simd, k, 1);
        let low = E::shl_bits(simd, E::sub_bits(simd, h, one), E::MANTISSA_BITS);
        let high = E::shl_bits(
            simd,
            E::sub_bits(simd, E::sub_bits(simd, k, h), one),
            E::MANTISSA_BITS,
        );
        Self {
            low: E::from_bits(simd, low),
            high: E::from_bits(simd, high),
        }
    }

    /// `v * 2^n`, rounded once (by the second multiply) when the result is
    /// subnormal, `inf` when it overflows.
    #[inline(always)]
    pub(super) fn scale(self, simd: S, v: V<E, S>) -> V<E, S> {
        E::mul(simd, E::mul(simd, v, self.low), self.high)
    }

    /// `2^n` itself, for `n` within the normal exponent range.
    #[inline(always)]
    pub(super) fn value(self, simd: S) -> V<E, S> {
        E::mul(simd, self.low, self.high)
    }
}

/// `e^x` lane-wise.
#[inline(always)]
pub(crate) fn exp<E: ExpConsts, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    let reduced = reduce::<E, S>(simd, x);
    let y = E::add(
        simd,
        expm1_reduced::<E, S>(simd, reduced.r),
        E::splat(simd, E::ONE),
    );
    keep_nan::<E, S>(simd, x, Pow2::<E, S>::new(simd, reduced.k).scale(simd, y))
}

#[cfg(test)]
mod tests {
    use super::super::apply::Function;
    use super::super::testing::{Case, check_f32_sampled, check_f64_fixture, check_levels};

    #[test]
    fn bit_identical_on_every_level() {
        check_levels(Function::Exp);
    }

    #[test]
    fn f32_accuracy_sampled() {
        check_f32_sampled(Case::of(Function::Exp));
    }

    #[test]
    fn f64_accuracy_against_mpmath() {
        check_f64_fixture(Case::of(Function::Exp));
    }

    #[test]
    fn special_values() {
        use super::super::scalar::exp;
        assert_eq!(exp(0.0_f32), 1.0);
        assert_eq!(exp(-0.0_f64), 1.0);
        assert_eq!(exp(f32::INFINITY), f32::INFINITY);
        assert_eq!(exp(f64::NEG_INFINITY).to_bits(), 0);
        assert_eq!(exp(89.0_f32), f32::INFINITY);
        assert_eq!(exp(709.0_f64), 709.0_f64.exp());
        assert_eq!(exp(710.0_f64), f64::INFINITY);
        assert_eq!(exp(-103.0_f32), (-103.0_f64).exp() as f32); // subnormal
        assert_eq!(exp(-745.0_f64), f64::from_bits(1)); // the smallest subnormal
        assert_eq!(exp(-746.0_f64), 0.0);
        assert!(exp(f32::NAN).is_nan());
    }
}
