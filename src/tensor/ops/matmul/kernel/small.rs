//! The decode path: products with at most [`MAX_ROWS`] rows per matrix
//! (`[.., 1, k] x [.., k, n]` for one new token), without packing the right
//! operand.
//!
//! The few left rows are copied step-major (`M` values per step of `k`).
//! The output columns are taken `NV` vectors at a time (`M × NV`
//! accumulators); `k` is the outer loop, so each step broadcasts `M` left
//! values and reads `NV` vectors of one row of the right operand.
//! - Right operand with contiguous columns (a row-major matrix; for
//!   attention scores, a key cache stored transposed, see below): each
//!   step reads its row in place, so the cache streams through once.
//! - Other strides (the transposed view `Kᵀ` of a row-major key cache, whose
//!   columns are the cache's contiguous rows): blocks of `k` are staged into
//!   a small step-major buffer (with in-register transposes of 16 × 16
//!   blocks on AVX-512, else each cache row read in order and written to one
//!   lane), then multiplied the same way. Summing over `k` across lanes (a
//!   dot product per column) would be faster still but would change the
//!   order of the chain, so it is never done.
//!
//! Every chain is the one of the kernel: `c = fma(a_k, b_k, c)` over
//! ascending `k` from +0.0.
//!
//! The key-cache layout for decoding: store `K` transposed, `[B, H, D, T_max]`
//! (for each head, `D` rows of `T_max` positions; a new token writes one
//! column `[.., .., :, t]`). The scores of one query row are then
//! `q [B, H, 1, D] x Kᵀ [B, H, D, T]`, where `Kᵀ` is the slice `..T` of the
//! last axis: column stride 1, so every step of `k = D` reads `T` contiguous
//! values. `V` stays `[B, H, T_max, D]` (sliced to `T` rows), which is already
//! row-major for `P [B, H, 1, T] x V [B, H, T, D]`.

use super::pack::{Source, pack_panel};
use super::transpose::{columns16, stage_transposed};
use super::{Matrix, Problem, splits_evenly};
use crate::tensor::float::Float;
use crate::tensor::lanes::{Lanes, lanes};
use crate::tensor::traverse::alloc::{AllocationFailed, try_filled};
use crate::tensor::traverse::simd::Dispatch;
use pulp::{Simd, WithSimd};
use rayon::prelude::*;

/// The most rows per matrix this path takes.
pub(super) const MAX_ROWS: usize = 4;
/// Steps of `k` staged per block when columns are not contiguous.
const KB: usize = 128;
/// Steps of `k` per pass over the columns when they are contiguous: this
/// many right rows are read side by side, each front to back.
const KSTREAM: usize = 16;
/// Column ranges of a one-row product split over threads are multiples of
/// this: the widest block of columns (8 vectors of 16 `f32`), so only the
/// last range has a ragged end.
const SPLIT_COLUMNS: usize = 128;

/// All matrices of `problem` into `out`.
///
/// Scratch space (the left rows step-major, `m·k` values, and the staging
/// block, at most `KB` × 128 values) is reserved fallibly: a product whose
/// `k` is too large for memory stops with [`AllocationFailed`].
pub(super) fn run<F: Float>(
    dispatch: Dispatch,
    problem: &Problem<'_, '_, F>,
    out: &mut [F],
    threads: usize,
) -> Result<(), AllocationFailed> {
    let (m, n) = (problem.rows, problem.n);
    let count = out.len() / (m * n);
    if splits_evenly(count, threads) {
        out.par_chunks_exact_mut(m * n)
            .enumerate()
            .try_for_each(|(index, out)| dispatch.run(Rows::new(problem, index, out)))
    } else if threads > 1 && m == 1 {
        let width = n.div_ceil(threads).next_multiple_of(SPLIT_COLUMNS);
        for (index, out) in out.chunks_exact_mut(n).enumerate() {
            out.par_chunks_mut(width)
                .enumerate()
                .try_for_each(|(part, out)| {
                    let rows = Rows::new(problem, index, out);
                    let first_col = part * width;
                    let cols = rows.out.len();
                    dispatch.run(Rows {
                        first_col,
                        cols,
                        ..rows
                    })
                })?;
        }
        Ok(())
    } else if threads > 1 {
        for (index, out) in out.chunks_exact_mut(m * n).enumerate() {
            out.par_chunks_mut(n)
                .enumerate()
                .try_for_each(|(row, out)| {
                    let rows = Rows::new(problem, index, out);
                    let a = Matrix {
                        base: rows.a.base + row * rows.a.row,
                        ..rows.a
                    };
                    dispatch.run(Rows { a, m: 1, ..rows })
                })?;
        }
        Ok(())
    } else {
        for (index, out) in out.chunks_exact_mut(m * n).enumerate() {
            dispatch.run(Rows::new(problem, index, out))?;
        }
        Ok(())
    }
}

