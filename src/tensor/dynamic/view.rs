//! `DynView<'a, T>`: a borrowed strided view whose rank is a run-time value.

use super::tensor::DynTensor;
use crate::tensor::error::{TensorError, TensorViewError};
use crate::tensor::kernels::{self, offsets::StridedOffsets, sink::SliceSink};
use crate::tensor::layout;
use crate::tensor::view::View;
use std::ops::Range;

/// A borrowed view whose rank is known only at run time: the views chapter's
/// `TensorView`. Same semantics and errors as [`View`], plus
/// [`TensorViewError::PermutationLengthMismatch`] since an axis list's
/// length is not checked by the compiler here. Its metadata lives in small
/// `Vec`s, so transforms allocate metadata (never values).
#[derive(PartialEq)]
pub struct DynView<'a, T = f64> {
    data: &'a [T],
    shape: Vec<usize>,
    strides: Vec<usize>,
    base_offset: usize,
    len: usize,
}

/// The layout only, as for [`View`]'s `Debug`; `Display` prints the values.
impl<T> std::fmt::Debug for DynView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        crate::tensor::display::debug_layout(f, "DynView", self.strided(), self.len)
    }
}

impl<T> Clone for DynView<'_, T> {
    fn clone(&self) -> Self {
        Self {
            data: self.data,
            shape: self.shape.clone(),
            strides: self.strides.clone(),
            base_offset: self.base_offset,
            len: self.len,
        }
    }
}

impl<'a, T> DynView<'a, T> {
    pub(crate) fn from_checked(
        data: &'a [T],
        shape: Vec<usize>,
        strides: Vec<usize>,
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

    /// Views `data` through an arbitrary strided layout, without copying.
    ///
    /// # Errors
    /// [`TensorViewError::StridesLengthMismatch`] if `shape` and `strides`
    /// differ in length; otherwise as for [`View::from_parts`].
    pub fn from_parts(
        data: &'a [T],
        shape: Vec<usize>,
        strides: Vec<usize>,
        base_offset: usize,
    ) -> Result<Self, TensorViewError> {
        if shape.len() != strides.len() {
            return Err(TensorViewError::StridesLengthMismatch {
                rank: shape.len(),
                strides: strides.len(),
            });
        }
        let len = layout::check_borrowed_layout(&shape, &strides, base_offset, data.len())?;
        Ok(Self::from_checked(data, shape, strides, base_offset, len))
    }

    /// The extent of every axis.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The storage step of every axis, in elements.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// The storage offset of the logical origin.
    pub fn base_offset(&self) -> usize {
        self.base_offset
    }

    /// The number of logical values.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the view has no logical values.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of axes.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The whole storage of the owner this view borrows.
    pub fn storage(&self) -> &'a [T] {
        self.data
    }

    /// Row-major contiguity, as for [`View::is_contiguous`].
    pub fn is_contiguous(&self) -> bool {
        layout::is_contiguous(&self.shape, &self.strides)
    }

    /// The owner's storage offset of `index`.
    ///
    /// # Errors
    /// [`TensorError::RankMismatch`] for an index of the wrong length;
    /// [`TensorError::IndexOutOfBounds`] for the first axis out of range.
    pub fn storage_offset(&self, index: &[usize]) -> Result<usize, TensorViewError> {
        Ok(layout::checked_offset(
            &self.shape,
            &self.strides,
            self.base_offset,
            index,
        )?)
    }

