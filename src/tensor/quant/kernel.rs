//! The block kernel of [`linear`](super::linear): dot products of `f32`
//! rows with block-quantized rows, in one fixed order on every instruction
//! set.
//!
//! The order, for one activation row `x` and one weight row of blocks
//! `b = 0, 1, ..` (scale `d_b`, offset `m_b`, quantized values `q_b`), with
//! 16 virtual lanes `l`:
//!
//! ```text
//! p_l    = fma(q_b[l + 16], x_b[l + 16], q_b[l] · x_b[l])   // the two halves of the block
//! acc_l  = fma(d_b, p_l, acc_l)                             // acc_l starts at +0.0
//! macc   = fma(m_b, Σx_b, macc)                             // Q4_1 only; macc starts at +0.0
//! result = tree(acc_0 .. acc_15) (+ macc)
//! ```
//!
//! where `Σx_b = tree(x_b[l] + x_b[l + 16])` (computed once per activation
//! row, before the sweep over the weights) and `tree` adds lanes pairwise
//! (`v_l + v_{l+8}`, then `+4`, `+2`, `+1`). The lanes are independent, so
//! AVX-512 (one register), AVX2 (two) and the scalar fallback (an array of
//! 16, the model the tests compare with) compute the same operations
//! ([`Lanes16`]); `mul_add` is the correctly rounded fused multiply-add on
//! each (`vfmadd`, or `fmaf` without FMA hardware), so the bits are the
//! same everywhere. How rows are grouped (several weight rows against one
//! activation row while decoding, several activation rows against one
//! weight row otherwise: `schedule.rs`) and which thread computes a row
//! change no value.

use super::format::{BLOCK_LEN, BlockFormat, Packing, packing};
use super::lanes::{LANES, Lanes16};
use super::schedule::Rows;

/// The pairwise sum of 16 lanes: `v_l + v_{l+8}`, then `+4`, `+2`, `+1`.
#[inline(always)]
pub(crate) fn tree(mut v: [f32; LANES]) -> f32 {
    let mut width = LANES / 2;
    while width > 0 {
        for l in 0..width {
            v[l] += v[l + width];
        }
        width /= 2;
    }
    v[0]
}

/// `Σx_b` of every block of the row `x` into `sums` (one per block).
#[inline(always)]
pub(crate) fn block_sums(x: &[f32], sums: &mut [f32]) {
    let (blocks, _) = x.as_chunks::<BLOCK_LEN>();
    for (sum, block) in sums.iter_mut().zip(blocks) {
        let mut lanes = [0.0; LANES];
        for (l, lane) in lanes.iter_mut().enumerate() {
            *lane = block[l] + block[l + LANES];
        }
        *sum = tree(lanes);
    }
}

/// The two halves `x[0..16]`, `x[16..32]` of an activation block.
#[inline(always)]
fn halves(x: &[f32; BLOCK_LEN]) -> (&[f32; LANES], &[f32; LANES]) {
    let (low, high) = x.as_chunks::<LANES>().0.split_at(1);
    (&low[0], &high[0])
}

/// The quantized values of `block` as two halves of 16 lanes (`q[0..16]`,
/// `q[16..32]`), unpacked in registers.
#[inline(always)]
fn unpack<F: BlockFormat, L: Lanes16>(simd: L, block: &F::Block) -> (L::V, L::V) {
    let (at, kind) = const { packing::<F>() };
    let bytes: &[u8] = block.as_ref();
    let chunk = |start: usize| -> &[u8; LANES] {
        bytes
            .get(start..)
            .and_then(|rest| rest.first_chunk())
            .unwrap_or(&[0; LANES])
    };
    match kind {
        Packing::Bytes => (
            simd.signed_bytes(chunk(at)),
            simd.signed_bytes(chunk(at + LANES)),
        ),
        Packing::Nibbles { bias } => {
            let (low, high) = simd.nibbles(chunk(at));
            if bias == 0.0 {
                (low, high)
            } else {
                let minus = simd.splat(-bias);
                (simd.add(low, minus), simd.add(high, minus))
            }
        }
    }
}

