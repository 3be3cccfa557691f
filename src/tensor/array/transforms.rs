//! The zero-copy transforms that keep the rank: transpose, permute, slice,
//! stepped slice, and the splits into pieces (`split_at`, `chunk`), for
//! every borrowed storage and both dimensions. Each one computes a new
//! layout (written once on `Layout`) and moves the storage into the result:
//! nothing is copied and nothing touches the heap.

use super::base::ArrayBase;
use super::storage::Borrowed;
use crate::error::Error;
use crate::tensor::shape::axes::{AxisList, all_below_rank, has_repeated_axis};
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::layout::Layout;
use crate::tensor::shape::rank::Rank;
use std::ops::Range;

impl<S: Borrowed, D: Dimension> ArrayBase<S, D> {
    /// The same storage read through another layout.
    #[inline]
    pub(crate) fn with_layout<E: Dimension>(self, layout: Layout<E::Axes>) -> ArrayBase<S, E> {
        ArrayBase {
            data: self.data,
            layout,
        }
    }

    /// Swaps two axes; the rank is unchanged. No copy.
    ///
    /// Shapes: `[.., a, .., b, ..]` -> `[.., b, .., a, ..]`. ≈ PyTorch
    /// `transpose(first, second)`, NumPy `swapaxes`. GPT-2's `Kᵀ`:
    /// `[B, H, T, D]` -> `[B, H, D, T]` with `transpose(2, 3)`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`] for `first`, then for `second`.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let t = owner.view().transpose(0, 1)?; // [2, 3] -> [3, 2]
    /// assert_eq!((t.shape(), t.strides()), (&[3, 2], &[1, 3]));
    /// assert!(owner.view().transpose(0, 2).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn transpose(self, first: usize, second: usize) -> Result<Self, Error> {
        let layout = self.layout.transpose(first, second)?;
        Ok(self.with_layout(layout))
    }

    /// Reorders axes: output axis `k` is source axis `axes[k]`; the rank is
    /// unchanged. No copy. `axes` is `[usize; R]` (a list of the wrong
    /// length does not compile) or `&[usize]` for a dynamic rank. ≈ PyTorch
    /// `permute`, NumPy `transpose(axes)`. GPT-2 `split_heads`:
    /// `[B, T, H, D]` -> `[B, H, T, D]` with `permute([0, 2, 1, 3])`.
    ///
    /// # Errors
    /// [`Error::PermutationLengthMismatch`] for a dynamic list of the wrong
    /// length; then, scanning left to right, the first of
    /// [`Error::AxisOutOfBounds`] and [`Error::DuplicateAxis`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, Tensor};
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// assert_eq!(owner.view().permute([1, 0])?.strides(), &[1, 3]);
    /// assert!(owner.view().permute([0, 0]).is_err());
    /// let d = DynTensor::<f64>::zeros(vec![2, 3])?;
    /// assert_eq!(d.view().permute(&[1, 0])?.strides(), &[1, 3]);
    /// assert!(d.view().permute(&[1, 0, 2]).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn permute(self, axes: D::Index<'_>) -> Result<Self, Error> {
        let layout = self.layout.permute(D::index_slice(&axes))?;
        Ok(self.with_layout(layout))
    }

    /// Keeps the half-open, unit-step `range` of one axis; the rank is
    /// unchanged. No copy.
    ///
    /// Shapes: extent `n` of `axis` -> `range.len()`; strides unchanged;
    /// the base offset advances by `range.start * strides[axis]`. ≈ NumPy
    /// `a[:, start:end]`, PyTorch `narrow`.
    ///
    /// # Errors
    /// In this order: [`Error::AxisOutOfBounds`], [`Error::SliceStartAfterEnd`],
    /// [`Error::SliceEndOutOfBounds`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// let s = owner.view().slice(1, 1..3)?; // [2, 3] -> [2, 2], base offset 1
    /// assert_eq!(s.offsets().collect::<Vec<_>>(), [1, 2, 4, 5]);
    /// assert!(owner.view().slice(1, 1..4).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn slice(self, axis: usize, range: Range<usize>) -> Result<Self, Error> {
        let layout = self.layout.slice(axis, range, "slice")?;
        Ok(self.with_layout(layout))
    }

    /// Every `step`-th index of the half-open `range` of one axis (NumPy's
    /// `a[:, start:end:step]`); the rank is unchanged. No copy.
    ///
    /// Shapes: extent `n` of `axis` -> `ceil(range.len() / step)`; that
    /// axis's stride is multiplied by `step`. Steps are positive: strides
    /// are `usize`, so there are no reversed views.
    ///
    /// # Errors
    /// As for [`slice`](ArrayBase::slice), then [`Error::ZeroSliceStep`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// let odd = owner.view().slice_step(1, 0..3, 2)?; // columns 0 and 2
    /// assert_eq!(odd.offsets().collect::<Vec<_>>(), [0, 2, 3, 5]);
    /// assert!(owner.view().slice_step(1, 0..3, 0).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn slice_step(self, axis: usize, range: Range<usize>, step: usize) -> Result<Self, Error> {
        let layout = self.layout.slice_step(axis, range, step)?;
        Ok(self.with_layout(layout))
    }

    /// Splits one axis at `index` into `[0, index)` and `[index, n)`; both
    /// parts keep the rank and are alive together. No copy. ≈ ndarray
    /// `split_at`. The parts of a [`View`](super::base::View) are views; the
    /// parts of a mutable view are [`CellView`](super::base::CellView)s.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`], then [`Error::SliceEndOutOfBounds`] if
    /// `index` is past the extent.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut owner = Tensor::<2>::zeros([2, 3])?;
    /// let (left, right) = owner.view().split_at(1, 1)?; // [2, 3] -> [2, 1] and [2, 2]
    /// assert_eq!(left.shape(), &[2, 1]);
    /// assert_eq!(right.offsets().collect::<Vec<_>>(), [1, 2, 4, 5]);
    /// let (mut a, mut b) = owner.view_mut().split_at(1, 1)?;
    /// a.fill(1.0);
    /// b.fill(2.0);
    /// assert_eq!(owner.as_slice(), &[1.0, 2.0, 2.0, 1.0, 2.0, 2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn split_at(
        self,
        axis: usize,
        index: usize,
    ) -> Result<(ArrayBase<S::Piece, D>, ArrayBase<S::Piece, D>), Error> {
        let (first, second) = self.layout.split_at(axis, index)?;
        let data = self.data.into_piece();
        Ok((
            ArrayBase {
                data,
                layout: first,
            },
            ArrayBase {
                data,
                layout: second,
            },
        ))
    }

    /// `N` equal parts of one axis, in order; each keeps the rank, and all
    /// are alive together. No copy. ≈ PyTorch `chunk(N, axis)` for a
    /// divisible extent. GPT-2: the packed `[B, T, 3C]` projection -> Q, K,
    /// V with `chunk::<3>(2)`. `N = 0` does not compile. The parts of a
    /// mutable view are [`CellView`](super::base::CellView)s.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`], then [`Error::UnevenChunk`] if the extent
    /// is not a multiple of `N`.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// let [a, b, c] = owner.view().chunk::<3>(1)?; // three [2, 1] columns
    /// assert_eq!(a.shape(), &[2, 1]);
    /// assert_eq!((b.base_offset(), c.base_offset()), (1, 2));
    /// assert!(owner.view().chunk::<2>(1).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn chunk<const N: usize>(self, axis: usize) -> Result<[ArrayBase<S::Piece, D>; N], Error> {
        const {
            if N == 0 {
                panic!("chunk::<N>(): N must be at least 1")
            }
        };
        let parts = self.layout.chunk::<N>(axis)?;
        let data = self.data.into_piece();
        Ok(parts.map(|layout| ArrayBase { data, layout }))
    }
}

