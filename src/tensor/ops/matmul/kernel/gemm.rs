//! The packed product for more than a few rows: the GotoBLAS / BLIS loop
//! nest with a register tile per instruction set.
//!
//! Per matrix: blocks of [`NC`] columns, then [`KC`]-deep slices of `k` in
//! ascending order, then [`MC`] rows. The right block's slices (`KC × NC`
//! each, as many as [`PACK_BUDGET`] holds) are packed into zero-padded
//! `NR`-column panels; the left rows are read in place where their columns
//! are contiguous, else packed into `MR`-row panels. A `k` slice continues
//! the chains where the previous slice stored them (the first starts them
//! at +0.0; a stored float is reloaded exactly).
//!
//! Threads never share a packed panel. A batch that keeps them evenly busy
//! goes whole matrices per thread; otherwise one matrix is split into one
//! block of rows per thread ([`row_split`]), or, up to
//! [`COLUMN_SPLIT_MAX_ROWS`] rows (a prompt against a weight), into one
//! range of columns per thread ([`column_split`]), and every block is a
//! one-thread product that packs what it reads itself.
//!
//! The register tile holds `MR × NV` vectors of accumulators (`NR = NV ·
//! lanes` output columns), each updated by one fused multiply-add per `k`
//! step: 6 × 4 vectors with 32 registers (AVX-512: 6 × 64 `f32` columns),
//! 6 × 2 with 16 (AVX2), 4 × 4 scalars on the fallback (`mul_add` there is
//! the correctly rounded software or hardware `fma` of the platform's libm).

use super::epilogue::Epilogue;
use super::pack::{Source, pack_panel};
use super::tile::{Block, Left, tiles};
use super::{Matrix, Problem, splits_evenly};
use crate::tensor::float::Float;
use crate::tensor::lanes::lanes;
use crate::tensor::traverse::alloc::{AllocationFailed, try_scratch};
use crate::tensor::traverse::cached::{Cache, put_cached, take_cached};
use crate::tensor::traverse::simd::Dispatch;
use pulp::{Simd, WithSimd};
use rayon::prelude::*;
use std::cell::RefCell;
use std::thread::LocalKey;

/// Depth of one `k` slice. 512 was 1-3 % faster on the AMD EPYC (Zen 4)
/// of 2026-12-06 (512² `f32` on one thread 2.44-2.46 against 2.48-2.50
/// ms), but on the Intel Xeon of the same day a prompt's products
/// (`[32, 768] x [768, 2304]` and the like) lost 11 %: GPT-2 small's
/// 32-token prefill 252-276 against 288-317 tokens/s on one thread, three
/// interleaved pairs. A full column block's slice, 1024 columns by 512
/// `f32`, is 2 MiB, that core's whole L2, and every left panel streams it
/// again; at 256 it is 1 MiB and stays there.
const KC: usize = 256;
/// Rows per packed left block (a multiple of every `MR`).
const MC: usize = 96;
/// Columns per packed right block (a multiple of every `NR`).
const NC: usize = 1024;
/// Bytes of the right operand packed at once at most: whole [`KC`] slices
/// of one column block, at least one. Half of a core's 1 MiB L2 on the AMD
/// EPYC (Zen 4), a quarter of the Intel Xeon's 2 MiB: a larger group (4 MiB
/// was tried) lets the first slices' panels leave L2 before the tiles read
/// them, and the 512² product lost 5 % on one thread.
const PACK_BUDGET: usize = 1 << 19;

/// Rows of a product up to which several threads split its columns rather
/// than its rows: split by rows, every thread reads and packs the whole
/// right operand (GPT-2's weights, from memory) for a few rows. On two
/// threads `[16, 768] x [768, 3072]` took 0.67 ms split by columns and
/// 0.88 ms by rows; from 32 to 64 rows the two were within 5 %.
const COLUMN_SPLIT_MAX_ROWS: usize = 64;

/// Columns of one task of a column split: a multiple of this (of every
/// register tile's `NR`, AVX-512's 64 `f32` columns the widest), so that
/// only the last task has a ragged panel.
const COLUMN_ALIGN: usize = 64;

/// Rows of one task of a row split: a multiple of this (the register
/// tile's `MR` on AVX-512 and AVX2), so that only the last task has a
/// ragged panel there. On the scalar fallback's 4-row tile a block of 6,
/// 18, 30, ... rows ends with 2 rows, which run in a 2-row tile.
const ROW_ALIGN: usize = 6;

/// The packing buffers of one thread, grown on first use.
#[derive(Default)]
struct Scratch<F> {
    a: Vec<F>,
    b: Vec<F>,
    /// The column tasks' outputs of a column split, task after task.
    columns: Vec<F>,
}

