//! `erf` and `gelu_erf` (BERT's exact GELU, `0.5 x (1 + erf(x / √2))`).
//!
//! - `|x| < 0.5`: `erf x = x + x P(x^2)` (`P(0) = 2/√π - 1`, so the
//!   rounding of the leading constant is scaled down, as fdlibm does).
//! - `z = |x| >= 0.5`: `erfc z = exp(-z^2) Q(z)`, `erf x = ±(1 - erfc z)`,
//!   with `z^2` as an exact double word (`fma`) whose low word joins the
//!   reduced argument of `exp` (an error `d` in `z^2` would cost `d` of
//!   relative accuracy, and `z^2` reaches 800). `Q = erfcx` in four pieces
//!   chosen lane-wise by selecting each coefficient (SLEEF's way; one
//!   Horner loop): on `[0.5, 1.25)` `Q` itself in `v = z - 0.875`, beyond
//!   `z Q(z)` in `v = 1/z - c` on `1/z` in `(0.4, 0.8]`, `(0.25, 0.4]`,
//!   `[0, 0.25]` (`c` the middle of each). The constant term is two words,
//!   added last. Fits: `scripts/math_minimax.py`, `erf` and `erfc_a..d`.
//! - `gelu_erf`: `|x|/√2 < 0.5` gives `0.5 x (1 + erf(x/√2))` (`x/√2`,
//!   `erf` and `1 + erf` as two words, one rounding at the end); beyond,
//!   `c = 0.5 |x| erfc(|x|/√2)` directly (`(1/√2) exp(-x^2/2) zQ(z)` in
//!   the tail pieces, `1/√2` as two words) and `x - c` for `x >= 0`, `-c`
//!   below: no cancellation of `1 + erf` for negative `x`, and the tail
//!   is scaled by `2^n` last, so it rounds into the subnormal range once.
//!   `gelu_erf(-inf) = -0`.

use super::exp::{ExpConsts, Pow2, expm1_reduced, reduce};
use super::{V, horner, keep_nan, or_sign_of, square_exact};
use crate::tensor::lanes::Lanes;
use pulp::Simd;

/// The constants of `erf` and `gelu_erf` for one element type.
pub(crate) trait ErfConsts: ExpConsts {
    /// `P` in `erf x = x + x P(x^2)`, highest degree first.
    const ERF: &'static [Self];
    /// The polynomial below this `|x|` (`|x| / √2` for `gelu_erf`).
    const SMALL: Self;
    /// `|x|` is clamped to this (`erfc` is 0 well before).
    const CLAMP: Self;
    /// Where the second, third and fourth pieces of `Q` start (in `z`).
    const BOUNDS: [Self; 3];
    /// The centres of the four pieces (`z` for the first, `1/z` beyond).
    const CENTRES: [Self; 4];
    /// The four pieces' coefficients from the highest degree down to
    /// degree 1 (a row per degree, zero above a piece's degree).
    const ERFC: &'static [[Self; 4]];
    /// The constant terms, high words.
    const ERFC_C0_HI: [Self; 4];
    /// The constant terms, low words.
    const ERFC_C0_LO: [Self; 4];
    /// `1/√2` as two words.
    const FRAC_1_SQRT_2: (Self, Self);
}

impl ErfConsts for f32 {
    // erf f32: degree 4 in x^2 <= 0.25, relative error of erf 2^-28.4.
    const ERF: &'static [f32] = &[
        0.0047179903,
        -0.026757184,
        0.112828225,
        -0.37612608,
        0.12837917,
    ];
    const SMALL: f32 = 0.5;
    const CLAMP: f32 = 30.0;
    const BOUNDS: [f32; 3] = [1.25, 2.5, 4.0];
    const CENTRES: [f32; 4] = [0.875, 0.6, 0.325, 0.125];
    // erfc_a..d f32: degrees 8, 7, 5, 7; relative errors 2^-27.1, 2^-27.3,
    // 2^-27.7, 2^-29.5.
    const ERFC: &'static [[f32; 4]] = &[
        [0.001645646, 0.0, 0.0, 0.0],
        [-0.004262353, -0.039818916, 0.0, 1.2148271],
        [0.009919389, -0.00027524575, 0.0, -0.08878407],
        [-0.02290538, 0.050915264, -0.11381126, -0.4876958],
        [0.049828354, -0.08443685, -0.095833935, 0.22773556],
        [-0.10091519, 0.080216885, 0.19903955, 0.17574476],
        [0.18795693, -0.007001695, -0.120312236, -0.24594454],
        [-0.3158339, -0.17138076, -0.14099546, -0.06739859],
    ];
    const ERFC_C0_HI: [f32; 4] = [0.46431157, 0.49381247, 0.53818667, 0.5598813];
    const ERFC_C0_LO: [f32; 4] = [1.4175148e-8, -1.1090575e-8, -1.2441715e-8, 7.545364e-10];
    const FRAC_1_SQRT_2: (f32, f32) = (std::f32::consts::FRAC_1_SQRT_2, 1.2101617e-8);
}

