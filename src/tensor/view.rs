//! `View<'a, R, T>`: a borrowed, strided interpretation of an owner's storage.

use super::dynamic::DynView;
use super::error::{TensorError, TensorViewError};
use super::kernels::{self, offsets::StridedOffsets, sink::SliceSink};
use super::layout;
use super::storage::Tensor;
use std::ops::Range;

/// A borrowed view of rank `R`: the owner's storage `&'a [T]` read through
/// a shape, strides (in elements) and a base offset.
///
/// Creating and transforming views never copies values and never touches
/// the heap: `reshape`, `transpose`, `permute` and `slice` only compute new
/// metadata. [`View::materialize`] is the one copy. `View` is `Copy`, like
/// a slice reference.
///
/// ```
/// use llm_from_scratch::tensor::Tensor;
///
/// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// let t = owner.view().transpose(0, 1)?; // [2, 3] -> [3, 2], strides [1, 3]
/// assert_eq!(t.strides(), &[1, 3]);
/// assert_eq!(t.offsets().collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);
/// assert_eq!(t.get([2, 1])?, &22.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct View<'a, const R: usize, T = f64> {
    data: &'a [T],
    shape: [usize; R],
    strides: [usize; R],
    base_offset: usize,
    len: usize,
}

/// The layout only (shape, strides, base offset, length, the owner's
/// storage length): printing a small view of a large owner stays small.
/// `Display` prints the values.
impl<const R: usize, T> std::fmt::Debug for View<'_, R, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::tensor::display::debug_layout(f, "View", self.strided(), self.len)
    }
}

impl<const R: usize, T> Clone for View<'_, R, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<const R: usize, T> Copy for View<'_, R, T> {}

impl<'a, const R: usize, T> View<'a, R, T> {
    /// Internal constructor for a layout already checked against `data`.
    pub(crate) fn from_checked(
        data: &'a [T],
        shape: [usize; R],
        strides: [usize; R],
        base_offset: usize,
        len: usize,
    ) -> Self {
        Self {
            data,
            shape,
            strides,
            base_offset,
            len,
        }
    }

    /// Views borrowed row-major data (a `Vec`, a weights buffer) as `shape`, without copying.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`] (as `TensorViewError::Tensor`) for an
    /// overflowing shape; [`TensorViewError::ViewOutOfBounds`] if `data` is
    /// shorter than the shape's element count (longer is fine: the tail is unused).
    pub fn from_slice(data: &'a [T], shape: [usize; R]) -> Result<Self, TensorViewError> {
        let mut strides = [0; R];
        layout::row_major_strides(&shape, &mut strides)?;
        Self::from_parts(data, shape, strides, 0)
    }

    /// Views `data` through an arbitrary strided layout, without copying.
    ///
    /// Strides are in elements and may be 0 (a repeated value) or any order.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`] if the element count or the largest
    /// reachable offset overflows; [`TensorViewError::ViewOutOfBounds`] if
    /// that offset is not inside `data`. An empty view is always in bounds.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{View, TensorViewError};
    /// let data = [1.0, 2.0, 3.0];
    /// // Each of 3 rows repeats one stored value 4 times: [3, 4], strides [1, 0].
    /// let rows = View::from_parts(&data, [3, 4], [1, 0], 0)?;
    /// assert_eq!(rows.get([2, 3])?, &3.0);
    /// assert_eq!(
    ///     View::from_parts(&data, [2, 2], [2, 1], 0).unwrap_err(),
    ///     TensorViewError::ViewOutOfBounds { required_len: 4, available: 3 }
    /// );
    /// # Ok::<(), TensorViewError>(())
    /// ```
    pub fn from_parts(
        data: &'a [T],
        shape: [usize; R],
        strides: [usize; R],
        base_offset: usize,
    ) -> Result<Self, TensorViewError> {
        let len = layout::check_borrowed_layout(&shape, &strides, base_offset, data.len())?;
        Ok(Self::from_checked(data, shape, strides, base_offset, len))
    }

    /// The extent of every axis.
    pub fn shape(&self) -> &[usize; R] {
        &self.shape
    }

    /// The storage step of every axis, in elements.
    pub fn strides(&self) -> &[usize; R] {
        &self.strides
    }

    /// The storage offset of the logical origin `[0; R]`.
    pub fn base_offset(&self) -> usize {
        self.base_offset
    }

    /// The number of logical values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no logical values (some extent is 0).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of axes, `R`.
    pub const fn rank(&self) -> usize {
        R
    }

