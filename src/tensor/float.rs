//! The floating-point element types that reductions, matrix products and
//! model code accept: `f32` and `f64`.

use super::lanes::Lanes;
use std::fmt::{Debug, Display};

mod sealed {
    /// `Pod`: zero-copy casts, and zero bits are `+0.0` (`Element`'s bound).
    pub trait Sealed: bytemuck::Pod {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// `f32` or `f64`: the element types of `sum_axis`, `mean_axis`, `max_axis`
/// and `matmul`, with every method of [`num_traits::Float`] (`exp`, `ln`,
/// `sqrt`, `tanh`, `powi`, `max`, `infinity()`, `neg_infinity()`, ...) and
/// [`num_traits::FloatConst`] (`PI()`, ...) for generic model code. Sealed,
/// because the exact-order guarantees are stated for IEEE 754 binary floats only.
///
/// ```
/// use llm_from_scratch::prelude::*;
///
/// /// GPT-2's GELU (the tanh approximation), for either precision.
/// fn gelu<F: Float>(x: F) -> F {
///     let half = F::from_usize(1) / F::from_usize(2);
///     let c = (F::from_usize(2) / F::PI()).sqrt();
///     let k = F::from(0.044715).unwrap();
///     half * x * (F::one() + (c * (x + k * x.powi(3))).tanh())
/// }
/// assert!((gelu(1.0_f64) - 0.841_191_990_8).abs() < 1e-9);
/// assert!((gelu(1.0_f32) - 0.841_192).abs() < 1e-6);
/// ```
#[diagnostic::on_unimplemented(
    message = "reductions and `matmul` need `f32` or `f64` elements, not `{Self}`",
    label = "`{Self}` is not `f32` or `f64`",
    note = "convert first, e.g. `map_unary(&v, |x| x as f64)?`, then reduce the converted tensor"
)]
pub trait Float:
    sealed::Sealed
    + num_traits::Float
    + num_traits::FloatConst
    + Lanes
    + Debug
    + Display
    + Default
    + Send
    + Sync
    + 'static
{
    /// Positive zero, the start of every sum.
    const ZERO: Self;
    /// The dtype name in weight files (`"F32"`, `"F64"`).
    const DTYPE: &'static str;
    /// The value as `f64` (exact).
    fn widen_to_f64(self) -> f64;
    /// The nearest value to `x` (ties to even).
    fn round_from_f64(x: f64) -> Self;
    /// `n` as this type (rounded to nearest), e.g. the divisor of a mean.
    fn from_usize(n: usize) -> Self;
}

impl Float for f32 {
    const ZERO: Self = 0.0;
    const DTYPE: &'static str = "F32";
    fn widen_to_f64(self) -> f64 {
        f64::from(self)
    }
    fn round_from_f64(x: f64) -> f32 {
        x as f32
    }
    fn from_usize(n: usize) -> Self {
        n as f32
    }
}

impl Float for f64 {
    const ZERO: Self = 0.0;
    const DTYPE: &'static str = "F64";
    fn widen_to_f64(self) -> f64 {
        self
    }
    fn round_from_f64(x: f64) -> f64 {
        x
    }
    fn from_usize(n: usize) -> Self {
        n as f64
    }
}

/// The max policy: keep the first NaN met (its exact bits); replace only by
/// a strictly larger value, so ties keep the earlier value (-0.0 before +0.0).
#[inline(always)]
pub(crate) fn max_step<F: Float>(current: F, candidate: F) -> F {
    if max_replaces(current, candidate) {
        candidate
    } else {
        current
    }
}

/// Whether the max policy replaces `current` by the later `candidate`: no
/// NaN kept yet, and the candidate is a NaN or strictly larger. `argmax_axis`
/// moves its index exactly when this holds, so it points at the value
/// [`max_step`] keeps.
#[inline(always)]
pub(crate) fn max_replaces<F: Float>(current: F, candidate: F) -> bool {
    !current.is_nan() && (candidate.is_nan() || candidate > current)
}
