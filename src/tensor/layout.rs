//! Pure shape arithmetic on `&[usize]`, shared by the ranked and dynamic APIs.
//!
//! Nothing here allocates: results are written into caller-provided slices
//! (a `[usize; R]` for the ranked API, a `Vec` for the dynamic one). Every
//! product and sum is checked.

use super::error::{TensorError, TensorOpError, TensorViewError};
use std::ops::Range;

/// Writes row-major strides (plain suffix products) into `strides` and
/// returns the element count.
///
/// Every suffix product is checked, so a zero extent does not hide an
/// overflow to its right: `[0, usize::MAX, 2]` overflows, `[usize::MAX, 0]`
/// is a valid empty shape. A scalar shape `[]` has one element.
pub(crate) fn row_major_strides(
    shape: &[usize],
    strides: &mut [usize],
) -> Result<usize, TensorError> {
    debug_assert_eq!(shape.len(), strides.len());
    let mut running = 1_usize;
    for (stride, &extent) in strides.iter_mut().zip(shape).rev() {
        *stride = running;
        running = running
            .checked_mul(extent)
            .ok_or(TensorError::ShapeOverflow)?;
    }
    Ok(running)
}

/// The element count of `shape`, with every suffix product checked as in
/// [`row_major_strides`].
pub(crate) fn checked_len(shape: &[usize]) -> Result<usize, TensorError> {
    shape.iter().rev().try_fold(1_usize, |running, &extent| {
        running
            .checked_mul(extent)
            .ok_or(TensorError::ShapeOverflow)
    })
}

/// The element count of a narrowed valid layout (a slice of a view): 0 with
/// any zero extent, else the plain product, which fits because no extent
/// grew. Unlike [`checked_len`] it does not need row-major suffix products to
/// fit: the permuted empty view `[0, 3, usize::MAX / 2]` has none, yet it and
/// its slices are valid views.
pub(crate) fn narrowed_len(shape: &[usize]) -> usize {
    if shape.contains(&0) {
        0
    } else {
        shape.iter().product()
    }
}

/// Maps a caller's coordinate to a storage offset, checking every axis bound.
pub(crate) fn checked_offset(
    shape: &[usize],
    strides: &[usize],
    base_offset: usize,
    index: &[usize],
) -> Result<usize, TensorError> {
    if index.len() != shape.len() {
        return Err(TensorError::RankMismatch {
            expected: shape.len(),
            actual: index.len(),
        });
    }
    // Every bound before any arithmetic: a coordinate outside the view names
    // its first bad axis even when an empty view's base offset is huge.
    for (axis, (&i, &extent)) in index.iter().zip(shape).enumerate() {
        if i >= extent {
            return Err(TensorError::IndexOutOfBounds {
                axis,
                index: i,
                dimension: extent,
            });
        }
    }
    let mut offset = base_offset;
    for (&i, &stride) in index.iter().zip(strides) {
        offset = i
            .checked_mul(stride)
            .and_then(|step| offset.checked_add(step))
            .ok_or(TensorError::ShapeOverflow)?;
    }
    Ok(offset)
}

