//! The batched matrix product kernel: `[batch.., m, k] x [batch.., k, n]`.
//!
//! Exact order: every output element is one chain
//! `((+0.0 + a₀·b₀) + a₁·b₁) + …` over ascending `k`, with a separate
//! multiply and add (Rust never contracts `x * y + z` into a fused
//! multiply-add), exactly like the naive triple loop. Everything below only
//! changes *which* chains run side by side, never the order inside a chain,
//! so the result is bit-identical for every layout of the operands.
//!
//! Structure (the GotoBLAS / BLIS loop nest, in safe Rust):
//! - the batch loop walks the broadcast batch axes (stride 0 where an
//!   operand is broadcast); trailing batch axes over which the right
//!   operand is broadcast and the left one is evenly strided are folded into
//!   the rows (`[B, T, C] x [C, N]` is one `[B·T, C] x [C, N]` product);
//! - per matrix: blocks of `NC` columns, then `KC`-deep slices of `k` in
//!   ascending order, then `MC` rows. A `k` slice continues the chains where
//!   the previous slice stored them (a stored float is reloaded exactly);
//! - both operands are packed into small contiguous scratch panels, so any
//!   strides (the transposed key `Kᵀ`, sliced heads) read at the same speed;
//!   the packed right block (`KC × NC`) stays in L2, one packed left panel
//!   (`MR × KC`) in L1 while the tiles walk along its output rows (so the
//!   row-major output is written in order);
//! - a register tile of `MR` rows × `NR` columns keeps its `MR·NR` chains in
//!   a local array that the compiler holds in vector registers and updates
//!   with one vector multiply and one add per `k` step and vector.
//!
//! Speed limit: safe Rust has no run-time CPU dispatch, so a default x86-64
//! build uses the SSE2 baseline (16-byte vectors) and runs at roughly a third to a half
//! of the speed of a BLAS that picks AVX2 + FMA kernels at run time
//! (measured against ndarray's `matrixmultiply`); builds with
//! `-C target-cpu=native` get wider tiles through `VECTOR_BYTES` with no
//! code change and come within 1.1-1.7× of it.

use crate::tensor::float::Float;
use crate::tensor::shape::broadcast::broadcast_strides;
use crate::tensor::traverse::Strided;

/// The width of the vector registers this build may use (compile-time
/// target features; safe Rust has no run-time dispatch).
const VECTOR_BYTES: usize = if cfg!(target_feature = "avx512f") {
    64
} else if cfg!(target_feature = "avx") {
    32
} else {
    16
};

/// Depth of one `k` slice: a packed left panel `MR × KC` (16 KiB of `f64`
/// with the SSE2 duplication) stays in L1.
const KC: usize = 256;
/// Rows per packing round of the left operand.
const MC: usize = 64;
/// Columns per packed block of the right operand (`KC × NC`, 1 MiB of
/// `f64`: stays in L2 while every row panel of the block passes over it).
const NC: usize = 512;

/// One matrix of a strided operand: origin and (row, column) strides.
#[derive(Debug, Clone, Copy)]
struct Matrix<'a, F> {
    data: &'a [F],
    base: usize,
    row: usize,
    col: usize,
}

impl<F: Copy> Matrix<'_, F> {
    #[inline(always)]
    fn at(&self, i: usize, j: usize) -> F {
        self.data[self.base + i * self.row + j * self.col]
    }
}

