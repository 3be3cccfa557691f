//! The blocked loop of `attention`: the scores of a block of query rows are
//! computed, turned into probabilities and multiplied by the values while
//! they sit in a per-thread buffer; the `[.., T_q, T_k]` scores and
//! probabilities are never written to memory as tensors.
//!
//! Per batch matrix and block of [`BLOCK_ROWS`] query rows `i0..i1`, with
//! `w = min(T_k, i1 + offset)` the keys its last query sees (`T_k` without
//! a mask):
//! 1. `S = (Q[i0..i1] · K[..w]ᵀ) · scale` by the product kernel (each score
//!    one fused multiply-add chain over ascending `d`, then the scale), as
//!    `matmul_affine` computes them;
//! 2. each row of `S` by the causal softmax's row kernel, as
//!    `causal_softmax` finishes it: the masked keys of the block's earlier
//!    rows never enter a result and become exact zeros;
//! 3. `O[i0..i1] = P · V[..w]` by the product kernel, written straight into
//!    the output's rows.
//!
//! Why these are the composition's bits: a score and a probability do not
//! depend on which other rows or columns are computed with them (each
//! product element is its own chain, each softmax row its own), the keys
//! past `w` are masked for every row of the block, a row's fixed-tree sum
//! over its first `w` values equals the one over all `T_k` when the others
//! are exact zeros (appended zero leaves add `+0.0` to partial sums of
//! non-negative exponentials, which changes nothing), and each term
//! `fma(0, v, c)` of the composition's `P · V` chain for a masked key with
//! a finite `v` returns `c`, or turns a `-0.0` into `+0.0` when `v` has a
//! positive sign (a chain is `-0.0` only when all its products underflowed
//! to negative zeros; those few outputs get that correction). For a `v`
//! row holding NaN or an infinity, `0 · v` is NaN: one scan per matrix
//! finds the last such row, and the blocks extend `w` past it (those
//! masked scores are computed then, and masked by the softmax as usual).
//! Threads take whole blocks; inside a block everything runs on one
//! thread, at the caller's SIMD level. When a matrix has several blocks,
//! the right operands of its two products (`Kᵀ` over the keys its last
//! query sees, and `V`) are packed once per thread ([`super::packed`]) and
//! each block's products read their first `w` keys from there (packing
//! copies values, so the chains and their bits are the same); the scan
//! for non-finite value rows reads those rows packed.

use super::packed::{Operands, PackedHead};
use crate::error::Error;
use crate::tensor::float::Float;
use crate::tensor::ops::matmul::{Epilogue, PackedRight, matmul_packed, product_kernel};
use crate::tensor::ops::reduce::Counter;
use crate::tensor::ops::softmax::Causal;
use crate::tensor::shape::broadcast::broadcast_strides;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::alloc::try_scratch;
use crate::tensor::traverse::cached::{Cache, put_cached, take_cached};
use crate::tensor::traverse::last_axis::RowKernel;
use crate::tensor::traverse::offsets::StridedOffsets;
use crate::tensor::traverse::simd::{
    self, Compiled, Dispatch, KernelTuning, threads_for, with_kernel_tuning,
};
use rayon::prelude::*;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Query rows per block: 64 rows of scores at `T_k = 1024` are 256 KiB of
/// `f32`, in a core's L2 while the softmax and `P · V` read them again.
const BLOCK_ROWS: usize = 64;

/// The largest score buffer kept for the next call (64 query rows of
/// 32768 keys in `f32`): a larger one, made for a long context, is freed
/// after its block. Also the most a thread's packed keys and values of
/// one matrix may take, padding included ([`Block::fits`]); beyond that
/// each block packs what it reads.
const KEEP_BYTES: usize = 8 << 20;

/// Calls of [`attention`] so far: a thread's packed keys and values are
/// reused only within the call that packed them (the next call's operands
/// may sit at the same addresses with other values).
static CALLS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's [`Scratch`], kept between blocks and calls (see
    /// [`crate::tensor::traverse::cached`]).
    static SCRATCH: Cache = const { RefCell::new(None) };
}

