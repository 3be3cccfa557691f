//! Axis iterators: one view per index of an axis (`axis_iter`, rank
//! `R - 1`) or per chunk of it (`axis_chunks_iter`, rank `R`), for every
//! view type. Exact-size and double-ended; each item is a view of the same
//! storage (no copy, no allocation).

use std::iter::FusedIterator;

/// Makes one piece of a view: the same storage, the base offset moved by
/// `shift` elements (`None` when that does not fit: only for empty pieces,
/// which are never read) and optionally one axis narrowed to an extent.
pub(crate) type MakePiece<V> = fn(&V, Option<usize>, Option<(usize, usize)>) -> V;

/// The piece maker of every view type: another view of the same storage
/// (for mutable views only ever called for disjoint pieces).
macro_rules! piece_maker {
    () => {
        pub(crate) fn piece(&self, shift: Option<usize>, narrow: Option<(usize, usize)>) -> Self {
            let mut layout = self.layout.clone();
            if let Some(base) = shift.and_then(|shift| layout.base_offset.checked_add(shift)) {
                layout.base_offset = base;
            }
            if let Some((axis, extent)) = narrow {
                crate::tensor::shape::dims::Dims::as_mut_slice(&mut layout.shape)[axis] = extent;
                layout.len = crate::tensor::shape::layout::narrowed_len(layout.shape());
            }
            Self {
                data: self.data,
                layout,
            }
        }
    };
}
pub(crate) use piece_maker;

/// The iterator traits of a type that yields `self.$piece(i)` for `i` in
/// `front..back`: exact-size, double-ended, fused, and jumping in `nth`,
/// `nth_back`, `count` and `last` (the skipped pieces are never built, and an
/// axis may have 2^60 indices).
macro_rules! index_iterator {
    ($Iter:ident, $piece:ident) => {
        impl<V> Iterator for $Iter<V> {
            type Item = V;

            fn next(&mut self) -> Option<V> {
                (self.front < self.back).then(|| {
                    self.front += 1;
                    self.$piece(self.front - 1)
                })
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                let left = self.back - self.front;
                (left, Some(left))
            }

            fn nth(&mut self, n: usize) -> Option<V> {
                self.front = self.front.saturating_add(n).min(self.back);
                self.next()
            }

            fn count(self) -> usize {
                self.back - self.front
            }

            fn last(mut self) -> Option<V> {
                self.next_back()
            }
        }

        impl<V> DoubleEndedIterator for $Iter<V> {
            fn next_back(&mut self) -> Option<V> {
                (self.front < self.back).then(|| {
                    self.back -= 1;
                    self.$piece(self.back)
                })
            }

            fn nth_back(&mut self, n: usize) -> Option<V> {
                self.back = self.back.saturating_sub(n).max(self.front);
                self.next_back()
            }
        }

        impl<V> ExactSizeIterator for $Iter<V> {}
        impl<V> FusedIterator for $Iter<V> {}
    };
}

/// The views at each index of one axis, in order: see `axis_iter`.
#[derive(Debug)]
pub struct AxisIter<V> {
    first: V,
    make: MakePiece<V>,
    stride: usize,
    front: usize,
    back: usize,
}

impl<V> AxisIter<V> {
    /// The pieces of `first` (the view at index 0, axis removed) stepping by `stride`.
    pub(crate) fn new(first: V, make: MakePiece<V>, stride: usize, extent: usize) -> Self {
        Self {
            first,
            make,
            stride,
            front: 0,
            back: extent,
        }
    }

    fn at(&self, index: usize) -> V {
        (self.make)(&self.first, index.checked_mul(self.stride), None)
    }
}

index_iterator!(AxisIter, at);

/// Chunks of `size` indices along one axis, the last one shorter when the
/// extent is not a multiple: see `axis_chunks_iter`.
#[derive(Debug)]
pub struct AxisChunksIter<V> {
    first: V,
    make: MakePiece<V>,
    axis: usize,
    size: usize,
    extent: usize,
    stride: usize,
    front: usize,
    back: usize,
}

impl<V> AxisChunksIter<V> {
    /// Chunks of `view`, whose `axis` has `extent` and `stride`, along that
    /// axis; `size` is at least 1.
    pub(crate) fn new(
        view: V,
        make: MakePiece<V>,
        axis: usize,
        (extent, stride): (usize, usize),
        size: usize,
    ) -> Self {
        Self {
            first: view,
            make,
            axis,
            size,
            extent,
            stride,
            front: 0,
            back: extent.div_ceil(size),
        }
    }

