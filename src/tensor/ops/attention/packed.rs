//! A thread's packed keys and values: the right operands of one batch
//! matrix's two products (`Kᵀ` of `Q · Kᵀ`, `V` of `P · V`), packed once
//! and shared by every block of queries of that matrix the thread runs.
//!
//! Each block's products used to pack their right operands themselves:
//! at GPT-2's `T = 1024` a causal block of 64 queries packs on average
//! half the keys, so each matrix's keys and values were packed 8.5 times,
//! a fifth of a one-thread `attention` call on the Intel Xeon of
//! 2026-12-06 (27 ms against 21.2 with one packing per thread).

use crate::tensor::float::Float;
use crate::tensor::ops::matmul::PackedRight;
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::alloc::AllocationFailed;
use crate::tensor::traverse::simd::Dispatch;

/// Which operands a [`PackedHead`] holds: the call (a number no other
/// call has: the next call's operands may sit at the same addresses with
/// other values) and the key and value matrices' offsets in it (query
/// heads that share a key and value head share one packing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Operands {
    pub(super) call: u64,
    pub(super) key: usize,
    pub(super) value: usize,
}

/// The packed `Kᵀ` and `V` of one batch matrix, kept per thread.
pub(super) struct PackedHead<F> {
    keys: PackedRight<F>,
    values: PackedRight<F>,
    /// The operands packed (`None`: nothing valid).
    of: Option<Operands>,
    /// What [`PackedHead::pack`] returned for them.
    reach: usize,
}

impl<F: Float> PackedHead<F> {
    /// Nothing packed, no buffer.
    pub(super) const fn new() -> Self {
        PackedHead {
            keys: PackedRight::new(),
            values: PackedRight::new(),
            of: None,
            reach: 0,
        }
    }

    /// Packs `keys` (the transposed key matrix `[d, T]`, read with its
    /// strides swapped) and `values` (`[T, d_v]`) for products on
    /// `dispatch`'s instruction set, unless `of` is what is packed
    /// already. Returns one past the last packed value row at or after
    /// `from` that holds a NaN or an infinity (0 if none): the packed rows
    /// are contiguous and in cache, where the rows of a split-head view
    /// are one strided row per key.
    ///
    /// # Errors
    /// [`AllocationFailed`] if a packed operand cannot grow (nothing is
    /// packed then).
    pub(super) fn pack(
        &mut self,
        of: Operands,
        dispatch: Dispatch,
        [keys, values]: [Strided<'_, '_, F>; 2],
        from: usize,
    ) -> Result<usize, AllocationFailed> {
        if self.of == Some(of) {
            return Ok(self.reach);
        }
        self.of = None;
        self.keys.pack(dispatch, keys)?;
        self.values.pack(dispatch, values)?;
        self.reach = self.values.last_non_finite_step(from).map_or(0, |j| j + 1);
        self.of = Some(of);
        Ok(self.reach)
    }

    /// The packed `Kᵀ`.
    pub(super) fn keys(&self) -> &PackedRight<F> {
        &self.keys
    }

    /// The packed `V`.
    pub(super) fn values(&self) -> &PackedRight<F> {
        &self.values
    }

    /// Bytes the two buffers hold.
    pub(super) fn bytes(&self) -> usize {
        self.keys.bytes() + self.values.bytes()
    }

    /// Forgets the packed operands and frees their buffers.
    pub(super) fn free(&mut self) {
        *self = Self::new();
    }
}