thread_local! {
    /// The calling thread's packing buffers, kept between products (so a
    /// training step's hundreds of small products neither allocate nor
    /// zero-fill them again): taken for the length of one product and put
    /// back, so a product nested in another on the same thread (rayon work
    /// stealing) starts its own instead. Every panel is rewritten whole,
    /// zero padding included, before it is read, so old contents never
    /// reach a result.
    static CACHED: Cache = const { RefCell::new(None) };
    /// The packing buffers of the tasks this thread runs for a row or
    /// column split (the caller's own [`CACHED`] buffers are out then),
    /// kept the same way, so a split's tasks do not allocate and zero-fill
    /// fresh pages (a freed worker buffer goes back to the system, and
    /// faulting it in again cost 13 % of a two-thread 512² product).
    static SPLIT_TASKS: Cache = const { RefCell::new(None) };
}

/// All matrices of `problem` into `out`: whole matrices per thread when the
/// batch splits evenly, else one matrix after another, each split into one
/// block of rows per thread ([`row_split`]; column ranges for a matrix of
/// at most [`COLUMN_SPLIT_MAX_ROWS`] rows, see [`column_split`]).
///
/// The packing buffers (per thread: at most `MC·KC` values and the larger
/// of [`PACK_BUDGET`] bytes and `KC·(NC + 64)` values, plus the `m·n`
/// staging values of a column split; twice that on the calling thread of
/// a split, which keeps its own cached buffers while its task uses those
/// of [`SPLIT_TASKS`]) are reserved fallibly; a failure stops the product
/// with [`AllocationFailed`].
pub(super) fn run<F: Float>(
    dispatch: Dispatch,
    problem: &Problem<'_, '_, F>,
    out: &mut [F],
    epilogue: Option<Epilogue<'_, F>>,
    threads: usize,
) -> Result<(), AllocationFailed> {
    let (m, n, k) = (problem.rows, problem.n, problem.k);
    let chunks = out.chunks_exact_mut(m * n);
    let count = chunks.len();
    if splits_evenly(count, threads) {
        // As few runs of whole matrices as keep the threads even (fewer
        // rayon splits); each matrix borrows its thread's cached buffers.
        let run_len = if count.is_multiple_of(threads) {
            count / threads
        } else {
            count.div_ceil(4 * threads)
        };
        out.par_chunks_exact_mut(m * n)
            .with_min_len(run_len)
            .enumerate()
            .try_for_each(|(index, out)| {
                let (a, b) = problem.matrices(index);
                let matrix = OneMatrix { a, b, m, n, k };
                one_thread(dispatch, &CACHED, matrix, out, epilogue)
            })
    } else {
        let mut scratch = take_cached::<Scratch<F>>(&CACHED);
        let mut result = Ok(());
        for (index, out) in chunks.enumerate() {
            let (a, b) = problem.matrices(index);
            let matrix = OneMatrix { a, b, m, n, k };
            result = if threads <= 1 {
                dispatch.run(Product {
                    matrix,
                    out,
                    scratch: &mut scratch,
                    epilogue,
                })
            } else if m <= COLUMN_SPLIT_MAX_ROWS && n >= 2 * COLUMN_ALIGN {
                column_split(
                    dispatch,
                    matrix,
                    out,
                    &mut scratch.columns,
                    epilogue,
                    threads,
                )
            } else {
                row_split(dispatch, matrix, out, epilogue, threads)
            };
            if result.is_err() {
                break;
            }
        }
        put_cached(&CACHED, scratch);
        result
    }
}

/// One matrix on `threads` threads: its rows in one block per thread
/// (whole multiples of [`ROW_ALIGN`]), each block a one-thread product of
/// its rows by the whole right operand, written straight into its rows of
/// `out`.
///
/// Each thread packs the right operand's panels it reads itself, so no
/// packed panel is ever written by one core and read by another. The
/// panels used to be packed once and shared by all row tasks (fewer
/// copies); on the 2-vCPU AMD EPYC of 2026-12-06 the copies into a buffer
/// the other core had just read took 17-19 % of a two-thread 512² product,
/// and splitting by rows with private panels made it 1.15-1.2× faster
/// (1.36-1.40 ms against 1.60-1.67; candle-core 1.58-1.67), `[128, 768] x
/// [768, 3072]` 1.9× (3.4 against 6.5 ms). One block per thread rather than
/// several smaller ones, because every block packs the right operand again:
/// a block of `r` rows copies each right value once for `r` fused
/// multiply-adds, so on many threads a product of a few rows per thread
/// spends a larger share on packing (and up to 64 rows splits by columns
/// when there are at least 128 of them).
///
/// Every output element's chain is the one-thread product's, so the bits do
/// not depend on the split.
fn row_split<F: Float>(
    dispatch: Dispatch,
    matrix: OneMatrix<'_, F>,
    out: &mut [F],
    epilogue: Option<Epilogue<'_, F>>,
    threads: usize,
) -> Result<(), AllocationFailed> {
    let OneMatrix { a, m, n, .. } = matrix;
    let rows = m.div_ceil(threads).next_multiple_of(ROW_ALIGN);
    out.par_chunks_mut(rows * n)
        .enumerate()
        .try_for_each(|(task, part)| {
            let a = Matrix {
                base: a.base + task * rows * a.row,
                ..a
            };
            let m = part.len() / n;
            let block = OneMatrix { a, m, ..matrix };
            one_thread(dispatch, &SPLIT_TASKS, block, part, epilogue)
        })
}

