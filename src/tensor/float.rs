//! The floating-point element types that reductions and matrix products accept.

use std::fmt::Debug;
use std::ops::{Add, Div, Mul, Sub};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// `f32` or `f64`: the element types of `sum_axis`, `mean_axis`, `max_axis`
/// and `matmul`. Sealed, because the exact-order guarantees are stated for
/// IEEE 754 binary floats only.
#[diagnostic::on_unimplemented(
    message = "reductions and `matmul` need `f32` or `f64` elements, not `{Self}`",
    label = "`{Self}` is not `f32` or `f64`",
    note = "convert first, e.g. `map_unary(&v, |x| x as f64)?`, then reduce the converted tensor"
)]
pub trait Float:
    sealed::Sealed
    + crate::tensor::kernels::simd::Element
    + Copy
    + Debug
    + Default
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Send
    + Sync
    + 'static
{
    /// Positive zero, the start of every sum.
    const ZERO: Self;
    /// `n` as this type (rounded), the divisor of a mean.
    fn from_usize(n: usize) -> Self;
    /// Whether the value is a NaN.
    fn is_nan(self) -> bool;
}

impl Float for f32 {
    const ZERO: Self = 0.0;
    fn from_usize(n: usize) -> Self {
        n as f32
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
}

impl Float for f64 {
    const ZERO: Self = 0.0;
    fn from_usize(n: usize) -> Self {
        n as f64
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
}

/// The max policy: keep the first NaN met (its exact bits); replace only by
/// a strictly larger value, so ties keep the earlier value (-0.0 before +0.0).
#[inline(always)]
pub(crate) fn max_step<F: Float>(current: F, candidate: F) -> F {
    if !current.is_nan() && (candidate.is_nan() || candidate > current) {
        candidate
    } else {
        current
    }
}
