//! One function over a slice: dispatched once, whole vectors, then the tail
//! through the same vector code (a partial load and store), so every
//! element gets the same bits wherever it sits in the slice.

use super::erf::{erf, gelu_erf};
use super::exp::exp;
use super::gelu::gelu_tanh;
use super::log::ln;
use super::roots::{recip, rsqrt, sqrt};
use super::tanh::{sigmoid, silu, tanh};
use super::{Math, V};
use crate::tensor::float::Float;
use crate::tensor::lanes::Lanes;
use crate::tensor::traverse::simd::{Dispatch, SimdLevel, tuning};
use pulp::{Simd, WithSimd};

/// A named elementwise function of `unary` (in `tensor::ops`)
/// and the methods `x.exp()`, `x.silu()`, ...: the crate's own
/// implementations, the same bits on every SIMD level, thread count and
/// layout.
///
/// Each one is a fixed sequence of exactly rounded IEEE 754 operations, so
/// the vector code and the one-lane scalar code agree bit for bit. The
/// error each variant states (in ulp, the same for `f32` and `f64`) is the
/// largest distance to the correctly rounded result: measured over every
/// `f32` input against an `f64` reference rounded to `f32` (a test CI
/// skips: `cargo test --release --lib math -- --ignored`, about 20
/// minutes), and over 2048 sampled `f64` inputs per function against
/// mpmath at 60 digits (run by `cargo test`). The `f32` references are
/// std's or `libm`'s `f64` functions, or stable `f64` forms built from
/// them (`sigmoid`, `silu`, the GELUs), rounded to `f32`: that rounding
/// can pick the wrong neighbour where the exact value lies within a few
/// 2^-29 `f32` ulps of a midpoint between two `f32` values (wider for the
/// composed forms), so a measured distance there may be off by one ulp
/// either way. `f16` / `bf16` inputs are computed in `f32` and rounded
/// once. NaN inputs come back NaN with their payload
/// (`sqrt`, `rsqrt`, `recip` and `square` compute with the NaN, which sets
/// a signaling NaN's quiet bit, as IEEE 754 arithmetic does); at the
/// infinities each function takes its limit (`silu(-inf) = -0`,
/// `tanh(±inf) = ±1`, `exp(-inf) = +0`, `ln(+0) = -inf`); subnormal
/// results are produced, not flushed. More variants may come, so matches
/// on it need a wildcard arm.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let x = Tensor::from_vec([3], vec![-1.0_f32, 0.0, 2.0])?;
/// let y = unary(&x, Function::Silu)?; // the same as x.silu()?
/// assert_eq!(y, x.silu()?);
/// assert_eq!(y.as_slice()[1], 0.0);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Function {
    /// `e^x`: Cody–Waite reduction, a minimax `expm1` polynomial, scaling
    /// by `2^n` (SLEEF-style); 1 ulp.
    Exp,
    /// `ln x` (`NaN` below zero, `-inf` at zero): fdlibm's `e_log.c` form; 1 ulp.
    Ln,
    /// `tanh x`: an odd minimax polynomial near zero, `expm1` beyond
    /// (Cephes-style split); 1 ulp.
    Tanh,
    /// `1 / (1 + e^-x)`, the logistic function, without overflow for any
    /// input; 1 ulp.
    Sigmoid,
    /// `x · sigmoid(x)` (SiLU / swish, SwiGLU's gate; Elfwing et al. 2017); 1 ulp.
    Silu,
    /// GPT-2's GELU, `0.5 x (1 + tanh(√(2/π) (x + 0.044715 x³)))`
    /// (Hendrycks and Gimpel 2016, the tanh approximation), as
    /// `x · sigmoid(2u)`; 1 ulp.
    GeluTanh,
    /// BERT's exact GELU, `0.5 x (1 + erf(x / √2))`, without cancellation
    /// for negative `x`; 1 ulp.
    GeluErf,
    /// The error function `erf x` (fdlibm-style split); 1 ulp.
    Erf,
    /// `√x`, correctly rounded (IEEE 754).
    Sqrt,
    /// `1 / √x`, as two correctly rounded operations; 1 ulp.
    Rsqrt,
    /// `1 / x`, correctly rounded (IEEE 754).
    Recip,
    /// `-x` (exact: flips the sign bit, NaN included).
    Neg,
    /// `x * x`, correctly rounded.
    Square,
    /// `|x|` (exact: clears the sign bit, NaN included).
    Abs,
}

