//! `Layout<D>`: shape, strides, base offset and element count, with every
//! checked transform written once for ranked (`[usize; R]`) and dynamic
//! ([`DynDims`](super::dims::DynDims)) axis lists.
//!
//! Nothing here touches values or allocates (up to the dynamic inline
//! rank): a transform returns a new layout or a typed error. Every product
//! and sum is checked.

use super::dims::Dims;
use crate::error::Error;
use std::ops::Range;

/// A checked strided layout: which storage offset holds each coordinate.
///
/// Invariant (established by the constructors, kept by the transforms):
/// `len` is the product of `shape`, and every reachable offset fits in
/// `usize` (and, for a layout over borrowed data, lies inside it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout<D> {
    pub(crate) shape: D,
    pub(crate) strides: D,
    pub(crate) base_offset: usize,
    pub(crate) len: usize,
}

/// Writes row-major strides (plain suffix products) into `strides` and
/// returns the element count.
///
/// Every suffix product is checked, so a zero extent does not hide an
/// overflow to its right: `[0, usize::MAX, 2]` overflows, `[usize::MAX, 0]`
/// is a valid empty shape. A scalar shape `[]` has one element.
pub(crate) fn row_major_strides(
    shape: &[usize],
    strides: &mut [usize],
    op: &'static str,
) -> Result<usize, Error> {
    debug_assert_eq!(shape.len(), strides.len());
    let mut running = 1_usize;
    for (stride, &extent) in strides.iter_mut().zip(shape).rev() {
        *stride = running;
        running = running
            .checked_mul(extent)
            .ok_or(Error::ShapeOverflow { op })?;
    }
    Ok(running)
}

/// The element count of `shape`, with every suffix product checked as in
/// [`row_major_strides`].
pub(crate) fn checked_len(shape: &[usize], op: &'static str) -> Result<usize, Error> {
    shape.iter().rev().try_fold(1_usize, |running, &extent| {
        running
            .checked_mul(extent)
            .ok_or(Error::ShapeOverflow { op })
    })
}

/// The element count of a layout narrowed from a valid one (a slice): 0
/// with any zero extent, else the plain product, which fits because no
/// extent grew. Unlike [`checked_len`] it does not need row-major suffix
/// products to fit: the permuted empty view `[0, 3, usize::MAX / 2]` has
/// none, yet it and its slices are valid views.
pub(crate) fn narrowed_len(shape: &[usize]) -> usize {
    if shape.contains(&0) {
        0
    } else {
        shape.iter().product()
    }
}

/// One past the largest storage offset a layout reaches, or 0 when empty.
fn required_len(
    shape: &[usize],
    strides: &[usize],
    base_offset: usize,
    op: &'static str,
) -> Result<usize, Error> {
    if shape.contains(&0) {
        return Ok(0);
    }
    let mut last = base_offset;
    for (&extent, &stride) in shape.iter().zip(strides) {
        last = (extent - 1)
            .checked_mul(stride)
            .and_then(|step| last.checked_add(step))
            .ok_or(Error::ShapeOverflow { op })?;
    }
    last.checked_add(1).ok_or(Error::ShapeOverflow { op })
}

/// Checks one axis argument of the operation `op` against a rank.
pub(crate) fn check_axis(axis: usize, rank: usize, op: &'static str) -> Result<(), Error> {
    if axis < rank {
        Ok(())
    } else {
        Err(Error::AxisOutOfBounds { op, axis, rank })
    }
}

impl<D: Dims> Layout<D> {
    /// The row-major layout of `shape` from offset 0.
    ///
    /// # Errors
    /// `ShapeOverflow` (of `op`) if a suffix product overflows.
    pub(crate) fn row_major(shape: D, op: &'static str) -> Result<Self, Error> {
        let mut strides = D::zeros(shape.as_slice().len());
        let len = row_major_strides(shape.as_slice(), strides.as_mut_slice(), op)?;
        Ok(Self {
            shape,
            strides,
            base_offset: 0,
            len,
        })
    }

    /// A layout over `available` borrowed elements: shape overflow first,
    /// then every reachable offset inside the data.
    pub(crate) fn borrowed(
        shape: D,
        strides: D,
        base_offset: usize,
        available: usize,
        op: &'static str,
    ) -> Result<Self, Error> {
        let len = checked_len(shape.as_slice(), op)?;
        let required = required_len(shape.as_slice(), strides.as_slice(), base_offset, op)?;
        if required > available {
            return Err(Error::ViewOutOfBounds {
                op,
                required_len: required,
                available,
            });
        }
        Ok(Self {
            shape,
            strides,
            base_offset,
            len,
        })
    }