/// A thread's working memory for its blocks: every score a block reads is
/// written by its own product first, and the counter is reset per row.
struct Scratch<F> {
    scores: Vec<F>,
    /// The softmax's summation counter (8 KiB in `f64`: made once per
    /// thread, not once per block of a decoding step's every head).
    counter: Counter<F>,
    /// `Kᵀ` and `V` of the batch matrix this thread last ran a block of,
    /// packed for the products ([`Block::pack`]).
    head: PackedHead<F>,
}

impl<F: Float> Default for Scratch<F> {
    fn default() -> Self {
        Scratch {
            scores: Vec::new(),
            counter: Counter::new(),
            head: PackedHead::new(),
        }
    }
}

/// One operand's matrix axes and its strides over the output's batch axes.
struct Operand<'a, F> {
    data: &'a [F],
    base: usize,
    /// Strides of the output's batch axes (0 where broadcast).
    batch: DynDims,
    /// Strides of the two matrix axes.
    row: usize,
    col: usize,
}

impl<'a, F> Operand<'a, F> {
    fn of(x: &Strided<'a, '_, F>, batch_shape: &[usize]) -> Self {
        let rank = x.shape.len();
        let mut batch = DynDims::zeros(batch_shape.len());
        broadcast_strides(
            &x.shape[..rank - 2],
            &x.strides[..rank - 2],
            batch_shape,
            batch.as_mut_slice(),
        );
        Operand {
            data: x.data,
            base: x.base,
            batch,
            row: x.strides[rank - 2],
            col: x.strides[rank - 1],
        }
    }

    /// The offset of batch matrix `index` (row-major over `batch_shape`).
    fn matrix(&self, batch_shape: &[usize], index: usize) -> usize {
        StridedOffsets::from_index(batch_shape, self.batch.as_slice(), self.base, index)
            .next()
            .unwrap_or(self.base)
    }
}

/// `softmax(mask(Q · Kᵀ · scale)) · V` of checked operands into `out`, the
/// row-major output of `out_shape = [batch.., T_q, d_v]`; query `i` sees
/// keys `j <= i + offset` (`usize::MAX`: every key).
///
/// Preconditions (checked by the op layer): every rank at least 2, the
/// batch axes broadcast to `out_shape`'s, the query and key widths agree,
/// the key and value counts agree, `out.len()` is `out_shape`'s count.
///
/// # Errors
/// [`Error::AllocationFailed`] (of `op`) if a score buffer or a product's
/// scratch cannot be reserved.
pub(crate) fn attention<F: Float>(
    [query, key, value]: [Strided<'_, '_, F>; 3],
    out_shape: &[usize],
    out: &mut [F],
    scale: F,
    offset: usize,
    op: &'static str,
) -> Result<(), Error> {
    if out.is_empty() {
        return Ok(());
    }
    let rank = out_shape.len();
    let batch_shape = &out_shape[..rank - 2];
    let (queries, width) = (out_shape[rank - 2], out_shape[rank - 1]);
    let keys = key.shape[key.shape.len() - 2];
    let depth = query.shape[query.shape.len() - 1];
    let operands = [
        Operand::of(&query, batch_shape),
        Operand::of(&key, batch_shape),
        Operand::of(&value, batch_shape),
    ];
    let tuning = simd::tuning();
    let dispatch = Dispatch::new(tuning.simd);
    let matrix = queries * width;
    let work = [out.len() / matrix, queries, keys, depth + width, 2]
        .iter()
        .fold(1u64, |product, &x| product.saturating_mul(x as u64));
    let block = Block {
        operands: &operands,
        batch_shape,
        queries,
        keys,
        depth,
        width,
        scale,
        offset,
        causal: Causal::new(queries, offset, dispatch),
        dispatch,
        call: CALLS.fetch_add(1, Ordering::Relaxed),
        // Inside a block: the caller's SIMD level, one thread.
        inner: KernelTuning {
            simd: tuning.simd,
            parallel_min_flops: u64::MAX,
        },
        op,
    };
    // Saturating: a block wider than memory is the whole matrix, one block.
    let rows = BLOCK_ROWS.saturating_mul(width);
    if threads_for(work, tuning) > 1 {
        out.par_chunks_mut(matrix)
            .enumerate()
            .try_for_each(|(index, out)| {
                let matrix = block.matrix(index);
                out.par_chunks_mut(rows)
                    .enumerate()
                    .try_for_each(|(b, out)| block.run(matrix, b * BLOCK_ROWS, out))
            })
    } else {
        for (index, out) in out.chunks_mut(matrix).enumerate() {
            let matrix = block.matrix(index);
            for (b, out) in out.chunks_mut(rows).enumerate() {
                block.run(matrix, b * BLOCK_ROWS, out)?;
            }
        }
        Ok(())
    }
}