impl Function {
    /// The function of one `f32` or `f64` value: the same bits as every
    /// element of `unary(&x, self)` (the one-lane scalar model of the
    /// vector code), for writing reference loops and models of fused
    /// kernels.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![0.5_f64, -3.0])?;
    /// let y = x.exp()?;
    /// assert_eq!(y.as_slice()[1].to_bits(), Function::Exp.eval(-3.0_f64).to_bits());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn eval<F: Float>(self, x: F) -> F {
        let mut y = [x];
        map_lanes_on(Dispatch::new(SimdLevel::Baseline), self, &[x], &mut y);
        y[0]
    }

    /// Every function, in declaration order.
    pub(crate) const ALL: [Function; 14] = [
        Function::Exp,
        Function::Ln,
        Function::Tanh,
        Function::Sigmoid,
        Function::Silu,
        Function::GeluTanh,
        Function::GeluErf,
        Function::Erf,
        Function::Sqrt,
        Function::Rsqrt,
        Function::Recip,
        Function::Neg,
        Function::Square,
        Function::Abs,
    ];
}

/// One elementwise function as a type, so each gets its own loop.
pub(crate) trait Lanewise {
    /// The function on one vector.
    fn apply<F: Math, S: Simd>(simd: S, x: V<F, S>) -> V<F, S>;
}

macro_rules! lanewise {
    ($($kind:ident => |$simd:ident, $x:ident| $body:expr;)*) => {
        $(
            #[doc = concat!("[`Function::", stringify!($kind), "`] as a [`Lanewise`].")]
            pub(crate) struct $kind;
            impl Lanewise for $kind {
                #[inline(always)]
                fn apply<F: Math, S: Simd>($simd: S, $x: V<F, S>) -> V<F, S> {
                    $body
                }
            }
        )*
    };
}

/// The [`Lanewise`] types, one per [`Function`].
pub(crate) mod kernels {
    use super::*;
    lanewise! {
        Exp => |simd, x| exp::<F, S>(simd, x);
        Ln => |simd, x| ln::<F, S>(simd, x);
        Tanh => |simd, x| tanh::<F, S>(simd, x);
        Sigmoid => |simd, x| sigmoid::<F, S>(simd, x);
        Silu => |simd, x| silu::<F, S>(simd, x);
        GeluTanh => |simd, x| gelu_tanh::<F, S>(simd, x);
        GeluErf => |simd, x| gelu_erf::<F, S>(simd, x);
        Erf => |simd, x| erf::<F, S>(simd, x);
        Sqrt => |simd, x| sqrt::<F, S>(simd, x);
        Rsqrt => |simd, x| rsqrt::<F, S>(simd, x);
        Recip => |simd, x| recip::<F, S>(simd, x);
        Neg => |simd, x| F::neg(simd, x);
        Square => |simd, x| F::mul(simd, x, x);
        Abs => |simd, x| F::abs(simd, x);
    }
}

/// `output[i] = kind(input[i])` on the instruction set of this thread's
/// kernel settings, dispatched once.
///
/// # Panics
/// If the slices differ in length.
pub(crate) fn map_slice<F: Math>(kind: Function, input: &[F], output: &mut [F]) {
    map_slice_on(Dispatch::new(tuning().simd), kind, input, output);
}

/// [`map_slice`] on a given instruction set.
pub(crate) fn map_slice_on<F: Math>(
    dispatch: Dispatch,
    kind: Function,
    input: &[F],
    output: &mut [F],
) {
    assert_eq!(
        input.len(),
        output.len(),
        "map_slice: {} inputs for {} outputs",
        input.len(),
        output.len()
    );
    dispatch.run(Map {
        kind,
        input,
        output,
    });
}

/// [`map_slice_on`] for a lane type that is `f32` or `f64` (the crate's
/// [`Float`](crate::tensor::float::Float)s), found by a zero-cost slice
/// cast; the kernels generic over `Float` call this.
#[inline]
pub(crate) fn map_lanes_on<F: Lanes>(dispatch: Dispatch, kind: Function, x: &[F], y: &mut [F]) {
    if let (Some(x), Some(y)) = (F::as_f32(x), F::as_f32_mut(y)) {
        map_slice_on(dispatch, kind, x, y);
    } else if let (Some(x), Some(y)) = (F::as_f64(x), F::as_f64_mut(y)) {
        map_slice_on(dispatch, kind, x, y);
    }
}