    /// The extents.
    #[inline]
    pub(crate) fn shape(&self) -> &[usize] {
        self.shape.as_slice()
    }

    /// The strides, in elements.
    #[inline]
    pub(crate) fn strides(&self) -> &[usize] {
        self.strides.as_slice()
    }

    /// The number of axes.
    #[inline]
    pub(crate) fn rank(&self) -> usize {
        self.shape().len()
    }

    /// Row-major contiguity from the base offset: singleton axes may carry
    /// any stride; empty and scalar layouts are contiguous.
    pub(crate) fn is_contiguous(&self) -> bool {
        if self.len == 0 {
            return true;
        }
        let mut expected = 1_usize;
        for (&extent, &stride) in self.shape().iter().zip(self.strides()).rev() {
            if extent > 1 && stride != expected {
                return false;
            }
            // A valid layout's element count fits, so this product does too.
            expected = expected.saturating_mul(extent);
        }
        true
    }

    /// The storage span of a contiguous layout (empty ones start at 0), else `None`.
    pub(crate) fn contiguous_range(&self) -> Option<Range<usize>> {
        if !self.is_contiguous() {
            return None;
        }
        let start = if self.len == 0 { 0 } else { self.base_offset };
        Some(start..start + self.len)
    }

    /// The storage offset of a coordinate, every axis bound checked first.
    pub(crate) fn offset(&self, index: &[usize], op: &'static str) -> Result<usize, Error> {
        if index.len() != self.rank() {
            return Err(Error::RankMismatch {
                op,
                expected: self.rank(),
                actual: index.len(),
            });
        }
        // Every bound before any arithmetic: a coordinate outside the view
        // names its first bad axis even when an empty view's base is huge.
        for (axis, (&i, &extent)) in index.iter().zip(self.shape()).enumerate() {
            if i >= extent {
                return Err(Error::IndexOutOfBounds {
                    op,
                    axis,
                    index: i,
                    dimension: extent,
                });
            }
        }
        // In bounds of a valid layout, so no step overflows.
        Ok(index
            .iter()
            .zip(self.strides())
            .fold(self.base_offset, |offset, (&i, &stride)| {
                offset + i * stride
            }))
    }

    /// The same layout with another axis-list type (ranked <-> dynamic).
    ///
    /// # Errors
    /// This layout's rank when `E` is a fixed rank other than it.
    pub(crate) fn into_dims<E: Dims>(self) -> Result<Layout<E>, usize> {
        let rank = self.rank();
        if E::FIXED.is_some_and(|fixed| fixed != rank) {
            return Err(rank);
        }
        let mut shape = E::zeros(rank);
        let mut strides = E::zeros(rank);
        shape.as_mut_slice().copy_from_slice(self.shape());
        strides.as_mut_slice().copy_from_slice(self.strides());
        Ok(Layout {
            shape,
            strides,
            base_offset: self.base_offset,
            len: self.len,
        })
    }

    /// The row-major strides of a requested `shape` holding this layout's
    /// values: the shape's overflow first, then its element count (the
    /// first two checks of every reshape).
    pub(crate) fn strides_for_count<E: Dims>(
        &self,
        shape: &E,
        op: &'static str,
    ) -> Result<E, Error> {
        let mut strides = E::zeros(shape.as_slice().len());
        let requested = row_major_strides(shape.as_slice(), strides.as_mut_slice(), op)?;
        if requested != self.len {
            return Err(Error::ReshapeElementCountMismatch {
                op,
                current: self.len,
                requested,
            });
        }
        Ok(strides)
    }

    /// Reinterprets a contiguous layout as `shape`: the requested shape's
    /// overflow, then the element count, then contiguity (no copy is ever
    /// implied); fresh row-major strides, same base offset.
    pub(crate) fn reshape<E: Dims>(&self, shape: E) -> Result<Layout<E>, Error> {
        let strides = self.strides_for_count(&shape, "reshape")?;
        if !self.is_contiguous() {
            return Err(Error::NonContiguousReshape);
        }
        Ok(Layout {
            shape,
            strides,
            base_offset: self.base_offset,
            len: self.len,
        })
    }

    /// Swaps two axes (`first` is checked before `second`).
    pub(crate) fn transpose(&self, first: usize, second: usize) -> Result<Self, Error> {
        check_axis(first, self.rank(), "transpose")?;
        check_axis(second, self.rank(), "transpose")?;
        let mut layout = *self;
        layout.shape.as_mut_slice().swap(first, second);
        layout.strides.as_mut_slice().swap(first, second);
        Ok(layout)
    }