/// What every block of one call shares.
struct Block<'a, 's, F> {
    operands: &'s [Operand<'a, F>; 3],
    batch_shape: &'s [usize],
    queries: usize,
    keys: usize,
    depth: usize,
    width: usize,
    scale: F,
    offset: usize,
    causal: Causal,
    dispatch: Dispatch,
    /// This call's number ([`CALLS`]).
    call: u64,
    inner: KernelTuning,
    op: &'static str,
}

/// One batch matrix's operand offsets and its [`Block::reach`], found once
/// for all its blocks.
#[derive(Clone, Copy)]
struct Matrix {
    /// Offsets of the query, key and value matrices.
    bases: [usize; 3],
    reach: usize,
}

impl<F: Float> Block<'_, '_, F> {
    /// Batch matrix `index`: its operands' offsets and its reach over the
    /// value rows no [`Block::pack`] holds (all of them when the blocks do
    /// not share packed operands).
    fn matrix(&self, index: usize) -> Matrix {
        let bases = [0, 1, 2].map(|o| self.operands[o].matrix(self.batch_shape, index));
        let unpacked = if self.packs() { self.visible() } else { 0 };
        Matrix {
            bases,
            reach: self.reach(bases[2], unpacked),
        }
    }

    /// The keys the last query sees (all `T_k` without a mask).
    fn visible(&self) -> usize {
        self.keys.min(self.queries.saturating_add(self.offset))
    }

    /// The first value row [`Block::reach`] tests: the rows before it are
    /// seen by every block anyway (`T_k` when all are).
    fn first_tested(&self) -> usize {
        let keys = self.keys;
        let everyone = keys.min(self.queries.min(BLOCK_ROWS).saturating_add(self.offset));
        // A value broadcast along the keys (stride 0) has one row to test.
        if everyone < keys && self.operands[2].row == 0 {
            keys - 1
        } else {
            everyone
        }
    }

    /// Whether the blocks of each matrix share its keys and values packed
    /// once per thread ([`Block::pack`]): when a matrix has several
    /// blocks, and the keys its last query sees fit ([`Block::fits`]).
    /// Else each block's products pack what they read.
    fn packs(&self) -> bool {
        let visible = self.visible();
        self.queries > BLOCK_ROWS && visible > 0 && self.depth > 0 && self.fits(visible)
    }

    /// Whether `Kᵀ` and `V` packed over `keys` keys take at most
    /// [`KEEP_BYTES`], padding included (so the packed buffers a thread
    /// keeps are never freed and made again block after block).
    fn fits(&self, keys: usize) -> bool {
        let bytes = PackedRight::<F>::len_bound(self.depth, keys)
            .zip(PackedRight::<F>::len_bound(keys, self.width))
            .and_then(|(k, v)| k.checked_add(v)?.checked_mul(size_of::<F>()));
        bytes.is_some_and(|bytes| bytes <= KEEP_BYTES)
    }

