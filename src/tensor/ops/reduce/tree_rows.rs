//! The summation tree (`tree.rs`) when the reduced axis is outer in
//! memory: whole row pieces `x[.., i, ..]` are read densely and every
//! output element gets the tree its group would get as a dense slice.
//!
//! For a batch of outputs (up to `TREE_BLOCK` columns), leaf `l` (rows
//! `128 l ..`) is summed lane by lane: lane `j`'s chain, rows `i = 128 l +
//! 16 r + j` in ascending `r`, runs whole over a chunk of [`CHUNK`]
//! columns (vectorized across outputs) into lane `j`'s accumulator row.
//! So each accumulator is read and written once per leaf, not once per
//! row, and the eight rows of a chain advance as eight sequential streams
//! through memory (row `i + 1` follows row `i`): on a `[4096, 4096]` f32
//! axis-0 sum this took 0.75-0.8× ndarray's time, against 1.2-1.3× when
//! every row was added into its lane's row in turn (16 accumulator rows,
//! 256 KiB, cycling through L2). A finished leaf (16 lane rows) is pushed
//! into a binary counter of such blocks, and at the end the pending blocks
//! combine from the smallest up and every output's 16 lanes fold by
//! halving. Every addition has the operands it has in
//! [`tree_sum`](super::tree::tree_sum), so the bits are the same; only the
//! order in which outputs and independent chains are visited differs.
//! Every row is read once per batch; the scratch (`16 × (1 + levels)` rows
//! of the batch width) is reserved once per call, fallibly, and each
//! right-hand leaf task of a thread split reserves its own (kept per
//! thread up to [`KEEP_BYTES`]).

use super::fold::{Reduce, Step};
use super::rows::{Rows, for_each_batch};
use super::tree::{LEAF, Partial, TREE_LANES, carries, fold_lanes};
use crate::tensor::float::Float;
use crate::tensor::traverse::alloc::{AllocationFailed, try_filled, try_scratch};
use crate::tensor::traverse::cached::{Cache, put_cached, take_cached};
use crate::tensor::traverse::simd::{Compiled, Dispatch};
use std::cell::RefCell;
use std::ops::Range;

/// Output elements per column block of a batch: at most 8192 (`WIDEST`)
/// per accumulator row. Long stretches win over cache-sized ones here: a
/// `[4096, 4096]` axis-0 sum takes 1.1× ndarray's time (f64) with 4096,
/// 1.1-1.2× with 2048, 1.4× with 1024 and 2.3× with 256 (each row piece
/// pays a fixed cost, and a pending subtree is touched once per leaf).
const TREE_BLOCK: usize = 4096;
/// The widest column block a batch can produce: a batch closes once it
/// holds `TREE_BLOCK` outputs, and each piece adds at most `TREE_BLOCK`.
const WIDEST: usize = 2 * TREE_BLOCK;
/// Leaves (of 128 rows) a thread sums at least, when threads split them.
const MIN_TASK_LEAVES: usize = 4;

/// Bytes of a right-hand leaf task's scratch a thread keeps for its next
/// task (a larger one is freed): an f32 `[4096, 4096]` sum's is 1.25 MiB.
const KEEP_BYTES: usize = 8 << 20;

thread_local! {
    /// The scratch of the right-hand leaf tasks this thread runs, kept
    /// between calls (see `traverse/cached.rs`).
    static TASK_SCRATCH: Cache = const { RefCell::new(None) };
}

/// Columns a lane's chain runs over at a time: its accumulators (1 KiB of
/// `f32`) stay in L1 while its eight rows stream past.
const CHUNK: usize = 256;

/// Tree sums of the outputs `range` into `out` (exactly those), the
/// reduced axis read as rows; on `threads` threads, which split the leaves
/// (see [`leaf_threads`]; 1: all on the calling thread).
///
/// # Errors
/// The scratch could not be reserved.
pub(super) fn tree_rows<F: Float>(
    dispatch: Dispatch,
    input: &Reduce<'_, '_, F>,
    group_shape: &[usize],
    group_strides: &[usize],
    range: Range<usize>,
    out: &mut [F],
    threads: usize,
) -> Result<(), AllocationFailed> {
    let leaves = input.shape[input.axis].div_ceil(LEAF);
    let width = WIDEST.min(range.len());
    let mut scratch = try_filled(width.saturating_mul(scratch_rows(leaves)), F::ZERO)?;
    let mut result = Ok(());
    for_each_batch(
        input,
        group_shape,
        group_strides,
        range,
        TREE_BLOCK,
        |rows, batch| {
            let longest = batch.iter().map(|&[_, _, count]| count).max().unwrap_or(0);
            for column0 in (0..longest).step_by(TREE_BLOCK) {
                let block = ColumnBlock {
                    rows,
                    batch,
                    column0,
                    width,
                };
                if result.is_ok() {
                    result = subtree(dispatch, block, 0..leaves, &mut scratch, threads)
                        .map(|()| block.fold(&scratch, out));
                }
            }
        },
    );
    result
}