impl ErfConsts for f64 {
    // erf f64: degree 8 in x^2 <= 0.25, relative error of erf 2^-56.0.
    const ERF: &'static [f64] = &[
        1.4723215379799694e-6,
        -1.484558373767311e-5,
        0.00012053324313453486,
        -0.0008548297524386835,
        0.005223977370326211,
        -0.026866170632715777,
        0.11283791670924813,
        -0.37612638903183465,
        0.12837916709551256,
    ];
    const SMALL: f64 = 0.5;
    const CLAMP: f64 = 40.0;
    const BOUNDS: [f64; 3] = [1.25, 2.5, 4.0];
    const CENTRES: [f64; 4] = [0.875, 0.6, 0.325, 0.125];
    // erfc_a..d f64: degrees 15, 16, 12, 17; relative errors 2^-55.4,
    // 2^-54.6, 2^-57.1, 2^-57.0.
    const ERFC: &'static [[f64; 4]] = &[
        [0.0, 0.0, 0.0, 1225.0727098230905],
        [0.0, -0.02308508815464852, 0.0, 404.33430834984813],
        [
            -8.111185096520076e-7,
            0.06436292857379358,
            0.0,
            -441.06378186694747,
        ],
        [
            2.675426269416142e-6,
            -0.07664932246165138,
            0.0,
            27.972763227593312,
        ],
        [
            -8.058953035285158e-6,
            0.06165847673026431,
            0.0,
            74.98286793932122,
        ],
        [
            2.481398248696321e-5,
            -0.03167360793595145,
            0.5766048206324523,
            -32.1260406968628,
        ],
        [
            -7.415822962035848e-5,
            -0.0045740719951283685,
            0.8322813203514077,
            -3.750942254272782,
        ],
        [
            0.00021396104651112628,
            0.03723885932292932,
            -1.0419582227918673,
            8.809151084358694,
        ],
        [
            -0.000595081161803344,
            -0.05678107432519866,
            0.5668314415010158,
            -2.4991622185188787,
        ],
        [
            0.0015904825836278596,
            0.05652793269064095,
            -0.020431443124249646,
            -1.4157102385362716,
        ],
        [
            -0.004069537660547443,
            -0.03454446654230109,
            -0.2847549460734625,
            1.3150929458889058,
        ],
        [
            0.009922776769486481,
            -0.004958640319930156,
            0.29262383366236927,
            -0.050364131642004296,
        ],
        [
            -0.022925811484590625,
            0.05075075415602223,
            -0.1108732694256495,
            -0.4890364082681137,
        ],
        [
            0.04982841533122867,
            -0.08431841702678462,
            -0.09830138740319214,
            0.2273805505421542,
        ],
        [
            -0.10091439212620287,
            0.08021881214417464,
            0.19903057956186856,
            0.17575154004219828,
        ],
        [
            0.18795692377318315,
            -0.007002649624065691,
            -0.1203070322930414,
            -0.24594346562625077,
        ],
        [
            -0.3158338964908418,
            -0.17138075875024006,
            -0.1409954577849682,
            -0.06739860157050158,
        ],
    ];
    const ERFC_C0_HI: [f64; 4] = [
        0.464311583202669,
        0.49381246228201886,
        0.5381866556460847,
        0.5598813296070474,
    ];
    const ERFC_C0_LO: [f64; 4] = [
        -1.8259932772565167e-17,
        -1.2826140624230112e-17,
        4.701537194428428e-17,
        2.3744945637734398e-17,
    ];
    const FRAC_1_SQRT_2: (f64, f64) = (std::f64::consts::FRAC_1_SQRT_2, -4.833646656726457e-17);
}

/// Which piece each lane is in.
#[derive(Clone, Copy)]
struct Pieces<E: Lanes, S: Simd> {
    second: E::Mask<S>,
    third: E::Mask<S>,
    fourth: E::Mask<S>,
}

impl<E: ErfConsts, S: Simd> Pieces<E, S> {
    #[inline(always)]
    fn new(simd: S, z: V<E, S>) -> Self {
        Self {
            second: E::greater_equal(simd, z, E::splat(simd, E::BOUNDS[0])),
            third: E::greater_equal(simd, z, E::splat(simd, E::BOUNDS[1])),
            fourth: E::greater_equal(simd, z, E::splat(simd, E::BOUNDS[2])),
        }
    }

