//! Axis iterators: one piece per index of an axis (`axis_iter`, one axis
//! less) or per chunk of it (`axis_chunks_iter`, the rank kept), for every
//! borrowed storage. Exact-size, double-ended and fused; each item is a
//! piece of the same storage (no copy, no allocation), and the pieces are
//! alive together (views for a `View`, [`CellView`](super::base::CellView)s
//! for a mutable view).

use super::base::ArrayBase;
use super::storage::Borrowed;
use crate::error::Error;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::{check_axis, narrowed_len};
use crate::tensor::shape::rank::RemoveAxis;
use std::iter::FusedIterator;

/// How piece `i` is made from the first piece.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// Piece `i` is the first moved by `i * stride` (one index of an axis).
    Index { stride: usize },
    /// Piece `k` is the first moved by `k * size * stride`, its `axis`
    /// narrowed to what is left of `extent` (chunks of `size` indices).
    Chunk {
        axis: usize,
        size: usize,
        extent: usize,
        stride: usize,
    },
}

/// The pieces of one axis, in order: see `axis_iter` and `axis_chunks_iter`.
/// `nth`, `nth_back`, `count` and `last` jump (the skipped pieces are never
/// built, and an axis may have 2^60 indices).
#[derive(Debug)]
pub struct AxisIter<V> {
    first: V,
    step: Step,
    front: usize,
    back: usize,
}

/// The chunks of one axis, in order: see `axis_chunks_iter`. The same
/// iterator as [`AxisIter`], whose items keep the axis.
pub type AxisChunksIter<V> = AxisIter<V>;

impl<P: Borrowed + Copy, D: Dimension> AxisIter<ArrayBase<P, D>> {
    fn piece(&self, i: usize) -> ArrayBase<P, D> {
        let (shift, narrow) = match self.step {
            Step::Index { stride } => (i.checked_mul(stride), None),
            Step::Chunk {
                axis,
                size,
                extent,
                stride,
            } => {
                let start = i * size;
                let shift = start.checked_mul(stride);
                (shift, Some((axis, size.min(extent - start))))
            }
        };
        let mut layout = self.first.layout;
        // An offset that does not fit only belongs to an empty piece, which
        // is never read: keep the first piece's base then.
        if let Some(base) = shift.and_then(|shift| layout.base_offset.checked_add(shift)) {
            layout.base_offset = base;
        }
        if let Some((axis, extent)) = narrow {
            layout.shape.as_mut_slice()[axis] = extent;
            layout.len = narrowed_len(layout.shape());
        }
        ArrayBase {
            data: self.first.data,
            layout,
        }
    }
}

impl<P: Borrowed + Copy, D: Dimension> Iterator for AxisIter<ArrayBase<P, D>> {
    type Item = ArrayBase<P, D>;

    fn next(&mut self) -> Option<Self::Item> {
        (self.front < self.back).then(|| {
            self.front += 1;
            self.piece(self.front - 1)
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.back - self.front;
        (left, Some(left))
    }

    fn nth(&mut self, n: usize) -> Option<Self::Item> {
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }

    fn count(self) -> usize {
        self.back - self.front
    }

    fn last(mut self) -> Option<Self::Item> {
        self.next_back()
    }
}

impl<P: Borrowed + Copy, D: Dimension> DoubleEndedIterator for AxisIter<ArrayBase<P, D>> {
    fn next_back(&mut self) -> Option<Self::Item> {
        (self.front < self.back).then(|| {
            self.back -= 1;
            self.piece(self.back)
        })
    }

    fn nth_back(&mut self, n: usize) -> Option<Self::Item> {
        self.back = self.back.saturating_sub(n).max(self.front);
        self.next_back()
    }
}

impl<P: Borrowed + Copy, D: Dimension> ExactSizeIterator for AxisIter<ArrayBase<P, D>> {}
impl<P: Borrowed + Copy, D: Dimension> FusedIterator for AxisIter<ArrayBase<P, D>> {}

impl<S: Borrowed, D: Dimension> ArrayBase<S, D> {
    /// The pieces at each index of `axis`, in order, each without that axis
    /// (rank `R - 1`). ≈ ndarray `axis_iter`, PyTorch `unbind` (without
    /// copies). Views of a `View`; [`CellView`](super::base::CellView)s of a
    /// mutable view, which may all be written while alive.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut owner = Tensor::<2>::zeros([2, 3])?;
    /// let columns: Vec<_> = owner.view().axis_iter(1)?.map(|c| c.base_offset()).collect();
    /// assert_eq!(columns, [0, 1, 2]);
    /// for (j, mut column) in owner.view_mut().axis_iter(1)?.enumerate() {
    ///     column.fill(j as f64);
    /// }
    /// assert_eq!(owner.as_slice(), &[0.0, 1.0, 2.0, 0.0, 1.0, 2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn axis_iter<E: Dimension>(
        self,
        axis: usize,
    ) -> Result<AxisIter<ArrayBase<S::Piece, E>>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        self.pieces(axis, "axis_iter")
    }