    fn chunk(&self, k: usize) -> V {
        let start = k * self.size;
        let extent = self.size.min(self.extent - start);
        let shift = start.checked_mul(self.stride);
        (self.make)(&self.first, shift, Some((self.axis, extent)))
    }
}

index_iterator!(AxisChunksIter, chunk);

/// The axis iterator constructors of every view type (see
/// [`shared`](super::shared) for the conventions). `$Item` is the view
/// type of one index, `$bound` its rank bound (`RemoveAxis` for the ranked
/// types, nothing for the dynamic ones) and `$generics` the method's
/// generic parameters (`<const S: usize>` for the ranked types).
macro_rules! axis_iters {
    (
        [$($recv:tt)*] $s:ident,
        $axis_iter:ident, $outer_iter:ident, $axis_chunks_iter:ident,
        [$($generics:tt)*] $Item:ty, [$($bound:tt)*], $setup:expr, $view:expr
    ) => {
        /// The views at each index of `axis`, in order, each without that
        /// axis (rank `R - 1` in the ranked API). ≈ ndarray `axis_iter`,
        /// PyTorch `unbind` (without copies). Exact-size, double-ended.
        ///
        /// # Errors
        /// [`TensorViewError::AxisOutOfBounds`](crate::tensor::TensorViewError::AxisOutOfBounds).
        ///
        #[doc = concat!("```\n", $setup, "\nlet columns: Vec<_> = ", $view, ".", stringify!($axis_iter), "(1)?.map(|c| c.base_offset()).collect();\nassert_eq!(columns, [0, 1, 2]);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn $axis_iter $($generics)* (
            $($recv)* $s,
            axis: usize,
        ) -> Result<crate::tensor::AxisIter<$Item>, crate::tensor::TensorViewError>
        where
            $($bound)*
        {
            crate::tensor::shape::layout::check_axis(axis, $s.layout.rank())?;
            let (extent, stride) = ($s.layout.shape()[axis], $s.layout.strides()[axis]);
            let layout = $s.layout.axis_piece(axis);
            let first = <$Item>::from_parts_unchecked($s.data, layout);
            Ok(crate::tensor::AxisIter::new(first, <$Item>::piece, stride, extent))
        }

        #[doc = concat!("[`", stringify!($axis_iter), "`](Self::", stringify!($axis_iter), ") over axis 0: the rows of a matrix,")]
        /// the positions of `[T, C]`, the batches of `[B, T, C]`.
        ///
        /// # Errors
        /// [`TensorViewError::AxisOutOfBounds`](crate::tensor::TensorViewError::AxisOutOfBounds)
        /// for a rank-0 view.
        ///
        #[doc = concat!("```\n", $setup, "\nlet firsts: Vec<_> = ", $view, ".", stringify!($outer_iter), "()?.map(|row| row.base_offset()).collect();\nassert_eq!(firsts, [0, 3]);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn $outer_iter $($generics)* (
            $($recv)* $s,
        ) -> Result<crate::tensor::AxisIter<$Item>, crate::tensor::TensorViewError>
        where
            $($bound)*
        {
            $s.$axis_iter(0)
        }

        /// Chunks of `size` indices along `axis`, in order, each keeping the
        /// rank; the last chunk is shorter when `size` does not divide the
        /// extent. ≈ ndarray `axis_chunks_iter`, PyTorch `split(size, axis)`.
        ///
        /// # Errors
        /// [`TensorViewError::AxisOutOfBounds`](crate::tensor::TensorViewError::AxisOutOfBounds),
        /// then [`TensorViewError::ZeroChunkSize`](crate::tensor::TensorViewError::ZeroChunkSize).
        ///
        #[doc = concat!("```\n", $setup, "\nlet widths: Vec<_> = ", $view, ".", stringify!($axis_chunks_iter), "(1, 2)?.map(|c| c.shape()[1]).collect();\nassert_eq!(widths, [2, 1]);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn $axis_chunks_iter(
            $($recv)* $s,
            axis: usize,
            size: usize,
        ) -> Result<crate::tensor::AxisChunksIter<Self>, crate::tensor::TensorViewError> {
            crate::tensor::shape::layout::check_axis(axis, $s.layout.rank())?;
            if size == 0 {
                return Err(crate::tensor::TensorViewError::ZeroChunkSize { axis });
            }
            let geometry = ($s.layout.shape()[axis], $s.layout.strides()[axis]);
            let first = $s.piece(Some(0), Some((axis, size.min(geometry.0))));
            Ok(crate::tensor::AxisChunksIter::new(first, Self::piece, axis, geometry, size))
        }
    };
}
pub(crate) use axis_iters;