/// One matrix of at most [`COLUMN_SPLIT_MAX_ROWS`] rows on `threads`
/// threads: its columns in one range per thread (whole multiples of
/// [`COLUMN_ALIGN`]), each range a one-thread product of all `m` rows into
/// its own part of `staging`, then copied into its columns of `out`.
///
/// Every output element's chain is the one-thread product's (the same
/// `k` slices in the same order; the epilogue is per element), so the bits
/// do not depend on the split. The copy is `m · n` values, against the
/// `k · n` of the right operand each range reads once.
fn column_split<F: Float>(
    dispatch: Dispatch,
    matrix: OneMatrix<'_, F>,
    out: &mut [F],
    staging: &mut Vec<F>,
    epilogue: Option<Epilogue<'_, F>>,
    threads: usize,
) -> Result<(), AllocationFailed> {
    let OneMatrix { a, b, m, n, k } = matrix;
    let width = n.div_ceil(threads).next_multiple_of(COLUMN_ALIGN);
    let staging = try_scratch(staging, m * n, F::ZERO)?;
    staging
        .par_chunks_mut(m * width)
        .enumerate()
        .try_for_each(|(task, part)| {
            let first = task * width;
            let columns = part.len() / m;
            let b = Matrix {
                base: b.base + first * b.col,
                ..b
            };
            let epilogue = epilogue.map(|e| Epilogue {
                bias: e.bias.map(|bias| &bias[first..first + columns]),
                ..e
            });
            let matrix = OneMatrix {
                a,
                b,
                m,
                n: columns,
                k,
            };
            one_thread(dispatch, &SPLIT_TASKS, matrix, part, epilogue)
        })?;
    for (task, part) in staging.chunks(m * width).enumerate() {
        let (first, columns) = (task * width, part.len() / m);
        for (row, values) in out.chunks_exact_mut(n).zip(part.chunks_exact(columns)) {
            row[first..first + columns].copy_from_slice(values);
        }
    }
    Ok(())
}

/// One matrix on the calling thread alone, with the packing buffers kept
/// in `cache` for this thread.
fn one_thread<F: Float>(
    dispatch: Dispatch,
    cache: &'static LocalKey<Cache>,
    matrix: OneMatrix<'_, F>,
    out: &mut [F],
    epilogue: Option<Epilogue<'_, F>>,
) -> Result<(), AllocationFailed> {
    let mut scratch = take_cached::<Scratch<F>>(cache);
    let result = dispatch.run(Product {
        matrix,
        out,
        scratch: &mut scratch,
        epilogue,
    });
    put_cached(cache, scratch);
    result
}

/// One `m × k` by `k × n` product.
#[derive(Clone, Copy)]
struct OneMatrix<'a, F> {
    a: Matrix<'a, F>,
    b: Matrix<'a, F>,
    m: usize,
    n: usize,
    k: usize,
}

/// The `WithSimd` body of one matrix product into the row-major `out`.
struct Product<'a, 'o, 's, F> {
    matrix: OneMatrix<'a, F>,
    out: &'o mut [F],
    scratch: &'s mut Scratch<F>,
    epilogue: Option<Epilogue<'a, F>>,
}

impl<F: Float> WithSimd for Product<'_, '_, '_, F> {
    type Output = Result<(), AllocationFailed>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Self::Output {
        let Self {
            matrix,
            out,
            scratch,
            epilogue,
        } = self;
        let run = (scratch, epilogue);
        if S::REGISTER_COUNT >= 32 {
            product::<F, S, 6, 4>(simd, matrix, out, run)
        } else if lanes::<F, S>() > 1 {
            product::<F, S, 6, 2>(simd, matrix, out, run)
        } else {
            product::<F, S, 4, 4>(simd, matrix, out, run)
        }
    }
}

