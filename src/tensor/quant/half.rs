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
    /// What the kernel needs of a half-precision element: 16 bits it can
    /// be read as (`Pod`, 2 bytes), and how they widen.
    pub trait Sealed: bytemuck::Pod + Send + Sync + 'static {
        /// Whether the bits widen by a 16-bit shift (`bf16`) rather than
        /// by the binary16 conversion (`f16`).
        const SHIFTS: bool;
    }
}

/// The half-precision weight types [`half_linear`](super::half_linear)
/// reads: [`bf16`] (Google Brain's bfloat16: 1 sign, 8 exponent and 7
/// mantissa bits, the top half of an IEEE 754 binary32) and [`f16`](struct@f16) (IEEE
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
}

impl HalfFloat for bf16 {
    const NAME: &'static str = "bf16";
}

impl sealed::Sealed for f16 {
    const SHIFTS: bool = false;
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
/// the weights' bits (`k` per row, row-major), the activations (`k` per
/// row), and `H`, the type the bits are of.
#[derive(Clone, Copy)]
pub(crate) struct HalfRows<'a, H> {
    pub(crate) w: &'a [u16],
    pub(crate) x: &'a [f32],
    pub(crate) k: usize,
    pub(crate) of: core::marker::PhantomData<H>,
}

/// One chunk of 16 values of `WN` weight rows (`ws`, bits) and `XN`
/// activation rows (`xs`) into the running sums: each weight chunk widened
/// once, `acc[r][i]_l = fma(w_r[l], x_i[l], acc[r][i]_l)`. (No closures
/// here: a closure would not inherit the instruction set, see
/// `traverse/simd.rs`.)
#[inline(always)]
fn step<H: HalfFloat, L: Lanes16, const WN: usize, const XN: usize>(
    simd: L,
    acc: &mut [[L::V; XN]; WN],
    ws: [[u16; LANES]; WN],
    xs: [L::V; XN],
) {
    for r in 0..WN {
        let wide = widen::<H, L>(simd, ws[r]);
        for i in 0..XN {
            acc[r][i] = simd.mul_add(wide, xs[i], acc[r][i]);
        }
    }
}

/// The dots of `WN` weight rows with `XN` activation rows, `out[r][i] =
/// x[i] · w[r]`, in the order of the module docs: each chunk of 16 weights
/// is widened once for the `XN` activation rows, each chunk of `x` loaded
/// once for the `WN` weight rows.
#[inline(always)]
fn dot_tile<H: HalfFloat, L: Lanes16, const WN: usize, const XN: usize>(
    simd: L,
    w: [&[u16]; WN],
    x: [&[f32]; XN],
) -> [[f32; XN]; WN] {
    let mut acc = [[simd.zero(); XN]; WN];
    let k = x[0].len();
    let chunks = k / LANES;
    let mut ws = [[0_u16; LANES]; WN];
    let mut xs = [simd.zero(); XN];
    for c in 0..chunks {
        let at = c * LANES;
        for i in 0..XN {
            if let Some(chunk) = x[i].get(at..).and_then(|rest| rest.first_chunk()) {
                xs[i] = simd.load(chunk);
            }
        }
        for r in 0..WN {
            if let Some(chunk) = w[r].get(at..).and_then(|rest| rest.first_chunk()) {
                ws[r] = *chunk;
            }
        }
        step::<H, L, WN, XN>(simd, &mut acc, ws, xs);
    }
    let at = chunks * LANES;
    if at < k {
        for i in 0..XN {
            let mut tail = [0.0; LANES];
            for (slot, &value) in tail.iter_mut().zip(&x[i][at.min(x[i].len())..]) {
                *slot = value;
            }
            xs[i] = simd.load(&tail);
        }
        for r in 0..WN {
            ws[r] = [0; LANES];
            for (slot, &bits) in ws[r].iter_mut().zip(&w[r][at.min(w[r].len())..]) {
                *slot = bits;
            }
        }
        step::<H, L, WN, XN>(simd, &mut acc, ws, xs);
    }
    let mut out = [[0.0; XN]; WN];
    for r in 0..WN {
        for i in 0..XN {
            out[r][i] = tree(simd.to_array(acc[r][i]));
        }
    }
    out
}

impl<'a, H: HalfFloat> Rows for HalfRows<'a, H> {
    type W = &'a [u16];
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
