//! [`Element`]: a value type the numeric kernels store, and the type they
//! compute and accumulate it in.
//!
//! A kernel reads each stored value as `E::Acc` ([`to_acc`](Element::to_acc)),
//! computes and accumulates in `E::Acc`, and writes results back as `E`
//! ([`from_acc`](Element::from_acc), rounding to nearest, ties to even).
//! For `f32` and `f64` the two types are the same and the conversions are
//! the identity, so their kernels read the storage in place. Half precision
//! accumulates in `f32`, as PyTorch and llama.cpp do on the CPU.
//!
//! | `E` | `E::Acc` | bits (sign, exponent, fraction) | source of the rule |
//! |---|---|---|---|
//! | [`f16`] | `f32` | 1, 5, 10 | IEEE 754 binary16 |
//! | [`bf16`] | `f32` | 1, 8, 7 | bfloat16 (Google Brain): the top half of a binary32 |
//! | `f32` | `f32` | 1, 8, 23 | IEEE 754 binary32 |
//! | `f64` | `f64` | 1, 11, 52 | IEEE 754 binary64 |
//!
//! Conversions between element types ([`Element::from_f64`], used by
//! `cast`) are correctly rounded (to nearest, ties to even) from any source:
//! a wider value reaches a half type through `f32` rounded *to odd*, which
//! leaves no double-rounding error (Boldo and Melquiond, "When double
//! rounding is odd", 2005). NaN payloads are not kept exactly: a narrowed
//! or widened NaN is a quiet NaN of the same sign.

use super::float::Float;
pub use half::{bf16, f16};
use std::fmt::Debug;

mod sealed {
    /// `Zeroable`: all-zero bits are `+0.0` in each of the four types, so a
    /// fresh output can come from the allocator already zeroed (see
    /// `try_zeroed` in `traverse/alloc.rs`).
    pub trait Sealed: bytemuck::Zeroable {}
    impl<F: super::Float> Sealed for F {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
}

/// A storage element of the numeric kernels and its compute type `Acc`.
/// Sealed: the exactness guarantees are stated for the listed types only.
///
/// ```
/// use llm_from_scratch::tensor::{bf16, Element, Float};
/// fn mean<E: Element>(values: &[E]) -> E {
///     let sum = values.iter().fold(E::Acc::ZERO, |acc, &x| acc + x.to_acc());
///     E::from_acc(sum / E::Acc::from_usize(values.len()))
/// }
/// assert_eq!(mean(&[1.0_f32, 2.0, 6.0]), 3.0);
/// let halves = [bf16::from_f32(1.0), bf16::from_f32(2.0), bf16::from_f32(6.0)];
/// assert_eq!(mean(&halves), bf16::from_f32(3.0)); // summed in f32
/// ```
#[diagnostic::on_unimplemented(
    message = "reductions, softmax and `matmul` need `f16`, `bf16`, `f32` or `f64` elements, not `{Self}`",
    label = "`{Self}` is not a float element type",
    note = "convert first, e.g. `map_unary(&v, |x| x as f64)?`, or `v.cast::<f32>()?` between float types"
)]
pub trait Element:
    sealed::Sealed + Copy + Default + Debug + PartialEq + Send + Sync + 'static
{
    /// The type this element is computed and accumulated in.
    type Acc: Float + Element<Acc = Self::Acc>;
    /// The dtype name in weight files (`"F16"`, `"BF16"`, `"F32"`, `"F64"`:
    /// safetensors' and GGUF's names).
    const DTYPE: &'static str;
    /// The stored value as its compute type (exact).
    fn to_acc(self) -> Self::Acc;
    /// A computed value stored back (round to nearest, ties to even).
    fn from_acc(acc: Self::Acc) -> Self;
    /// The value as `f64` (exact).
    fn to_f64(self) -> f64;
    /// The nearest value to `x` (ties to even; overflow to ±infinity).
    fn from_f64(x: f64) -> Self;
    /// `values` seen as the compute type when it is the same type (no copy).
    #[doc(hidden)]
    fn as_acc(values: &[Self]) -> Option<&[Self::Acc]>;
    /// The same, mutable.
    #[doc(hidden)]
    fn as_acc_mut(values: &mut [Self]) -> Option<&mut [Self::Acc]>;
    /// Values of the compute type as this type: the same `Vec` when the
    /// types are the same, else `None` (the caller converts).
    #[doc(hidden)]
    fn from_acc_vec(values: Vec<Self::Acc>) -> Result<Vec<Self>, Vec<Self::Acc>>;
}

