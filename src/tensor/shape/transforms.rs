//! The zero-copy transforms beyond reshape / permute / slice, written once
//! on [`Layout`] for every view type: split and merge axes, PyTorch's
//! `view` rule, insert / remove / select an axis, broadcast, stepped slices,
//! chunks, and the overlap check of mutable views.

use super::dims::{Dims, MAX_DYN_RANK};
use super::layout::{Layout, check_axis, checked_len, narrowed_len};
use crate::error::Error;
use std::ops::Range;

impl<D: Dims> Layout<D> {
    /// A layout of rank `E` built from per-axis `(extent, stride)` pairs.
    fn with_axes<E: Dims>(
        &self,
        rank: usize,
        base_offset: usize,
        mut axis: impl FnMut(usize) -> (usize, usize),
    ) -> Layout<E> {
        let mut shape = E::zeros(rank);
        let mut strides = E::zeros(rank);
        for (k, (extent, stride)) in shape
            .as_mut_slice()
            .iter_mut()
            .zip(strides.as_mut_slice())
            .enumerate()
        {
            (*extent, *stride) = axis(k);
        }
        let len = narrowed_len(shape.as_slice());
        Layout {
            shape,
            strides,
            base_offset,
            len,
        }
    }

    /// One axis becomes two, `[.., n, ..]` -> `[.., a, b, ..]` with `a * b == n`;
    /// strides `[b * s, s]`. Works on every layout.
    pub(crate) fn split_axis<E: Dims>(
        &self,
        axis: usize,
        [outer, inner]: [usize; 2],
    ) -> Result<Layout<E>, Error> {
        check_axis(axis, self.rank(), "split_axis")?;
        check_larger::<E>(self.rank(), "split_axis")?;
        let (extent, stride) = (self.shape()[axis], self.strides()[axis]);
        if outer.checked_mul(inner) != Some(extent) {
            return Err(Error::SplitAxisMismatch {
                axis,
                extent,
                requested: [outer, inner],
            });
        }
        // The outer stride is only ever multiplied by indices below `outer`;
        // when `outer <= 1`, or when the view is empty (any other extent 0),
        // it is never used, so an overflow there is harmless.
        let outer_stride = match inner.checked_mul(stride) {
            Some(step) => step,
            None if outer <= 1 || self.len == 0 => 0,
            None => return Err(Error::ShapeOverflow { op: "split_axis" }),
        };
        let split: Layout<E> = self.with_axes(self.rank() + 1, self.base_offset, |k| match k {
            k if k < axis => (self.shape()[k], self.strides()[k]),
            k if k == axis => (outer, outer_stride),
            k if k == axis + 1 => (inner, stride),
            k => (self.shape()[k - 1], self.strides()[k - 1]),
        });
        // An extent-0 axis splits into any `[0, n]`: the new extent `n` must
        // not make a shape whose row-major strides overflow where the view's
        // own did not (`[0, 2]` split as `[0, usize::MAX, 2]`).
        let op = "split_axis";
        if checked_len(split.shape(), op).is_err() && checked_len(self.shape(), op).is_ok() {
            return Err(Error::ShapeOverflow { op });
        }
        Ok(split)
    }

    /// Axes `axis` and `axis + 1` become one when the strides allow it: either
    /// extent is at most 1, or `stride[axis] == stride[axis + 1] * shape[axis + 1]`,
    /// or the view is empty (its strides are never used), exactly when
    /// `reshape_strided` to the merged shape succeeds.
    pub(crate) fn merge_axes<E: Dims>(&self, axis: usize) -> Result<Layout<E>, Error> {
        check_axis(axis.saturating_add(1), self.rank(), "merge_axes")?;
        let (outer, inner) = (self.shape()[axis], self.shape()[axis + 1]);
        let (outer_stride, inner_stride) = (self.strides()[axis], self.strides()[axis + 1]);
        let chained = inner_stride.checked_mul(inner) == Some(outer_stride);
        if !(outer <= 1 || inner <= 1 || chained || self.len == 0) {
            return Err(Error::NonMergeableAxes {
                axis,
                extents: [outer, inner],
                strides: [outer_stride, inner_stride],
            });
        }
        let extent = outer
            .checked_mul(inner)
            .ok_or(Error::ShapeOverflow { op: "merge_axes" })?;
        let stride = if inner <= 1 {
            outer_stride
        } else {
            inner_stride
        };
        Ok(
            self.with_axes(self.rank() - 1, self.base_offset, |k| match k {
                k if k < axis => (self.shape()[k], self.strides()[k]),
                k if k == axis => (extent, stride),
                k => (self.shape()[k + 1], self.strides()[k + 1]),
            }),
        )
    }