/// The transforms whose axes are checked at compile time; infallible.
/// Plain methods, so a failed check points at the caller's line.
impl<S: Borrowed, const R: usize> ArrayBase<S, Rank<R>> {
    /// [`transpose`](ArrayBase::transpose) with the axes checked at compile
    /// time; infallible.
    ///
    /// Shapes: `[.., a, .., b, ..]` -> `[.., b, .., a, ..]`, rank `R` kept.
    /// An axis `>= R` fails to build (not at `cargo check`):
    ///
    /// ```compile_fail,E0080
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::from_vec([2, 3], vec![0.0; 6]).unwrap();
    /// let bad = t.view().transpose_axes::<0, 3>(); // rank 2 has no axis 3
    /// ```
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let q = Tensor::from_vec([1, 2, 3, 4], vec![0.0; 24])?; // [B, H, T, D]
    /// let kt = q.view().transpose_axes::<2, 3>();             // [B, H, D, T]
    /// assert_eq!(kt.shape(), &[1, 2, 4, 3]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    #[must_use]
    pub fn transpose_axes<const A: usize, const B: usize>(mut self) -> Self {
        // One `const` block per check, so each error names its own check. They
        // fail the build (not `cargo check`); the "while instantiating" note
        // of the error shows `transpose_axes::<A, B>` and the rank.
        const {
            if A >= R {
                panic!(
                    "transpose_axes::<A, B>(): axis A is not below the view's rank R (values in the last note)"
                )
            }
        };
        const {
            if B >= R {
                panic!(
                    "transpose_axes::<A, B>(): axis B is not below the view's rank R (values in the last note)"
                )
            }
        };
        self.layout.shape.swap(A, B);
        self.layout.strides.swap(A, B);
        self
    }

    /// [`permute`](ArrayBase::permute) with the axis list checked at compile
    /// time; infallible.
    ///
    /// `P` is a marker such as `Axes4<0, 2, 1, 3>` (GPT-2 `split_heads`:
    /// `[B, T, H, D]` -> `[B, H, T, D]`). A marker of another rank does not
    /// satisfy `AxisList<R>`; a repeated or out-of-range axis fails the
    /// build (not at `cargo check`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Axes4, Tensor};
    /// let x = Tensor::from_vec([1, 3, 2, 4], vec![0.0; 24])?; // [B, T, H, D]
    /// let heads = x.view().permute_axes::<Axes4<0, 2, 1, 3>>(); // [B, H, T, D]
    /// assert_eq!(heads.shape(), &[1, 2, 3, 4]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    #[must_use]
    pub fn permute_axes<P: AxisList<R>>(mut self) -> Self {
        const {
            if !all_below_rank(&P::AXES) {
                panic!(
                    "permute_axes::<P>(): P names an axis >= the view's rank R (values in the last note)"
                )
            }
        };
        const {
            if has_repeated_axis(&P::AXES) {
                panic!(
                    "permute_axes::<P>(): P repeats an axis; each must appear once (values in the last note)"
                )
            }
        };
        let (shape, strides) = (self.layout.shape, self.layout.strides);
        self.layout.shape = P::AXES.map(|axis| shape[axis]);
        self.layout.strides = P::AXES.map(|axis| strides[axis]);
        self
    }
}
