//! `sqrt`, `rsqrt` and `recip`: IEEE division and square root, which every
//! level rounds correctly (so `pulp`'s `sqrt_f32s` and `f32::sqrt` agree).
//!
//! `rsqrt(x) = 1 / sqrt(x)`: two correct roundings, so within 1 ulp (no
//! `rsqrtps` estimate, whose bits differ between CPUs). `rsqrt(+0) = +inf`,
//! `rsqrt(-0) = -inf`, `rsqrt(x < 0) = NaN`, `rsqrt(+inf) = +0`.

use super::V;
use crate::tensor::lanes::Lanes;
use pulp::Simd;

/// `√x` lane-wise (correctly rounded).
#[inline(always)]
pub(crate) fn sqrt<E: Lanes, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    E::sqrt(simd, x)
}

/// `1 / √x` lane-wise: the correctly rounded quotient of the correctly
/// rounded root.
#[inline(always)]
pub(crate) fn rsqrt<E: super::Real, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    E::div(simd, E::splat(simd, E::ONE), E::sqrt(simd, x))
}

/// `1 / x` lane-wise (correctly rounded).
#[inline(always)]
pub(crate) fn recip<E: super::Real, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    E::div(simd, E::splat(simd, E::ONE), x)
}

#[cfg(test)]
mod tests {
    use super::super::apply::Function;
    use super::super::testing::{Case, check_f32_sampled, check_f64_fixture, check_levels};

    const ALL: [Function; 3] = [Function::Sqrt, Function::Rsqrt, Function::Recip];

    #[test]
    fn bit_identical_on_every_level() {
        for f in ALL {
            check_levels(f);
        }
    }

    #[test]
    fn f32_accuracy_sampled() {
        for f in ALL {
            check_f32_sampled(Case::of(f));
        }
    }

    #[test]
    fn f64_accuracy_against_mpmath() {
        for f in ALL {
            check_f64_fixture(Case::of(f));
        }
    }

    #[test]
    fn matches_std_exactly() {
        use super::super::scalar::{recip, rsqrt, sqrt};
        for x in [0.0_f32, 1.0, 2.0, 3.0, 1e-40, 1e38, f32::INFINITY] {
            assert_eq!(sqrt(x).to_bits(), x.sqrt().to_bits());
            assert_eq!(recip(x).to_bits(), (1.0 / x).to_bits());
            assert_eq!(rsqrt(x).to_bits(), (1.0 / x.sqrt()).to_bits());
        }
        assert_eq!(rsqrt(-0.0_f64), f64::NEG_INFINITY);
        assert!(rsqrt(-1.0_f64).is_nan());
    }
}