    /// Any reshape the strides allow without a copy: PyTorch's `view` rule
    /// (`computeStride` in ATen's `TensorUtils.cpp`). The old axes are walked
    /// from the last, grouped into runs whose strides chain; each run must
    /// be covered exactly by consecutive new axes, extent-1 axes never break
    /// a run. A zero-element layout takes the new shape's row-major strides.
    /// Errors in reshape's order (overflow, element count), then
    /// `NonStrideCompatibleReshape`.
    pub(crate) fn reshape_strided<E: Dims>(&self, shape: E) -> Result<Layout<E>, Error> {
        let mut strides = self.strides_for_count(&shape, "reshape_strided")?;
        if self.len != 0 && self.rank() != 0 {
            view_strides(
                self.shape(),
                self.strides(),
                shape.as_slice(),
                strides.as_mut_slice(),
            )?;
        }
        Ok(Layout {
            shape,
            strides,
            base_offset: self.base_offset,
            len: self.len,
        })
    }

    /// A new extent-1 axis at position `axis` (`0..=rank`); its stride is
    /// PyTorch's choice (`stride * extent` of the axis it precedes, else 1).
    pub(crate) fn unsqueeze<E: Dims>(&self, axis: usize) -> Result<Layout<E>, Error> {
        let rank = self.rank();
        check_axis(axis, rank + 1, "unsqueeze")?;
        check_larger::<E>(rank, "unsqueeze")?;
        let new_stride = match axis {
            k if k < rank => self.strides()[k].saturating_mul(self.shape()[k]),
            _ => 1,
        };
        Ok(self.with_axes(rank + 1, self.base_offset, |k| match k {
            k if k < axis => (self.shape()[k], self.strides()[k]),
            k if k == axis => (1, new_stride),
            k => (self.shape()[k - 1], self.strides()[k - 1]),
        }))
    }

    /// Removes an extent-1 axis.
    pub(crate) fn squeeze<E: Dims>(&self, axis: usize) -> Result<Layout<E>, Error> {
        check_axis(axis, self.rank(), "squeeze")?;
        let extent = self.shape()[axis];
        if extent != 1 {
            return Err(Error::SqueezeNonUnitAxis { axis, extent });
        }
        Ok(self.without_axis(axis, self.base_offset))
    }

    /// Fixes one coordinate (`x[:, index]`): the axis goes, the base offset
    /// advances by `index * stride`. The index is checked like `get`'s.
    pub(crate) fn select<E: Dims>(&self, axis: usize, index: usize) -> Result<Layout<E>, Error> {
        check_axis(axis, self.rank(), "select")?;
        let dimension = self.shape()[axis];
        if index >= dimension {
            return Err(Error::IndexOutOfBounds {
                op: "select",
                axis,
                index,
                dimension,
            });
        }
        // A reachable offset of a non-empty layout, so it fits; an empty
        // result is never read.
        let base = match self.len {
            0 => self.base_offset,
            _ => self.base_offset + index * self.strides()[axis],
        };
        Ok(self.without_axis(axis, base))
    }

    /// The layout at index 0 of `axis` without that axis: the template of
    /// the pieces of `axis_iter`. An axis of extent 0 has no pieces; its
    /// template is empty, because the other extents of an empty view need
    /// not multiply to a `usize` (`[0, 2^33, 2^32]`).
    pub(crate) fn axis_piece<E: Dims>(&self, axis: usize) -> Layout<E> {
        let none = self.shape()[axis] == 0;
        self.with_axes(self.rank() - 1, self.base_offset, |k| {
            let source = if k < axis { k } else { k + 1 };
            let extent = if none && k == 0 {
                0
            } else {
                self.shape()[source]
            };
            (extent, self.strides()[source])
        })
    }