/// `f32` and `f64`: their own compute type, read in place. A blanket impl,
/// so generic code bounded by [`Float`] calls every numeric op.
impl<F: Float> Element for F {
    type Acc = F;
    const DTYPE: &'static str = F::DTYPE;
    #[inline(always)]
    fn to_acc(self) -> F {
        self
    }
    #[inline(always)]
    fn from_acc(acc: F) -> F {
        acc
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        F::widen_to_f64(self)
    }
    #[inline(always)]
    fn from_f64(x: f64) -> F {
        F::round_from_f64(x)
    }
    fn as_acc(values: &[F]) -> Option<&[F]> {
        Some(values)
    }
    fn as_acc_mut(values: &mut [F]) -> Option<&mut [F]> {
        Some(values)
    }
    fn from_acc_vec(values: Vec<F>) -> Result<Vec<F>, Vec<F>> {
        Ok(values)
    }
}

/// `x` rounded to `f32` *to odd*: toward zero, with the last fraction bit
/// set when that was inexact. A second rounding of the result to any format
/// with at least two fewer fraction bits (f16: 10, bf16: 7) is then the
/// correct rounding of `x` itself (Boldo and Melquiond, 2005).
fn f32_rounded_to_odd(x: f64) -> f32 {
    let nearest = x as f32;
    if !x.is_finite() || f64::from(nearest) == x {
        return nearest;
    }
    // The truncation toward zero: the nearest, or its neighbour toward zero
    // when the nearest rounded away (an infinity included: it was finite).
    let bits = nearest.to_bits();
    let away = f64::from(nearest).abs() > x.abs();
    let truncated = if away { bits - 1 } else { bits };
    f32::from_bits(truncated | 1)
}

impl Element for f16 {
    type Acc = f32;
    const DTYPE: &'static str = "F16";
    #[inline(always)]
    fn to_acc(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn from_acc(acc: f32) -> f16 {
        f16::from_f32(acc)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self.to_f32())
    }
    fn from_f64(x: f64) -> f16 {
        f16::from_f32(f32_rounded_to_odd(x))
    }
    fn as_acc(_: &[f16]) -> Option<&[f32]> {
        None
    }
    fn as_acc_mut(_: &mut [f16]) -> Option<&mut [f32]> {
        None
    }
    fn from_acc_vec(values: Vec<f32>) -> Result<Vec<f16>, Vec<f32>> {
        Err(values)
    }
}

impl Element for bf16 {
    type Acc = f32;
    const DTYPE: &'static str = "BF16";
    #[inline(always)]
    fn to_acc(self) -> f32 {
        self.to_f32()
    }
    #[inline(always)]
    fn from_acc(acc: f32) -> bf16 {
        bf16::from_f32(acc)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self.to_f32())
    }
    fn from_f64(x: f64) -> bf16 {
        bf16::from_f32(f32_rounded_to_odd(x))
    }
    fn as_acc(_: &[bf16]) -> Option<&[f32]> {
        None
    }
    fn as_acc_mut(_: &mut [bf16]) -> Option<&mut [f32]> {
        None
    }
    fn from_acc_vec(values: Vec<f32>) -> Result<Vec<bf16>, Vec<f32>> {
        Err(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowing_from_f64_rounds_once() {
        // 1 + 2^-11 + 2^-40 is just above the f16 tie between 1 and 1 + 2^-10:
        // through f32 by nearest it lands on the tie and rounds to even (1).
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
        assert_eq!(f16::from_f32(x as f32), f16::from_f32(1.0));
        assert_eq!(<f16 as Element>::from_f64(x).to_f32(), 1.0 + 2f32.powi(-10));
        // bf16: 1 + 2^-8 + 2^-40 (tie at 2^-8).
        let y = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
        assert_eq!(<bf16 as Element>::from_f64(y).to_f32(), 1.0 + 2f32.powi(-7));
        assert_eq!(
            <bf16 as Element>::from_f64(-y).to_f32(),
            -(1.0 + 2f32.powi(-7))
        );
        // Exact values, overflow and the infinities go through unchanged.
        assert_eq!(<f16 as Element>::from_f64(0.5).to_f32(), 0.5);
        assert_eq!(<f16 as Element>::from_f64(1e10).to_f32(), f32::INFINITY);
        assert_eq!(
            <bf16 as Element>::from_f64(f64::NEG_INFINITY).to_f32(),
            f32::NEG_INFINITY
        );
        assert!(<f16 as Element>::from_f64(f64::NAN).is_nan());
    }
}