/// The `WithSimd` body: columns `first_col..first_col + cols` of an
/// `m`-row product, column `j` of row `r` stored at
/// `out[r · ldc + j - first_col]`.
struct Rows<'a, 'o, F> {
    a: Matrix<'a, F>,
    b: Matrix<'a, F>,
    m: usize,
    k: usize,
    first_col: usize,
    cols: usize,
    out: &'o mut [F],
    ldc: usize,
}

impl<'a, 'o, F: Float> Rows<'a, 'o, F> {
    /// All columns of matrix `index` of `problem`, into its `out`.
    fn new(problem: &Problem<'a, '_, F>, index: usize, out: &'o mut [F]) -> Self {
        let (a, b) = problem.matrices(index);
        Self {
            a,
            b,
            m: problem.rows,
            k: problem.k,
            first_col: 0,
            cols: problem.n,
            out,
            ldc: problem.n,
        }
    }
}

impl<F: Float> WithSimd for Rows<'_, '_, F> {
    type Output = Result<(), AllocationFailed>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Self::Output {
        match self.m {
            1 => rows::<F, S, 1>(simd, self),
            2 => rows::<F, S, 2>(simd, self),
            3 => rows::<F, S, 3>(simd, self),
            _ => rows::<F, S, 4>(simd, self),
        }
    }
}

/// `M` rows. With contiguous right columns: as many columns as possible in
/// blocks of 8 vectors (one row, 32 registers), then 4, 2 and 1 vectors
/// (each block keeps its `M × NV` chains in registers), the last partial
/// vector staged. Otherwise every block is staged, 4 vectors wide with 32
/// registers and 2 with 16.
#[inline(always)]
fn rows<F: Float, S: Simd, const M: usize>(
    simd: S,
    job: Rows<'_, '_, F>,
) -> Result<(), AllocationFailed> {
    let Rows { a, b, k, .. } = job;
    let packed;
    let a_steps = if M == 1 && a.col == 1 {
        &a.data[a.base..a.base + k]
    } else {
        let elements = M.saturating_mul(k);
        let mut values = try_filled(elements, F::ZERO)?;
        let source = Source {
            data: a.data,
            base: a.base,
            lane_stride: a.row,
            step_stride: a.col,
        };
        pack_panel(source, M, M, k, &mut values);
        packed = values;
        &packed
    };
    let a_flat = a_steps;
    let a_steps = pulp::as_arrays::<M, F>(a_steps).0;
    let wide = S::REGISTER_COUNT >= 32 || lanes::<F, S>() == 1;
    let mut job = job;
    let mut done = 0;
    if b.col == 1 {
        if M == 1 && wide {
            done = direct::<F, S, M, 8>(simd, a_steps, &mut job, done);
        }
        if M == 1 || wide {
            done = direct::<F, S, M, 4>(simd, a_steps, &mut job, done);
        }
        done = direct::<F, S, M, 2>(simd, a_steps, &mut job, done);
        done = direct::<F, S, M, 1>(simd, a_steps, &mut job, done);
        staged::<F, S, M, 1>(simd, a_steps, &mut job, done)
    } else if wide {
        if M == 1 {
            done = fused::<F, S>(simd, a_flat, &mut job, done);
        }
        staged::<F, S, M, 4>(simd, a_steps, &mut job, done)
    } else {
        staged::<F, S, M, 2>(simd, a_steps, &mut job, done)
    }
}

/// Columns `done..` in whole blocks of `NV` vectors, read in place (column
/// stride 1). Returns where it stopped (fewer than `NV` vectors left).
///
/// The steps go in blocks of [`KSTREAM`]: within a block every column block
/// is visited in turn, so each of the block's right rows is read front to
/// back (a few sequential streams the prefetcher follows, instead of one
/// stride of a whole row per step); the chains wait in the output between
/// blocks (the first block starts them from +0.0, so each column's sum is
/// still the ascending fold).
#[inline(always)]
fn direct<F: Float, S: Simd, const M: usize, const NV: usize>(
    simd: S,
    a_steps: &[[F; M]],
    job: &mut Rows<'_, '_, F>,
    done: usize,
) -> usize {
    let width = NV * lanes::<F, S>();
    let end = done + (job.cols - done) / width * width;
    let b = job.b;
    for first in (0..job.k).step_by(KSTREAM) {
        let a_block = &a_steps[first..job.k.min(first + KSTREAM)];
        for offset in (done..end).step_by(width) {
            let acc = if first == 0 {
                [[F::splat(simd, F::ZERO); NV]; M]
            } else {
                load::<F, S, M, NV>(job, offset)
            };
            let base = b.base + first * b.row + job.first_col + offset;
            let acc = steps::<F, S, M, NV>(simd, acc, a_block, b.data, base, b.row);
            store::<F, S, M, NV>(simd, &acc, job, offset, width);
        }
    }
    end
}