    /// Each lane's value of `row`.
    #[inline(always)]
    fn pick(self, simd: S, row: &[E; 4]) -> V<E, S> {
        let v = E::select(
            simd,
            self.second,
            E::splat(simd, row[1]),
            E::splat(simd, row[0]),
        );
        let v = E::select(simd, self.third, E::splat(simd, row[2]), v);
        E::select(simd, self.fourth, E::splat(simd, row[3]), v)
    }
}

/// `erfc z = scale((hi + lo) m)`, `m = 1` in the first piece and `1/z`
/// beyond (returned as `tail` and `inverse`), for `z >= 0.5` (other lanes
/// are unspecified), `z` given as two words and `z^2 = square.0 + square.1`.
struct Erfc<E: Lanes, S: Simd> {
    hi: V<E, S>,
    lo: V<E, S>,
    scale: Pow2<E, S>,
    tail: E::Mask<S>,
    inverse: V<E, S>,
}

#[inline(always)]
fn erfc_parts<E: ErfConsts, S: Simd>(
    simd: S,
    (z, z_lo): (V<E, S>, V<E, S>),
    square: (V<E, S>, V<E, S>),
) -> Erfc<E, S> {
    let pieces = Pieces::<E, S>::new(simd, z);
    let one = E::splat(simd, E::ONE);
    let inverse = E::div(simd, one, z);
    // 1/(z + z_lo) - inverse = (1 - inverse z - inverse z_lo) inverse
    let residual = E::mul_add(simd, E::neg(simd, inverse), z, one);
    let residual = E::mul_add(simd, E::neg(simd, inverse), z_lo, residual);
    let inverse_lo = E::mul(simd, residual, inverse);
    // z - 0.875 and 1/z - c are exact (Sterbenz) but in the last piece's
    // far end, where the variable's error does not matter; then the low words
    let v = E::sub(
        simd,
        E::select(simd, pieces.second, inverse, z),
        pieces.pick(simd, &E::CENTRES),
    );
    let v = E::add(simd, v, E::select(simd, pieces.second, inverse_lo, z_lo));
    let mut acc = pieces.pick(simd, &E::ERFC[0]);
    for row in &E::ERFC[1..] {
        acc = E::mul_add(simd, acc, v, pieces.pick(simd, row));
    }
    // q = c0_hi + small, small = acc v + c0_lo
    let small = E::mul_add(simd, acc, v, pieces.pick(simd, &E::ERFC_C0_LO));
    let c0 = pieces.pick(simd, &E::ERFC_C0_HI);

    let reduced = reduce::<E, S>(simd, E::neg(simd, square.0));
    let r = E::sub(simd, reduced.r, square.1);
    let s = expm1_reduced::<E, S>(simd, r);
    let y = E::add(simd, one, s);
    let y_lo = E::sub(simd, s, E::sub(simd, y, one));
    // (y + y_lo)(c0 + small) = hi + lo: y c0 exactly, the rest rounded
    let hi = E::mul(simd, y, c0);
    let lo = E::mul_add(simd, y, c0, E::neg(simd, hi));
    let lo = E::add(simd, lo, E::mul_add(simd, y, small, E::mul(simd, y_lo, c0)));
    Erfc {
        hi,
        lo,
        scale: Pow2::<E, S>::new(simd, reduced.k),
        tail: pieces.second,
        inverse,
    }
}

impl<E: ErfConsts, S: Simd> Erfc<E, S> {
    /// `scale((hi + lo)(m_hi + m_lo))`, rounded once (then once more if
    /// subnormal).
    #[inline(always)]
    fn times(&self, simd: S, m_hi: V<E, S>, m_lo: V<E, S>) -> V<E, S> {
        let low = E::mul_add(simd, self.lo, m_hi, E::mul(simd, self.hi, m_lo));
        self.scale.scale(simd, E::mul_add(simd, self.hi, m_hi, low))
    }
}

/// `erf x` lane-wise.
#[inline(always)]
pub(crate) fn erf<E: ErfConsts, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    let a = E::abs(simd, x);
    let a = E::min(simd, a, E::splat(simd, E::CLAMP));
    let square = square_exact::<E, S>(simd, a);
    let small = E::mul_add(simd, x, horner(simd, square.0, E::ERF), x);

    let parts = erfc_parts::<E, S>(simd, (a, E::splat(simd, E::ZERO)), square);
    let one = E::splat(simd, E::ONE);
    let m = E::select(simd, parts.tail, parts.inverse, one);
    let erfc = parts.times(simd, m, E::splat(simd, E::ZERO));
    let big = E::sub(simd, one, erfc);
    let zero = E::splat(simd, E::ZERO);
    let big = E::select(simd, E::less_than(simd, x, zero), E::neg(simd, big), big);

    let is_small = E::less_than(simd, a, E::splat(simd, E::SMALL));
    keep_nan::<E, S>(simd, x, E::select(simd, is_small, small, big))
}

