//! `ViewMut<'a, R, T>`: a mutable strided view of an owner's storage,
//! for writing in place (a KV cache position, a residual add, a mask).

use super::iter::{axis_iters, piece_maker};
use super::materialize::fresh_owner;
use super::owned::Tensor;
use super::ranked::ranked_transforms;
use super::shared::{layout_getters, view_transforms};
use super::view::AsView;
#[cfg(doc)]
use crate::tensor::error::TensorError;
use crate::tensor::error::TensorViewError;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::Layout;
use crate::tensor::shape::rank::{Rank, RankAtMost};
use crate::tensor::traverse::alloc::try_buffer;
use crate::tensor::traverse::cells;
use std::cell::Cell;

/// The writes every mutable view type has with one signature.
macro_rules! mutable_writes {
    () => {
        /// Writes `value` at every position.
        ///
        /// ```
        /// use llm_from_scratch::tensor::Tensor;
        /// let mut t = Tensor::<2>::zeros([2, 2])?;
        /// t.view_mut().select(1, 0)?.fill(7.0); // the first column
        /// assert_eq!(t.as_slice(), &[7.0, 0.0, 7.0, 0.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn fill(&mut self, value: T) {
            self.map_inplace(|_| value);
        }

        /// `x <- f(x)` at every position, in logical row-major order.
        ///
        /// ```
        /// use llm_from_scratch::tensor::Tensor;
        /// let mut t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
        /// t.view_mut().slice(0, 1..2)?.map_inplace(|x| x * 10.0);
        /// assert_eq!(t.as_slice(), &[1.0, 2.0, 30.0, 40.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn map_inplace(&mut self, f: impl FnMut(T) -> T) {
            let layout = (
                self.layout.shape(),
                self.layout.strides(),
                self.layout.base_offset,
            );
            crate::tensor::traverse::cells::update(self.data, layout, f);
        }
    };
}
pub(crate) use mutable_writes;

/// The values of a checked layout over cells, copied into a new row-major buffer.
pub(crate) fn read_cells<D: Dims, T: Copy>(
    data: &[Cell<T>],
    layout: &Layout<D>,
) -> Result<(Layout<D>, Vec<T>), TensorViewError> {
    fresh_owner(layout, || {
        let mut values = try_buffer(layout.len)?;
        cells::read(
            data,
            (layout.shape(), layout.strides(), layout.base_offset),
            &mut values,
        );
        Ok(values)
    })
}

/// `x <- f(x, s)` over `layout` with `s` read through `source` (already
/// broadcast to the same shape).
pub(crate) fn write_cells<D: Dims, T: Copy, U: Copy>(
    data: &[Cell<T>],
    layout: &Layout<D>,
    source: &[U],
    stretched: &Layout<D>,
    f: impl FnMut(T, U) -> T,
) {
    let target = (layout.shape(), layout.strides(), layout.base_offset);
    cells::zip_update(
        data,
        target,
        source,
        stretched.strides(),
        stretched.base_offset,
        f,
    );
}

/// A mutable view of rank `R`: the owner's storage, mutably borrowed, read
/// through a shape, strides and a base offset. No two coordinates of one
/// mutable view reach the same stored value (there is no mutable
/// `broadcast_to`).
///
/// The storage is borrowed as cells (`&'a [Cell<T>]`, from
/// `Cell::from_mut`), so splitting along any axis (`split_at_mut`,
/// `chunk`, `axis_iter_mut`: the heads of a `[T, H, D]` cache interleave
/// in memory) gives views that coexist in safe Rust; a read or write is a
/// plain load or store. A `ViewMut` is not `Sync`. Transforms take it by
/// value, so the borrow checker still sees one mutable view at a time;
/// [`ViewMut::reborrow`] lends a shorter one.
///
/// Writes (`assign`, `fill`, `map_inplace`, `zip_map_inplace`) visit the
/// positions in logical row-major order. Read a mutable view's values with
/// `get`, or copy them with `materialize`; the borrowed [`View`](super::view::View)
/// and the operations come back once the mutable view is dropped.
///
/// ```
/// use llm_from_scratch::tensor::Tensor;
/// // A KV cache [H, T_max, D]: write position 2 of every head in place.
/// let mut cache = Tensor::<3>::zeros([2, 4, 3])?;
/// let new_kv = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// cache.view_mut().select(1, 2)?.assign(&new_kv)?; // [H, D] into position 2
/// assert_eq!(cache.get([1, 2, 0])?, &4.0);
/// assert_eq!(cache.get([1, 1, 0])?, &0.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// The source of an `assign` cannot borrow its destination:
///
/// ```compile_fail,E0502
/// use llm_from_scratch::tensor::Tensor;
/// let mut x = Tensor::<2>::zeros([2, 2]).unwrap();
/// let mut target = x.view_mut();
/// target.assign(&x.view()).unwrap();
/// ```
///
/// Two mutable views of one tensor cannot coexist:
///
/// ```compile_fail,E0499
/// use llm_from_scratch::tensor::Tensor;
/// let mut x = Tensor::<2>::zeros([2, 2]).unwrap();
/// let mut a = x.view_mut();
/// let mut b = x.view_mut();
/// a.fill(1.0);
/// b.fill(2.0);
/// ```
pub struct ViewMut<'a, const R: usize, T = f64> {
    pub(crate) data: &'a [Cell<T>],
    pub(crate) layout: Layout<[usize; R]>,
}