    fn pieces<E: Dimension>(
        self,
        axis: usize,
        op: &'static str,
    ) -> Result<AxisIter<ArrayBase<S::Piece, E>>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        check_axis(axis, self.layout.rank(), op)?;
        let (extent, stride) = (self.layout.shape()[axis], self.layout.strides()[axis]);
        let layout = self.layout.axis_piece(axis);
        Ok(AxisIter {
            first: ArrayBase {
                data: self.data.into_piece(),
                layout,
            },
            step: Step::Index { stride },
            front: 0,
            back: extent,
        })
    }

    /// [`axis_iter`](ArrayBase::axis_iter) over axis 0: the rows of a
    /// matrix, the positions of `[T, C]`, the batches of `[B, T, C]`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`] for a dynamic rank-0 view.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// let firsts: Vec<_> = owner.view().outer_iter()?.map(|row| row.base_offset()).collect();
    /// assert_eq!(firsts, [0, 3]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn outer_iter<E: Dimension>(self) -> Result<AxisIter<ArrayBase<S::Piece, E>>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        self.pieces(0, "outer_iter")
    }

    /// Chunks of `size` indices along `axis`, in order, each keeping the
    /// rank; the last chunk is shorter when `size` does not divide the
    /// extent. ≈ ndarray `axis_chunks_iter`, PyTorch `split(size, axis)`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`], then [`Error::ZeroChunkSize`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// let widths: Vec<_> = owner.view().axis_chunks_iter(1, 2)?.map(|c| c.shape()[1]).collect();
    /// assert_eq!(widths, [2, 1]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn axis_chunks_iter(
        self,
        axis: usize,
        size: usize,
    ) -> Result<AxisChunksIter<ArrayBase<S::Piece, D>>, Error> {
        check_axis(axis, self.layout.rank(), "axis_chunks_iter")?;
        if size == 0 {
            return Err(Error::ZeroChunkSize { axis });
        }
        let (extent, stride) = (self.layout.shape()[axis], self.layout.strides()[axis]);
        let mut layout = self.layout;
        layout.shape.as_mut_slice()[axis] = size.min(extent);
        layout.len = narrowed_len(layout.shape());
        Ok(AxisIter {
            first: ArrayBase {
                data: self.data.into_piece(),
                layout,
            },
            step: Step::Chunk {
                axis,
                size,
                extent,
                stride,
            },
            front: 0,
            back: extent.div_ceil(size),
        })
    }
}

/// The earlier names of the splits of a mutable view (before one array type
/// gave every view the same methods).
impl<'a, T, D: Dimension> ArrayBase<&'a mut [T], D> {
    /// [`split_at`](ArrayBase::split_at) of a mutable view.
    ///
    /// # Errors
    /// As for `split_at`.
    #[deprecated(
        since = "0.3.0",
        note = "use `split_at`: every view has it, and a mutable view's parts are `CellView`s"
    )]
    #[allow(clippy::type_complexity)]
    pub fn split_at_mut(
        self,
        axis: usize,
        index: usize,
    ) -> Result<
        (
            ArrayBase<super::storage::Cells<'a, T>, D>,
            ArrayBase<super::storage::Cells<'a, T>, D>,
        ),
        Error,
    > {
        self.split_at(axis, index)
    }

    /// [`axis_iter`](ArrayBase::axis_iter) of a mutable view.
    ///
    /// # Errors
    /// As for `axis_iter`.
    #[deprecated(
        since = "0.3.0",
        note = "use `axis_iter`: every view has it, and a mutable view's pieces are `CellView`s"
    )]
    pub fn axis_iter_mut<E: Dimension>(
        self,
        axis: usize,
    ) -> Result<AxisIter<ArrayBase<super::storage::Cells<'a, T>, E>>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        self.axis_iter(axis)
    }

    /// [`outer_iter`](ArrayBase::outer_iter) of a mutable view.
    ///
    /// # Errors
    /// As for `outer_iter`.
    #[deprecated(
        since = "0.3.0",
        note = "use `outer_iter`: every view has it, and a mutable view's pieces are `CellView`s"
    )]
    pub fn outer_iter_mut<E: Dimension>(
        self,
    ) -> Result<AxisIter<ArrayBase<super::storage::Cells<'a, T>, E>>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        self.pieces(0, "outer_iter")
    }

    /// [`axis_chunks_iter`](ArrayBase::axis_chunks_iter) of a mutable view.
    ///
    /// # Errors
    /// As for `axis_chunks_iter`.
    #[deprecated(
        since = "0.3.0",
        note = "use `axis_chunks_iter`: every view has it, and a mutable view's pieces are `CellView`s"
    )]
    pub fn axis_chunks_iter_mut(
        self,
        axis: usize,
        size: usize,
    ) -> Result<AxisIter<ArrayBase<super::storage::Cells<'a, T>, D>>, Error> {
        self.axis_chunks_iter(axis, size)
    }
}
