//! The packed product for more than a few rows: the GotoBLAS / BLIS loop
//! nest with a register tile per instruction set.
//!
//! Per matrix: blocks of [`NC`] columns, then slices of `k` in ascending
//! order ([`KC`] deep, [`KC_NARROW`] for at most [`NARROW`] columns), then
//! blocks of rows ([`MC`], [`MC_SHALLOW`] when `k` is one slice). In a
//! slice, each `NR` columns of the right operand are packed into one
//! zero-padded panel, which then meets every left panel of the row block
//! (the loop order of BLIS's macro-kernel: Van Zee and van de Geijn,
//! "BLIS: A Framework for Rapidly Instantiating BLAS Functionality", ACM
//! TOMS 2015, §3): a [`KC`]-deep panel stays in L1 meanwhile. The first
//! row block packs the panels; with several blocks the others reuse them.
//! The left rows are read in place where their columns are contiguous,
//! else packed into `MR`-row panels. A `k` slice continues the chains
//! where the previous slice stored them (the first starts them at +0.0; a
//! stored float is reloaded exactly). A right operand that several
//! products share may come packed already ([`one_packed`], from
//! [`super::prepacked`]); its panels are then read in its own slices.
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
use super::prepacked::Panels;
use super::tile::{Left, Right, tiles};
use super::{Matrix, Problem, splits_evenly};
use crate::tensor::float::Float;
use crate::tensor::lanes::lanes;
use crate::tensor::traverse::alloc::{AllocationFailed, try_scratch};
use crate::tensor::traverse::cached::{Cache, put_cached, take_cached};
use crate::tensor::traverse::simd::Dispatch;
use pulp::{Simd, WithSimd};
use rayon::prelude::*;
use std::cell::RefCell;
use std::ops::Range;
use std::thread::LocalKey;

/// Depth of one `k` slice: a packed right panel is `KC × NR` values, 32
/// KiB of `f32` or `f64` on AVX-512, and stays in L1 (48 KiB on the Intel
/// Xeon of 2026-12-06, 32 KiB on the AMD EPYC) while every left panel of
/// the row block passes it. On that Intel Xeon, one thread, warm operands,
/// medians of two or three runs: 96, 112, 128 and 160 were within 2 % of
/// each other; 256, whose 64 KiB panel leaves L1, was 4-10 % slower
/// (`[32, 768] x [768, 2304]` 102 against 109 GFLOP/s, 512² 142 against
/// 149).
const KC: usize = 128;
/// Depth of one `k` slice when the product has at most [`NARROW`] columns
/// (attention's `P · V`): the left rows are then what streams, from
/// memory, and longer runs of each row suit the prefetchers. `[12, 1024,
/// 1024] x [12, 1024, 64]` into an existing output took 15.4 ms in
/// 128-deep slices, 13.5 in 256-deep, 12.4 in 512-deep (`f64`: 31.7, 26.0,
/// 23.3) on that Intel Xeon.
const KC_NARROW: usize = 512;
/// Columns up to which a product takes [`KC_NARROW`]-deep slices.
const NARROW: usize = 128;
/// Rows per block (a multiple of every `MR`) when `k` is deeper than one
/// slice. Only the first row block packs the right panels; with more than
/// one block it keeps each in its own slot (the slice's `KC × NC` values
/// in L2) for the others, and with one block every panel reuses one slot,
/// which stays in L1 when it is [`KC`] deep (15 % faster for 32 rows than
/// a slot per panel). On that Intel Xeon 256 and 384 rows were within 1 %
/// up to 1024²; 192 lost 5 % on 256 rows (two blocks), 96 lost 4-8 % from
/// 256 rows on.
const MC: usize = 384;
/// Rows per block when `k` fits in one slice (attention's `Q · Kᵀ`, `k` =
/// 64): each output value then takes only `k` fused multiply-adds, and a
/// right panel's pass writes one 64-column piece of every row of the block.
/// At 24 rows those rows stay within the first-level TLB's and L2's reach:
/// `[12, 1024, 64] x [12, 64, 1024]` into an existing output took 12.2 ms
/// in blocks of 24 rows, 12.4 in 48 and 18-20 in 96 or 384 (`f64`: 25.5,
/// 26.4 and 36-40; 23.3 before panels met whole row blocks).
const MC_SHALLOW: usize = 24;
/// Columns per block: the output block a row block's slices write, `MC ×
/// NC` values, stays in the outer caches between slices (2048 lost 15 % on
/// a 1024² `f32` product on that Intel Xeon; 512 was within 1 %).
const NC: usize = 1024;

