//! `f32` and `f64` as lanes of `pulp`'s SIMD vectors: the vector
//! operations the kernels use, each lane computing exactly what the scalar
//! operation computes (so a kernel that vectorizes across independent
//! outputs gives the same bits on every instruction set).
//!
//! This file imports nothing from the crate, so the element traits
//! ([`Float`](crate::tensor::Float)) can build on it.

use pulp::Simd;

/// `f32` or `f64` as lanes of `pulp`'s vectors: the operations the kernels
/// use, each lane computing exactly what the scalar operation computes.
pub trait Lanes: Copy + Send + Sync + 'static {
    /// One vector register of this element type under `S`.
    type Vector<S: Simd>: Copy + Send + Sync + 'static;
    /// Every lane `value`.
    fn splat<S: Simd>(simd: S, value: Self) -> Self::Vector<S>;
    /// Lane-wise `a + b`.
    fn add<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Vector<S>;
    /// Lane-wise `a * b` (rounded: never fused with a following add).
    fn mul<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Vector<S>;
    /// The whole vectors at the start of `values`, and the rest.
    fn as_vectors<S: Simd>(values: &[Self]) -> (&[Self::Vector<S>], &[Self]);
    /// The same, mutable.
    fn as_mut_vectors<S: Simd>(values: &mut [Self]) -> (&mut [Self::Vector<S>], &mut [Self]);
    /// A vector from the first lanes of `values` (zero past its end).
    fn load_partial<S: Simd>(simd: S, values: &[Self]) -> Self::Vector<S>;
    /// Stores the first `values.len()` lanes of `vector`.
    fn store_partial<S: Simd>(simd: S, values: &mut [Self], vector: Self::Vector<S>);
    /// `values` as `f32`, when `Self` is `f32` (for code specific to one type).
    fn as_f32(values: &[Self]) -> Option<&[f32]>;
    /// The same, mutable.
    fn as_f32_mut(values: &mut [Self]) -> Option<&mut [f32]>;
    /// `values` as `f64`, when `Self` is `f64`.
    fn as_f64(values: &[Self]) -> Option<&[f64]>;
    /// The same, mutable.
    fn as_f64_mut(values: &mut [Self]) -> Option<&mut [f64]>;
}

/// Lanes of one `F` vector under `S`.
#[inline(always)]
pub(crate) const fn lanes<F: Lanes, S: Simd>() -> usize {
    size_of::<F::Vector<S>>() / size_of::<F>()
}

macro_rules! lanes_of {
    ($t:ty, $v:ident, $splat:ident, $add:ident, $mul:ident, $simd:ident, $mut_simd:ident, $load:ident, $store:ident, $f32:expr, $f64:expr) => {
        impl Lanes for $t {
            type Vector<S: Simd> = S::$v;
            #[inline(always)]
            fn splat<S: Simd>(simd: S, value: Self) -> S::$v {
                simd.$splat(value)
            }
            #[inline(always)]
            fn add<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$v {
                simd.$add(a, b)
            }
            #[inline(always)]
            fn mul<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$v {
                simd.$mul(a, b)
            }
            #[inline(always)]
            fn as_vectors<S: Simd>(values: &[Self]) -> (&[S::$v], &[Self]) {
                S::$simd(values)
            }
            #[inline(always)]
            fn as_mut_vectors<S: Simd>(values: &mut [Self]) -> (&mut [S::$v], &mut [Self]) {
                S::$mut_simd(values)
            }
            #[inline(always)]
            fn load_partial<S: Simd>(simd: S, values: &[Self]) -> S::$v {
                simd.$load(values)
            }
            #[inline(always)]
            fn store_partial<S: Simd>(simd: S, values: &mut [Self], vector: S::$v) {
                simd.$store(values, vector)
            }
            #[inline(always)]
            fn as_f32(values: &[Self]) -> Option<&[f32]> {
                $f32(values)
            }
            #[inline(always)]
            fn as_f32_mut(values: &mut [Self]) -> Option<&mut [f32]> {
                $f32(values)
            }
            #[inline(always)]
            fn as_f64(values: &[Self]) -> Option<&[f64]> {
                $f64(values)
            }
            #[inline(always)]
            fn as_f64_mut(values: &mut [Self]) -> Option<&mut [f64]> {
                $f64(values)
            }
        }
    };
}

lanes_of!(
    f32,
    f32s,
    splat_f32s,
    add_f32s,
    mul_f32s,
    as_simd_f32s,
    as_mut_simd_f32s,
    partial_load_f32s,
    partial_store_f32s,
    Some,
    |_| None
);
lanes_of!(
    f64,
    f64s,
    splat_f64s,
    add_f64s,
    mul_f64s,
    as_simd_f64s,
    as_mut_simd_f64s,
    partial_load_f64s,
    partial_store_f64s,
    |_| None,
    Some
);