impl<const R: usize, T> Tensor<R, T> {
    /// Borrows the whole tensor as a [`ViewMut`] (no copy, no allocation).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// t.view_mut().transpose(0, 1)?.slice(0, 1..2)?.fill(0.0); // the second column
    /// assert_eq!(t.as_slice(), &[1.0, 0.0, 3.0, 0.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn view_mut(&mut self) -> ViewMut<'_, R, T> {
        let layout = self.layout;
        ViewMut {
            data: Cell::from_mut(self.values.as_mut_slice()).as_slice_of_cells(),
            layout,
        }
    }
}

/// The docs' `[2, 3]` example owner of a mutable view.
macro_rules! mutable_setup {
    () => {
        "use llm_from_scratch::tensor::Tensor;\nlet mut owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;"
    };
}

impl<'a, const R: usize, T> ViewMut<'a, R, T> {
    layout_getters!(mutable_setup!(), "owner.view_mut()");
    view_transforms!([] self, split_at_mut, mutable_setup!(), "owner.view_mut()");
    ranked_transforms!([] self, ViewMut, mutable_setup!(), "owner.view_mut()");
    axis_iters!(
        [] self,
        axis_iter_mut,
        outer_iter_mut,
        axis_chunks_iter_mut,
        [<const S: usize>] ViewMut<'a, S, T>,
        [Rank<R>: crate::tensor::RemoveAxis<Smaller = Rank<S>>],
        mutable_setup!(),
        "owner.view_mut()"
    );

    piece_maker!();

    pub(crate) fn from_parts_unchecked(data: &'a [Cell<T>], layout: Layout<[usize; R]>) -> Self {
        Self { data, layout }
    }

    /// Views `data` mutably through a strided layout, without copying.
    ///
    /// # Errors
    /// As for [`View::from_parts`](super::view::View::from_parts) (overflow,
    /// then `ViewOutOfBounds`), then [`TensorViewError::OverlappingMutableView`]
    /// if two coordinates could reach one stored value (a stride-0 axis, or
    /// axes whose strides interleave; the test is sufficient, not exact).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{ViewMut, TensorViewError};
    /// let mut data = [0.0; 6];
    /// ViewMut::from_parts(&mut data, [3, 2], [1, 3], 0)?.fill(1.0);
    /// assert!(matches!(
    ///     ViewMut::from_parts(&mut data, [2, 3], [0, 1], 0),
    ///     Err(TensorViewError::OverlappingMutableView { .. })
    /// ));
    /// # Ok::<(), TensorViewError>(())
    /// ```
    pub fn from_parts(
        data: &'a mut [T],
        shape: [usize; R],
        strides: [usize; R],
        base_offset: usize,
    ) -> Result<Self, TensorViewError> {
        let layout = Layout::borrowed(shape, strides, base_offset, data.len())?;
        if !layout.is_non_overlapping() {
            return Err(TensorViewError::OverlappingMutableView {
                shape: shape.to_vec(),
                strides: strides.to_vec(),
            });
        }
        Ok(Self {
            data: Cell::from_mut(data).as_slice_of_cells(),
            layout,
        })
    }

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
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reborrow(&mut self) -> ViewMut<'_, R, T> {
        ViewMut {
            data: self.data,
            layout: self.layout,
        }
    }
}