/// The `WithSimd` body of [`map_slice`] (also run directly on a chosen
/// `pulp` level by the tests).
pub(crate) struct Map<'a, F> {
    pub(crate) kind: Function,
    pub(crate) input: &'a [F],
    pub(crate) output: &'a mut [F],
}

impl<F: Math> WithSimd for Map<'_, F> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        use kernels as k;
        let (x, y) = (self.input, self.output);
        match self.kind {
            Function::Exp => run::<F, S, k::Exp>(simd, x, y),
            Function::Ln => run::<F, S, k::Ln>(simd, x, y),
            Function::Tanh => run::<F, S, k::Tanh>(simd, x, y),
            Function::Sigmoid => run::<F, S, k::Sigmoid>(simd, x, y),
            Function::Silu => run::<F, S, k::Silu>(simd, x, y),
            Function::GeluTanh => run::<F, S, k::GeluTanh>(simd, x, y),
            Function::GeluErf => run::<F, S, k::GeluErf>(simd, x, y),
            Function::Erf => run::<F, S, k::Erf>(simd, x, y),
            Function::Sqrt => run::<F, S, k::Sqrt>(simd, x, y),
            Function::Rsqrt => run::<F, S, k::Rsqrt>(simd, x, y),
            Function::Recip => run::<F, S, k::Recip>(simd, x, y),
            Function::Neg => run::<F, S, k::Neg>(simd, x, y),
            Function::Square => run::<F, S, k::Square>(simd, x, y),
            Function::Abs => run::<F, S, k::Abs>(simd, x, y),
        }
    }
}

/// The loop of one function: whole vectors, then the tail.
#[inline(always)]
fn run<F: Math, S: Simd, K: Lanewise>(simd: S, input: &[F], output: &mut [F]) {
    let (xs, x_tail) = F::as_vectors::<S>(input);
    let (ys, y_tail) = F::as_mut_vectors::<S>(output);
    for (y, &x) in ys.iter_mut().zip(xs) {
        *y = K::apply::<F, S>(simd, x);
    }
    if !x_tail.is_empty() {
        let x = F::load_partial(simd, x_tail);
        F::store_partial(simd, y_tail, K::apply::<F, S>(simd, x));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::traverse::simd::{KernelTuning, SimdLevel, with_kernel_tuning};

    /// Every length around the vector widths: the tail lanes get the bits
    /// of the scalar model.
    #[test]
    fn tails_match_the_scalar_model() {
        let input: Vec<f32> = (0..70).map(|i| (i as f32 - 35.0) * 0.37).collect();
        let input64: Vec<f64> = input.iter().map(|&x| f64::from(x) * 1.1).collect();
        for kind in Function::ALL {
            for n in 0..input.len() {
                let mut out = vec![0.0_f32; n];
                map_slice(kind, &input[..n], &mut out);
                let mut out64 = vec![0.0_f64; n];
                map_slice(kind, &input64[..n], &mut out64);
                for i in 0..n {
                    let want = super::super::scalar::eval(kind, input[i]);
                    assert_eq!(out[i].to_bits(), want.to_bits(), "{kind:?} n {n} i {i}");
                    let want = super::super::scalar::eval(kind, input64[i]);
                    assert_eq!(out64[i].to_bits(), want.to_bits(), "{kind:?} n {n} i {i}");
                }
            }
        }
    }

    #[test]
    fn the_kernel_settings_choose_the_level() {
        let input: Vec<f32> = (0..37).map(|i| i as f32 * 0.3 - 5.0).collect();
        let mut best = vec![0.0; 37];
        map_slice(Function::GeluTanh, &input, &mut best);
        for simd in [SimdLevel::Baseline, SimdLevel::Avx2] {
            let tuning = KernelTuning {
                simd,
                ..KernelTuning::default()
            };
            let mut out = vec![0.0; 37];
            with_kernel_tuning(tuning, || map_slice(Function::GeluTanh, &input, &mut out));
            assert_eq!(out, best);
        }
    }

    #[test]
    #[should_panic(expected = "map_slice: 3 inputs for 2 outputs")]
    fn lengths_must_match() {
        map_slice(Function::Exp, &[1.0_f32; 3], &mut [0.0; 2]);
    }
}
