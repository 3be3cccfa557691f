//! Zero-copy conversions between this crate's views and ndarray's
//! `ArrayView` (feature `ndarray`), both ways, in safe code.
//!
//! - [`View::to_ndarray`] / [`DynView::to_ndarray`] (and `TryFrom`): the
//!   same storage, shape and strides as an `ArrayView` of ranks 0 to 6
//!   (`Dim<[usize; R]>`, the ranks ndarray names `Ix0` … `Ix6`) or an
//!   `ArrayViewD`.
//! - `View::try_from(array_view)` / `DynView::try_from(array_view)`: an
//!   ndarray view whose elements form one run of memory (standard layout,
//!   Fortran layout, any permutation of them, plus broadcast axes of stride
//!   0) with no reversed axis. Other layouts cannot be borrowed as one
//!   slice without `unsafe`, so they are typed errors; ndarray's
//!   `.as_standard_layout()` makes the copy when you want one.
//!
//! Both directions keep every stride, in elements: ndarray stores strides
//! as `usize` bit patterns read as `isize`, which is what ours are when
//! they are non-negative.

use super::base::{DynView, View};
use crate::error::Error;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::Layout;
use ::ndarray::{ArrayView, ArrayViewD, Axis, Dim, Dimension, IxDyn, ShapeBuilder, Slice};

/// An `ArrayView` over `data` with `layout`'s shape and strides.
///
/// A non-empty layout keeps every stride (a unit axis's stride, never used
/// to step, becomes 0 when it does not fit in `isize`); an empty one reads
/// nothing and becomes ndarray's empty view of the same shape.
fn to_array_view<'a, A, E: Dims, D: Dimension>(
    data: &'a [A],
    layout: &Layout<E>,
) -> Result<ArrayView<'a, A, D>, Error> {
    let limit = || Error::NdarrayLimitExceeded {
        shape: layout.shape().to_vec(),
        strides: layout.strides().to_vec(),
    };
    let mut shape = D::zeros(layout.rank());
    shape.slice_mut().copy_from_slice(layout.shape());
    if layout.len == 0 {
        return ArrayView::from_shape(shape, &[]).map_err(|_| limit());
    }
    let mut strides = D::zeros(layout.rank());
    for ((out, &stride), &extent) in strides
        .slice_mut()
        .iter_mut()
        .zip(layout.strides())
        .zip(layout.shape())
    {
        *out = match isize::try_from(stride) {
            Err(_) if extent == 1 => 0,
            _ => stride,
        };
    }
    // Non-empty: the base offset is a reachable offset, so it is inside `data`.
    let from_base = data.get(layout.base_offset..).ok_or_else(limit)?;
    ArrayView::from_shape(shape.strides(strides), from_base).map_err(|_| limit())
}

/// The storage an ndarray view reads, as one slice starting at its logical
/// origin, and the same layout over it (base offset 0).
///
/// Checks, in order: a negative stride on an axis of extent > 1 of a
/// non-empty view (`NegativeStride`, first such axis), then whether the
/// elements, stride-0 (broadcast) axes set aside, form one run of memory
/// (`NotContiguousInMemory`). Strides on unit axes and on empty views are
/// never used to step; a negative one becomes 0.
fn from_array_view<'a, A, D: Dimension, E: Dims>(
    array: ArrayView<'a, A, D>,
) -> Result<(&'a [A], Layout<E>), Error> {
    let rank = array.ndim();
    let empty = array.is_empty();
    let mut shape = E::zeros(rank);
    shape.as_mut_slice().copy_from_slice(array.shape());
    let mut strides = E::zeros(rank);
    for (axis, ((out, &stride), &extent)) in strides
        .as_mut_slice()
        .iter_mut()
        .zip(array.strides())
        .zip(array.shape())
        .enumerate()
    {
        *out = match usize::try_from(stride) {
            Ok(stride) => stride,
            Err(_) if empty || extent == 1 => 0,
            Err(_) => return Err(Error::NegativeStride { axis, stride }),
        };
    }
    if empty {
        return Ok((
            &[],
            Layout::borrowed(shape, strides, 0, 0, "View::try_from")?,
        ));
    }
    // A broadcast axis reads one position over and over: keep index 0 of it
    // to find the storage the view covers.
    let mut covered = array.clone();
    for (axis, (&extent, &stride)) in shape.as_slice().iter().zip(strides.as_slice()).enumerate() {
        if extent > 1 && stride == 0 {
            covered = covered.slice_axis_move(Axis(axis), Slice::from(0..1));
        }
    }
    // With no negative stride, the lowest address is the logical origin.
    let data = covered
        .to_slice_memory_order()
        .ok_or_else(|| Error::NotContiguousInMemory {
            shape: array.shape().to_vec(),
            strides: array.strides().to_vec(),
        })?;
    Ok((
        data,
        Layout::borrowed(shape, strides, 0, data.len(), "View::try_from")?,
    ))
}