    /// The layout without `axis`, from `base_offset` (no checks).
    pub(crate) fn without_axis<E: Dims>(&self, axis: usize, base_offset: usize) -> Layout<E> {
        self.with_axes(self.rank() - 1, base_offset, |k| {
            let source = if k < axis { k } else { k + 1 };
            (self.shape()[source], self.strides()[source])
        })
    }

    /// NumPy's `broadcast_to`: right-align, a missing or extent-1 axis gets
    /// stride 0 and the target extent; equal extents keep their stride. The
    /// leftmost failing output axis is reported, then the target's overflow.
    pub(crate) fn broadcast_to<E: Dims>(
        &self,
        target: E,
        op: &'static str,
    ) -> Result<Layout<E>, Error> {
        let strides = self.stretched_strides(target.as_slice(), op)?;
        let len = checked_len(target.as_slice(), op)?;
        Ok(Layout {
            shape: target,
            strides,
            base_offset: self.base_offset,
            len,
        })
    }

    /// [`Layout::broadcast_to`] the shape of `target`, an existing (valid)
    /// layout: a write destination. Its element count is already known, so
    /// an empty destination whose shape has no row-major layout (a permuted
    /// `[usize::MAX / 2, 3, 0]`) is no overflow.
    pub(crate) fn broadcast_onto<E: Dims>(
        &self,
        target: &Layout<E>,
        op: &'static str,
    ) -> Result<Layout<E>, Error> {
        Ok(Layout {
            shape: target.shape,
            strides: self.stretched_strides(target.shape(), op)?,
            base_offset: self.base_offset,
            len: target.len,
        })
    }

    /// The strides of this layout read as `target` (NumPy's rule), or the
    /// error at the leftmost failing output axis.
    fn stretched_strides<E: Dims>(&self, target: &[usize], op: &'static str) -> Result<E, Error> {
        let (rank, target_rank) = (self.rank(), target.len());
        if target_rank < rank {
            return Err(Error::BroadcastRankTooSmall {
                op,
                rank,
                target_rank,
            });
        }
        let padding = target_rank - rank;
        let mut strides = E::zeros(target_rank);
        for (axis, (&wanted, stride)) in target.iter().zip(strides.as_mut_slice()).enumerate() {
            let Some(source) = axis.checked_sub(padding) else {
                continue;
            };
            let extent = self.shape()[source];
            if extent == wanted {
                *stride = self.strides()[source];
            } else if extent != 1 {
                return Err(Error::IncompatibleBroadcast {
                    op,
                    axis,
                    left_dimension: extent,
                    right_dimension: wanted,
                });
            }
        }
        Ok(strides)
    }

    /// `range` of `axis` taking every `step`-th index (`a[start:end:step]`):
    /// slice's checks, then `step >= 1`; extent `ceil(len / step)`, stride
    /// `stride * step`.
    pub(crate) fn slice_step(
        &self,
        axis: usize,
        range: Range<usize>,
        step: usize,
    ) -> Result<Self, Error> {
        let mut layout = self.slice(axis, range, "slice_step")?;
        if step == 0 {
            return Err(Error::ZeroSliceStep { axis });
        }
        let extent = layout.shape()[axis].div_ceil(step);
        layout.shape.as_mut_slice()[axis] = extent;
        layout.len = narrowed_len(layout.shape());
        // Only `extent - 1` steps are ever taken, and they stay inside the
        // slice; an empty result takes none.
        layout.strides.as_mut_slice()[axis] = match self.strides()[axis].checked_mul(step) {
            Some(stride) => stride,
            None if extent <= 1 || layout.len == 0 => 0,
            None => return Err(Error::ShapeOverflow { op: "slice_step" }),
        };
        Ok(layout)
    }

    /// `[0, index)` and `[index, extent)` of `axis`.
    pub(crate) fn split_at(&self, axis: usize, index: usize) -> Result<(Self, Self), Error> {
        let extent = self.shape().get(axis).copied().unwrap_or(0);
        let first = self.slice(axis, 0..index, "split_at")?;
        Ok((first, self.slice(axis, index..extent, "split_at")?))
    }