/// Row-major contiguity from the base offset: singleton axes may carry any
/// stride; empty and scalar layouts are contiguous (the views chapter's convention).
pub(crate) fn is_contiguous(shape: &[usize], strides: &[usize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expected = 1_usize;
    for (&extent, &stride) in shape.iter().zip(strides).rev() {
        if extent > 1 && stride != expected {
            return false;
        }
        // A valid layout's element count fits, so this product does too.
        expected = expected.saturating_mul(extent);
    }
    true
}

/// One past the largest storage offset a layout reaches, or 0 when empty.
pub(crate) fn required_len(
    shape: &[usize],
    strides: &[usize],
    base_offset: usize,
) -> Result<usize, TensorError> {
    if shape.contains(&0) {
        return Ok(0);
    }
    let mut last = base_offset;
    for (&extent, &stride) in shape.iter().zip(strides) {
        last = (extent - 1)
            .checked_mul(stride)
            .and_then(|step| last.checked_add(step))
            .ok_or(TensorError::ShapeOverflow)?;
    }
    last.checked_add(1).ok_or(TensorError::ShapeOverflow)
}

/// Checks a borrowed layout: shape overflow first, then that every reachable
/// offset lies inside `available` elements. Returns the element count.
pub(crate) fn check_borrowed_layout(
    shape: &[usize],
    strides: &[usize],
    base_offset: usize,
    available: usize,
) -> Result<usize, TensorViewError> {
    let len = checked_len(shape)?;
    let required = required_len(shape, strides, base_offset)?;
    if required > available {
        return Err(TensorViewError::ViewOutOfBounds {
            required_len: required,
            available,
        });
    }
    Ok(len)
}

/// Checks one axis argument against a rank.
pub(crate) fn check_axis(axis: usize, rank: usize) -> Result<(), TensorViewError> {
    if axis < rank {
        Ok(())
    } else {
        Err(TensorViewError::AxisOutOfBounds { axis, rank })
    }
}

/// Checks a reshape in the course chapters' order: the requested layout's overflow,
/// then the element count, then the source's contiguity. Writes the fresh
/// row-major strides into `new_strides`.
pub(crate) fn check_reshape(
    current_len: usize,
    contiguous: bool,
    new_shape: &[usize],
    new_strides: &mut [usize],
) -> Result<(), TensorViewError> {
    let requested = row_major_strides(new_shape, new_strides)?;
    if requested != current_len {
        return Err(TensorViewError::ReshapeElementCountMismatch {
            current: current_len,
            requested,
        });
    }
    if !contiguous {
        return Err(TensorViewError::NonContiguousReshape);
    }
    Ok(())
}

/// Checks an axis list scanning left to right (out of range or repeated:
/// the first problem wins) and writes the permuted shape and strides.
///
/// No allocation: duplicates are found by looking back, `O(rank²)` with
/// ranks that are small in practice.
pub(crate) fn permute_into(
    shape: &[usize],
    strides: &[usize],
    axes: &[usize],
    new_shape: &mut [usize],
    new_strides: &mut [usize],
) -> Result<(), TensorViewError> {
    let rank = shape.len();
    if axes.len() != rank {
        return Err(TensorViewError::PermutationLengthMismatch {
            expected: rank,
            actual: axes.len(),
        });
    }
    for (position, &axis) in axes.iter().enumerate() {
        check_axis(axis, rank)?;
        if axes[..position].contains(&axis) {
            return Err(TensorViewError::DuplicateAxis { axis });
        }
        new_shape[position] = shape[axis];
        new_strides[position] = strides[axis];
    }
    Ok(())
}

/// Checks a unit-step slice (axis, then start <= end, then end <= extent),
/// narrows `shape[axis]` in place and returns the new base offset.
pub(crate) fn slice_in_place(
    shape: &mut [usize],
    strides: &[usize],
    base_offset: usize,
    axis: usize,
    range: Range<usize>,
) -> Result<usize, TensorViewError> {
    check_axis(axis, shape.len())?;
    if range.start > range.end {
        return Err(TensorViewError::SliceStartAfterEnd {
            axis,
            start: range.start,
            end: range.end,
        });
    }
    let dimension = shape[axis];
    if range.end > dimension {
        return Err(TensorViewError::SliceEndOutOfBounds {
            axis,
            end: range.end,
            dimension,
        });
    }
    let base = range
        .start
        .checked_mul(strides[axis])
        .and_then(|step| base_offset.checked_add(step));
    shape[axis] = range.end - range.start;
    match base {
        Some(base) => Ok(base),
        // An empty result is never read, so its base offset does not matter
        // (an empty view may carry any base and strides).
        None if shape.contains(&0) => Ok(base_offset),
        // Unreachable for an in-bounds non-empty view; checked anyway.
        None => Err(TensorError::ShapeOverflow.into()),
    }
}

/// NumPy broadcasting: right-align, missing leading extents are 1, equal
/// extents pass, 1 yields to the other (so 0 with 1 gives 0), otherwise
/// `IncompatibleBroadcast` at the leftmost failing output axis. Compatibility
/// is checked over all axes before the output layout's overflow.
pub(crate) fn broadcast_into(
    left: &[usize],
    right: &[usize],
    output: &mut [usize],
) -> Result<usize, TensorOpError> {
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
            return Err(TensorOpError::IncompatibleBroadcast {
                axis,
                left_dimension,
                right_dimension,
            });
        };
    }
    Ok(checked_len(output)?)
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

/// Writes the shape of a reduction over `axis`: the axis removed, or kept with extent 1.
pub(crate) fn reduced_shape(shape: &[usize], axis: usize, keep_dim: bool, output: &mut [usize]) {
    let mut position = 0;
    for (source_axis, &extent) in shape.iter().enumerate() {
        if source_axis == axis {
            if keep_dim {
                output[position] = 1;
                position += 1;
            }
        } else {
            output[position] = extent;
            position += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_major_strides_are_suffix_products() {
        let mut strides = [0; 3];
        assert_eq!(row_major_strides(&[2, 0, 3], &mut strides), Ok(0));
        assert_eq!(strides, [0, 3, 1]);
        assert_eq!(row_major_strides(&[0, 3, 2], &mut strides), Ok(0));
        assert_eq!(strides, [6, 2, 1]);
        assert_eq!(
            row_major_strides(&[0, usize::MAX, 2], &mut strides),
            Err(TensorError::ShapeOverflow)
        );
        let mut two = [0; 2];
        assert_eq!(row_major_strides(&[usize::MAX, 0], &mut two), Ok(0));
        assert_eq!(row_major_strides(&[], &mut []), Ok(1));
    }

    #[test]
    fn broadcast_reports_leftmost_axis_before_overflow() {
        let mut out = [0; 3];
        assert_eq!(
            broadcast_into(&[0, usize::MAX, 1], &[1, 1, 2], &mut out),
            Err(TensorOpError::Tensor(TensorError::ShapeOverflow))
        );
        assert_eq!(
            broadcast_into(&[0, usize::MAX, 3], &[2, 1, 2], &mut out),
            Err(TensorOpError::IncompatibleBroadcast {
                axis: 0,
                left_dimension: 0,
                right_dimension: 2
            })
        );
    }
}