    /// Output axis `k` takes source axis `axes[k]`: the length first, then,
    /// scanning left to right, the first out-of-range or repeated axis.
    /// Duplicates are found with a bit set (no allocation).
    pub(crate) fn permute(&self, axes: &[usize]) -> Result<Self, Error> {
        let rank = self.rank();
        if axes.len() != rank {
            return Err(Error::PermutationLengthMismatch {
                expected: rank,
                actual: axes.len(),
            });
        }
        let mut layout = *self;
        // Every rank is at most MAX_DYN_RANK (32), so one word holds the set.
        let mut seen = 0_u64;
        for (position, &axis) in axes.iter().enumerate() {
            check_axis(axis, rank, "permute")?;
            if seen & 1 << axis != 0 {
                return Err(Error::DuplicateAxis { axis });
            }
            seen |= 1 << axis;
            layout.shape.as_mut_slice()[position] = self.shape()[axis];
            layout.strides.as_mut_slice()[position] = self.strides()[axis];
        }
        Ok(layout)
    }

    /// Keeps the unit-step `range` of `axis`: the axis, then start <= end,
    /// then end <= extent; the base offset advances by `start * stride`.
    pub(crate) fn slice(
        &self,
        axis: usize,
        range: Range<usize>,
        op: &'static str,
    ) -> Result<Self, Error> {
        check_axis(axis, self.rank(), op)?;
        if range.start > range.end {
            return Err(Error::SliceStartAfterEnd {
                op,
                axis,
                start: range.start,
                end: range.end,
            });
        }
        let dimension = self.shape()[axis];
        if range.end > dimension {
            return Err(Error::SliceEndOutOfBounds {
                op,
                axis,
                end: range.end,
                dimension,
            });
        }
        self.narrowed(axis, range, op)
    }

    /// [`Layout::slice`] without its checks, for ranges already known to be
    /// inside `axis`.
    pub(crate) fn narrowed(
        &self,
        axis: usize,
        range: Range<usize>,
        op: &'static str,
    ) -> Result<Self, Error> {
        let mut layout = *self;
        layout.shape.as_mut_slice()[axis] = range.end - range.start;
        layout.len = narrowed_len(layout.shape());
        let base = range
            .start
            .checked_mul(self.strides()[axis])
            .and_then(|step| self.base_offset.checked_add(step));
        layout.base_offset = match base {
            Some(base) => base,
            // An empty result is never read, so its base offset does not
            // matter (an empty view may carry any base and strides).
            None if layout.len == 0 => self.base_offset,
            // A non-empty result starts at a reachable offset, which fits.
            None => return Err(Error::ShapeOverflow { op }),
        };
        Ok(layout)
    }
}

#[cfg(test)]
mod tests {
    use super::super::dims::DynDims;
    use super::*;

    #[test]
    fn row_major_strides_are_suffix_products() {
        let mut strides = [0; 3];
        assert_eq!(row_major_strides(&[2, 0, 3], &mut strides, "t"), Ok(0));
        assert_eq!(strides, [0, 3, 1]);
        assert_eq!(row_major_strides(&[0, 3, 2], &mut strides, "t"), Ok(0));
        assert_eq!(strides, [6, 2, 1]);
        assert_eq!(
            row_major_strides(&[0, usize::MAX, 2], &mut strides, "t"),
            Err(Error::ShapeOverflow { op: "t" })
        );
        let mut two = [0; 2];
        assert_eq!(row_major_strides(&[usize::MAX, 0], &mut two, "t"), Ok(0));
        assert_eq!(row_major_strides(&[], &mut [], "t"), Ok(1));
    }

    #[test]
    fn ranked_and_dynamic_layouts_transform_alike() {
        let ranked = Layout::row_major([2, 3, 4], "t").unwrap();
        let dynamic = Layout::row_major(DynDims::from_slice(&[2, 3, 4]), "t").unwrap();
        let a = ranked
            .permute(&[2, 0, 1])
            .unwrap()
            .slice(1, 1..2, "t")
            .unwrap();
        let b = dynamic
            .permute(&[2, 0, 1])
            .unwrap()
            .slice(1, 1..2, "t")
            .unwrap();
        assert_eq!(a.into_dims::<DynDims>().unwrap(), b);
        assert_eq!(
            (a.shape(), a.strides(), a.base_offset),
            (&[4, 1, 3][..], &[1, 12, 4][..], 12)
        );
        assert_eq!(b.into_dims::<[usize; 2]>(), Err(3));
    }

    #[test]
    fn permute_finds_the_first_repeat() {
        let layout = Layout::row_major(DynDims::from_slice(&[1; 32]), "t").unwrap();
        let mut axes: Vec<usize> = (0..32).collect();
        axes[31] = 29;
        assert_eq!(
            layout.permute(&axes),
            Err(Error::DuplicateAxis { axis: 29 })
        );
    }
}
