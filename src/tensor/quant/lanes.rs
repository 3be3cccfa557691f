//! The 16 virtual lanes of the quantized kernel on each instruction set:
//! one AVX-512 register, two AVX2 registers, or an array of 16 `f32` in
//! the scalar fallback ([`Lanes16`]).
//!
//! Every operation is exact IEEE arithmetic lane by lane (a rounded
//! multiply, a fused multiply-add with one rounding, conversions of small
//! integers, which are exact), so the three give the same bits for the same
//! sequence of calls. The quantized values are unpacked in registers: the
//! 16 bytes of half a block are widened to 16 32-bit lanes (`vpmovzxbd` /
//! `vpmovsxbd`), the nibbles split by a mask and a shift, then converted to
//! `f32` (`vcvtdq2ps`); no value goes through memory.

use super::format::half_to_f32;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::{__m128i, __m256, __m256i, __m512};
#[cfg(target_arch = "x86_64")]
use pulp::bytemuck::cast;

/// Lanes per vector of the kernel: half a block of 32 values.
pub(crate) const LANES: usize = 16;

/// 16 `f32` lanes and the operations the quantized kernel uses on them.
pub(crate) trait Lanes16: Copy {
    /// 16 lanes (one or more registers).
    type V: Copy;
    /// Whether the registers hold 8 weight rows' sums and the activations
    /// at once (32 `zmm` do; 16 `ymm` do not).
    const EIGHT_ROWS: bool;
    /// Every lane `+0.0`.
    fn zero(self) -> Self::V;
    /// Every lane `value`.
    fn splat(self, value: f32) -> Self::V;
    /// The lanes `x[0..16]`.
    fn load(self, x: &[f32; LANES]) -> Self::V;
    /// Lane-wise `a + b` (rounded once).
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise `a · b` (rounded once, never fused with a later add).
    fn mul(self, a: Self::V, b: Self::V) -> Self::V;
    /// Lane-wise `a · b + c` with one rounding (`f32::mul_add`).
    fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// Lane `l`: the low nibble of `qs[l]` as `f32`, and its high nibble.
    fn nibbles(self, qs: &[u8; LANES]) -> (Self::V, Self::V);
    /// Lane `l`: `qs[l]` read as an `i8`, as `f32`.
    fn signed_bytes(self, qs: &[u8; LANES]) -> Self::V;
    /// The lanes in order.
    fn to_array(self, v: Self::V) -> [f32; LANES];
    /// Lane `l`: the `bf16` of bits `bits[l]` as `f32` (its bits shifted
    /// into the top half of an `f32`'s: exact, NaN payloads kept; a
    /// signaling NaN is quieted by the kernel's first multiply-add, so the
    /// products equal those of the `half` crate's quieting conversion).
    fn bf16s(self, bits: [u16; LANES]) -> Self::V;
    /// Lane `l`: the `f16` of bits `bits[l]` as `f32`, exactly as
    /// [`half_to_f32`] converts it (a NaN: the same sign and payload, its
    /// quiet bit possibly still clear; the kernel's first multiply-add
    /// quiets it, so the products are the same).
    fn f16s(self, bits: [u16; LANES]) -> Self::V;
    /// The 8 `f16` in the 4 little-endian pairs `pairs` (low half first)
    /// as `f32`, each exactly as [`half_to_f32`] converts it (`vcvtph2ps`
    /// on AVX-512, which rounds nothing and keeps NaN payloads the same
    /// way; the scalar conversion elsewhere).
    #[inline(always)]
    fn half_pairs(self, pairs: [u32; 4]) -> [f32; 8] {
        let mut out = [0.0; 8];
        for (out, pair) in out.chunks_exact_mut(2).zip(pairs) {
            out[0] = half_to_f32(pair as u16);
            out[1] = half_to_f32((pair >> 16) as u16);
        }
        out
    }
}

/// The scalar fallback: an array of 16 `f32`, `f32::mul_add` per lane
/// (`fmaf` without FMA hardware). It is also the kernel's scalar model.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Plain;