    /// `N` equal parts of `axis` (GPT-2's packed `qkv` -> q, k, v).
    pub(crate) fn chunk<const N: usize>(&self, axis: usize) -> Result<[Self; N], Error> {
        check_axis(axis, self.rank(), "chunk")?;
        let extent = self.shape()[axis];
        if N == 0 || !extent.is_multiple_of(N) {
            return Err(Error::UnevenChunk {
                axis,
                extent,
                chunks: N,
            });
        }
        let size = extent / N;
        let mut parts = [(); N].map(|()| *self);
        for (k, part) in parts.iter_mut().enumerate() {
            *part = self.narrowed(axis, k * size..(k + 1) * size, "chunk")?;
        }
        Ok(parts)
    }

    /// Whether no two coordinates reach the same storage offset, by a
    /// sufficient test: sorted by stride, each axis of extent > 1 steps past
    /// everything the smaller-stride axes reach. (Layouts that interleave
    /// without overlapping are rejected too.)
    pub(crate) fn is_non_overlapping(&self) -> bool {
        if self.len <= 1 {
            return true;
        }
        let mut axes = D::zeros(self.rank());
        let mut count = 0;
        for (axis, &extent) in self.shape().iter().enumerate() {
            if extent > 1 {
                axes.as_mut_slice()[count] = axis;
                count += 1;
            }
        }
        let axes = &mut axes.as_mut_slice()[..count];
        axes.sort_unstable_by_key(|&axis| self.strides()[axis]);
        let mut span = 1_usize; // offsets reached so far: [0, span)
        for &axis in axes.iter() {
            let stride = self.strides()[axis];
            if stride < span {
                return false;
            }
            span += stride * (self.shape()[axis] - 1);
        }
        true
    }
}

/// `RankTooLarge` when one more axis than `rank` does not fit the axis list
/// `E` (only a dynamic one: the typed ranks stop at their table).
pub(crate) fn check_larger<E: Dims>(rank: usize, op: &'static str) -> Result<(), Error> {
    if E::FIXED.is_none() && rank >= MAX_DYN_RANK {
        return Err(Error::RankTooLarge {
            op,
            rank: rank + 1,
            maximum: MAX_DYN_RANK,
        });
    }
    Ok(())
}