/// Multiplies checked operands into `out`, the row-major output of
/// `out_shape = [batch.., m, n]`.
///
/// Preconditions (checked by the op layer): both ranks are at least 2, the
/// contracted extents agree, the batch axes broadcast to `out_shape`'s
/// leading axes, and `out.len()` is `out_shape`'s element count. Every
/// output value is overwritten (`out` may hold anything).
pub(crate) fn matmul<F: Float>(
    left: Strided<'_, '_, F>,
    right: Strided<'_, '_, F>,
    out_shape: &[usize],
    out: &mut [F],
) {
    if out.is_empty() {
        return;
    }
    let (left_rank, right_rank, rank) = (left.shape.len(), right.shape.len(), out_shape.len());
    let (m, n) = (out_shape[rank - 2], out_shape[rank - 1]);
    let k = left.shape[left_rank - 1];
    if k == 0 {
        out.fill(F::ZERO);
        return;
    }
    let batch_shape = &out_shape[..rank - 2];
    let mut left_batch = vec![0; rank - 2];
    let mut right_batch = vec![0; rank - 2];
    let left_split = left_rank - 2;
    let right_split = right_rank - 2;
    broadcast_strides(
        &left.shape[..left_split],
        &left.strides[..left_split],
        batch_shape,
        &mut left_batch,
    );
    broadcast_strides(
        &right.shape[..right_split],
        &right.strides[..right_split],
        batch_shape,
        &mut right_batch,
    );
    let mut a = Matrix {
        data: left.data,
        base: left.base,
        row: left.strides[left_split],
        col: left.strides[left_split + 1],
    };
    let b = Matrix {
        data: right.data,
        base: right.base,
        row: right.strides[right_split],
        col: right.strides[right_split + 1],
    };
    let (outer_rank, rows) = fold_rows(batch_shape, &left_batch, &right_batch, m, &mut a.row);
    let batches = Batches {
        shape: &batch_shape[..outer_rank],
        left: &left_batch[..outer_rank],
        right: &right_batch[..outer_rank],
    };
    // Register tiles of 4 rows x 2 vectors: 8 accumulators, so accumulators,
    // operands and broadcasts fit the 16 registers of baseline x86-64 (SSE2,
    // 16-byte vectors); builds with wider vectors get wider tiles.
    match (size_of::<F>(), VECTOR_BYTES) {
        (4, 32 | 64) => batched::<F, 4, 16>(a, b, &batches, rows, n, k, out),
        (4, _) => batched::<F, 4, 8>(a, b, &batches, rows, n, k, out),
        (_, 64) => batched::<F, 4, 16>(a, b, &batches, rows, n, k, out),
        (_, 32) => batched::<F, 4, 8>(a, b, &batches, rows, n, k, out),
        _ => batched::<F, 4, 4>(a, b, &batches, rows, n, k, out),
    }
}

/// The batch axes left after folding, with each operand's effective strides.
struct Batches<'s> {
    shape: &'s [usize],
    left: &'s [usize],
    right: &'s [usize],
}

/// One `rows × k` by `k × n` product per batch index, in row-major batch order.
fn batched<F: Float, const MR: usize, const NR: usize>(
    a: Matrix<'_, F>,
    b: Matrix<'_, F>,
    batches: &Batches<'_>,
    rows: usize,
    n: usize,
    k: usize,
    out: &mut [F],
) {
    let mut scratch = Scratch::new::<MR, NR>(rows, n, k);
    let mut index = vec![0; batches.shape.len()];
    for chunk in out.chunks_exact_mut(rows * n) {
        let (mut left_offset, mut right_offset) = (a.base, b.base);
        for (axis, &i) in index.iter().enumerate() {
            left_offset += i * batches.left[axis];
            right_offset += i * batches.right[axis];
        }
        let a = Matrix {
            base: left_offset,
            ..a
        };
        let b = Matrix {
            base: right_offset,
            ..b
        };
        gemm::<F, MR, NR>(a, b, rows, n, k, chunk, &mut scratch);
        advance(&mut index, batches.shape);
    }
}