    /// Borrows the owner's value at `index`.
    ///
    /// # Errors
    /// As for [`DynView::storage_offset`].
    pub fn get(&self, index: &[usize]) -> Result<&'a T, TensorViewError> {
        let offset = self.storage_offset(index)?;
        Ok(&self.data[offset])
    }

    /// Storage offsets in logical row-major order.
    pub fn offsets(&self) -> impl ExactSizeIterator<Item = usize> + use<T> {
        StridedOffsets::new(&self.shape, &self.strides, self.base_offset, self.len)
    }

    /// The values in logical row-major order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a T> + use<'a, T> {
        let data = self.data;
        self.offsets().map(move |offset| &data[offset])
    }

    /// Reinterprets a contiguous view with another shape; see [`View::reshape`].
    ///
    /// # Errors
    /// `ShapeOverflow`, then `ReshapeElementCountMismatch`, then `NonContiguousReshape`.
    pub fn reshape(&self, shape: &[usize]) -> Result<Self, TensorViewError> {
        let mut strides = vec![0; shape.len()];
        layout::check_reshape(self.len, self.is_contiguous(), shape, &mut strides)?;
        Ok(Self::from_checked(
            self.data,
            shape.to_vec(),
            strides,
            self.base_offset,
            self.len,
        ))
    }

    /// Swaps two axes; see [`View::transpose`].
    ///
    /// # Errors
    /// [`TensorViewError::AxisOutOfBounds`] for `first`, then `second`.
    pub fn transpose(&self, first: usize, second: usize) -> Result<Self, TensorViewError> {
        layout::check_axis(first, self.rank())?;
        layout::check_axis(second, self.rank())?;
        let mut view = self.clone();
        view.shape.swap(first, second);
        view.strides.swap(first, second);
        Ok(view)
    }

    /// Reorders axes; see [`View::permute`].
    ///
    /// # Errors
    /// [`TensorViewError::PermutationLengthMismatch`] if `axes.len()` is not
    /// the rank; then, scanning left to right, `AxisOutOfBounds` or `DuplicateAxis`.
    pub fn permute(&self, axes: &[usize]) -> Result<Self, TensorViewError> {
        let mut view = self.clone();
        layout::permute_into(
            &self.shape,
            &self.strides,
            axes,
            &mut view.shape,
            &mut view.strides,
        )?;
        Ok(view)
    }

    /// Keeps a unit-step range of one axis; see [`View::slice`].
    ///
    /// # Errors
    /// `AxisOutOfBounds`, `SliceStartAfterEnd`, `SliceEndOutOfBounds`, in that order.
    pub fn slice(&self, axis: usize, range: Range<usize>) -> Result<Self, TensorViewError> {
        let mut view = self.clone();
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

    /// Fixes the rank in the type (no copy).
    ///
    /// # Errors
    /// [`TensorError::RankMismatch`] `{ expected: R, actual: self.rank() }`.
    pub fn into_ranked<const R: usize>(self) -> Result<View<'a, R, T>, TensorError> {
        let actual = self.rank();
        let mismatch = || TensorError::RankMismatch {
            expected: R,
            actual,
        };
        let shape: [usize; R] = self.shape.try_into().map_err(|_| mismatch())?;
        let strides: [usize; R] = self.strides.try_into().map_err(|_| mismatch())?;
        Ok(View::from_checked(
            self.data,
            shape,
            strides,
            self.base_offset,
            self.len,
        ))
    }
}

impl<T: Copy> DynView<'_, T> {
    /// Copies the logical values into a new contiguous owner; see [`View::materialize`].
    ///
    /// # Errors
    /// [`TensorError::AllocationFailed`] if the output cannot be reserved.
    pub fn materialize(&self) -> Result<DynTensor<T>, TensorViewError> {
        let mut values = kernels::buffer(self.len)
            .ok_or(TensorError::AllocationFailed { elements: self.len })?;
        kernels::copy::copy(
            self.data,
            &self.shape,
            &self.strides,
            self.base_offset,
            &mut values,
        );
        Ok(DynTensor::from_vec(self.shape.clone(), values)?)
    }

    /// Copies the logical values into `out`, reusing its storage.
    ///
    /// # Errors
    /// [`TensorViewError::OutputShapeMismatch`] if `out` has another shape.
    pub fn materialize_into(&self, out: &mut DynTensor<T>) -> Result<(), TensorViewError> {
        if out.shape() != self.shape.as_slice() {
            return Err(TensorViewError::OutputShapeMismatch {
                expected: self.shape.clone(),
                actual: out.shape().to_vec(),
            });
        }
        let sink = &mut SliceSink::new(out.as_mut_slice());
        kernels::copy::copy(
            self.data,
            &self.shape,
            &self.strides,
            self.base_offset,
            sink,
        );
        Ok(())
    }
}

impl<'a, const R: usize, T> From<View<'a, R, T>> for DynView<'a, T> {
    fn from(value: View<'a, R, T>) -> Self {
        value.into_dyn()
    }
}

impl<'a, T> DynView<'a, T> {
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