impl<const R: usize, T: Copy> ViewMut<'_, R, T> {
    /// The value at the coordinate `index` (a copy).
    ///
    /// # Errors
    /// [`TensorError::IndexOutOfBounds`] (as `TensorViewError::Tensor`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Tensor, TensorError, TensorViewError};
    /// let mut t = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let v = t.view_mut().transpose(0, 1)?;
    /// assert_eq!(v.get([2, 1])?, 22.0);
    /// assert!(matches!(v.get([3, 0]), Err(TensorViewError::Tensor(TensorError::IndexOutOfBounds { .. }))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, index: [usize; R]) -> Result<T, TensorViewError> {
        Ok(self.data[self.layout.offset(&index)?].get())
    }

    /// Writes `value` at the coordinate `index`.
    ///
    /// # Errors
    /// [`TensorError::IndexOutOfBounds`] (as `TensorViewError::Tensor`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::<2>::zeros([2, 2])?;
    /// let mut v = t.view_mut().transpose(0, 1)?;
    /// v.set([0, 1], 5.0)?;
    /// assert_eq!(v.get([0, 1])?, 5.0);
    /// assert_eq!(t.as_slice(), &[0.0, 0.0, 5.0, 0.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set(&mut self, index: [usize; R], value: T) -> Result<(), TensorViewError> {
        self.data[self.layout.offset(&index)?].set(value);
        Ok(())
    }

    mutable_writes!();

    /// Copies `source` into this view, broadcasting it to this view's shape
    /// (NumPy's assignment rule: `dst[...] = src`); the source rank `M` is
    /// at most `R`. ≈ PyTorch `copy_`, candle's `slice_set` for a KV cache.
    ///
    /// # Errors
    /// [`TensorViewError::IncompatibleBroadcast`] at the leftmost axis
    /// where the source's extent is neither this view's nor 1.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut mask = Tensor::<2>::zeros([3, 3])?;
    /// let row = Tensor::from_vec([3], vec![0.0, f64::NEG_INFINITY, f64::NEG_INFINITY])?;
    /// mask.view_mut().slice(0, 0..1)?.assign(&row)?; // [3] broadcast to [1, 3]
    /// assert_eq!(mask.get([0, 2])?, &f64::NEG_INFINITY);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn assign<const M: usize>(
        &mut self,
        source: &(impl AsView<M, T> + ?Sized),
    ) -> Result<(), TensorViewError>
    where
        Rank<M>: RankAtMost<Rank<R>>,
    {
        self.zip_map_inplace(source, |_, value| value)
    }

    /// `x <- f(x, s)` at every position, `s` read from `source` broadcast to
    /// this view's shape, in logical row-major order (this view's value first).
    /// GPT-2's residual add in place: `x.view_mut().zip_map_inplace(&attn, |x, a| x + a)`.
    ///
    /// # Errors
    /// [`TensorViewError::IncompatibleBroadcast`], as for [`ViewMut::assign`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let bias = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// x.view_mut().zip_map_inplace(&bias, |v, b| v + b)?;
    /// assert_eq!(x.as_slice(), &[11.0, 22.0, 13.0, 24.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn zip_map_inplace<const M: usize, U: Copy>(
        &mut self,
        source: &(impl AsView<M, U> + ?Sized),
        f: impl FnMut(T, U) -> T,
    ) -> Result<(), TensorViewError>
    where
        Rank<M>: RankAtMost<Rank<R>>,
    {
        let source = source.as_view();
        let stretched = source.layout.broadcast_onto(&self.layout)?;
        let layout = (
            self.layout.shape(),
            self.layout.strides(),
            self.layout.base_offset,
        );
        cells::zip_update(
            self.data,
            layout,
            source.data,
            stretched.strides(),
            stretched.base_offset,
            f,
        );
        Ok(())
    }

    /// Copies the values into a new row-major owner.
    ///
    /// # Errors
    /// [`TensorError::AllocationFailed`] (as `TensorViewError::Tensor`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let copy = t.view_mut().transpose(0, 1)?.materialize()?;
    /// assert_eq!((copy.shape(), copy.as_slice()), (&[3, 2], &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0][..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn materialize(&self) -> Result<Tensor<R, T>, TensorViewError> {
        let (layout, values) = read_cells(self.data, &self.layout)?;
        Ok(Tensor { layout, values })
    }
}