    /// The keys that every block of the batch matrix whose value starts
    /// at `base` must include in `P · V`: up to the last value row holding
    /// a NaN or an infinity (0 if none). The composition multiplies a masked key's zero
    /// probability by its value, and `0 · inf` is NaN: a block that
    /// skipped such a row would differ. Only rows past the keys every
    /// block sees anyway are read (none without a mask or when decoding
    /// one query against a whole cache); a row is tested without early
    /// exits, so that its loop vectorizes. Rows before `from` are left to
    /// [`Block::pack`], which tests them packed.
    fn reach(&self, base: usize, from: usize) -> usize {
        let (keys, width) = (self.keys, self.width);
        let v = &self.operands[2];
        let finite = |j: usize| {
            let first = base + j * v.row;
            if v.col == 1 {
                let row = &v.data[first..first + width];
                row.iter().fold(true, |ok, x| ok & x.is_finite())
            } else {
                (0..width).fold(true, |ok, e| ok & v.data[first + e * v.col].is_finite())
            }
        };
        (self.first_tested().max(from)..keys)
            .rev()
            .find(|&j| !finite(j))
            .map_or(0, |j| j + 1)
    }

    /// Query rows `first..` of batch matrix `matrix` into `out` (those rows
    /// of the output), with this thread's scratch (its score buffer kept
    /// for the next block unless it grew past [`KEEP_BYTES`]).
    fn run(&self, matrix: Matrix, first: usize, out: &mut [F]) -> Result<(), Error> {
        let mut scratch = take_cached::<Scratch<F>>(&SCRATCH);
        let result = self.rows(matrix, first, out, &mut scratch);
        if scratch.scores.capacity() * size_of::<F>() > KEEP_BYTES {
            scratch.scores = Vec::new();
        }
        if scratch.head.bytes() > KEEP_BYTES {
            scratch.head.free();
        }
        put_cached(&SCRATCH, scratch);
        result
    }

    /// The reach of batch matrix `matrix` (see [`Block::reach`]) and
    /// whether its keys and values are packed in the thread's scratch.
    /// When the blocks share packed operands ([`Block::packs`]), `Kᵀ` and
    /// `V` are packed over every key a block of the matrix sees (the last
    /// query's and the matrix's reach) unless they are already, and the
    /// packed value rows are tested for the reach. A non-finite value row
    /// past the visible keys can make those too many to fit
    /// ([`Block::fits`]); then nothing is packed, and the value rows the
    /// packing would have tested are read in place.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] if a packed operand cannot grow.
    fn pack(&self, matrix: Matrix, scratch: &mut Scratch<F>) -> Result<(usize, bool), Error> {
        if !self.packs() {
            return Ok((matrix.reach, false));
        }
        let [_, k, v] = self.operands;
        let [_, kb, vb] = matrix.bases;
        let limit = self.visible().max(matrix.reach);
        if !self.fits(limit) {
            return Ok((matrix.reach.max(self.reach(vb, 0)), false));
        }
        let (depth, width) = (self.depth, self.width);
        let of = Operands {
            call: self.call,
            key: kb,
            value: vb,
        };
        let keys = Strided {
            data: k.data,
            shape: &[depth, limit],
            strides: &[k.col, k.row],
            base: kb,
        };
        let values = Strided {
            data: v.data,
            shape: &[limit, width],
            strides: &[v.row, v.col],
            base: vb,
        };
        let packed = scratch
            .head
            .pack(of, self.dispatch, [keys, values], self.first_tested());
        let reach = packed.map_err(|f| Error::AllocationFailed {
            op: self.op,
            elements: f.elements,
        })?;
        Ok((matrix.reach.max(reach), true))
    }