/// Folds trailing batch axes into the rows where that keeps one row stride:
/// the right operand is broadcast there (stride 0), and the left operand
/// steps by exactly `rows × row stride` (or has a single row so far).
/// Unit axes fold trivially. Returns the remaining batch rank and the rows.
fn fold_rows(
    batch_shape: &[usize],
    left_batch: &[usize],
    right_batch: &[usize],
    m: usize,
    row_stride: &mut usize,
) -> (usize, usize) {
    let mut rows = m;
    let mut outer = batch_shape.len();
    while outer > 0 {
        let axis = outer - 1;
        let extent = batch_shape[axis];
        if extent != 1 {
            if right_batch[axis] != 0 {
                break;
            }
            if rows == 1 {
                *row_stride = left_batch[axis];
            } else if rows.checked_mul(*row_stride) != Some(left_batch[axis]) {
                break;
            }
            rows *= extent;
        }
        outer -= 1;
    }
    (outer, rows)
}

/// Advances a row-major odometer over `shape` by one step.
fn advance(index: &mut [usize], shape: &[usize]) {
    for (slot, &extent) in index.iter_mut().zip(shape).rev() {
        *slot += 1;
        if *slot < extent {
            return;
        }
        *slot = 0;
    }
}

/// The packed panels, allocated once per call and sized for its blocks
/// (at most `MC·4·KC + KC·NC` values, about 1.5 MiB: a bounded scratch, so an
/// infallible allocation like any small temporary).
struct Scratch<F> {
    a: Vec<F>,
    b: Vec<F>,
}

impl<F: Float> Scratch<F> {
    fn new<const MR: usize, const NR: usize>(m: usize, n: usize, k: usize) -> Self {
        let kc = k.min(KC);
        let mc = m.min(MC).next_multiple_of(MR);
        let nc = n.min(NC).next_multiple_of(NR);
        Self {
            a: vec![F::ZERO; mc * dup::<F>() * kc],
            b: vec![F::ZERO; kc * nc],
        }
    }
}

/// One `m × k` by `k × n` product into the row-major `out` (`m × n`).
fn gemm<F: Float, const MR: usize, const NR: usize>(
    a: Matrix<'_, F>,
    b: Matrix<'_, F>,
    m: usize,
    n: usize,
    k: usize,
    out: &mut [F],
    scratch: &mut Scratch<F>,
) {
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            let b_panels = &mut scratch.b[..kc * nc.next_multiple_of(NR)];
            pack_b::<F, NR>(b, pc, kc, jc, nc, b_panels);
            for ic in (0..m).step_by(MC) {
                let mc = MC.min(m - ic);
                let a_panels = &mut scratch.a[..mc.next_multiple_of(MR) * dup::<F>() * kc];
                pack_a::<F, MR>(a, ic, mc, pc, kc, a_panels);
                let block = Block {
                    out: &mut *out,
                    n,
                    row: ic,
                    col: jc,
                    rows: mc,
                    cols: nc,
                };
                block_product::<F, MR, NR>(a_panels, b_panels, kc, pc == 0, block);
            }
        }
    }
}

/// Packs rows `ic..ic + mc`, columns `pc..pc + kc` of `a` into `MR`-row
/// panels: panel `q` holds, for each `kk`, the `MR` values
/// `a[ic + q·MR + r, pc + kk]`, each repeated `dup::<F>()` times (zero past the last row).
fn pack_a<F: Float, const MR: usize>(
    a: Matrix<'_, F>,
    ic: usize,
    mc: usize,
    pc: usize,
    kc: usize,
    panels: &mut [F],
) {
    let dup = dup::<F>();
    for (q, panel) in panels.chunks_exact_mut(MR * dup * kc).enumerate() {
        let first = ic + q * MR;
        let live = MR.min(ic + mc - first);
        for (kk, step) in panel.chunks_exact_mut(MR * dup).enumerate() {
            for (r, slots) in step.chunks_exact_mut(dup).enumerate() {
                let value = if r < live {
                    a.at(first + r, pc + kk)
                } else {
                    F::ZERO
                };
                slots.fill(value);
            }
        }
    }
}

