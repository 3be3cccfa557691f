//! The register tile of the packed product ([`super::gemm`]): `MR × NV`
//! vectors of chains, each advanced one fused multiply-add per step of `k`
//! in ascending order, over a left panel (packed, or rows read in place)
//! and a packed right panel; and the loop that runs one right panel past
//! every left panel of a row block over one `k` slice.

use crate::tensor::float::Float;
use crate::tensor::lanes::{Lanes, lanes};
use pulp::Simd;

/// One packed right panel of one `k` slice: what the register tiles of a
/// row block read.
#[derive(Clone, Copy)]
pub(super) struct Right<'p, F> {
    /// The slice's first `k` (its depth is the panel's length over `NR`).
    pub(super) pc: usize,
    /// The panel: `kc` steps of `NR` values (`pack_panel`, zero-padded).
    pub(super) panel: &'p [F],
    /// Its output columns `first..first + live` and the output's row
    /// length.
    pub(super) first: usize,
    pub(super) live: usize,
    pub(super) n: usize,
}

/// The left operand of a row block over one `k` slice, in panels of the
/// tile's rows: packed panels are always `MR` rows; rows read in place end
/// with a 2- or 4-row panel when that few are left ([`tiles`]).
#[derive(Clone, Copy)]
pub(super) enum Left<'a, F> {
    /// Packed panels (`pack_panel`, step-major, zero-padded rows).
    Packed(&'a [F]),
    /// Read in place, where the left operand's columns are contiguous:
    /// row `r`'s slice at `data[base + r · stride..]` (as many rows as the
    /// output block has). Packing them is a transpose, which LLVM turned
    /// into scatters, 3-4 % of a 512² `f32` product on Zen 4; in place,
    /// that product took 1.5 % less time on one thread and 3 % on two
    /// (eight A/B pairs).
    Rows {
        data: &'a [F],
        base: usize,
        stride: usize,
    },
}

/// Runs the register tiles of one right panel over every left panel
/// (`out`: their rows of the output): a 128-deep right panel (32 KiB of
/// `f32` on AVX-512) stays in L1 while the left panels stream past it, six
/// values per step against the right panel's `NR`.
///
/// Left rows read in place end with a shorter tile when at most two
/// thirds of a full one remain: a 32-row prompt is five 6-row tiles and
/// one of 2 rows, which a full tile computes at the cost of 6. On the
/// Intel Xeon of 2026-12-06 that made `[32, 768] x [768, 2304]` and its
/// GPT-2 siblings 1.5-2 % faster (warm operands, best of 300). The chains
/// are the same, so the bits are.
#[inline(always)]
pub(super) fn tiles<F: Float, S: Simd, const MR: usize, const NV: usize>(
    simd: S,
    right: Right<'_, F>,
    left: Left<'_, F>,
    out: &mut [F],
) {
    let rows = out.len() / right.n;
    for first in (0..rows).step_by(MR) {
        let live_rows = MR.min(rows - first);
        match left {
            Left::Rows { .. } if live_rows <= 2 && MR > 2 => {
                one_tile::<F, S, 2, NV>(simd, right, left, out, first);
            }
            Left::Rows { .. } if live_rows <= 4 && MR > 4 => {
                one_tile::<F, S, 4, NV>(simd, right, left, out, first);
            }
            _ => one_tile::<F, S, MR, NV>(simd, right, left, out, first),
        }
    }
}

