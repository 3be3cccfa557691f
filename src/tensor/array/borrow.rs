//! Borrowing: an owner or a mutable view as a [`View`](super::base::View)
//! or a mutable view, views over a caller's slice, and [`AsArray`], which
//! lets every operation take any readable array as its operand.

use super::base::ArrayBase;
use super::storage::{Cells, Readable};
use crate::error::Error;
use crate::tensor::shape::dimension::{Dimension, IntoShape};
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::Layout;
use crate::tensor::shape::rank::Rank;
use std::cell::Cell;

/// Anything that can be read as a borrowed view of dimension `D` over
/// `&[T]`: a [`Tensor`](super::base::Tensor), a [`View`](super::base::View),
/// a [`ViewMut`](super::base::ViewMut) (and their `Dyn` twins), or a
/// reference to one of them. Every operation takes its operands as
/// `&impl AsArray<D, T>`, so `matmul(&x, &w)` works on owners, views and
/// mutable views alike without `.view()` at each call (ndarray's `AsArray`).
/// A [`CellView`](super::base::CellView) is not one: its storage is cells.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let mut x = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let w = Tensor::from_vec([2, 3], vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0])?;
/// let wt = w.view().transpose(0, 1)?;
/// assert_eq!(matmul(&x, &wt)?.as_slice(), &[1.0, 2.0, 4.0, 5.0]); // a tensor and a view
/// let mut x_mut = x.view_mut();
/// x_mut.map_inplace(|v| 10.0 * v);
/// assert_eq!(matmul(&x_mut, &wt)?.as_slice(), &[10.0, 20.0, 40.0, 50.0]); // what was written
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait AsArray<D: Dimension, T> {
    /// Borrows `self` as a view (no copy, no allocation).
    fn as_array(&self) -> ArrayBase<&'_ [T], D>;
}

impl<S: Readable, D: Dimension> AsArray<D, S::Elem> for ArrayBase<S, D> {
    #[inline]
    fn as_array(&self) -> ArrayBase<&'_ [S::Elem], D> {
        ArrayBase {
            data: self.data.values(),
            layout: self.layout,
        }
    }
}

impl<D: Dimension, T, A: AsArray<D, T> + ?Sized> AsArray<D, T> for &A {
    #[inline]
    fn as_array(&self) -> ArrayBase<&'_ [T], D> {
        (**self).as_array()
    }
}

/// [`AsArray`] for a rank in the type: `impl AsView<3, f32>` reads as "any
/// readable rank-3 `f32` array". Implemented for every `AsArray<Rank<R>, T>`.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// fn rows(x: &impl AsView<2, f64>) -> usize {
///     x.as_view().shape()[0]
/// }
/// let t = Tensor::<2>::zeros([3, 4])?;
/// assert_eq!((rows(&t), rows(&t.view())), (3, 3));
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub trait AsView<const R: usize, T>: AsArray<Rank<R>, T> {
    /// Borrows `self` as a rank-`R` view (no copy, no allocation).
    fn as_view(&self) -> ArrayBase<&'_ [T], Rank<R>> {
        self.as_array()
    }
}

impl<const R: usize, T, A: AsArray<Rank<R>, T> + ?Sized> AsView<R, T> for A {}

/// The read-only borrow of an owner.
impl<T, D: Dimension> ArrayBase<Vec<T>, D> {
    /// Borrows the whole owner as a read-only [`View`](super::base::View)
    /// (no copy, no allocation).
    ///
    /// The view borrows the owner, so the owner cannot be mutated while a
    /// later-used view exists:
    ///
    /// ```compile_fail,E0502
    /// use llm_from_scratch::tensor::Tensor;
    ///
    /// let mut tensor = Tensor::from_vec([2], vec![10.0, 20.0]).unwrap();
    /// let view = tensor.view();
    /// tensor.as_mut_slice()[0] = 99.0;
    /// assert_eq!(*view.get([0]).unwrap(), 10.0);
    /// ```
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(t.view().transpose(0, 1)?.get([0, 1])?, &3.0);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    #[must_use]
    pub fn view(&self) -> ArrayBase<&'_ [T], D> {
        self.as_array()
    }
}