/// The scales `(d, m)` of `N` blocks (`m` = 0 without offsets), as
/// [`BlockFormat::scales`] gives them: for 4 blocks the 8 `f16` are
/// converted in one instruction where the lanes have one.
#[inline(always)]
fn scales<F: BlockFormat, L: Lanes16, const N: usize>(
    simd: L,
    blocks: [&F::Block; N],
) -> [(f32, f32); N] {
    let mut out = [(0.0, 0.0); N];
    if N.is_multiple_of(4) {
        for (out, blocks) in out.chunks_exact_mut(4).zip(blocks.chunks_exact(4)) {
            let mut pairs = [0_u32; 4];
            for (pair, block) in pairs.iter_mut().zip(blocks) {
                let bytes: &[u8] = block.as_ref();
                if let Some(&head) = bytes.first_chunk::<4>() {
                    *pair = u32::from_le_bytes(head);
                }
            }
            let halves = simd.half_pairs(pairs);
            for (r, out) in out.iter_mut().enumerate() {
                let m = if F::HAS_MIN { halves[2 * r + 1] } else { 0.0 };
                *out = (halves[2 * r], m);
            }
        }
    } else {
        for (out, block) in out.iter_mut().zip(blocks) {
            *out = F::scales(block);
        }
    }
    out
}

/// The sums of a set of dot products: 16 lanes each, and the `Q4_1`
/// offset term.
#[inline(always)]
fn finish<F: BlockFormat, L: Lanes16>(simd: L, acc: L::V, macc: f32) -> f32 {
    let sum = tree(simd.to_array(acc));
    if F::HAS_MIN { sum + macc } else { sum }
}

/// The dots of `WN` weight rows `w` with `XN` activation rows `xs` (block
/// sums `sums`), `out[r][i] = xs[i] · w[r]`, each in the order of the
/// module docs: every block of `x` is loaded once for the `WN` weight rows,
/// every weight block unpacked once for the `XN` activation rows.
#[inline(always)]
fn dot_tile<F: BlockFormat, L: Lanes16, const WN: usize, const XN: usize>(
    simd: L,
    w: [&[F::Block]; WN],
    xs: [&[[f32; BLOCK_LEN]]; XN],
    sums: [&[f32]; XN],
) -> [[f32; XN]; WN] {
    let mut acc = [[simd.zero(); XN]; WN];
    let mut macc = [[0.0_f32; XN]; WN];
    let per_row = xs[0].len();
    for b in 0..per_row {
        let mut x = [(simd.zero(), simd.zero()); XN];
        for (x, row) in x.iter_mut().zip(xs) {
            let (low, high) = halves(&row[b]);
            *x = (simd.load(low), simd.load(high));
        }
        let mut blocks = [&w[0][b]; WN];
        for r in 1..WN {
            blocks[r] = &w[r][b];
        }
        let scales = scales::<F, L, WN>(simd, blocks);
        for r in 0..WN {
            let (q_low, q_high) = unpack::<F, L>(simd, blocks[r]);
            let (d, m) = scales[r];
            let d = simd.splat(d);
            for i in 0..XN {
                let (x_low, x_high) = x[i];
                let p = simd.mul_add(q_high, x_high, simd.mul(q_low, x_low));
                acc[r][i] = simd.mul_add(d, p, acc[r][i]);
                if F::HAS_MIN {
                    macc[r][i] = m.mul_add(sums[i][b], macc[r][i]);
                }
            }
        }
    }
    let mut out = [[0.0; XN]; WN];
    for r in 0..WN {
        for i in 0..XN {
            out[r][i] = finish::<F, L>(simd, acc[r][i], macc[r][i]);
        }
    }
    out
}

/// A product of [`linear`](super::linear) for the row schedule: the
/// weight matrix's blocks (`per_row` per row), the activations (`m` rows of
/// `per_row` blocks of values) and their block sums (`per_row` per row).
#[derive(Clone, Copy)]
pub(crate) struct QRows<'a, F: BlockFormat> {
    pub(crate) w: &'a [F::Block],
    pub(crate) per_row: usize,
    pub(crate) x: &'a [[f32; BLOCK_LEN]],
    pub(crate) sums: &'a [f32],
}

impl<'a, F: BlockFormat> Rows for QRows<'a, F> {
    type W = &'a [F::Block];
    type X = (&'a [[f32; BLOCK_LEN]], &'a [f32]);
    #[inline(always)]
    fn weight(self, j: usize) -> Self::W {
        &self.w[j * self.per_row..(j + 1) * self.per_row]
    }
    #[inline(always)]
    fn activation(self, i: usize) -> Self::X {
        let at = i * self.per_row..(i + 1) * self.per_row;
        (&self.x[at.clone()], &self.sums[at])
    }
    #[inline(always)]
    fn tile<L: Lanes16, const WN: usize, const XN: usize>(
        self,
        simd: L,
        w: [Self::W; WN],
        x: [Self::X; XN],
    ) -> [[f32; XN]; WN] {
        dot_tile::<F, L, WN, XN>(simd, w, x.map(|(x, _)| x), x.map(|(_, sums)| sums))
    }
}
