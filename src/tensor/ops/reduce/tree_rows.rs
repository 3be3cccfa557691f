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
//! of the batch width) is reserved once per task, fallibly.

use super::fold::Reduce;
use super::rows::{Rows, for_each_batch};
use super::tree::{LEAF, Partial, TREE_LANES, carries, fold_lanes};
use crate::tensor::float::Float;
use crate::tensor::traverse::alloc::{AllocationFailed, try_filled};
use crate::tensor::traverse::simd::{Compiled, Dispatch};
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
/// Columns a lane's chain runs over at a time: its accumulators (1 KiB of
/// `f32`) stay in L1 while its eight rows stream past.
const CHUNK: usize = 256;

/// Tree sums of the outputs `range` into `out` (exactly those), the
/// reduced axis read as rows.
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
) -> Result<(), AllocationFailed> {
    let leaves = input.shape[input.axis].div_ceil(LEAF) as u64;
    // Pending subtrees: one per bit of the leaf count.
    let levels = (u64::BITS - leaves.leading_zeros()) as usize;
    let width = WIDEST.min(range.len());
    let rows_needed = TREE_LANES * (1 + levels);
    let mut scratch = try_filled(width.saturating_mul(rows_needed), F::ZERO)?;
    for_each_batch(
        input,
        group_shape,
        group_strides,
        range,
        TREE_BLOCK,
        |rows, batch| {
            let longest = batch.iter().map(|&[_, _, count]| count).max().unwrap_or(0);
            for column0 in (0..longest).step_by(TREE_BLOCK) {
                dispatch.compile(TreeBatch {
                    rows,
                    batch,
                    column0,
                    scratch: &mut scratch,
                    width,
                    out: &mut *out,
                });
            }
        },
    );
    Ok(())
}

/// One column block of a batch, compiled for the dispatched instruction
/// set (the accumulations are vectorized across outputs).
struct TreeBatch<'r, 'a, 'b, 's, 'o, F> {
    rows: &'r Rows<'a, F>,
    batch: &'b [[usize; 3]],
    column0: usize,
    scratch: &'s mut [F],
    /// Values per scratch row.
    width: usize,
    out: &'o mut [F],
}

impl<F: Float> Compiled for TreeBatch<'_, '_, '_, '_, '_, F> {
    type Output = ();
    // Index loops over the lanes and levels mirror the tree's definition.
    #[allow(clippy::needless_range_loop)]
    #[inline(always)]
    fn run(self) {
        let Rows {
            data,
            extent,
            axis_stride,
            in_stride,
        } = *self.rows;
        let column0 = self.column0;
        // This column block of every piece that reaches it: (output start,
        // input start at i = 0, column in the scratch, width).
        let pieces = || {
            self.batch
                .iter()
                .filter(move |piece| piece[2] > column0)
                .scan(0, move |column, &[o, x, count]| {
                    let width = (count - column0).min(TREE_BLOCK);
                    let piece = [o + column0, x + column0 * in_stride, *column, width];
                    *column += width;
                    Some(piece)
                })
        };
        let total: usize = pieces().map(|[_, _, _, width]| width).sum();
        // A block: 16 lane rows of `width` values (only `total` used). Leaf
        // `l` is accumulated straight into the pending slot it will occupy
        // (`carries(l)`, free by the binary counter), its first row per lane
        // written as `+0 + x` instead of added to a cleared row.
        let block = TREE_LANES * self.width;
        let (total_block, pending) = self.scratch.split_at_mut(block);
        let leaves = extent.div_ceil(LEAF);
        for l in 0..leaves {
            let merges = carries(l as u64);
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
                let lane = &mut leaf[j * self.width..][..total];
                for [_, x, c, width] in pieces() {
                    for k in (0..width).step_by(CHUNK) {
                        let target = &mut lane[c + k..c + width.min(k + CHUNK)];
                        for within in (j..rows).step_by(TREE_LANES) {
                            let start = x + (l * LEAF + within) * axis_stride + k * in_stride;
                            add_row(target, data, start, in_stride, within < TREE_LANES);
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
        let lanes = &*leaf;
        for [o, _, c, width] in pieces() {
            for k in 0..width {
                let partial: Partial<F> = std::array::from_fn(|j| lanes[j * self.width + c + k]);
                self.out[o + k] = fold_lanes(partial);
            }
        }
    }
}

/// `target[k] <- (first ? +0 : target[k]) + data[start + k · stride]`
/// for every `k`: one step of a lane's chain over a chunk of columns.
#[inline(always)]
fn add_row<F: Float>(target: &mut [F], data: &[F], start: usize, stride: usize, first: bool) {
    let width = target.len();
    match (stride, first) {
        (1, true) => {
            for (slot, &value) in target.iter_mut().zip(&data[start..start + width]) {
                *slot = F::ZERO + value;
            }
        }
        (1, false) => {
            for (slot, &value) in target.iter_mut().zip(&data[start..start + width]) {
                *slot = *slot + value;
            }
        }
        (_, true) => {
            for (k, slot) in target.iter_mut().enumerate() {
                *slot = F::ZERO + data[start + k * stride];
            }
        }
        (_, false) => {
            for (k, slot) in target.iter_mut().enumerate() {
                *slot = *slot + data[start + k * stride];
            }
        }
    }
}