/// The read-only borrow of a mutable view.
impl<T, D: Dimension> ArrayBase<&mut [T], D> {
    /// Borrows what the mutable view reaches as a read-only
    /// [`View`](super::base::View) of the same layout, for as long as the
    /// mutable view is not used (no copy, no allocation).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let mut column = t.view_mut().select(1, 0)?;
    /// column.fill(7.0);
    /// assert_eq!(column.view().iter().copied().collect::<Vec<_>>(), [7.0, 7.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    #[must_use]
    pub fn view(&self) -> ArrayBase<&'_ [T], D> {
        self.as_array()
    }
}

impl<'a, T, D: Dimension> ArrayBase<&'a [T], D> {
    /// The view itself (a copy of it): a view's `view()` lives as long as
    /// the storage it borrows, not as long as the view value, so
    /// `let w = weights.get::<2, f32>(name)?.view();` keeps borrowing the file.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Tensor, View};
    /// let owner = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let row: View<'_, 1> = owner.view().select(0, 1)?.view(); // outlives the temporary
    /// assert_eq!(row.get([1])?, &4.0);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    #[must_use]
    pub fn view(&self) -> ArrayBase<&'a [T], D> {
        *self
    }
}

impl<T, D: Dimension> ArrayBase<Vec<T>, D> {
    /// Borrows the whole owner as an exclusive mutable view (no copy, no allocation).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// t.view_mut().transpose(0, 1)?.slice(0, 1..2)?.fill(0.0); // the second column
    /// assert_eq!(t.as_slice(), &[1.0, 0.0, 3.0, 0.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    #[must_use]
    pub fn view_mut(&mut self) -> ArrayBase<&'_ mut [T], D> {
        ArrayBase {
            layout: self.layout,
            data: &mut self.data,
        }
    }
}

impl<'a, T, D: Dimension> ArrayBase<&'a mut [T], D> {
    /// A shorter-lived mutable view of the same layout, leaving `self`
    /// usable afterwards (like `&mut *x` for a reference).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::<1>::zeros([4])?;
    /// let mut all = t.view_mut();
    /// all.reborrow().slice(0, 0..2)?.fill(1.0);
    /// all.reborrow().slice(0, 2..4)?.fill(2.0);
    /// assert_eq!(t.as_slice(), &[1.0, 1.0, 2.0, 2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn reborrow(&mut self) -> ArrayBase<&'_ mut [T], D> {
        ArrayBase {
            data: &mut *self.data,
            layout: self.layout,
        }
    }

    /// The same layout over cells, so that it can be split into pieces that
    /// are alive together (see [`CellView`](super::base::CellView)).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::<2>::zeros([2, 2])?;
    /// let cells = t.view_mut().into_cells();
    /// let (mut left, mut right) = cells.split_at(1, 1)?; // two columns, interleaved
    /// left.fill(1.0);
    /// right.fill(2.0);
    /// assert_eq!(t.as_slice(), &[1.0, 2.0, 1.0, 2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn into_cells(self) -> ArrayBase<Cells<'a, T>, D> {
        ArrayBase {
            data: Cells(Cell::from_mut(self.data).as_slice_of_cells()),
            layout: self.layout,
        }
    }

    /// Views `data` mutably through a strided layout, without copying.
    /// `shape` and `strides` are `[usize; R]` for a typed rank, or
    /// `Vec<usize>` / `&[usize]` for a dynamic one.
    ///
    /// # Errors
    /// As for [`View::from_parts`](ArrayBase::from_parts) (lengths,
    /// overflow, `ViewOutOfBounds`), then [`Error::OverlappingMutableView`]
    /// if two coordinates could reach one stored value (a stride-0 axis, or
    /// axes whose strides interleave; the test is sufficient, not exact).
    ///
    /// ```
    /// use llm_from_scratch::{tensor::{DynViewMut, ViewMut}, Error};
    /// let mut data = [0.0; 6];
    /// ViewMut::from_parts(&mut data, [3, 2], [1, 3], 0)?.fill(1.0);
    /// assert!(matches!(
    ///     ViewMut::from_parts(&mut data, [2, 3], [0, 1], 0),
    ///     Err(Error::OverlappingMutableView { .. })
    /// ));
    /// let mut v = DynViewMut::from_parts(&mut data, vec![3, 2], vec![1, 3], 0)?;
    /// v.set(&[2, 1], 60.0)?;
    /// assert_eq!(data[5], 60.0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_parts(
        data: &'a mut [T],
        shape: impl IntoShape<Dim = D>,
        strides: impl IntoShape<Dim = D>,
        base_offset: usize,
    ) -> Result<Self, Error> {
        let layout = checked_parts(
            shape,
            strides,
            base_offset,
            data.len(),
            "ViewMut::from_parts",
        )?;
        if !layout.is_non_overlapping() {
            return Err(Error::OverlappingMutableView {
                shape: layout.shape().to_vec(),
                strides: layout.strides().to_vec(),
            });
        }
        Ok(Self { data, layout })
    }
}