/// A left panel's rows: a packed panel, or `MR` row slices of the
/// slice's depth (past the last row, the last row again: those chains
/// are computed but never stored).
#[derive(Clone, Copy)]
enum Panel<'a, F, const MR: usize> {
    Packed(&'a [F]),
    Rows([&'a [F]; MR]),
}

/// The left panel of rows `first..first + MR` of `out` times the right
/// panel over one `k` slice: the chains continue from `out` unless the
/// slice is the first, and are stored back (the live rows and columns
/// only at the edges).
#[inline(always)]
fn one_tile<F: Float, S: Simd, const MR: usize, const NV: usize>(
    simd: S,
    right: Right<'_, F>,
    left: Left<'_, F>,
    out: &mut [F],
    first: usize,
) {
    let Right {
        pc,
        panel,
        first: col,
        live: live_cols,
        n,
    } = right;
    let lanes = lanes::<F, S>();
    let nr = NV * lanes;
    let fresh = pc == 0;
    let kc = panel.len() / nr;
    let rows = out.len() / n;
    let live_rows = MR.min(rows - first);
    let a_panel = match left {
        Left::Packed(a_pack) => Panel::Packed(&a_pack[first * kc..(first + MR) * kc]),
        Left::Rows { data, base, stride } => {
            let start = |r: usize| base + (first + r.min(live_rows - 1)) * stride;
            Panel::Rows(std::array::from_fn(|r| &data[start(r)..start(r) + kc]))
        }
    };
    let out = &mut out[first * n..(first + live_rows) * n];
    let b_panel = F::as_vectors::<S>(panel).0;
    if live_rows == MR && live_cols == nr {
        // Loops, not `from_fn` or `copy_from_slice`: those became a
        // closure call and `memmove` calls here (a tenth of a 512² product).
        let mut init = [[F::splat(simd, F::ZERO); NV]; MR];
        if !fresh {
            for (r, chains) in init.iter_mut().enumerate() {
                let row = F::as_vectors::<S>(&out[r * n + col..r * n + col + nr]).0;
                for (chain, &value) in chains.iter_mut().zip(row) {
                    *chain = value;
                }
            }
        }
        let acc = tile::<F, S, MR, NV>(simd, a_panel, b_panel, init);
        for (r, lane) in acc.iter().enumerate() {
            let row = F::as_mut_vectors::<S>(&mut out[r * n + col..r * n + col + nr]).0;
            for (slot, &value) in row.iter_mut().zip(lane) {
                *slot = value;
            }
        }
    } else {
        // Lanes of vector `v` of row `r` that are output columns (an empty
        // range past the last column).
        let edge = |r: usize, v: usize| {
            let width = lanes.min(live_cols.saturating_sub(v * lanes));
            let start = if width == 0 {
                0
            } else {
                r * n + col + v * lanes
            };
            start..start + width
        };
        // Loops, not `from_fn` closures: a closure does not inherit the
        // target features, so the vector operations in it would become
        // calls.
        let mut init = [[F::splat(simd, F::ZERO); NV]; MR];
        if !fresh {
            for (r, chains) in init.iter_mut().enumerate().take(live_rows) {
                for (v, chain) in chains.iter_mut().enumerate() {
                    *chain = F::load_partial(simd, &out[edge(r, v)]);
                }
            }
        }
        let acc = tile::<F, S, MR, NV>(simd, a_panel, b_panel, init);
        for (r, lane) in acc.iter().enumerate().take(live_rows) {
            for (v, &vector) in lane.iter().enumerate() {
                F::store_partial(simd, &mut out[edge(r, v)], vector);
            }
        }
    }
}

/// The register tile: `MR × NV` vectors of chains advanced through one `k`
/// slice in ascending order, each step one fused multiply-add per chain
/// (`chain = fma(a, b, chain)`).
#[inline(always)]
fn tile<F: Lanes, S: Simd, const MR: usize, const NV: usize>(
    simd: S,
    a_panel: Panel<'_, F, MR>,
    b_panel: &[F::Vector<S>],
    mut acc: [[F::Vector<S>; NV]; MR],
) -> [[F::Vector<S>; NV]; MR] {
    let (b_steps, _) = pulp::as_arrays::<NV, F::Vector<S>>(b_panel);
    match a_panel {
        Panel::Packed(a_panel) => {
            let (a_steps, _) = pulp::as_arrays::<MR, F>(a_panel);
            for (a_step, b_step) in a_steps.iter().zip(b_steps) {
                step::<F, S, MR, NV>(simd, &mut acc, a_step, b_step);
            }
        }
        Panel::Rows(mut rows) => {
            // Every row cut to `kc` by a loop and `k` counted to `kc`: the
            // compiler then drops the six bounds checks per step and
            // broadcasts each left value from memory. With `rows.map(..)`
            // (a `try_map` call it did not inline) and `enumerate`, the
            // loop kept both, and four of six broadcasts went through a
            // register on the port the fused multiply-adds need: a 512²
            // `f32` product on one thread of the Intel Xeon of 2026-12-06
            // took 2.00 ms against 1.90 after (five pinned pairs).
            let kc = b_steps.len();
            for row in &mut rows {
                *row = &row[..kc];
            }
            for k in 0..kc {
                let a_step = std::array::from_fn(|r| rows[r][k]);
                step::<F, S, MR, NV>(simd, &mut acc, &a_step, &b_steps[k]);
            }
        }
    }
    acc
}

/// One step of `k` of the tile: `chain = fma(a[r], b[v], chain)` for every
/// row `r` and vector `v`.
#[inline(always)]
fn step<F: Lanes, S: Simd, const MR: usize, const NV: usize>(
    simd: S,
    acc: &mut [[F::Vector<S>; NV]; MR],
    a_step: &[F; MR],
    b_step: &[F::Vector<S>; NV],
) {
    for (chains, &a_value) in acc.iter_mut().zip(a_step) {
        let a_value = F::splat(simd, a_value);
        for (chain, &b_value) in chains.iter_mut().zip(b_step) {
            *chain = F::mul_add(simd, a_value, b_value, *chain);
        }
    }
}
