//! The scalar model: each function on one value, through the same generic
//! code as the vectors, instantiated with `pulp::Scalar` (whose vectors are
//! one `f32` / `f64`, whose `mul_add` is `f32::mul_add`). For the tests and
//! for kernels' scalar remainders.

use super::Math;
use super::apply::{Function, Lanewise, kernels};
use pulp::Scalar;

/// `K` on one value with `pulp::Scalar`.
#[inline(always)]
fn one_lane<F: Math, K: Lanewise>(x: F) -> F {
    let simd = Scalar::new();
    let mut out = [x];
    F::store_partial(
        simd,
        &mut out,
        K::apply::<F, Scalar>(simd, F::splat(simd, x)),
    );
    out[0]
}

macro_rules! scalar {
    ($($name:ident => $kernel:ident,)*) => {
        $(
            #[doc = concat!("`", stringify!($name), "` of one value (the scalar model).")]
            #[inline]
            pub(crate) fn $name<F: Math>(x: F) -> F {
                one_lane::<F, kernels::$kernel>(x)
            }
        )*
    };
}

scalar! {
    exp => Exp,
    ln => Ln,
    tanh => Tanh,
    sigmoid => Sigmoid,
    silu => Silu,
    gelu_tanh => GeluTanh,
    gelu_erf => GeluErf,
    erf => Erf,
    sqrt => Sqrt,
    rsqrt => Rsqrt,
    recip => Recip,
}

/// `kind` of one value (the scalar model).
pub(crate) fn eval<F: Math>(kind: Function, x: F) -> F {
    match kind {
        Function::Exp => exp(x),
        Function::Ln => ln(x),
        Function::Tanh => tanh(x),
        Function::Sigmoid => sigmoid(x),
        Function::Silu => silu(x),
        Function::GeluTanh => gelu_tanh(x),
        Function::GeluErf => gelu_erf(x),
        Function::Erf => erf(x),
        Function::Sqrt => sqrt(x),
        Function::Rsqrt => rsqrt(x),
        Function::Recip => recip(x),
        Function::Neg => one_lane::<F, kernels::Neg>(x),
        Function::Square => one_lane::<F, kernels::Square>(x),
        Function::Abs => one_lane::<F, kernels::Abs>(x),
    }
}
