//! `ln`: exponent and mantissa from the bits, then fdlibm's `log1p` core.
//!
//! Subnormal arguments are first scaled by `2^(p+2)`. The bits give
//! `x = 2^k m` with `m` in `[√½, √2)` (one integer offset moves the split
//! point from 1 to `√½`, as musl's `logf`), `k` becomes a float through the
//! shifter (no integer-to-float conversion: `pulp`'s `Simd` trait has
//! none), and with `f = m - 1` (exact), `s = f / (2 + f)`, `z = s^2`:
//!
//! `ln x = k ln2_hi + (f - (f^2/2 - (s (f^2/2 + R) + k ln2_lo)))`,
//! `R = z L(z)`, the evaluation order of fdlibm's `e_log.c` (the rounding
//! of `s` only reaches the small correction term), with the two `k ln2`
//! products fused. `L` is a minimax fit (`scripts/math_minimax.py`, fit
//! `ln`; the same degrees as fdlibm's `Lg1..Lg4` / `Lg1..Lg7`).
//! `ln(±0) = -inf`, `ln(x < 0) = NaN`, `ln(+inf) = +inf`.

use super::exp::ExpConsts;
use super::{V, horner, keep_nan};
use pulp::Simd;

/// The constants of `ln` for one element type.
pub(crate) trait LnConsts: ExpConsts {
    /// The smallest positive normal number.
    const MIN_POSITIVE: Self;
    /// `2^(MANTISSA_BITS + 2)`, the scale of subnormal arguments.
    const SUBNORMAL_SCALE: Self;
    /// `MANTISSA_BITS + 2`, subtracted from `k` for them.
    const SUBNORMAL_K: Self;
    /// The bits of `√½` rounded down.
    const SQRT_HALF_BITS: Self::Uint;
    /// `2^(bits - 2) - SQRT_HALF_BITS`: `bits(x) + this` has `k + 2^(e - 1)`
    /// (`e` the exponent width) above the significand, never negative.
    const SPLIT_OFFSET: Self::Uint;
    /// `bits(SHIFTER) - 2^(e - 1)`: turns the biased `k` into `SHIFTER + k`.
    const K_TO_FLOAT: Self::Uint;
    /// `2^MANTISSA_BITS - 1`.
    const MANTISSA_MASK: Self::Uint;
    /// `L`, highest degree first.
    const LN: &'static [Self];
}

impl LnConsts for f32 {
    const MIN_POSITIVE: f32 = f32::MIN_POSITIVE;
    const SUBNORMAL_SCALE: f32 = 33_554_432.0; // 2^25
    const SUBNORMAL_K: f32 = 25.0;
    const SQRT_HALF_BITS: u32 = 0x3F35_04F3;
    const SPLIT_OFFSET: u32 = 0x4000_0000 - 0x3F35_04F3;
    const K_TO_FLOAT: u32 = 0x4B40_0000 - 128;
    const MANTISSA_MASK: u32 = 0x007F_FFFF;
    // ln f32: degree 3 on z <= 0.029437, relative error of L 2^-24.9.
    const LN: &'static [f32] = &[0.23330995, 0.28550798, 0.40000123, 0.6666667];
}

impl LnConsts for f64 {
    const MIN_POSITIVE: f64 = f64::MIN_POSITIVE;
    const SUBNORMAL_SCALE: f64 = 18_014_398_509_481_984.0; // 2^54
    const SUBNORMAL_K: f64 = 54.0;
    const SQRT_HALF_BITS: u64 = 0x3FE6_A09E_667F_3BCD;
    const SPLIT_OFFSET: u64 = 0x4000_0000_0000_0000 - 0x3FE6_A09E_667F_3BCD;
    const K_TO_FLOAT: u64 = 0x4338_0000_0000_0000 - 1024;
    const MANTISSA_MASK: u64 = 0x000F_FFFF_FFFF_FFFF;
    // ln f64: degree 6 on z <= 0.029437, relative error of L 2^-50.9.
    const LN: &'static [f64] = &[
        0.14616877043572704,
        0.15331683896566733,
        0.18182890372487234,
        0.22222211115783408,
        0.2857142862610644,
        0.3999999999989918,
        0.666666666666667,
    ];
}