/// Threads for a sum on `threads` threads whose reduced axis is `extent`
/// rows long: `threads` to split its leaves (each thread then reads whole
/// rows, as eight sequential streams), or 1 to split the outputs instead
/// (too few leaves). Split by outputs, each thread read half of every row,
/// and a `[4096, 4096]` f32 axis-0 sum took 1.9× its one-thread time on
/// two threads.
pub(super) fn leaf_threads(extent: usize, threads: usize) -> usize {
    if threads > 1 && extent.div_ceil(LEAF) >= MIN_TASK_LEAVES * threads {
        threads
    } else {
        1
    }
}

/// Scratch rows (of a column block's width) for the tree of `leaves`
/// leaves: the result's 16 lane rows, then 16 per pending subtree (one per
/// bit of the leaf count).
fn scratch_rows(leaves: usize) -> usize {
    TREE_LANES * (1 + (usize::BITS - leaves.leading_zeros()) as usize)
}

/// The tree of the leaves `leaves` for one column block, into the first
/// block (16 lane rows) of `scratch`. Ranges of at least `2 ·`
/// [`MIN_TASK_LEAVES`] leaves on several threads split where the tree
/// does (halves of a power of two, else the largest power of two below
/// the count and the rest: the binary counter's first pending subtree and
/// the tree of the others) and run as two rayon tasks; the right one's
/// block is then added into the left one's (`left + right`, the counter's
/// operand order), so every addition is the one-thread tree's.
fn subtree<F: Float>(
    dispatch: Dispatch,
    block: ColumnBlock<'_, '_, '_, F>,
    leaves: Range<usize>,
    scratch: &mut [F],
    threads: usize,
) -> Result<(), AllocationFailed> {
    let count = leaves.len();
    if threads < 2 || count < 2 * MIN_TASK_LEAVES {
        dispatch.compile(Leaves {
            block,
            leaves,
            scratch,
        });
        return Ok(());
    }
    let split = if count.is_power_of_two() {
        count / 2
    } else {
        1 << (usize::BITS - 1 - count.leading_zeros())
    };
    let middle = leaves.start + split;
    let (left, right) = rayon::join(
        || subtree(dispatch, block, leaves.start..middle, scratch, threads),
        || {
            let mut buffer = take_cached::<Vec<F>>(&TASK_SCRATCH);
            let len = block.width * scratch_rows(leaves.end - middle);
            let result = try_scratch(&mut buffer, len, F::ZERO)
                .and_then(|part| subtree(dispatch, block, middle..leaves.end, part, threads));
            (buffer, result)
        },
    );
    let (buffer, right) = right;
    let sums = left.and(right).map(|()| {
        let len = TREE_LANES * block.width;
        for (acc, &r) in scratch[..len].iter_mut().zip(&buffer[..len]) {
            *acc = *acc + r;
        }
    });
    if buffer.len() * size_of::<F>() <= KEEP_BYTES {
        put_cached(&TASK_SCRATCH, buffer);
    }
    sums
}

/// One column block of a batch: the pieces that reach column `column0`.
#[derive(Clone, Copy)]
struct ColumnBlock<'r, 'a, 'b, F> {
    rows: &'r Rows<'a, F>,
    batch: &'b [[usize; 3]],
    column0: usize,
    /// Values per scratch row.
    width: usize,
}