impl Lanes16 for Plain {
    type V = [f32; LANES];
    const EIGHT_ROWS: bool = false;
    #[inline(always)]
    fn zero(self) -> Self::V {
        [0.0; LANES]
    }
    #[inline(always)]
    fn splat(self, value: f32) -> Self::V {
        [value; LANES]
    }
    #[inline(always)]
    fn load(self, x: &[f32; LANES]) -> Self::V {
        *x
    }
    #[inline(always)]
    fn add(self, mut a: Self::V, b: Self::V) -> Self::V {
        for (a, b) in a.iter_mut().zip(b) {
            *a += b;
        }
        a
    }
    #[inline(always)]
    fn mul(self, mut a: Self::V, b: Self::V) -> Self::V {
        for (a, b) in a.iter_mut().zip(b) {
            *a *= b;
        }
        a
    }
    #[inline(always)]
    fn mul_add(self, mut a: Self::V, b: Self::V, c: Self::V) -> Self::V {
        for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
            *a = a.mul_add(b, c);
        }
        a
    }
    #[inline(always)]
    fn nibbles(self, qs: &[u8; LANES]) -> (Self::V, Self::V) {
        let mut low = [0.0; LANES];
        let mut high = [0.0; LANES];
        for ((low, high), &byte) in low.iter_mut().zip(high.iter_mut()).zip(qs) {
            *low = f32::from(byte & 0x0F);
            *high = f32::from(byte >> 4);
        }
        (low, high)
    }
    #[inline(always)]
    fn signed_bytes(self, qs: &[u8; LANES]) -> Self::V {
        let mut out = [0.0; LANES];
        for (out, &byte) in out.iter_mut().zip(qs) {
            *out = f32::from(byte as i8);
        }
        out
    }
    #[inline(always)]
    fn to_array(self, v: Self::V) -> [f32; LANES] {
        v
    }
    #[inline(always)]
    fn bf16s(self, bits: [u16; LANES]) -> Self::V {
        bits.map(|b| f32::from_bits(u32::from(b) << 16))
    }
    #[inline(always)]
    fn f16s(self, bits: [u16; LANES]) -> Self::V {
        bits.map(half_to_f32)
    }
}

/// AVX-512: the 16 lanes are one `zmm` register.
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Avx512(pub(crate) pulp::x86::V4);

#[cfg(target_arch = "x86_64")]
impl Lanes16 for Avx512 {
    type V = __m512;
    const EIGHT_ROWS: bool = true;
    #[inline(always)]
    fn zero(self) -> __m512 {
        self.0.avx512f._mm512_setzero_ps()
    }
    #[inline(always)]
    fn splat(self, value: f32) -> __m512 {
        self.0.avx512f._mm512_set1_ps(value)
    }
    #[inline(always)]
    fn load(self, x: &[f32; LANES]) -> __m512 {
        cast(*x)
    }
    #[inline(always)]
    fn add(self, a: __m512, b: __m512) -> __m512 {
        self.0.avx512f._mm512_add_ps(a, b)
    }
    #[inline(always)]
    fn mul(self, a: __m512, b: __m512) -> __m512 {
        self.0.avx512f._mm512_mul_ps(a, b)
    }
    #[inline(always)]
    fn mul_add(self, a: __m512, b: __m512, c: __m512) -> __m512 {
        self.0.avx512f._mm512_fmadd_ps(a, b, c)
    }
    #[inline(always)]
    fn nibbles(self, qs: &[u8; LANES]) -> (__m512, __m512) {
        let f = self.0.avx512f;
        let wide = f._mm512_cvtepu8_epi32(cast::<[u8; LANES], __m128i>(*qs));
        let low = f._mm512_and_si512(wide, f._mm512_set1_epi32(0x0F));
        let high = f._mm512_srli_epi32::<4>(wide);
        (f._mm512_cvtepi32_ps(low), f._mm512_cvtepi32_ps(high))
    }
    #[inline(always)]
    fn signed_bytes(self, qs: &[u8; LANES]) -> __m512 {
        let f = self.0.avx512f;
        f._mm512_cvtepi32_ps(f._mm512_cvtepi8_epi32(cast::<[u8; LANES], __m128i>(*qs)))
    }
    #[inline(always)]
    fn to_array(self, v: __m512) -> [f32; LANES] {
        cast(v)
    }
    #[inline(always)]
    fn bf16s(self, bits: [u16; LANES]) -> __m512 {
        let f = self.0.avx512f;
        let wide = f._mm512_cvtepu16_epi32(cast::<[u16; LANES], __m256i>(bits));
        cast(f._mm512_slli_epi32::<16>(wide))
    }
    #[inline(always)]
    fn f16s(self, bits: [u16; LANES]) -> __m512 {
        self.0
            .avx512f
            ._mm512_cvtph_ps(cast::<[u16; LANES], __m256i>(bits))
    }
    #[inline(always)]
    fn half_pairs(self, pairs: [u32; 4]) -> [f32; 8] {
        let [a, b, c, d] = pairs;
        let bits = cast::<[u32; 8], __m256i>([a, b, c, d, 0, 0, 0, 0]);
        let all: [f32; LANES] = cast(self.0.avx512f._mm512_cvtph_ps(bits));
        let mut out = [0.0; 8];
        out.copy_from_slice(&all[..8]);
        out
    }
}