/// `0.5 x (1 + erf(x / √2))` lane-wise.
#[inline(always)]
pub(crate) fn gelu_erf<E: ErfConsts, S: Simd>(simd: S, x: V<E, S>) -> V<E, S> {
    let (r2h, r2l) = (
        E::splat(simd, E::FRAC_1_SQRT_2.0),
        E::splat(simd, E::FRAC_1_SQRT_2.1),
    );
    let half = E::splat(simd, E::HALF);
    let a = E::min(simd, E::abs(simd, x), E::splat(simd, E::CLAMP));
    // x^2 / 2 exactly, and z = |x| / √2 rounded once
    let (x2h, x2l) = square_exact::<E, S>(simd, a);
    let square = (E::mul(simd, half, x2h), E::mul(simd, half, x2l));
    let z = E::mul(simd, a, r2h);
    let z_lo = E::mul_add(simd, a, r2l, E::mul_add(simd, a, r2h, E::neg(simd, z)));

    // small |x|: 0.5 x (1 + erf u), u = x/√2, with u, erf u and 1 + erf u
    // as two words (for x < 0, 1 + erf u is down to 0.48: a plain sum
    // would double the rounding of erf u)
    let one = E::splat(simd, E::ONE);
    let uh = E::mul(simd, x, r2h);
    let ul = E::mul_add(simd, x, r2l, E::mul_add(simd, x, r2h, E::neg(simd, uh)));
    let p = horner(simd, square.0, E::ERF);
    let ph = E::mul(simd, uh, p);
    let pl = E::mul_add(simd, uh, p, E::neg(simd, ph));
    let eh = E::add(simd, uh, ph);
    let el = E::add(
        simd,
        E::add(simd, E::sub(simd, uh, eh), ph),
        E::add(simd, pl, E::mul_add(simd, ul, p, ul)),
    );
    let gh = E::add(simd, one, eh);
    let gl = E::add(simd, E::add(simd, E::sub(simd, one, gh), eh), el);
    let hx = E::mul(simd, half, x);
    // (+0 for x = -0 without the sign put back)
    let small = or_sign_of::<E, S>(simd, E::mul_add(simd, hx, gh, E::mul(simd, hx, gl)), x);

    // c = 0.5 |x| erfc(z): the tail pieces' 0.5 |x| / z is 1/√2
    let parts = erfc_parts::<E, S>(simd, (z, z_lo), square);
    let zero = E::splat(simd, E::ZERO);
    let m_hi = E::select(simd, parts.tail, r2h, E::mul(simd, half, a));
    let m_lo = E::select(simd, parts.tail, r2l, zero);
    let c = parts.times(simd, m_hi, m_lo);
    let big = E::select(
        simd,
        E::greater_equal(simd, x, zero),
        E::sub(simd, x, c),
        E::neg(simd, c),
    );

    let is_small = E::less_than(simd, z, E::splat(simd, E::SMALL));
    keep_nan::<E, S>(simd, x, E::select(simd, is_small, small, big))
}

#[cfg(test)]
mod tests {
    use super::super::apply::Function;
    use super::super::testing::{Case, check_f32_sampled, check_f64_fixture, check_levels};

    #[test]
    fn bit_identical_on_every_level() {
        check_levels(Function::Erf);
        check_levels(Function::GeluErf);
    }

    #[test]
    fn f32_accuracy_sampled() {
        check_f32_sampled(Case::of(Function::Erf));
        check_f32_sampled(Case::of(Function::GeluErf));
    }

    #[test]
    fn f64_accuracy_against_mpmath() {
        check_f64_fixture(Case::of(Function::Erf));
        check_f64_fixture(Case::of(Function::GeluErf));
    }

    #[test]
    fn special_values() {
        use super::super::scalar::{erf, gelu_erf};
        assert_eq!(erf(0.0_f32).to_bits(), 0);
        assert_eq!(erf(-0.0_f64).to_bits(), (-0.0_f64).to_bits());
        assert_eq!(erf(f32::INFINITY), 1.0);
        assert_eq!(erf(f64::NEG_INFINITY), -1.0);
        assert_eq!(erf(1e-30_f64), libm::erf(1e-30));
        assert_eq!(gelu_erf(f32::INFINITY), f32::INFINITY);
        assert_eq!(gelu_erf(f64::NEG_INFINITY).to_bits(), (-0.0_f64).to_bits());
        assert_eq!(gelu_erf(-0.0_f32).to_bits(), (-0.0_f32).to_bits());
        assert!(gelu_erf(-13.0_f32) < 0.0); // about -1.7e-38, not flushed
        assert!(erf(f32::NAN).is_nan() && gelu_erf(f64::NAN).is_nan());
    }
}