    /// The whole storage of the owner this view borrows (not only the viewed part).
    pub fn storage(&self) -> &'a [T] {
        self.data
    }

    /// Whether logical row-major order visits one dense storage span from the
    /// base offset. Singleton axes may carry any stride; empty and scalar
    /// views are contiguous (the views chapter's convention).
    pub fn is_contiguous(&self) -> bool {
        layout::is_contiguous(&self.shape, &self.strides)
    }

    /// The values as one slice when the view is contiguous, else `None`.
    pub fn as_contiguous_slice(&self) -> Option<&'a [T]> {
        if !self.is_contiguous() {
            return None;
        }
        let start = if self.len == 0 { 0 } else { self.base_offset };
        self.data.get(start..start + self.len)
    }

    /// The owner's storage offset of the coordinate `index`.
    ///
    /// # Errors
    /// [`TensorError::IndexOutOfBounds`] (as `TensorViewError::Tensor`)
    /// naming the first axis whose coordinate is not below its extent.
    pub fn storage_offset(&self, index: [usize; R]) -> Result<usize, TensorViewError> {
        Ok(layout::checked_offset(
            &self.shape,
            &self.strides,
            self.base_offset,
            &index,
        )?)
    }

    /// Borrows the owner's value at the coordinate `index`.
    ///
    /// # Errors
    /// As for [`View::storage_offset`].
    pub fn get(&self, index: [usize; R]) -> Result<&'a T, TensorViewError> {
        let offset = self.storage_offset(index)?;
        Ok(&self.data[offset])
    }

    /// Storage offsets in logical row-major order (the views chapter's offset cursor).
    pub fn offsets(&self) -> impl ExactSizeIterator<Item = usize> + use<R, T> {
        StridedOffsets::new(&self.shape, &self.strides, self.base_offset, self.len)
    }

    /// The values in logical row-major order, borrowed from the owner.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a T> + use<'a, R, T> {
        let data = self.data;
        self.offsets().map(move |offset| &data[offset])
    }

    /// Reinterprets a contiguous view with another shape of the same element
    /// count; the new rank `S` comes from the shape array. No copy.
    ///
    /// Shapes: `[n_0, …, n_{R-1}]` -> `shape`, fresh row-major strides, same
    /// base offset. ≈ PyTorch `Tensor.view`, NumPy `reshape` without its
    /// silent copy. GPT-2 `split_heads`: `[B, T, C]` -> `[B, T, H, C / H]`.
    ///
    /// # Errors
    /// Checked in this order (the views chapter's):
    /// 1. [`TensorError::ShapeOverflow`] if `shape` overflows;
    /// 2. [`TensorViewError::ReshapeElementCountMismatch`] if the counts differ;
    /// 3. [`TensorViewError::NonContiguousReshape`] if this view is not
    ///    contiguous: reshape never copies, call [`View::materialize`] first.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Tensor, TensorViewError};
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let r = owner.view().reshape([3, 2])?;
    /// assert_eq!((r.shape(), r.strides()), (&[3, 2], &[2, 1]));
    /// let t = owner.view().transpose(0, 1)?;
    /// assert_eq!(t.reshape([6]).unwrap_err(), TensorViewError::NonContiguousReshape);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reshape<const S: usize>(
        &self,
        shape: [usize; S],
    ) -> Result<View<'a, S, T>, TensorViewError> {
        let mut strides = [0; S];
        layout::check_reshape(self.len, self.is_contiguous(), &shape, &mut strides)?;
        Ok(View::from_checked(
            self.data,
            shape,
            strides,
            self.base_offset,
            self.len,
        ))
    }

    /// Swaps two axes; rank stays `R`. No copy.
    ///
    /// Shapes: `[.., a, .., b, ..]` -> `[.., b, .., a, ..]`. ≈ PyTorch
    /// `transpose(first, second)`, NumPy `swapaxes`. GPT-2's `Kᵀ`:
    /// `[B, H, T, D]` -> `[B, H, D, T]` with `transpose(2, 3)`.
    ///
    /// # Errors
    /// [`TensorViewError::AxisOutOfBounds`] for `first`, then `second`.
    pub fn transpose(&self, first: usize, second: usize) -> Result<Self, TensorViewError> {
        layout::check_axis(first, R)?;
        layout::check_axis(second, R)?;
        let mut view = *self;
        view.shape.swap(first, second);
        view.strides.swap(first, second);
        Ok(view)
    }

    /// Reorders axes: output axis `k` is source axis `axes[k]`; rank stays `R`. No copy.
    ///
    /// Shapes: `[n_0, …]` -> `[n_{axes[0]}, …]`. ≈ PyTorch `permute`, NumPy
    /// `transpose(axes)`. GPT-2 `split_heads`: `[B, T, H, D]` -> `[B, H, T, D]`
    /// with `permute([0, 2, 1, 3])`. An axis list of the wrong length does
    /// not compile (`[usize; R]`).
    ///
    /// # Errors
    /// Scanning left to right, the first of: [`TensorViewError::AxisOutOfBounds`],
    /// [`TensorViewError::DuplicateAxis`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Tensor, TensorViewError};
    /// let x = Tensor::from_vec([2, 3, 4], vec![0.0; 24])?;
    /// let p = x.view().permute([2, 0, 1])?; // [2, 3, 4] -> [4, 2, 3]
    /// assert_eq!((p.shape(), p.strides()), (&[4, 2, 3], &[1, 12, 4]));
    /// assert_eq!(x.view().permute([0, 0, 1]).unwrap_err(), TensorViewError::DuplicateAxis { axis: 0 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn permute(&self, axes: [usize; R]) -> Result<Self, TensorViewError> {
        let mut view = *self;
        layout::permute_into(
            &self.shape,
            &self.strides,
            &axes,
            &mut view.shape,
            &mut view.strides,
        )?;
        Ok(view)
    }

    /// Keeps the half-open, unit-step `range` of one axis; rank stays `R`. No copy.
    ///
    /// Shapes: extent `n` of `axis` -> `range.len()`; strides unchanged; the
    /// base offset advances by `range.start * strides[axis]`. ≈ NumPy
    /// `a[:, start:end]`. GPT-2: Q, K and V are `slice(2, ..)` of `[B, T, 3C]`.
    ///
    /// # Errors
    /// In this order: [`TensorViewError::AxisOutOfBounds`],
    /// [`TensorViewError::SliceStartAfterEnd`], [`TensorViewError::SliceEndOutOfBounds`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Tensor, TensorViewError};
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let s = owner.view().slice(1, 1..3)?; // [2, 3] -> [2, 2], base offset 1
    /// assert_eq!(s.offsets().collect::<Vec<_>>(), [1, 2, 4, 5]);
    /// assert_eq!(
    ///     owner.view().slice(1, 1..4).unwrap_err(),
    ///     TensorViewError::SliceEndOutOfBounds { axis: 1, end: 4, dimension: 3 }
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn slice(&self, axis: usize, range: Range<usize>) -> Result<Self, TensorViewError> {
        let mut view = *self;
        view.base_offset = layout::slice_in_place(
            &mut view.shape,
            &self.strides,
            self.base_offset,
            axis,
            range,
        )?;
        view.len = layout::narrowed_len(&view.shape);
        Ok(view)
    }

    /// Forgets the rank in the type: the same borrowed layout as a [`DynView`].
    pub fn into_dyn(self) -> DynView<'a, T> {
        DynView::from_checked(
            self.data,
            self.shape.to_vec(),
            self.strides.to_vec(),
            self.base_offset,
            self.len,
        )
    }
}