/// The widest right panel of any instruction set and element type
/// ([`panel_width`]: AVX-512's 4 vectors of 16 `f32`).
pub(super) const MAX_PANEL_WIDTH: usize = 64;

/// Output columns of one right panel (`NR`) of the register tile that
/// [`Product`] picks on instruction set `S` (at most [`MAX_PANEL_WIDTH`]).
#[inline(always)]
pub(super) fn panel_width<F: Float, S: Simd>() -> usize {
    let lanes = lanes::<F, S>();
    let width = if S::REGISTER_COUNT >= 32 {
        4 * lanes
    } else if lanes > 1 {
        2 * lanes
    } else {
        4
    };
    debug_assert!(width <= MAX_PANEL_WIDTH);
    width
}

/// Depth of the `k` slices of a product with `n` columns: [`KC_NARROW`]
/// up to [`NARROW`] columns, else [`KC`].
pub(super) fn slice_depth(n: usize) -> usize {
    if n <= NARROW { KC_NARROW } else { KC }
}

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
    /// The left operand's packed panels of one row block and `k` slice
    /// (only when its columns are not contiguous).
    a: Vec<F>,
    /// The packed right panels of one `k` slice of a column block (one
    /// panel's slot when the product is one row block).
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
/// The packing buffers (per thread: at most `MC·KC_NARROW` left values and
/// `KC·NC` right ones, more than `KC_NARROW·NARROW`, plus the `m·n`
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
                    packed: None,
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
        packed: None,
        out,
        scratch: &mut scratch,
        epilogue,
    });
    put_cached(cache, scratch);
    result
}

/// One matrix on the calling thread whose right operand `matrix.b` is
/// also given packed ([`super::prepacked::PackedRight`]; its values must
/// be `matrix.b`'s). Panels that do not fit the product (another tile
/// width, fewer steps or columns) are ignored, and the product packs its
/// own.
pub(super) fn one_packed<F: Float>(
    dispatch: Dispatch,
    matrix: OneMatrix<'_, F>,
    packed: Panels<'_, F>,
    out: &mut [F],
    epilogue: Option<Epilogue<'_, F>>,
) -> Result<(), AllocationFailed> {
    let mut scratch = take_cached::<Scratch<F>>(&CACHED);
    let result = dispatch.run(Product {
        matrix,
        packed: Some(packed),
        out,
        scratch: &mut scratch,
        epilogue,
    });
    put_cached(&CACHED, scratch);
    result
}

/// One `m × k` by `k × n` product.
#[derive(Clone, Copy)]
pub(super) struct OneMatrix<'a, F> {
    pub(super) a: Matrix<'a, F>,
    pub(super) b: Matrix<'a, F>,
    pub(super) m: usize,
    pub(super) n: usize,
    pub(super) k: usize,
}

/// The `WithSimd` body of one matrix product into the row-major `out`.
struct Product<'a, 'o, 's, F> {
    matrix: OneMatrix<'a, F>,
    /// The right operand's panels, packed before (else packed here).
    packed: Option<Panels<'a, F>>,
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
            packed,
            out,
            scratch,
            epilogue,
        } = self;
        let nr = panel_width::<F, S>();
        let packed = packed.filter(|p| p.fit(nr, matrix.k, matrix.n));
        let run = (scratch, epilogue);
        if S::REGISTER_COUNT >= 32 {
            product::<F, S, 6, 4>(simd, matrix, packed, out, run)
        } else if lanes::<F, S>() > 1 {
            product::<F, S, 6, 2>(simd, matrix, packed, out, run)
        } else {
            product::<F, S, 4, 4>(simd, matrix, packed, out, run)
        }
    }
}