impl<F: Float> ColumnBlock<'_, '_, '_, F> {
    /// This column block of every piece that reaches it: (output start,
    /// input start at i = 0, column in the scratch, width).
    fn pieces(&self) -> impl Iterator<Item = [usize; 4]> + '_ {
        let (column0, in_stride) = (self.column0, self.rows.in_stride);
        self.batch
            .iter()
            .filter(move |piece| piece[2] > column0)
            .scan(0, move |column, &[o, x, count]| {
                let width = (count - column0).min(TREE_BLOCK);
                let piece = [o + column0, x + column0 * in_stride, *column, width];
                *column += width;
                Some(piece)
            })
    }

    /// Every output's 16 lane sums (the first block of `scratch`) folded by
    /// halving, into `out`.
    fn fold(&self, scratch: &[F], out: &mut [F]) {
        for [o, _, c, width] in self.pieces() {
            for k in 0..width {
                let partial: Partial<F> = std::array::from_fn(|j| scratch[j * self.width + c + k]);
                out[o + k] = fold_lanes(partial);
            }
        }
    }
}

/// The binary counter over some leaves of a column block, compiled for the
/// dispatched instruction set (the accumulations are vectorized across
/// outputs): their tree's 16 lane rows into the first block of `scratch`.
struct Leaves<'r, 'a, 'b, 's, F> {
    block: ColumnBlock<'r, 'a, 'b, F>,
    leaves: Range<usize>,
    scratch: &'s mut [F],
}

impl<F: Float> Compiled for Leaves<'_, '_, '_, '_, F> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let input = self.block.rows;
        let Rows {
            extent,
            axis_stride,
            in_stride,
            ..
        } = *input;
        let total: usize = self.block.pieces().map(|[_, _, _, width]| width).sum();
        // A block: 16 lane rows of `width` values (only `total` used). Leaf
        // `l` is accumulated straight into the pending slot it will occupy
        // (`carries` of its index in the range, free by the binary
        // counter), its first row per lane written as `+0 + x` instead of
        // added to a cleared row.
        let block = TREE_LANES * self.block.width;
        let (total_block, pending) = self.scratch.split_at_mut(block);
        let first_leaf = self.leaves.start;
        let leaves = self.leaves.len();
        for l in self.leaves {
            let merges = carries((l - first_leaf) as u64);
            let (below, slot) = pending.split_at_mut(merges * block);
            let leaf = &mut slot[..block];
            let rows = (extent - l * LEAF).min(LEAF);
            if rows < TREE_LANES {
                leaf.fill(F::ZERO);
            }
            // Lane `j`'s chain is rows `j, j + 16, ..` of the leaf. It runs
            // whole over a chunk of columns, so its accumulators are read
            // and written once per leaf (not once per row), and the eight
            // rows it reads advance as eight sequential streams.
            for j in 0..TREE_LANES.min(rows) {
                let lane = &mut leaf[j * self.block.width..][..total];
                for [_, x, c, width] in self.block.pieces() {
                    for k in (0..width).step_by(CHUNK) {
                        let target = &mut lane[c + k..c + width.min(k + CHUNK)];
                        for within in (j..rows).step_by(TREE_LANES) {
                            let start = x + (l * LEAF + within) * axis_stride + k * in_stride;
                            input.fold_slice::<LaneSum>(target, start, within < TREE_LANES);
                        }
                    }
                }
            }
            // Push the leaf: carry it through the pending subtrees below it.
            for level in 0..merges {
                let subtree = &below[level * block..][..block];
                for (carry, &s) in leaf.iter_mut().zip(subtree) {
                    *carry = s + *carry;
                }
            }
        }
        let leaf = total_block;
        // The pending subtrees from the smallest up, into `leaf`.
        let mut started = false;
        for level in 0..usize::BITS as usize {
            if (leaves as u64) >> level & 1 == 1 {
                let subtree = &pending[level * block..][..block];
                if started {
                    for (acc, &s) in leaf.iter_mut().zip(subtree) {
                        *acc = s + *acc;
                    }
                } else {
                    leaf.copy_from_slice(subtree);
                    started = true;
                }
            }
        }
    }
}

/// One step of a lane's chain as a fold: the first row as `+0 + x` (the
/// tree's leaves start from +0.0, so a `-0.0` becomes `+0.0`), then `+ x`.
#[derive(Clone, Copy)]
struct LaneSum;

impl<F: Float> Step<F> for LaneSum {
    const SEEDED: usize = 1;
    #[inline(always)]
    fn seed(first: F) -> F {
        F::ZERO + first
    }
    #[inline(always)]
    fn step(accumulator: F, value: F) -> F {
        accumulator + value
    }
}