impl<'a, const R: usize, T: Copy> View<'a, R, T> {
    /// Copies the logical values into a new contiguous owner: the only copy.
    ///
    /// Shapes: same shape, fresh row-major strides. ≈ PyTorch `.contiguous()`
    /// (which we call explicitly, always), NumPy `ascontiguousarray`. An
    /// empty view allocates nothing.
    ///
    /// # Errors
    /// [`TensorError::AllocationFailed`] (as `TensorViewError::Tensor`) if the
    /// output cannot be reserved; [`TensorError::ShapeOverflow`] for an empty
    /// view whose shape has no row-major layout (the transpose of
    /// `[usize::MAX / 2, 3, 0]`), since no owner of that shape can exist.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let s = owner.view().slice(1, 1..3)?; // offsets [1, 2, 4, 5]: not contiguous
    /// assert!(!s.is_contiguous());
    /// let m = s.materialize()?;
    /// assert_eq!(m.as_slice(), &[11.0, 12.0, 21.0, 22.0]);
    /// assert!(m.view().reshape([4]).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn materialize(&self) -> Result<Tensor<R, T>, TensorViewError> {
        let mut values = kernels::buffer(self.len)
            .ok_or(TensorError::AllocationFailed { elements: self.len })?;
        self.copy_to(&mut values);
        let mut strides = [0; R];
        layout::row_major_strides(&self.shape, &mut strides)?;
        Ok(Tensor::from_checked(self.shape, strides, values))
    }

    /// Copies the logical values into `out`, reusing its storage.
    ///
    /// # Errors
    /// [`TensorViewError::OutputShapeMismatch`] if `out` has another shape.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let k = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let mut kt = Tensor::zeros([3, 2])?; // reused across calls in a hot loop
    /// k.view().transpose(0, 1)?.materialize_into(&mut kt)?;
    /// assert_eq!(kt.as_slice(), &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn materialize_into(&self, out: &mut Tensor<R, T>) -> Result<(), TensorViewError> {
        if out.shape() != &self.shape {
            return Err(TensorViewError::OutputShapeMismatch {
                expected: self.shape.to_vec(),
                actual: out.shape().to_vec(),
            });
        }
        self.copy_to(&mut SliceSink::new(out.as_mut_slice()));
        Ok(())
    }

    fn copy_to(&self, sink: &mut impl kernels::sink::Sink<T>) {
        // An empty view has nothing to copy: skip the kernel's plan (its metadata allocations).
        if self.len == 0 {
            return;
        }
        kernels::copy::copy(
            self.data,
            &self.shape,
            &self.strides,
            self.base_offset,
            sink,
        );
    }
}

impl<'a, const R: usize, T> TryFrom<DynView<'a, T>> for View<'a, R, T> {
    type Error = TensorError;

    /// Same as [`DynView::into_ranked`].
    fn try_from(value: DynView<'a, T>) -> Result<Self, TensorError> {
        value.into_ranked()
    }
}

impl<'a, const R: usize, T> View<'a, R, T> {
    /// The rank-erased layout handed to the shared op cores.
    pub(crate) fn strided(&self) -> kernels::Strided<'a, '_, T> {
        kernels::Strided {
            data: self.data,
            shape: &self.shape,
            strides: &self.strides,
            base: self.base_offset,
        }
    }
}
