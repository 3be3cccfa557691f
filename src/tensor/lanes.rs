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
///
/// Every operation is exact IEEE 754 arithmetic or bit manipulation, so it
/// gives the same bits on every instruction set: `add`, `sub`, `mul`,
/// `div`, `sqrt` round once; `mul_add` is the fused multiply-add (one
/// rounding: `f32::mul_add` under `pulp::Scalar`, `vfmadd` on AVX2 / AVX-512;
/// never `pulp`'s `mul_add_e_*`, which `Scalar` computes as `a * b + c` with
/// two roundings); `min` / `max` are a comparison and a select (`pulp`'s
/// own `min_*` / `max_*` follow `f32::min` under `Scalar` but `minps`
/// under AVX, which differ for NaN and signed zeros). Comparisons are the
/// ordered IEEE ones (false when a lane is NaN).
pub trait Lanes: Copy + Send + Sync + 'static {
    /// One vector register of this element type under `S`.
    type Vector<S: Simd>: Copy + Send + Sync + 'static;
    /// A lane mask for `Vector<S>`, the result of a comparison.
    type Mask<S: Simd>: Copy + Send + Sync + 'static;
    /// The unsigned integer lanes of the same width (the bit patterns).
    type Bits<S: Simd>: Copy + Send + Sync + 'static;
    /// The unsigned integer of the same width (`u32` for `f32`, `u64` for `f64`).
    type Uint: Copy + Send + Sync + 'static;
    /// Explicit significand bits (23 for `f32`, 52 for `f64`).
    const MANTISSA_BITS: u32;
    /// Every lane `value`.
    fn splat<S: Simd>(simd: S, value: Self) -> Self::Vector<S>;
    /// Lane-wise `a + b`.
    fn add<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Vector<S>;
    /// Lane-wise `a - b`.
    fn sub<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Vector<S>;
    /// Lane-wise `a * b` (rounded: never fused with a following add).
    fn mul<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Vector<S>;
    /// Lane-wise `a / b`.
    fn div<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Vector<S>;
    /// Lane-wise `a * b + c` with one rounding (`f32::mul_add`).
    fn mul_add<S: Simd>(
        simd: S,
        a: Self::Vector<S>,
        b: Self::Vector<S>,
        c: Self::Vector<S>,
    ) -> Self::Vector<S>;
    /// Lane-wise `-a` (the sign bit flipped).
    fn neg<S: Simd>(simd: S, a: Self::Vector<S>) -> Self::Vector<S>;
    /// Lane-wise `|a|` (the sign bit cleared).
    fn abs<S: Simd>(simd: S, a: Self::Vector<S>) -> Self::Vector<S>;
    /// Lane-wise correctly rounded square root.
    fn sqrt<S: Simd>(simd: S, a: Self::Vector<S>) -> Self::Vector<S>;
    /// Lane-wise `if a < b { a } else { b }` (so `b` when either is NaN).
    fn min<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Vector<S>;
    /// Lane-wise `if a > b { a } else { b }` (so `b` when either is NaN).
    fn max<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Vector<S>;
    /// Lane-wise `a < b`.
    fn less_than<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Mask<S>;
    /// Lane-wise `a <= b`.
    fn less_equal<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Mask<S>;
    /// Lane-wise `a > b`.
    fn greater_than<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Mask<S>;
    /// Lane-wise `a >= b`.
    fn greater_equal<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Mask<S>;
    /// Lane-wise `a == b`.
    fn equal<S: Simd>(simd: S, a: Self::Vector<S>, b: Self::Vector<S>) -> Self::Mask<S>;
    /// Lane-wise `a != a`.
    fn is_nan<S: Simd>(simd: S, a: Self::Vector<S>) -> Self::Mask<S>;
    /// Lane-wise `a && b`.
    fn and_mask<S: Simd>(simd: S, a: Self::Mask<S>, b: Self::Mask<S>) -> Self::Mask<S>;
    /// Lane-wise `a || b`.
    fn or_mask<S: Simd>(simd: S, a: Self::Mask<S>, b: Self::Mask<S>) -> Self::Mask<S>;
    /// Lane-wise `!a`.
    fn not_mask<S: Simd>(simd: S, a: Self::Mask<S>) -> Self::Mask<S>;
    /// Lane-wise `if mask { a } else { b }`.
    fn select<S: Simd>(
        simd: S,
        mask: Self::Mask<S>,
        a: Self::Vector<S>,
        b: Self::Vector<S>,
    ) -> Self::Vector<S>;
    /// The bit patterns of the lanes (`f32::to_bits`).
    fn to_bits<S: Simd>(simd: S, a: Self::Vector<S>) -> Self::Bits<S>;
    /// The lanes with these bit patterns (`f32::from_bits`).
    fn from_bits<S: Simd>(simd: S, a: Self::Bits<S>) -> Self::Vector<S>;
    /// Every integer lane `value`.
    fn splat_bits<S: Simd>(simd: S, value: Self::Uint) -> Self::Bits<S>;
    /// Lane-wise wrapping `a + b`.
    fn add_bits<S: Simd>(simd: S, a: Self::Bits<S>, b: Self::Bits<S>) -> Self::Bits<S>;
    /// Lane-wise wrapping `a - b`.
    fn sub_bits<S: Simd>(simd: S, a: Self::Bits<S>, b: Self::Bits<S>) -> Self::Bits<S>;
    /// Lane-wise `a & b`.
    fn and_bits<S: Simd>(simd: S, a: Self::Bits<S>, b: Self::Bits<S>) -> Self::Bits<S>;
    /// Lane-wise `a | b`.
    fn or_bits<S: Simd>(simd: S, a: Self::Bits<S>, b: Self::Bits<S>) -> Self::Bits<S>;
    /// Lane-wise `a ^ b`.
    fn xor_bits<S: Simd>(simd: S, a: Self::Bits<S>, b: Self::Bits<S>) -> Self::Bits<S>;
    /// Lane-wise `a << amount` (`amount` below the lane width; a constant
    /// at every call, so it compiles to one immediate shift).
    fn shl_bits<S: Simd>(simd: S, a: Self::Bits<S>, amount: u32) -> Self::Bits<S>;
    /// Lane-wise logical `a >> amount` (as [`shl_bits`](Self::shl_bits)).
    fn shr_bits<S: Simd>(simd: S, a: Self::Bits<S>, amount: u32) -> Self::Bits<S>;
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