/// AVX2: the 16 lanes are two `ymm` registers (lanes 0..8, then 8..16).
#[cfg(target_arch = "x86_64")]
#[derive(Debug, Clone, Copy)]
pub(crate) struct Avx2(pub(crate) pulp::x86::V3);

#[cfg(target_arch = "x86_64")]
impl Lanes16 for Avx2 {
    type V = [__m256; 2];
    const EIGHT_ROWS: bool = false;
    #[inline(always)]
    fn zero(self) -> Self::V {
        let z = self.0.avx._mm256_setzero_ps();
        [z, z]
    }
    #[inline(always)]
    fn splat(self, value: f32) -> Self::V {
        let v = self.0.avx._mm256_set1_ps(value);
        [v, v]
    }
    #[inline(always)]
    fn load(self, x: &[f32; LANES]) -> Self::V {
        cast(*x)
    }
    #[inline(always)]
    fn add(self, a: Self::V, b: Self::V) -> Self::V {
        let avx = self.0.avx;
        [avx._mm256_add_ps(a[0], b[0]), avx._mm256_add_ps(a[1], b[1])]
    }
    #[inline(always)]
    fn mul(self, a: Self::V, b: Self::V) -> Self::V {
        let avx = self.0.avx;
        [avx._mm256_mul_ps(a[0], b[0]), avx._mm256_mul_ps(a[1], b[1])]
    }
    #[inline(always)]
    fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V {
        let fma = self.0.fma;
        [
            fma._mm256_fmadd_ps(a[0], b[0], c[0]),
            fma._mm256_fmadd_ps(a[1], b[1], c[1]),
        ]
    }
    #[inline(always)]
    fn nibbles(self, qs: &[u8; LANES]) -> (Self::V, Self::V) {
        let (avx, avx2) = (self.0.avx, self.0.avx2);
        let bytes = cast::<[u8; LANES], __m128i>(*qs);
        let halves = [bytes, self.0.sse2._mm_srli_si128::<8>(bytes)];
        let mask = avx._mm256_set1_epi32(0x0F);
        let mut low = [avx._mm256_setzero_ps(); 2];
        let mut high = low;
        for ((low, high), half) in low.iter_mut().zip(high.iter_mut()).zip(halves) {
            let wide = avx2._mm256_cvtepu8_epi32(half);
            *low = avx._mm256_cvtepi32_ps(avx2._mm256_and_si256(wide, mask));
            *high = avx._mm256_cvtepi32_ps(avx2._mm256_srli_epi32::<4>(wide));
        }
        (low, high)
    }
    #[inline(always)]
    fn signed_bytes(self, qs: &[u8; LANES]) -> Self::V {
        let (avx, avx2) = (self.0.avx, self.0.avx2);
        let bytes = cast::<[u8; LANES], __m128i>(*qs);
        let high = self.0.sse2._mm_srli_si128::<8>(bytes);
        [
            avx._mm256_cvtepi32_ps(avx2._mm256_cvtepi8_epi32(bytes)),
            avx._mm256_cvtepi32_ps(avx2._mm256_cvtepi8_epi32(high)),
        ]
    }
    #[inline(always)]
    fn to_array(self, v: Self::V) -> [f32; LANES] {
        cast(v)
    }
    #[inline(always)]
    fn bf16s(self, bits: [u16; LANES]) -> Self::V {
        let [low, high] = cast::<[u16; LANES], [__m128i; 2]>(bits);
        [bf16s_8(self.0, low), bf16s_8(self.0, high)]
    }
    #[inline(always)]
    fn f16s(self, bits: [u16; LANES]) -> Self::V {
        let [low, high] = cast::<[u16; LANES], [__m128i; 2]>(bits);
        [f16s_8(self.0, low), f16s_8(self.0, high)]
    }
}

/// 8 `bf16` bits to `f32` on AVX2: widened to 32 bits, shifted up by 16.
/// (Helpers, not closures: a closure would not inherit the instruction set.)
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn bf16s_8(simd: pulp::x86::V3, bits: __m128i) -> __m256 {
    let avx2 = simd.avx2;
    cast(avx2._mm256_slli_epi32::<16>(avx2._mm256_cvtepu16_epi32(bits)))
}

