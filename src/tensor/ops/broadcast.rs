//! `broadcast_shape`: NumPy's trailing-axis rule, with the output rank in the type.

use crate::tensor::error::TensorOpError;
use crate::tensor::shape::broadcast::broadcast_into;
use crate::tensor::shape::rank::{BroadcastRank, Rank};

/// The shape two operands broadcast to, by NumPy's rule (numpy.org,
/// "Broadcasting"): right-align the shapes, treat missing leading extents
/// as 1; per axis, equal extents pass and an extent 1 yields to the other
/// (so 0 with 1 gives 0).
///
/// Shapes: `[L]` with `[M]` -> `[max(L, M)]`; the output rank `O` is
/// inferred through `Rank<L>: BroadcastRank<Rank<M>>` (ranks 0..=8).
///
/// # Errors
/// Compatibility over all axes first, then overflow:
/// - [`TensorOpError::IncompatibleBroadcast`] at the leftmost output axis
///   whose extents differ with neither being 1, with both extents;
/// - `TensorOpError::Tensor(TensorError::ShapeOverflow)` if the output's
///   element count overflows (`[0, usize::MAX, 1]` with `[1, 1, 2]`).
///
/// ```
/// use llm_from_scratch::tensor::ops::broadcast_shape;
/// use llm_from_scratch::tensor::TensorOpError;
/// assert_eq!(broadcast_shape(&[2, 1, 3], &[4, 3])?, [2, 4, 3]);
/// assert_eq!(broadcast_shape(&[0, 3], &[1, 3])?, [0, 3]);
/// assert_eq!(
///     broadcast_shape(&[2, 3], &[2]),
///     Err(TensorOpError::IncompatibleBroadcast { axis: 1, left_dimension: 3, right_dimension: 2 })
/// );
/// # Ok::<(), TensorOpError>(())
/// ```
pub fn broadcast_shape<const L: usize, const M: usize, const O: usize>(
    left: &[usize; L],
    right: &[usize; M],
) -> Result<[usize; O], TensorOpError>
where
    Rank<L>: BroadcastRank<Rank<M>, Output = Rank<O>>,
{
    let mut output = [0; O];
    broadcast_into(left, right, &mut output)?;
    Ok(output)
}