/// The loop nest of one matrix with an `MR × NV`-vector tile, on the
/// calling thread.
///
/// Per block of [`NC`] columns, the right operand is packed for as many
/// [`KC`] slices as [`PACK_BUDGET`] holds, and then the rows run through
/// those slices; the group finishing the chains applies the epilogue to
/// the block's columns while they are in cache.
#[inline(always)]
fn product<F: Float, S: Simd, const MR: usize, const NV: usize>(
    simd: S,
    matrix: OneMatrix<'_, F>,
    out: &mut [F],
    (scratch, epilogue): (&mut Scratch<F>, Option<Epilogue<'_, F>>),
) -> Result<(), AllocationFailed> {
    let OneMatrix { a, b, n, k, .. } = matrix;
    let nr = NV * lanes::<F, S>();
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        let packed = nc.next_multiple_of(nr);
        let group_depth = (PACK_BUDGET / size_of::<F>() / (packed * KC)).max(1) * KC;
        for pg in (0..k).step_by(group_depth) {
            let depth = group_depth.min(k - pg);
            let b_pack = try_scratch(&mut scratch.b, packed * depth, F::ZERO)?;
            for (s, slice) in b_pack.chunks_mut(packed * KC).enumerate() {
                let pc = pg + s * KC;
                let kc = KC.min(k - pc);
                for (p, panel) in slice.chunks_exact_mut(nr * kc).enumerate() {
                    let first = jc + p * nr;
                    let source = Source {
                        data: b.data,
                        base: b.base + pc * b.row + first * b.col,
                        lane_stride: b.col,
                        step_stride: b.row,
                    };
                    pack_panel(source, nr.min(jc + nc - first), nr, kc, panel);
                }
            }
            let group = Group {
                a,
                pg,
                depth,
                b_pack: &*b_pack,
                jc,
                nc,
                n,
                epilogue: epilogue.filter(|_| pg + depth == k),
            };
            row_block::<F, S, MR, NV>(simd, group, out, &mut scratch.a)?;
        }
    }
    Ok(())
}

/// One group of a product: the left operand, the `k` range `pg..pg +
/// depth` (whole [`KC`] slices but the last), the right operand's packed
/// slices of that range for columns `jc..jc + nc` (slice after slice, each
/// `nc` rounded up to whole panels wide), and the output's row length.
#[derive(Clone, Copy)]
struct Group<'a, 'p, F> {
    a: Matrix<'a, F>,
    pg: usize,
    depth: usize,
    b_pack: &'p [F],
    jc: usize,
    nc: usize,
    n: usize,
    /// The epilogue, in the group that finishes the chains.
    epilogue: Option<Epilogue<'a, F>>,
}

/// All rows of one group (`out` holds them): for each `k`
/// slice in ascending order, in blocks of [`MC`] rows, run the tiles on
/// the left rows (read in place when their columns are contiguous, else
/// packed first).
#[inline(always)]
fn row_block<F: Float, S: Simd, const MR: usize, const NV: usize>(
    simd: S,
    group: Group<'_, '_, F>,
    out: &mut [F],
    a_pack: &mut Vec<F>,
) -> Result<(), AllocationFailed> {
    let Group {
        a,
        pg,
        depth,
        b_pack,
        jc,
        nc,
        n,
        epilogue,
    } = group;
    let rows = out.len() / n;
    let packed = b_pack.len() / depth;
    for pc in (pg..pg + depth).step_by(KC) {
        let kc = KC.min(pg + depth - pc);
        let start = (pc - pg) * packed;
        let block = Block {
            pc,
            kc,
            b_pack: &b_pack[start..start + kc * packed],
            jc,
            nc,
            n,
        };
        for ic in (0..rows).step_by(MC) {
            let mc = MC.min(rows - ic);
            let out = &mut out[ic * n..(ic + mc) * n];
            if a.col == 1 {
                let left = Left::Rows {
                    data: a.data,
                    base: a.base + ic * a.row + pc,
                    stride: a.row,
                };
                tiles::<F, S, MR, NV>(simd, block, left, out);
                continue;
            }
            let a_pack = try_scratch(a_pack, mc.next_multiple_of(MR) * kc, F::ZERO)?;
            for (q, panel) in a_pack.chunks_exact_mut(MR * kc).enumerate() {
                let first = ic + q * MR;
                let source = Source {
                    data: a.data,
                    base: a.base + first * a.row + pc * a.col,
                    lane_stride: a.row,
                    step_stride: a.col,
                };
                pack_panel(source, MR.min(ic + mc - first), MR, kc, panel);
            }
            tiles::<F, S, MR, NV>(simd, block, Left::Packed(a_pack), out);
        }
    }
    if let Some(epilogue) = epilogue {
        epilogue.apply(out, n, jc..jc + nc);
    }
    Ok(())
}