/// ATen's `computeStride`: strides for `new_shape` reading the same values
/// as `old` in row-major order, or `NonStrideCompatibleReshape` naming the
/// first run of chained old axes (from the right) that consecutive new axes
/// do not cover exactly. Non-empty, rank >= 1.
fn view_strides(
    old_shape: &[usize],
    old_strides: &[usize],
    new_shape: &[usize],
    new_strides: &mut [usize],
) -> Result<(), Error> {
    let mut view_d = new_shape.len();
    let mut chunk_last = old_shape.len() - 1;
    let mut chunk_base_stride = old_strides[chunk_last];
    let (mut tensor_numel, mut view_numel) = (1_usize, 1_usize);
    for tensor_d in (0..old_shape.len()).rev() {
        tensor_numel *= old_shape[tensor_d];
        let chunk_ends = tensor_d == 0 || {
            let (extent, stride) = (old_shape[tensor_d - 1], old_strides[tensor_d - 1]);
            extent != 1 && Some(stride) != tensor_numel.checked_mul(chunk_base_stride)
        };
        if chunk_ends {
            while view_d > 0 && (view_numel < tensor_numel || new_shape[view_d - 1] == 1) {
                new_strides[view_d - 1] = view_numel.saturating_mul(chunk_base_stride);
                view_numel *= new_shape[view_d - 1];
                view_d -= 1;
            }
            // With equal element counts every new axis is used up by the
            // last run, so this is the only way to fail. The run holds more
            // than one element then; it is named by its first and last axes
            // of extent above 1 (an extent-1 axis at its edge may have any
            // stride, so whether it joined the run says nothing).
            if view_numel != tensor_numel {
                let wide = |&axis: &usize| old_shape[axis] != 1;
                let run = tensor_d..=chunk_last;
                return Err(Error::NonStrideCompatibleReshape {
                    axes: [
                        run.clone().find(wide).unwrap_or(tensor_d),
                        run.rev().find(wide).unwrap_or(chunk_last),
                    ],
                    elements: tensor_numel,
                });
            }
            if tensor_d > 0 {
                chunk_last = tensor_d - 1;
                chunk_base_stride = old_strides[chunk_last];
                (tensor_numel, view_numel) = (1, 1);
            }
        }
    }
    debug_assert_eq!(view_d, 0, "equal element counts use up every new axis");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::shape::dims::DynDims;

    fn layout(shape: &[usize], strides: &[usize], base: usize) -> Layout<DynDims> {
        Layout::borrowed(
            DynDims::from_slice(shape),
            DynDims::from_slice(strides),
            base,
            usize::MAX,
            "test",
        )
        .expect("a valid layout")
    }

    #[test]
    fn split_heads_of_a_packed_slice_without_a_copy() {
        // Q = qkv[:, :, 0:6] of [1, 2, 18] (C = 6): strides [36, 18, 1], not contiguous.
        let q = layout(&[1, 2, 6], &[36, 18, 1], 0);
        let heads: Layout<DynDims> = q.split_axis(2, [2, 3]).unwrap();
        assert_eq!(
            (heads.shape(), heads.strides()),
            (&[1, 2, 2, 3][..], &[36, 18, 3, 1][..])
        );
        assert_eq!(
            q.split_axis::<DynDims>(2, [4, 2]),
            Err(Error::SplitAxisMismatch {
                axis: 2,
                extent: 6,
                requested: [4, 2]
            })
        );
    }

    #[test]
    fn pytorch_view_rule_accepts_chained_groups_only() {
        // A transposed [3, 4] (strides [1, 3]) cannot be flattened ...
        let t = layout(&[3, 4], &[1, 3], 0);
        // Axis 1 (stride 3) is a run of 4 that the new axis of 12 overshoots.
        assert_eq!(
            t.reshape_strided(DynDims::from_slice(&[12])),
            Err(Error::NonStrideCompatibleReshape {
                axes: [1, 1],
                elements: 4
            })
        );
        // ... but each of its axes can be split, and unit axes go anywhere.
        let split = t
            .reshape_strided(DynDims::from_slice(&[3, 1, 2, 2]))
            .unwrap();
        assert_eq!(split.strides(), &[1, 12, 6, 3]); // as torch: t().view(3, 1, 2, 2)
        // A slice of the last axis keeps rows: [2, 6] of a [2, 8] owner -> [2, 2, 3].
        let rows = layout(&[2, 6], &[8, 1], 1);
        let regrouped = rows
            .reshape_strided(DynDims::from_slice(&[2, 2, 3]))
            .unwrap();
        assert_eq!(regrouped.strides(), &[8, 3, 1]);
        assert_eq!(
            rows.reshape_strided(DynDims::from_slice(&[12])),
            Err(Error::NonStrideCompatibleReshape {
                axes: [1, 1],
                elements: 6
            })
        );
    }

    #[test]
    fn split_axis_creates_no_overflowing_extent() {
        // [0, 2] split as [0, usize::MAX]: the new shape [0, usize::MAX, 2]
        // has no row-major strides (2 * usize::MAX overflows).
        let empty = layout(&[0, 2], &[2, 1], 0);
        assert_eq!(
            empty.split_axis::<DynDims>(0, [0, usize::MAX]),
            Err(Error::ShapeOverflow { op: "split_axis" })
        );
        let fine: Layout<DynDims> = empty.split_axis(0, [0, 7]).unwrap();
        assert_eq!(fine.shape(), &[0, 7, 2]);
    }

    #[test]
    fn mutable_views_must_not_overlap() {
        assert!(layout(&[2, 3], &[3, 1], 0).is_non_overlapping());
        assert!(layout(&[3, 2], &[1, 3], 0).is_non_overlapping());
        assert!(!layout(&[2, 3], &[0, 1], 0).is_non_overlapping());
        assert!(!layout(&[2, 3], &[2, 1], 0).is_non_overlapping());
        assert!(layout(&[1, 3], &[0, 1], 0).is_non_overlapping());
        assert!(layout(&[4, 0], &[0, 1], 0).is_non_overlapping());
    }
}