/// `ln x` lane-wise.
#[inline(always)]
pub(crate) fn ln<E: LnConsts, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    let zero = E::splat(simd, E::ZERO);
    let tiny = E::less_than(simd, x, E::splat(simd, E::MIN_POSITIVE));
    let scaled = E::select(
        simd,
        tiny,
        E::mul(simd, x, E::splat(simd, E::SUBNORMAL_SCALE)),
        x,
    );
    let k_adjust = E::select(simd, tiny, E::splat(simd, E::SUBNORMAL_K), zero);

    let u = E::add_bits(
        simd,
        E::to_bits(simd, scaled),
        E::splat_bits(simd, E::SPLIT_OFFSET),
    );
    let biased_k = E::shr_bits(simd, u, E::MANTISSA_BITS);
    let shifter = E::splat(simd, E::SHIFTER);
    let k = E::sub(
        simd,
        E::from_bits(
            simd,
            E::add_bits(simd, biased_k, E::splat_bits(simd, E::K_TO_FLOAT)),
        ),
        shifter,
    );
    let k = E::sub(simd, k, k_adjust);
    let m = E::from_bits(
        simd,
        E::add_bits(
            simd,
            E::and_bits(simd, u, E::splat_bits(simd, E::MANTISSA_MASK)),
            E::splat_bits(simd, E::SQRT_HALF_BITS),
        ),
    );

    let one = E::splat(simd, E::ONE);
    let f = E::sub(simd, m, one);
    let s = E::div(simd, f, E::add(simd, f, E::splat(simd, E::TWO)));
    let z = E::mul(simd, s, s);
    let r = E::mul(simd, z, horner(simd, z, E::LN));
    let hfsq = E::mul(simd, E::mul(simd, E::splat(simd, E::HALF), f), f);
    let inner = E::mul_add(
        simd,
        s,
        E::add(simd, hfsq, r),
        E::mul(simd, k, E::splat(simd, E::LN2_LO)),
    );
    let low = E::sub(simd, f, E::sub(simd, hfsq, inner));
    let result = E::mul_add(simd, k, E::splat(simd, E::LN2_HI), low);

    let inf = E::splat(simd, E::INFINITY);
    let result = E::select(simd, E::equal(simd, x, zero), E::neg(simd, inf), result);
    let result = E::select(
        simd,
        E::less_than(simd, x, zero),
        E::splat(simd, E::NAN),
        result,
    );
    let result = E::select(simd, E::equal(simd, x, inf), inf, result);
    keep_nan::<E, S>(simd, x, result)
}

#[cfg(test)]
mod tests {
    use super::super::apply::Function;
    use super::super::testing::{Case, check_f32_sampled, check_f64_fixture, check_levels};

    #[test]
    fn bit_identical_on_every_level() {
        check_levels(Function::Ln);
    }

    #[test]
    fn f32_accuracy_sampled() {
        check_f32_sampled(Case::of(Function::Ln));
    }

    #[test]
    fn f64_accuracy_against_mpmath() {
        check_f64_fixture(Case::of(Function::Ln));
    }

    #[test]
    fn special_values() {
        use super::super::scalar::ln;
        assert_eq!(ln(1.0_f32).to_bits(), 0);
        assert_eq!(ln(1.0_f64).to_bits(), 0);
        assert_eq!(ln(0.0_f32), f32::NEG_INFINITY);
        assert_eq!(ln(-0.0_f64), f64::NEG_INFINITY);
        assert_eq!(ln(f32::INFINITY), f32::INFINITY);
        assert!(ln(-1.0_f64).is_nan());
        assert!(ln(f32::NEG_INFINITY).is_nan());
        assert!(ln(f32::NAN).is_nan());
        assert_eq!(ln(f64::from_bits(1)), f64::from_bits(1).ln());
        assert_eq!(ln(2.0_f32), std::f32::consts::LN_2);
        assert_eq!(ln(f64::MAX), f64::MAX.ln());
    }
}