    fn rows(
        &self,
        matrix: Matrix,
        first: usize,
        out: &mut [F],
        scratch: &mut Scratch<F>,
    ) -> Result<(), Error> {
        let [q, k, v] = self.operands;
        let (rows, depth, width) = (out.len() / self.width, self.depth, self.width);
        let (reach, packed) = self.pack(matrix, scratch)?;
        // The keys the block's last query (first + rows - 1) sees, and any
        // non-finite value row behind them.
        let seen = self
            .keys
            .min((first + rows).saturating_add(self.offset))
            .max(reach);
        let failed = |elements| Error::AllocationFailed {
            op: self.op,
            elements,
        };
        let Scratch {
            scores,
            counter,
            head,
        } = scratch;
        let (keys, values) = if packed {
            (Some(head.keys()), Some(head.values()))
        } else {
            (None, None)
        };
        let len = rows.checked_mul(seen).ok_or(failed(usize::MAX))?;
        let s = try_scratch(scores, len, F::ZERO).map_err(|f| failed(f.elements))?;
        let [qb, kb, vb] = matrix.bases;
        let qb = qb + first * q.row;
        with_kernel_tuning(self.inner, || {
            let query = Strided {
                data: q.data,
                shape: &[rows, depth],
                strides: &[q.row, q.col],
                base: qb,
            };
            // Kᵀ: the key matrix read with its strides swapped.
            let key = Strided {
                data: k.data,
                shape: &[depth, seen],
                strides: &[k.col, k.row],
                base: kb,
            };
            let scale = Epilogue {
                alpha: self.scale,
                bias: None,
            };
            self.product(query, key, keys, s, Some(scale))?;
            if seen > 0 {
                self.dispatch.compile(SoftmaxRows {
                    kernel: &self.causal,
                    counter,
                    first,
                    scores: &mut *s,
                    seen,
                });
            }
            let probabilities = Strided {
                data: s,
                shape: &[rows, seen],
                strides: &[seen, 1],
                base: 0,
            };
            let value = Strided {
                data: v.data,
                shape: &[seen, width],
                strides: &[v.row, v.col],
                base: vb,
            };
            self.product(probabilities, value, values, out, None)
        })?;
        self.unskip_zeros(out, vb, seen);
        Ok(())
    }

    /// `left [m, k] x right [k, n]` into `out`, reading the right
    /// operand's panels from `packed` (this matrix's, from [`Block::pack`])
    /// when given.
    fn product(
        &self,
        left: Strided<'_, '_, F>,
        right: Strided<'_, '_, F>,
        packed: Option<&PackedRight<F>>,
        out: &mut [F],
        epilogue: Option<Epilogue<'_, F>>,
    ) -> Result<(), Error> {
        match packed {
            Some(packed) => matmul_packed(left, right, packed, out, epilogue, self.op),
            None => {
                let shape = [left.shape[0], right.shape[1]];
                product_kernel(left, right, &shape, out, epilogue, self.op)
            }
        }
    }

    /// What the composition's `P · V` chains do after key `seen`, where
    /// this block stopped: `c = fma(0, v, c)` for each further (masked,
    /// finite) key, which returns `c` except that a `-0.0` (a chain whose
    /// products all underflowed to negative zeros) becomes `+0.0` at the
    /// first `v` of positive sign. So a `-0.0` in `out` becomes `+0.0` if a
    /// skipped value of its column has a positive sign. Rare (a `-0.0`
    /// output); a value broadcast along the keys (stride 0) has one row to
    /// read.
    fn unskip_zeros(&self, out: &mut [F], vb: usize, seen: usize) {
        let v = &self.operands[2];
        if seen == self.keys {
            return;
        }
        // Most blocks have no `-0.0` at all: one pass without branches
        // (it vectorizes) settles that.
        let negative_zero = |c: &F| (*c == F::ZERO) & c.is_sign_negative();
        if !out.iter().fold(false, |any, c| any | negative_zero(c)) {
            return;
        }
        let end = if v.row == 0 { seen + 1 } else { self.keys };
        for row in out.chunks_exact_mut(self.width) {
            for (e, c) in row.iter_mut().enumerate() {
                if negative_zero(c) {
                    let positive = |j: usize| v.data[vb + j * v.row + e * v.col].is_sign_positive();
                    if (seen..end).any(positive) {
                        *c = F::ZERO;
                    }
                }
            }
        }
    }
}

/// The softmax of each score row of a block (query `first + r` for row
/// `r`), compiled for the dispatched instruction set.
struct SoftmaxRows<'k, 's, F> {
    kernel: &'k Causal,
    counter: &'s mut Counter<F>,
    first: usize,
    scores: &'s mut [F],
    /// Values per row (at least 1).
    seen: usize,
}

impl<F: Float> Compiled for SoftmaxRows<'_, '_, F> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        for (r, row) in self.scores.chunks_exact_mut(self.seen).enumerate() {
            self.kernel.row(self.counter, self.first + r, row);
        }
    }
}
