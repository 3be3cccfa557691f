//! The epilogue of a product: what happens to each finished output value
//! before it is stored for good, `c · alpha + bias[j]` (the scale of
//! attention scores, `Q · Kᵀ · α`, and the bias of a linear layer,
//! `x · Wᵀ + b`).
//!
//! Order: the product's chain `c` is finished first (see the kernel's
//! module), then multiplied by `alpha` (one rounding) and then `bias[j]` is
//! added (one rounding): the same two operations, in the same order, as
//! the composition `matmul`, then a multiply by the scalar, then a
//! broadcast add, so the fused result has the same bits as that
//! composition. No fused multiply-add here: it would round once and differ
//! from it. A scale of exactly 1 is skipped (`c · 1 = c` exactly).

use std::ops::Range;

use crate::tensor::float::Float;

/// `c · alpha + bias[j]` for output column `j`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Epilogue<'a, F> {
    /// The scale (1 for none).
    pub(crate) alpha: F,
    /// One value per output column, contiguous, or none.
    pub(crate) bias: Option<&'a [F]>,
}

impl<F: Float> Epilogue<'_, F> {
    /// Applies the epilogue to columns `cols` of every row of `out`
    /// (row-major rows of `n` values).
    #[inline(always)]
    pub(crate) fn apply(&self, out: &mut [F], n: usize, cols: Range<usize>) {
        let scale = self.alpha != F::one();
        for row in out.chunks_exact_mut(n) {
            let row = &mut row[cols.clone()];
            if scale {
                row.iter_mut().for_each(|v| *v = *v * self.alpha);
            }
            if let Some(bias) = self.bias {
                for (v, &b) in row.iter_mut().zip(&bias[cols.clone()]) {
                    *v = *v + b;
                }
            }
        }
    }
}
