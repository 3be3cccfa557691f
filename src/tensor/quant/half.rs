//! The half-precision kernel of [`half_linear`](super::half_linear): dot
//! products of `f32` rows with `bf16` / `f16` rows, in one fixed order on
//! every instruction set.
//!
//! The order, for one activation row `x` and one weight row `w` of `k`
//! values (both read as padded with `+0.0`, all bits clear, to a multiple of
//! 16), with 16
//! virtual lanes `l` and chunks `c = 0, 1, ..` of 16 values:
//!
//! ```text
//! acc_l  = fma(widen(w[16c + l]), x[16c + l], acc_l)   // acc_l starts at +0.0
//! result = tree(acc_0 .. acc_15)
//! ```
//!
//! where `widen` is exact (a `bf16`'s bits are the top half of an `f32`'s;
//! an `f16` converts as the `half` crate converts it, NaN payloads
//! included) and `tree` adds the lanes pairwise as the block kernel does
//! (`v_l + v_{l+8}`, then `+4`, `+2`, `+1`). The lanes are independent, so
//! AVX-512 (one register), AVX2 (two) and the scalar fallback (the model
//! the tests compare with) compute the same operations; how rows are
//! grouped (`schedule.rs`) and which thread computes a row change no value.

use super::kernel::tree;
use super::lanes::{LANES, Lanes16};
use super::schedule::Rows;
use crate::tensor::element::{bf16, f16};

mod sealed {
    /// What the kernel needs of a half-precision element: its bits, and
    /// how they widen.
    pub trait Sealed: Copy + Send + Sync + 'static {
        /// Whether the bits widen by a 16-bit shift (`bf16`) rather than
        /// by the binary16 conversion (`f16`).
        const SHIFTS: bool;
        /// The element's bits.
        fn bits(self) -> u16;
    }
}

/// The half-precision weight types [`half_linear`](super::half_linear)
/// reads: [`bf16`] (Google Brain's bfloat16: 1 sign, 8 exponent and 7
/// mantissa bits, the top half of an IEEE 754 binary32) and [`f16`] (IEEE
/// 754-2008 binary16: 1, 5 and 10 bits). Both widen to `f32` exactly;
/// sealed: the kernel has a widening for these two only.
///
/// ```
/// use llm_from_scratch::tensor::{bf16, f16, quant::HalfFloat};
/// assert_eq!((<bf16 as HalfFloat>::NAME, <f16 as HalfFloat>::NAME), ("bf16", "f16"));
/// ```
pub trait HalfFloat: sealed::Sealed {
    /// The type's name in messages (`"bf16"`, `"f16"`).
    const NAME: &'static str;
}

impl sealed::Sealed for bf16 {
    const SHIFTS: bool = true;
    #[inline(always)]
    fn bits(self) -> u16 {
        self.to_bits()
    }
}

impl HalfFloat for bf16 {
    const NAME: &'static str = "bf16";
}

impl sealed::Sealed for f16 {
    const SHIFTS: bool = false;
    #[inline(always)]
    fn bits(self) -> u16 {
        self.to_bits()
    }
}

impl HalfFloat for f16 {
    const NAME: &'static str = "f16";
}

/// Lane `l`: the `H` of bits `bits[l]` as `f32`, exactly.
#[inline(always)]
fn widen<H: HalfFloat, L: Lanes16>(simd: L, bits: [u16; LANES]) -> L::V {
    if H::SHIFTS {
        simd.bf16s(bits)
    } else {
        simd.f16s(bits)
    }
}

/// A product of [`half_linear`](super::half_linear) for the row schedule:
/// the weights (`k` per row, row-major) and the activations (`k` per row).
#[derive(Clone, Copy)]
pub(crate) struct HalfRows<'a, H> {
    pub(crate) w: &'a [H],
    pub(crate) x: &'a [f32],
    pub(crate) k: usize,
}

/// The last `k % 16` activations of a row, padded with `+0.0` to 16.
#[inline(always)]
fn padded(tail: &[f32]) -> [f32; LANES] {
    let mut out = [0.0; LANES];
    for (out, &value) in out.iter_mut().zip(tail) {
        *out = value;
    }
    out
}

/// The dots of `WN` weight rows with `XN` activation rows, `out[r][i] =
/// x[i] · w[r]`, in the order of the module docs: each chunk of 16 weights
/// is widened once for the `XN` activation rows, each chunk of `x` loaded
/// once for the `WN` weight rows.
#[inline(always)]
fn dot_tile<H: HalfFloat, L: Lanes16, const WN: usize, const XN: usize>(
    simd: L,
    w: [&[H]; WN],
    x: [&[f32]; XN],
) -> [[f32; XN]; WN] {
    let mut acc = [[simd.zero(); XN]; WN];
    let w_chunks = w.map(|row| row.as_chunks::<LANES>());
    let x_chunks = x.map(|row| row.as_chunks::<LANES>());
    let chunks = x_chunks[0].0.len();
    let step = |acc: &mut [[L::V; XN]; WN], ws: [[u16; LANES]; WN], xs: [L::V; XN]| {
        for (acc, bits) in acc.iter_mut().zip(ws) {
            let wide = widen::<H, L>(simd, bits);
            for (acc, &x) in acc.iter_mut().zip(&xs) {
                *acc = simd.mul_add(wide, x, *acc);
            }
        }
    };
    for c in 0..chunks {
        let xs = x_chunks.map(|(full, _)| simd.load(&full[c]));
        let ws = w_chunks.map(|(full, _)| full[c].map(H::bits));
        step(&mut acc, ws, xs);
    }
    if x_chunks[0].1.is_empty() {
        return acc.map(|row| row.map(|acc| tree(simd.to_array(acc))));
    }
    let xs = x_chunks.map(|(_, tail)| simd.load(&padded(tail)));
    let ws = w_chunks.map(|(_, tail)| {
        let mut bits = [0; LANES];
        for (bits, value) in bits.iter_mut().zip(tail) {
            *bits = value.bits();
        }
        bits
    });
    step(&mut acc, ws, xs);
    acc.map(|row| row.map(|acc| tree(simd.to_array(acc))))
}

impl<'a, H: HalfFloat> Rows for HalfRows<'a, H> {
    type W = &'a [H];
    type X = &'a [f32];
    #[inline(always)]
    fn weight(self, j: usize) -> Self::W {
        &self.w[j * self.k..(j + 1) * self.k]
    }
    #[inline(always)]
    fn activation(self, i: usize) -> Self::X {
        &self.x[i * self.k..(i + 1) * self.k]
    }
    #[inline(always)]
    fn tile<L: Lanes16, const WN: usize, const XN: usize>(
        self,
        simd: L,
        w: [Self::W; WN],
        x: [Self::X; XN],
    ) -> [[f32; XN]; WN] {
        dot_tile::<H, L, WN, XN>(simd, w, x)
    }
}