impl<'a, const R: usize, T> View<'a, R, T> {
    /// The same values as an ndarray `ArrayView` of rank `R` (0 to 6): the
    /// same storage, shape and strides, no copy (feature `ndarray`).
    ///
    /// Shapes: `[n_0, …, n_{R-1}]` -> `ArrayView<T, Dim<[usize; R]>>`
    /// (`Ix0` … `Ix6`); use `into_dyn().to_ndarray()` for ranks 7 and 8.
    /// Broadcast (stride-0) axes stay broadcast: ndarray's read-only views
    /// allow them. An empty view becomes ndarray's empty view of the same
    /// shape (it reads nothing, so its strides are ndarray's).
    ///
    /// # Errors
    /// [`Error::NdarrayLimitExceeded`] when ndarray cannot hold the
    /// layout: more than `isize::MAX` elements counting non-zero extents (a
    /// huge broadcast, or an empty `[usize::MAX, 0]`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let t = owner.view().transpose(0, 1)?.to_ndarray()?; // [3, 2], strides [1, 3]
    /// assert_eq!(t.strides(), &[1, 3]);
    /// assert_eq!(t[[2, 1]], 22.0);
    /// assert_eq!(t.as_ptr(), owner.as_slice().as_ptr()); // the owner's storage
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_ndarray(&self) -> Result<ArrayView<'a, T, Dim<[usize; R]>>, Error>
    where
        Dim<[usize; R]>: Dimension,
    {
        to_array_view(self.data, &self.layout)
    }
}

impl<'a, T> DynView<'a, T> {
    /// The same values as an ndarray `ArrayViewD` (any rank): the same
    /// storage, shape and strides, no copy (feature `ndarray`). See
    /// [`View::to_ndarray`].
    ///
    /// # Errors
    /// [`Error::NdarrayLimitExceeded`], as for [`View::to_ndarray`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let owner = DynTensor::from_vec(vec![2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let column = owner.view().slice(1, 2..3)?.to_ndarray()?; // [2, 1], base offset 2
    /// assert_eq!(column.iter().copied().collect::<Vec<_>>(), [12.0, 22.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_ndarray(&self) -> Result<ArrayViewD<'a, T>, Error> {
        to_array_view(self.data, &self.layout)
    }
}

/// Same as [`View::to_ndarray`] (feature `ndarray`).
impl<'a, const R: usize, T> TryFrom<View<'a, R, T>> for ArrayView<'a, T, Dim<[usize; R]>>
where
    Dim<[usize; R]>: Dimension,
{
    type Error = Error;

    fn try_from(view: View<'a, R, T>) -> Result<Self, Error> {
        view.to_ndarray()
    }
}

/// Same as [`DynView::to_ndarray`] (feature `ndarray`).
impl<'a, T> TryFrom<DynView<'a, T>> for ArrayViewD<'a, T> {
    type Error = Error;

    fn try_from(view: DynView<'a, T>) -> Result<Self, Error> {
        view.to_ndarray()
    }
}

/// Borrows an ndarray view of rank `R` (0 to 6) as a [`View`]: the same
/// storage, shape and strides, no copy (feature `ndarray`).
///
/// Accepted: any layout whose elements form one run of memory with
/// non-negative strides (standard or Fortran layout, a transpose or
/// permutation of either, `insert_axis`), plus broadcast axes of stride 0
/// (`broadcast`). The view starts at the array's first logical element, so
/// its base offset is 0. Unit axes and empty views carry any stride; a
/// negative one becomes 0 there.
///
/// # Errors
/// In this order: [`Error::NegativeStride`] for the first axis
/// of extent > 1 that runs backwards (`invert_axis`, a `-1` step);
/// [`Error::NotContiguousInMemory`] when the elements skip memory
/// (a column slice, a stepped slice): safe Rust can only borrow one
/// contiguous slice. `.as_standard_layout()` copies either into a layout
/// that converts.
///
/// ```
/// use llm_from_scratch::{tensor::View, Error};
/// use ndarray::{Array2, s};
/// let a = Array2::from_shape_vec((2, 3), vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// let t = View::try_from(a.t())?; // Fortran layout: strides [1, 3], no copy
/// assert_eq!((t.shape(), t.strides()), (&[3, 2], &[1, 3]));
/// assert_eq!(t.get([2, 1])?, &22.0);
/// let column = a.slice(s![.., 1..2]); // skips memory between its elements
/// assert!(matches!(View::try_from(column), Err(Error::NotContiguousInMemory { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<'a, const R: usize, T> TryFrom<ArrayView<'a, T, Dim<[usize; R]>>> for View<'a, R, T>
where
    Dim<[usize; R]>: Dimension,
{
    type Error = Error;

    fn try_from(array: ArrayView<'a, T, Dim<[usize; R]>>) -> Result<Self, Error> {
        let (data, layout) = from_array_view(array)?;
        Ok(View { data, layout })
    }
}

/// Borrows an ndarray view of any rank as a [`DynView`]: the same storage,
/// shape and strides, no copy (feature `ndarray`). Accepted layouts and
/// errors as for `View::try_from`.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::DynView;
/// use ndarray::{ArrayD, IxDyn};
/// let a = ArrayD::from_shape_vec(IxDyn(&[2, 1, 2]), vec![1.0, 2.0, 3.0, 4.0])?;
/// let v = DynView::try_from(a.view())?;
/// assert_eq!((v.shape(), v.get(&[1, 0, 1])?), (&[2, 1, 2][..], &4.0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
impl<'a, T> TryFrom<ArrayView<'a, T, IxDyn>> for DynView<'a, T> {
    type Error = Error;

    fn try_from(array: ArrayView<'a, T, IxDyn>) -> Result<Self, Error> {
        let (data, layout) = from_array_view::<T, IxDyn, DynDims>(array)?;
        Ok(DynView { data, layout })
    }
}