/// A layout over `available` borrowed values from user parts: one stride
/// per axis, then overflow, then every reachable offset inside the data.
fn checked_parts<D: Dimension>(
    shape: impl IntoShape<Dim = D>,
    strides: impl IntoShape<Dim = D>,
    base_offset: usize,
    available: usize,
    op: &'static str,
) -> Result<Layout<D::Axes>, Error> {
    let (shape, strides) = (shape.into_axes(op)?, strides.into_axes(op)?);
    if shape.as_slice().len() != strides.as_slice().len() {
        return Err(Error::StridesLengthMismatch {
            op,
            rank: shape.as_slice().len(),
            strides: strides.as_slice().len(),
        });
    }
    Layout::borrowed(shape, strides, base_offset, available, op)
}

impl<'a, T, D: Dimension> ArrayBase<&'a [T], D> {
    /// Views borrowed row-major data (a `Vec`, a weights buffer) as `shape`,
    /// without copying. `shape` is `[usize; R]`, or `&[usize]` /
    /// `Vec<usize>` for a dynamic rank.
    ///
    /// # Errors
    /// [`Error::ShapeOverflow`] for an overflowing shape;
    /// [`Error::ViewOutOfBounds`] if `data` is shorter than the shape's
    /// element count (longer is fine: the tail is unused).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynView, View};
    /// let data = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    /// let v = View::from_slice(&data, [3, 2])?;
    /// assert_eq!(v.get([2, 0])?, &5.0);
    /// assert!(View::from_slice(&data, [4, 2]).is_err());
    /// assert_eq!(DynView::from_slice(&data, &[2, 3])?.get(&[1, 0])?, &4.0);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn from_slice(data: &'a [T], shape: impl IntoShape<Dim = D>) -> Result<Self, Error> {
        let row_major = Layout::row_major(shape.into_axes("from_slice")?, "from_slice")?;
        let layout = Layout::borrowed(
            row_major.shape,
            row_major.strides,
            0,
            data.len(),
            "from_slice",
        )?;
        Ok(Self { data, layout })
    }

    /// Views `data` through an arbitrary strided layout, without copying.
    /// Strides are in elements and may be 0 (a repeated value) or in any
    /// order.
    ///
    /// # Errors
    /// [`Error::StridesLengthMismatch`] if a dynamic `shape` and `strides`
    /// differ in length; [`Error::ShapeOverflow`] if the element count or
    /// the largest reachable offset overflows; [`Error::ViewOutOfBounds`] if
    /// that offset is not inside `data`. An empty view is always in bounds.
    ///
    /// ```
    /// use llm_from_scratch::{tensor::{DynView, View}, Error};
    /// let data = [1.0, 2.0, 3.0];
    /// // Each of 3 rows repeats one stored value 4 times: [3, 4], strides [1, 0].
    /// let rows = View::from_parts(&data, [3, 4], [1, 0], 0)?;
    /// assert_eq!(rows.get([2, 3])?, &3.0);
    /// assert_eq!(
    ///     View::from_parts(&data, [2, 2], [2, 1], 0).unwrap_err(),
    ///     Error::ViewOutOfBounds { op: "View::from_parts", required_len: 4, available: 3 }
    /// );
    /// assert_eq!(
    ///     DynView::from_parts(&data, vec![3], vec![1, 0], 0).unwrap_err(),
    ///     Error::StridesLengthMismatch { op: "View::from_parts", rank: 1, strides: 2 }
    /// );
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_parts(
        data: &'a [T],
        shape: impl IntoShape<Dim = D>,
        strides: impl IntoShape<Dim = D>,
        base_offset: usize,
    ) -> Result<Self, Error> {
        let layout = checked_parts(shape, strides, base_offset, data.len(), "View::from_parts")?;
        Ok(Self { data, layout })
    }
}