/// [`half_to_f32`] on 8 lanes in AVX2 (which has no `vcvtph2ps`; F16C is
/// not part of pulp's `V3`): the magnitude's bits shifted into an `f32`'s
/// place times 2¹¹² for finite values (exact, subnormals included), the
/// exponent completed to all ones for infinities and NaNs (payload kept,
/// a signaling NaN left signaling: the kernel's first multiply-add quiets
/// it as the scalar conversion does, so the products are the same), the
/// sign put back.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn f16s_8(simd: pulp::x86::V3, bits: __m128i) -> __m256 {
    let (avx, avx2) = (simd.avx, simd.avx2);
    let two_pow_112 = avx._mm256_set1_ps(f32::from_bits((127 + 112) << 23));
    let wide = avx2._mm256_cvtepu16_epi32(bits);
    let sign =
        avx2._mm256_slli_epi32::<16>(avx2._mm256_and_si256(wide, avx._mm256_set1_epi32(0x8000)));
    let magnitude =
        avx2._mm256_slli_epi32::<13>(avx2._mm256_and_si256(wide, avx._mm256_set1_epi32(0x7FFF)));
    let finite = avx._mm256_mul_ps(cast(magnitude), two_pow_112);
    let special: __m256 = cast(avx2._mm256_or_si256(magnitude, avx._mm256_set1_epi32(0x7000_0000)));
    let is_special: __m256 =
        cast(avx2._mm256_cmpgt_epi32(magnitude, avx._mm256_set1_epi32(0x0F7F_FFFF)));
    let value: __m256i = cast(avx._mm256_blendv_ps(finite, special, is_special));
    cast(avx2._mm256_or_si256(value, sign))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `f16` bit pattern through `half_pairs` on each level this CPU
    /// has equals the scalar conversion bit for bit.
    #[test]
    fn half_pairs_equal_the_scalar_conversion_on_every_level() {
        type Level = Box<dyn Fn([u32; 4]) -> [f32; 8]>;
        let mut levels: Vec<Level> = vec![Box::new(|p| Plain.half_pairs(p))];
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v4) = pulp::x86::V4::try_new() {
                levels.push(Box::new(move |p| Avx512(v4).half_pairs(p)));
            }
            if let Some(v3) = pulp::x86::V3::try_new() {
                levels.push(Box::new(move |p| Avx2(v3).half_pairs(p)));
            }
        }
        for first in (0..=u16::MAX as u32).step_by(8) {
            let pairs: [u32; 4] = std::array::from_fn(|r| {
                (first + 2 * r as u32) | ((first + 2 * r as u32 + 1) << 16)
            });
            let want: Vec<u32> = (first..first + 8)
                .map(|b| half_to_f32(b as u16).to_bits())
                .collect();
            for level in &levels {
                let got: Vec<u32> = level(pairs).iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, want, "{first:#06x}");
            }
        }
    }

    /// Every `f16` and `bf16` bit pattern through `f16s` / `bf16s` on each
    /// level this CPU has equals the scalar conversion bit for bit (for
    /// `bf16` the shift, which is the `half` crate's conversion except that
    /// a signaling NaN stays signaling until the first multiply-add; for
    /// `f16` a NaN lane compared with its quiet bit set, for the same
    /// reason).
    #[test]
    fn half_lanes_equal_the_scalar_conversions_on_every_level() {
        type Level = Box<dyn Fn([u16; LANES]) -> ([f32; LANES], [f32; LANES])>;
        let mut levels: Vec<Level> = vec![Box::new(|b| {
            (
                Plain.to_array(Plain.f16s(b)),
                Plain.to_array(Plain.bf16s(b)),
            )
        })];
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v4) = pulp::x86::V4::try_new() {
                let s = Avx512(v4);
                levels.push(Box::new(move |b| {
                    (s.to_array(s.f16s(b)), s.to_array(s.bf16s(b)))
                }));
            }
            if let Some(v3) = pulp::x86::V3::try_new() {
                let s = Avx2(v3);
                levels.push(Box::new(move |b| {
                    (s.to_array(s.f16s(b)), s.to_array(s.bf16s(b)))
                }));
            }
        }
        for first in (0..=u16::MAX).step_by(LANES) {
            let bits: [u16; LANES] = std::array::from_fn(|l| first + l as u16);
            let halves = bits.map(|b| half_to_f32(b).to_bits());
            let brains = bits.map(|b| u32::from(b) << 16);
            for (&b, &wide) in bits.iter().zip(&brains) {
                let half = crate::tensor::bf16::from_bits(b).to_f32();
                if !half.is_nan() {
                    assert_eq!(
                        half.to_bits(),
                        wide,
                        "the shift is the half crate's widening"
                    );
                }
            }
            for level in &levels {
                let (f16s, bf16s) = level(bits);
                // A NaN lane may still be signaling: compare it quieted.
                let quieted = f16s.map(|v| {
                    if v.is_nan() {
                        v.to_bits() | 0x0040_0000
                    } else {
                        v.to_bits()
                    }
                });
                assert_eq!(quieted, halves, "f16 {first:#06x}");
                assert_eq!(bf16s.map(f32::to_bits), brains, "bf16 {first:#06x}");
            }
        }
    }
}
