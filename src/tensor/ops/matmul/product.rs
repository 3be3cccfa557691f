//! What `matmul` and `matmul_affine` share: the output shape of two
//! operands and the product into a fresh output.

use super::kernel::{self, Epilogue};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::element::Element;
use crate::tensor::ops::widen::{narrow, widen};
use crate::tensor::ops::{output_zeroed, owner};
use crate::tensor::shape::broadcast::broadcast_into;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::checked_len;
use crate::tensor::traverse::simd::{threads_for_bytes, tuning};

/// The output shape `[batch.., m, n]` of two operands (the public function
/// `op`) and its element count.
///
/// Order (NumPy's: its gufunc checks core dimensions before it broadcasts
/// the loop dimensions): both ranks at least 2 (only a dynamic operand can
/// fail it), the contracted extents, then the batch axes (compatibility over
/// all axes, then overflow), then the full output's overflow.
pub(super) fn matmul_shape<A: Dims>(
    left: &[usize],
    right: &[usize],
    op: &'static str,
) -> Result<(A, usize), Error> {
    let (left_rank, right_rank) = (left.len(), right.len());
    if let Some(rank) = [left_rank, right_rank].into_iter().find(|&rank| rank < 2) {
        return Err(Error::RankTooSmall {
            op,
            rank,
            minimum: 2,
        });
    }
    let (left_k, right_k) = (left[left_rank - 1], right[right_rank - 2]);
    if left_k != right_k {
        return Err(Error::MatmulInnerMismatch {
            op,
            left_k,
            right_k,
        });
    }
    let rank = left_rank.max(right_rank);
    let mut shape = A::zeros(rank);
    let out_shape = shape.as_mut_slice();
    broadcast_into(
        &left[..left_rank - 2],
        &right[..right_rank - 2],
        &mut out_shape[..rank - 2],
        op,
    )?;
    out_shape[rank - 2] = left[left_rank - 2];
    out_shape[rank - 1] = right[right_rank - 1];
    let len = checked_len(out_shape, op)?;
    Ok((shape, len))
}

/// The product of checked operands into a new `shape` output (`len`
/// values), with an optional epilogue: operands widened to the compute
/// type, the kernel, the result rounded back.
pub(super) fn fresh_product<L: Dimension, M: Dimension, O: Dimension, T: Element>(
    left: ArrayBase<&[T], L>,
    right: ArrayBase<&[T], M>,
    shape: O::Axes,
    len: usize,
    epilogue: Option<Epilogue<'_, T::Acc>>,
    op: &'static str,
) -> Result<ArrayBase<Vec<T>, O>, Error> {
    let (left, right) = (widen(left, op)?, widen(right, op)?);
    let (left, right) = (left.view(), right.view());
    // On threads, zeroed by the allocator: a large output is fresh pages
    // whose first touch (the page faults) happens in the threads that write
    // the product, not on the calling thread first (which cost more than
    // the product itself for a 48 MiB attention-score output on two
    // threads).
    let threads = threads_for_bytes(len.saturating_mul(size_of::<T::Acc>()), tuning());
    let mut values = output_zeroed(len, threads, op)?;
    kernel::matmul(
        left.strided(),
        right.strided(),
        shape.as_slice(),
        &mut values,
        epilogue,
        op,
    )?;
    narrow(owner(shape, values, op)?, op)
}
