//! NumPy's broadcasting rule on shapes, and the stride-0 reading of an
//! operand stretched to a broadcast shape.

use super::layout::checked_len;
use crate::error::Error;

/// NumPy broadcasting: right-align, missing leading extents are 1, equal
/// extents pass, 1 yields to the other (so 0 with 1 gives 0), otherwise
/// `IncompatibleBroadcast` at the leftmost failing output axis.
/// Compatibility is checked over all axes before the output's overflow.
/// Writes the output shape and returns its element count.
pub(crate) fn broadcast_into(
    left: &[usize],
    right: &[usize],
    output: &mut [usize],
    op: &'static str,
) -> Result<usize, Error> {
    let rank = output.len();
    debug_assert_eq!(rank, left.len().max(right.len()));
    for (axis, slot) in output.iter_mut().enumerate() {
        let left_dimension = aligned_extent(left, rank, axis);
        let right_dimension = aligned_extent(right, rank, axis);
        *slot = if left_dimension == right_dimension || right_dimension == 1 {
            left_dimension
        } else if left_dimension == 1 {
            right_dimension
        } else {
            return Err(Error::IncompatibleBroadcast {
                op,
                axis,
                left_dimension,
                right_dimension,
            });
        };
    }
    checked_len(output, op)
}

/// The extent of `shape` on output axis `axis` of a right-aligned rank-`rank` layout.
pub(crate) fn aligned_extent(shape: &[usize], rank: usize, axis: usize) -> usize {
    let padding = rank - shape.len();
    if axis < padding {
        1
    } else {
        shape[axis - padding]
    }
}

/// Effective strides of an operand broadcast to `output_shape`: 0 on missing
/// leading axes and on axes of extent 1 that the output stretches.
pub(crate) fn broadcast_strides(
    shape: &[usize],
    strides: &[usize],
    output_shape: &[usize],
    effective: &mut [usize],
) {
    let padding = output_shape.len() - shape.len();
    for (axis, slot) in effective.iter_mut().enumerate() {
        *slot = if axis < padding || shape[axis - padding] != output_shape[axis] {
            0
        } else {
            strides[axis - padding]
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_reports_leftmost_axis_before_overflow() {
        let mut out = [0; 3];
        assert_eq!(
            broadcast_into(&[0, usize::MAX, 1], &[1, 1, 2], &mut out, "t"),
            Err(Error::ShapeOverflow { op: "t" })
        );
        assert_eq!(
            broadcast_into(&[0, usize::MAX, 3], &[2, 1, 2], &mut out, "t"),
            Err(Error::IncompatibleBroadcast {
                op: "t",
                axis: 0,
                left_dimension: 0,
                right_dimension: 2
            })
        );
        assert_eq!(broadcast_into(&[3, 1], &[4], &mut [0, 0], "t"), Ok(12));
    }

    #[test]
    fn stretched_axes_read_with_stride_zero() {
        let mut effective = [9; 3];
        broadcast_strides(&[1, 4], &[4, 1], &[3, 2, 4], &mut effective);
        assert_eq!(effective, [0, 0, 1]);
    }
}