/// The loop nest of one matrix with an `MR × NV`-vector tile, on the
/// calling thread: per block of [`NC`] columns, the `k` slices in
/// ascending order ([`KC`] deep, [`KC_NARROW`] for at most [`NARROW`]
/// columns); per slice, the blocks of rows ([`MC`], or [`MC_SHALLOW`] when
/// `k` fits in one slice); per row block, each right panel (`depth × NR`,
/// packed by the first row block) meets every left panel of the block.
/// The epilogue runs on a column block once its chains are done. With
/// `packed` panels (which fit: see [`Panels::fit`]) the slices are theirs
/// and nothing of the right operand is packed here.
#[inline(always)]
fn product<F: Float, S: Simd, const MR: usize, const NV: usize>(
    simd: S,
    matrix: OneMatrix<'_, F>,
    packed: Option<Panels<'_, F>>,
    out: &mut [F],
    (scratch, epilogue): (&mut Scratch<F>, Option<Epilogue<'_, F>>),
) -> Result<(), AllocationFailed> {
    let OneMatrix { a, b, m, n, k } = matrix;
    let nr = NV * lanes::<F, S>();
    let depth = packed.map_or(slice_depth(n), |p| p.layout.depth);
    let block_rows = if k <= depth { MC_SHALLOW } else { MC };
    // More than one row block: the first packs each panel into its own
    // slot and the others reuse it; one block packs every panel into the
    // same slot, which stays in L1.
    let retain = m > block_rows;
    for jc in (0..n).step_by(NC) {
        let nc = NC.min(n - jc);
        let panels = match packed {
            Some(_) => 0,
            None if retain => nc.div_ceil(nr),
            None => 1,
        };
        for pc in (0..k).step_by(depth) {
            let kc = depth.min(k - pc);
            let b_pack = try_scratch(&mut scratch.b, panels * nr * kc, F::ZERO)?;
            for ic in (0..m).step_by(block_rows) {
                let rows = ic..block_rows.min(m - ic) + ic;
                let out = &mut out[rows.start * n..rows.end * n];
                let left = left_slice::<F, MR>(a, rows, pc..pc + kc, &mut scratch.a)?;
                for (p, first) in (jc..jc + nc).step_by(nr).enumerate() {
                    let live = nr.min(jc + nc - first);
                    let panel = match packed {
                        Some(packed) => packed.panel(pc, first, kc),
                        None => {
                            let slot = if retain { p } else { 0 };
                            let panel = &mut b_pack[slot * nr * kc..(slot + 1) * nr * kc];
                            if ic == 0 {
                                let source = Source {
                                    data: b.data,
                                    base: b.base + pc * b.row + first * b.col,
                                    lane_stride: b.col,
                                    step_stride: b.row,
                                };
                                pack_panel(source, live, nr, kc, panel);
                            }
                            &*panel
                        }
                    };
                    let right = Right {
                        pc,
                        panel,
                        first,
                        live,
                        n,
                    };
                    tiles::<F, S, MR, NV>(simd, right, left, out);
                }
            }
        }
        if let Some(epilogue) = epilogue {
            epilogue.apply(out, n, jc..jc + nc);
        }
    }
    Ok(())
}

/// The left operand's `rows` over the `k` range `depth`: read in place when
/// its columns are contiguous, else packed into `MR`-row panels in `a_pack`.
#[inline(always)]
fn left_slice<'a, F: Float, const MR: usize>(
    a: Matrix<'a, F>,
    rows: Range<usize>,
    depth: Range<usize>,
    a_pack: &'a mut Vec<F>,
) -> Result<Left<'a, F>, AllocationFailed> {
    if a.col == 1 {
        return Ok(Left::Rows {
            data: a.data,
            base: a.base + rows.start * a.row + depth.start,
            stride: a.row,
        });
    }
    let kc = depth.len();
    let a_pack = try_scratch(a_pack, rows.len().next_multiple_of(MR) * kc, F::ZERO)?;
    for (q, panel) in a_pack.chunks_exact_mut(MR * kc).enumerate() {
        let first = rows.start + q * MR;
        let source = Source {
            data: a.data,
            base: a.base + first * a.row + depth.start * a.col,
            lane_stride: a.row,
            step_stride: a.col,
        };
        pack_panel(source, MR.min(rows.end - first), MR, kc, panel);
    }
    Ok(Left::Packed(a_pack))
}