/// The `M × NV` vectors of chains stored at column `offset` of the job's
/// output rows (whole blocks only).
#[inline(always)]
fn load<F: Float, S: Simd, const M: usize, const NV: usize>(
    job: &Rows<'_, '_, F>,
    offset: usize,
) -> [[F::Vector<S>; NV]; M] {
    let width = NV * lanes::<F, S>();
    let mut acc = [[F::as_vectors::<S>(&job.out[offset..offset + width]).0[0]; NV]; M];
    for (r, chains) in acc.iter_mut().enumerate() {
        let start = r * job.ldc + offset;
        chains.copy_from_slice(F::as_vectors::<S>(&job.out[start..start + width]).0);
    }
    acc
}

/// One row against a right operand whose columns are contiguous runs over
/// `k` (the transposed view `Kᵀ` of a row-major matrix, e.g. GPT-2's tied
/// LM head `x · wteᵀ`): whole blocks of 16 columns, each 16 × 16 block of
/// the runs transposed in registers and consumed at once (no staging
/// buffer), where the CPU and the element type allow. Returns where it
/// stopped.
#[inline(always)]
fn fused<F: Float, S: Simd>(simd: S, a: &[F], job: &mut Rows<'_, '_, F>, mut done: usize) -> usize {
    let b = job.b;
    if b.row != 1 {
        return done;
    }
    while done + 16 <= job.cols {
        let base = b.base + (job.first_col + done) * b.col;
        let out = &mut job.out[done..done + 16];
        if !columns16(simd, a, b.data, base, b.col, job.k, out) {
            break;
        }
        done += 16;
    }
    done
}

/// Columns `done..` in blocks of `NV` vectors, staged through a step-major
/// buffer [`KB`] steps at a time (the last block zero-padded).
#[inline(always)]
fn staged<F: Float, S: Simd, const M: usize, const NV: usize>(
    simd: S,
    a_steps: &[[F; M]],
    job: &mut Rows<'_, '_, F>,
    done: usize,
) -> Result<(), AllocationFailed> {
    if done >= job.cols {
        return Ok(());
    }
    let (b, k) = (job.b, job.k);
    let width = NV * lanes::<F, S>();
    let mut stage = try_filled(KB.min(k) * width, F::ZERO)?;
    for offset in (done..job.cols).step_by(width) {
        let live = width.min(job.cols - offset);
        let col = job.first_col + offset;
        let mut acc = [[F::splat(simd, F::ZERO); NV]; M];
        for first in (0..k).step_by(KB) {
            let depth = KB.min(k - first);
            let source = Source {
                data: b.data,
                base: b.base + first * b.row + col * b.col,
                lane_stride: b.col,
                step_stride: b.row,
            };
            if !stage_transposed(simd, source, live, width, depth, &mut stage) {
                pack_panel(source, live, width, depth, &mut stage);
            }
            let a_block = &a_steps[first..first + depth];
            acc = steps::<F, S, M, NV>(simd, acc, a_block, &stage, 0, width);
        }
        store::<F, S, M, NV>(simd, &acc, job, offset, live);
    }
    Ok(())
}

/// Stores the first `live` columns of `M × NV` vectors of chains at column
/// `offset` of the job's output rows.
#[inline(always)]
fn store<F: Float, S: Simd, const M: usize, const NV: usize>(
    simd: S,
    acc: &[[F::Vector<S>; NV]; M],
    job: &mut Rows<'_, '_, F>,
    offset: usize,
    live: usize,
) {
    let lanes = lanes::<F, S>();
    for (r, chains) in acc.iter().enumerate() {
        let start = r * job.ldc + offset;
        let row = &mut job.out[start..start + live];
        if live == NV * lanes {
            F::as_mut_vectors::<S>(row).0.copy_from_slice(chains);
        } else {
            for (part, &vector) in row.chunks_mut(lanes).zip(chains) {
                F::store_partial(simd, part, vector);
            }
        }
    }
}

/// Advances `M × NV` vectors of chains by the steps of `a_steps` (one fused
/// multiply-add per chain and step), step `s` reading the right row
/// `data[base + s · stride..][..NV · lanes]`.
#[inline(always)]
fn steps<F: Lanes, S: Simd, const M: usize, const NV: usize>(
    simd: S,
    mut acc: [[F::Vector<S>; NV]; M],
    a_steps: &[[F; M]],
    data: &[F],
    base: usize,
    stride: usize,
) -> [[F::Vector<S>; NV]; M] {
    let width = NV * lanes::<F, S>();
    for (step, a_step) in a_steps.iter().enumerate() {
        let start = base + step * stride;
        let row = F::as_vectors::<S>(&data[start..start + width]).0;
        let row: &[F::Vector<S>; NV] = row.try_into().expect("NV vectors per step");
        for (chains, &a_value) in acc.iter_mut().zip(a_step) {
            let a_value = F::splat(simd, a_value);
            for (chain, &b_value) in chains.iter_mut().zip(row) {
                *chain = F::mul_add(simd, a_value, b_value, *chain);
            }
        }
    }
    acc
}