/// How many copies of each left value the packed panel holds: one full
/// 128-bit vector on x86-64 without SSE3 (whose baseline SSE2 has no
/// load-and-broadcast, so a plain vector load replaces a shuffle), else 1.
const fn dup<F>() -> usize {
    if cfg!(all(target_arch = "x86_64", not(target_feature = "sse3"))) {
        16 / size_of::<F>()
    } else {
        1
    }
}

/// Packs rows `pc..pc + kc`, columns `jc..jc + nc` of `b` into `NR`-column
/// panels: panel `p` holds, for each `kk`, the `NR` values
/// `b[pc + kk, jc + p·NR + c]` (zero past the last column). Dense rows are
/// copied as slices; other strides are gathered.
fn pack_b<F: Float, const NR: usize>(
    b: Matrix<'_, F>,
    pc: usize,
    kc: usize,
    jc: usize,
    nc: usize,
    panels: &mut [F],
) {
    for (p, panel) in panels.chunks_exact_mut(kc * NR).enumerate() {
        let first = jc + p * NR;
        let live = NR.min(jc + nc - first);
        for (kk, row) in panel.chunks_exact_mut(NR).enumerate() {
            let start = b.base + (pc + kk) * b.row + first * b.col;
            if b.col == 1 {
                row[..live].copy_from_slice(&b.data[start..start + live]);
            } else {
                for (c, slot) in row[..live].iter_mut().enumerate() {
                    *slot = b.data[start + c * b.col];
                }
            }
            row[live..].fill(F::ZERO);
        }
    }
}

/// Where a block of the output lives: rows `row..row + rows`, columns
/// `col..col + cols` of the row-major `out` with `n` columns.
struct Block<'o, F> {
    out: &'o mut [F],
    n: usize,
    row: usize,
    col: usize,
    rows: usize,
    cols: usize,
}

/// Runs the register tiles over one packed block: for each `MR`-row panel of
/// the left operand (kept in L1), every `NR`-column panel of the right one
/// (from L2), so each output row is written left to right.
/// `fresh` starts the chains at +0.0; otherwise they continue from `out`.
fn block_product<F: Float, const MR: usize, const NR: usize>(
    a_panels: &[F],
    b_panels: &[F],
    kc: usize,
    fresh: bool,
    block: Block<'_, F>,
) {
    for (q, a_panel) in a_panels.chunks_exact(kc * MR * dup::<F>()).enumerate() {
        let row = block.row + q * MR;
        let rows = MR.min(block.row + block.rows - row);
        for (p, b_panel) in b_panels.chunks_exact(kc * NR).enumerate() {
            let col = block.col + p * NR;
            let cols = NR.min(block.col + block.cols - col);
            let mut acc = [[F::ZERO; NR]; MR];
            if !fresh {
                for (r, lane) in acc.iter_mut().enumerate().take(rows) {
                    let start = (row + r) * block.n + col;
                    lane[..cols].copy_from_slice(&block.out[start..start + cols]);
                }
            }
            tile::<F, MR, NR>(a_panel, b_panel, &mut acc);
            for (r, lane) in acc.iter().enumerate().take(rows) {
                let start = (row + r) * block.n + col;
                block.out[start..start + cols].copy_from_slice(&lane[..cols]);
            }
        }
    }
}

/// The register tile: `MR × NR` chains advanced through one `k` slice in
/// ascending order, each step one multiply and one add per chain.
#[inline(always)]
fn tile<F: Float, const MR: usize, const NR: usize>(
    a_panel: &[F],
    b_panel: &[F],
    acc: &mut [[F; NR]; MR],
) {
    let dup = dup::<F>();
    let mut local = *acc;
    for (a_step, b_step) in a_panel.chunks_exact(MR * dup).zip(b_panel.chunks_exact(NR)) {
        let b_step: [F; NR] = b_step.try_into().expect("panel step of NR values");
        for (r, lane) in local.iter_mut().enumerate() {
            for (c, chain) in lane.iter_mut().enumerate() {
                *chain = *chain + a_step[r * dup + c % dup] * b_step[c];
            }
        }
    }
    *acc = local;
}