/// Lane-wise `a << amount` on 32-bit lanes (`pulp`'s per-lane shift with
/// every amount equal; a constant `amount` compiles to one immediate shift).
#[inline(always)]
fn shl_u32s<S: Simd>(simd: S, a: S::u32s, amount: u32) -> S::u32s {
    simd.wrapping_dyn_shl_u32s(a, simd.splat_u32s(amount))
}

/// Lane-wise logical `a >> amount` on 32-bit lanes (as [`shl_u32s`]).
#[inline(always)]
fn shr_u32s<S: Simd>(simd: S, a: S::u32s, amount: u32) -> S::u32s {
    simd.wrapping_dyn_shr_u32s(a, simd.splat_u32s(amount))
}

/// Lane-wise `a << amount` on 64-bit lanes. `pulp`'s `Simd` trait has no
/// 64-bit shifts (only the 32-bit `wrapping_dyn_shl_u32s`), so this is a
/// loop over the lanes of the register; inlined into the dispatched
/// function with a constant `amount`, it compiles to one `vpsllq`.
#[inline(always)]
fn shl_u64s<S: Simd>(_simd: S, mut a: S::u64s, amount: u32) -> S::u64s {
    for lane in pulp::bytemuck::cast_slice_mut::<S::u64s, u64>(core::slice::from_mut(&mut a)) {
        *lane <<= amount;
    }
    a
}

/// Lane-wise logical `a >> amount` on 64-bit lanes (as [`shl_u64s`]).
#[inline(always)]
fn shr_u64s<S: Simd>(_simd: S, mut a: S::u64s, amount: u32) -> S::u64s {
    for lane in pulp::bytemuck::cast_slice_mut::<S::u64s, u64>(core::slice::from_mut(&mut a)) {
        *lane >>= amount;
    }
    a
}

