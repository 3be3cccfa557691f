//! [`Element`]: a value type the numeric kernels store, and the type they
//! compute and accumulate it in.
//!
//! A kernel reads each stored value as `E::Acc` ([`to_acc`](Element::to_acc)),
//! computes and accumulates in `E::Acc`, and writes results back as `E`
//! ([`from_acc`](Element::from_acc), rounding to nearest, ties to even).
//! For `f32` and `f64` the two types are the same and the conversions are
//! the identity, so their kernels read the storage in place. A storage type
//! with another compute type (half precision accumulating in `f32`, as
//! PyTorch and llama.cpp do) is one more `impl Element` with its
//! conversions; the kernels stay as they are.
//!
//! | `E` | `E::Acc` | source of the rule |
//! |---|---|---|
//! | `f32` | `f32` | IEEE 754 binary32 |
//! | `f64` | `f64` | IEEE 754 binary64 |

use super::float::Float;
use std::fmt::Debug;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A storage element of the numeric kernels and its compute type `Acc`.
/// Sealed: the exactness guarantees are stated for the listed types only.
///
/// ```
/// use llm_from_scratch::tensor::{Element, Float};
/// fn mean<E: Element>(values: &[E]) -> E {
///     let sum = values.iter().fold(E::Acc::ZERO, |acc, &x| acc + x.to_acc());
///     E::from_acc(sum / E::Acc::from_usize(values.len()))
/// }
/// assert_eq!(mean(&[1.0_f32, 2.0, 6.0]), 3.0);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a numeric element type of the kernels (`f32`, `f64`)",
    label = "not a numeric element type"
)]
pub trait Element: sealed::Sealed + Copy + Default + Debug + Send + Sync + 'static {
    /// The type this element is computed and accumulated in.
    type Acc: Float;
    /// The dtype name in weight files (`"F32"`, `"F64"`: safetensors' names).
    const DTYPE: &'static str;
    /// The stored value as its compute type (exact).
    fn to_acc(self) -> Self::Acc;
    /// A computed value stored back (round to nearest, ties to even).
    fn from_acc(acc: Self::Acc) -> Self;
}

impl Element for f32 {
    type Acc = f32;
    const DTYPE: &'static str = "F32";
    #[inline(always)]
    fn to_acc(self) -> f32 {
        self
    }
    #[inline(always)]
    fn from_acc(acc: f32) -> f32 {
        acc
    }
}

impl Element for f64 {
    type Acc = f64;
    const DTYPE: &'static str = "F64";
    #[inline(always)]
    fn to_acc(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_acc(acc: f64) -> f64 {
        acc
    }
}