/// `pulp`'s method names for one element type, labelled (the order is fixed).
macro_rules! lanes_of {
    (
        $t:ty {
            vector: $v:ident, mask: $m:ident, bits: $b:ident, uint: $u:ty, mantissa: $mant:expr,
            splat: $splat:ident, add: $add:ident, sub: $sub:ident, mul: $mul:ident,
            div: $div:ident, mul_add: $mul_add:ident, neg: $neg:ident, abs: $abs:ident,
            sqrt: $sqrt:ident, less_than: $lt:ident, less_equal: $le:ident,
            greater_than: $gt:ident, greater_equal: $ge:ident, equal: $eq:ident,
            and_mask: $and_m:ident, or_mask: $or_m:ident, not_mask: $not_m:ident,
            select: $select:ident, to_bits: $to_bits:ident, from_bits: $from_bits:ident,
            splat_bits: $splat_b:ident, add_bits: $add_b:ident, sub_bits: $sub_b:ident,
            and_bits: $and_b:ident, or_bits: $or_b:ident, xor_bits: $xor_b:ident,
            shl_bits: $shl:ident, shr_bits: $shr:ident,
            as_vectors: $simd:ident, as_mut_vectors: $mut_simd:ident,
            load_partial: $load:ident, store_partial: $store:ident,
            as_f32: $f32:expr, as_f64: $f64:expr $(,)?
        }
    ) => {
        impl Lanes for $t {
            type Vector<S: Simd> = S::$v;
            type Mask<S: Simd> = S::$m;
            type Bits<S: Simd> = S::$b;
            type Uint = $u;
            const MANTISSA_BITS: u32 = $mant;
            #[inline(always)]
            fn splat<S: Simd>(simd: S, value: Self) -> S::$v {
                simd.$splat(value)
            }
            #[inline(always)]
            fn add<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$v {
                simd.$add(a, b)
            }
            #[inline(always)]
            fn sub<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$v {
                simd.$sub(a, b)
            }
            #[inline(always)]
            fn mul<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$v {
                simd.$mul(a, b)
            }
            #[inline(always)]
            fn div<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$v {
                simd.$div(a, b)
            }
            #[inline(always)]
            fn mul_add<S: Simd>(simd: S, a: S::$v, b: S::$v, c: S::$v) -> S::$v {
                simd.$mul_add(a, b, c)
            }
            #[inline(always)]
            fn neg<S: Simd>(simd: S, a: S::$v) -> S::$v {
                simd.$neg(a)
            }
            #[inline(always)]
            fn abs<S: Simd>(simd: S, a: S::$v) -> S::$v {
                simd.$abs(a)
            }
            #[inline(always)]
            fn sqrt<S: Simd>(simd: S, a: S::$v) -> S::$v {
                simd.$sqrt(a)
            }
            #[inline(always)]
            fn min<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$v {
                simd.$select(simd.$lt(a, b), a, b)
            }
            #[inline(always)]
            fn max<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$v {
                simd.$select(simd.$gt(a, b), a, b)
            }
            #[inline(always)]
            fn less_than<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$m {
                simd.$lt(a, b)
            }
            #[inline(always)]
            fn less_equal<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$m {
                simd.$le(a, b)
            }
            #[inline(always)]
            fn greater_than<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$m {
                simd.$gt(a, b)
            }
            #[inline(always)]
            fn greater_equal<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$m {
                simd.$ge(a, b)
            }
            #[inline(always)]
            fn equal<S: Simd>(simd: S, a: S::$v, b: S::$v) -> S::$m {
                simd.$eq(a, b)
            }
            #[inline(always)]
            fn is_nan<S: Simd>(simd: S, a: S::$v) -> S::$m {
                simd.$not_m(simd.$eq(a, a))
            }
            #[inline(always)]
            fn and_mask<S: Simd>(simd: S, a: S::$m, b: S::$m) -> S::$m {
                simd.$and_m(a, b)
            }
            #[inline(always)]
            fn or_mask<S: Simd>(simd: S, a: S::$m, b: S::$m) -> S::$m {
                simd.$or_m(a, b)
            }
            #[inline(always)]
            fn not_mask<S: Simd>(simd: S, a: S::$m) -> S::$m {
                simd.$not_m(a)
            }
            #[inline(always)]
            fn select<S: Simd>(simd: S, mask: S::$m, a: S::$v, b: S::$v) -> S::$v {
                simd.$select(mask, a, b)
            }
            #[inline(always)]
            fn to_bits<S: Simd>(simd: S, a: S::$v) -> S::$b {
                simd.$to_bits(a)
            }
            #[inline(always)]
            fn from_bits<S: Simd>(simd: S, a: S::$b) -> S::$v {
                simd.$from_bits(a)
            }
            #[inline(always)]
            fn splat_bits<S: Simd>(simd: S, value: $u) -> S::$b {
                simd.$splat_b(value)
            }
            #[inline(always)]
            fn add_bits<S: Simd>(simd: S, a: S::$b, b: S::$b) -> S::$b {
                simd.$add_b(a, b)
            }
            #[inline(always)]
            fn sub_bits<S: Simd>(simd: S, a: S::$b, b: S::$b) -> S::$b {
                simd.$sub_b(a, b)
            }
            #[inline(always)]
            fn and_bits<S: Simd>(simd: S, a: S::$b, b: S::$b) -> S::$b {
                simd.$and_b(a, b)
            }
            #[inline(always)]
            fn or_bits<S: Simd>(simd: S, a: S::$b, b: S::$b) -> S::$b {
                simd.$or_b(a, b)
            }
            #[inline(always)]
            fn xor_bits<S: Simd>(simd: S, a: S::$b, b: S::$b) -> S::$b {
                simd.$xor_b(a, b)
            }
            #[inline(always)]
            fn shl_bits<S: Simd>(simd: S, a: S::$b, amount: u32) -> S::$b {
                $shl::<S>(simd, a, amount)
            }
            #[inline(always)]
            fn shr_bits<S: Simd>(simd: S, a: S::$b, amount: u32) -> S::$b {
                $shr::<S>(simd, a, amount)
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

lanes_of!(f32 {
    vector: f32s,
    mask: m32s,
    bits: u32s,
    uint: u32,
    mantissa: 23,
    splat: splat_f32s,
    add: add_f32s,
    sub: sub_f32s,
    mul: mul_f32s,
    div: div_f32s,
    mul_add: mul_add_f32s,
    neg: neg_f32s,
    abs: abs_f32s,
    sqrt: sqrt_f32s,
    less_than: less_than_f32s,
    less_equal: less_than_or_equal_f32s,
    greater_than: greater_than_f32s,
    greater_equal: greater_than_or_equal_f32s,
    equal: equal_f32s,
    and_mask: and_m32s,
    or_mask: or_m32s,
    not_mask: not_m32s,
    select: select_f32s,
    to_bits: transmute_u32s_f32s,
    from_bits: transmute_f32s_u32s,
    splat_bits: splat_u32s,
    add_bits: add_u32s,
    sub_bits: sub_u32s,
    and_bits: and_u32s,
    or_bits: or_u32s,
    xor_bits: xor_u32s,
    shl_bits: shl_u32s,
    shr_bits: shr_u32s,
    as_vectors: as_simd_f32s,
    as_mut_vectors: as_mut_simd_f32s,
    load_partial: partial_load_f32s,
    store_partial: partial_store_f32s,
    as_f32: Some,
    as_f64: |_| None,
});
lanes_of!(f64 {
    vector: f64s,
    mask: m64s,
    bits: u64s,
    uint: u64,
    mantissa: 52,
    splat: splat_f64s,
    add: add_f64s,
    sub: sub_f64s,
    mul: mul_f64s,
    div: div_f64s,
    mul_add: mul_add_f64s,
    neg: neg_f64s,
    abs: abs_f64s,
    sqrt: sqrt_f64s,
    less_than: less_than_f64s,
    less_equal: less_than_or_equal_f64s,
    greater_than: greater_than_f64s,
    greater_equal: greater_than_or_equal_f64s,
    equal: equal_f64s,
    and_mask: and_m64s,
    or_mask: or_m64s,
    not_mask: not_m64s,
    select: select_f64s,
    to_bits: transmute_u64s_f64s,
    from_bits: transmute_f64s_u64s,
    splat_bits: splat_u64s,
    add_bits: add_u64s,
    sub_bits: sub_u64s,
    and_bits: and_u64s,
    or_bits: or_u64s,
    xor_bits: xor_u64s,
    shl_bits: shl_u64s,
    shr_bits: shr_u64s,
    as_vectors: as_simd_f64s,
    as_mut_vectors: as_mut_simd_f64s,
    load_partial: partial_load_f64s,
    store_partial: partial_store_f64s,
    as_f32: |_| None,
    as_f64: Some,
});

#[cfg(test)]
mod tests {
    use super::Lanes;
    use pulp::{Simd, WithSimd};

    /// Runs a check on `pulp::Scalar` and, where the CPU has them, AVX2
    /// and AVX-512.
    fn on_every_level(check: impl WithSimd<Output = ()> + Copy) {
        Simd::vectorize(pulp::Scalar::new(), check);
        #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
        {
            if let Some(simd) = pulp::x86::V3::try_new() {
                Simd::vectorize(simd, check);
            }
            if let Some(simd) = pulp::x86::V4::try_new() {
                Simd::vectorize(simd, check);
            }
        }
    }

    /// The first lane of `v`.
    fn first<F: Lanes, S: Simd>(simd: S, v: F::Vector<S>, zero: F) -> F {
        let mut out = [zero];
        F::store_partial(simd, &mut out, v);
        out[0]
    }

    #[derive(Clone, Copy)]
    struct Fused;
    impl WithSimd for Fused {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) {
            // (1 + 2^-23)(1 - 2^-23) - 1 = -2^-46 fused, 0 with two roundings
            // (what pulp's `mul_add_e_f32s` gives under `Scalar`)
            let a = <f32 as Lanes>::splat(simd, 1.0 + f32::EPSILON);
            let b = <f32 as Lanes>::splat(simd, 1.0 - f32::EPSILON);
            let r = <f32 as Lanes>::mul_add(simd, a, b, <f32 as Lanes>::splat(simd, -1.0));
            assert_eq!(first(simd, r, 0.0), -(2.0_f32.powi(-46)));
            let a = <f64 as Lanes>::splat(simd, 1.0 + f64::EPSILON);
            let b = <f64 as Lanes>::splat(simd, 1.0 - f64::EPSILON);
            let r = <f64 as Lanes>::mul_add(simd, a, b, <f64 as Lanes>::splat(simd, -1.0));
            assert_eq!(first(simd, r, 0.0), -(2.0_f64.powi(-104)));
        }
    }

    #[test]
    fn mul_add_is_fused_on_every_level() {
        on_every_level(Fused);
    }

    #[derive(Clone, Copy)]
    struct MinMax;
    impl WithSimd for MinMax {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) {
            let nan = <f32 as Lanes>::splat(simd, f32::NAN);
            let one = <f32 as Lanes>::splat(simd, 1.0);
            let zero = <f32 as Lanes>::splat(simd, 0.0);
            let negative_zero = <f32 as Lanes>::splat(simd, -0.0);
            // `b` when either is NaN or they are equal, on every level
            assert!(first(simd, <f32 as Lanes>::min(simd, one, nan), 0.0_f32).is_nan());
            assert_eq!(
                first(simd, <f32 as Lanes>::min(simd, nan, one), 0.0_f32),
                1.0
            );
            assert!(first(simd, <f32 as Lanes>::max(simd, one, nan), 0.0_f32).is_nan());
            let m = first(
                simd,
                <f32 as Lanes>::min(simd, zero, negative_zero),
                1.0_f32,
            );
            assert_eq!(m.to_bits(), (-0.0_f32).to_bits());
            let m = first(
                simd,
                <f32 as Lanes>::max(simd, negative_zero, zero),
                1.0_f32,
            );
            assert_eq!(m.to_bits(), 0);
        }
    }

    #[test]
    fn min_max_agree_on_every_level() {
        on_every_level(MinMax);
    }

    #[derive(Clone, Copy)]
    struct Shifts;
    impl WithSimd for Shifts {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) {
            let bits = <f64 as Lanes>::splat_bits(simd, 1023);
            let two_to_0 =
                <f64 as Lanes>::from_bits(simd, <f64 as Lanes>::shl_bits(simd, bits, 52));
            assert_eq!(first(simd, two_to_0, 0.0), 1.0);
            let back = <f64 as Lanes>::shr_bits(simd, <f64 as Lanes>::to_bits(simd, two_to_0), 52);
            let back = <f64 as Lanes>::from_bits(
                simd,
                <f64 as Lanes>::add_bits(simd, back, <f64 as Lanes>::splat_bits(simd, 0)),
            );
            assert_eq!(first(simd, back, 0.0_f64).to_bits(), 1023);
            let bits = <f32 as Lanes>::splat_bits(simd, 127 + 3);
            let eight = <f32 as Lanes>::from_bits(simd, <f32 as Lanes>::shl_bits(simd, bits, 23));
            assert_eq!(first(simd, eight, 0.0_f32), 8.0);
        }
    }

    #[test]
    fn shifts_on_every_level() {
        on_every_level(Shifts);
    }
}
