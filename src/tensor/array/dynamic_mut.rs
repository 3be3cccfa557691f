//! `DynViewMut<'a, T>`: the mutable view with a run-time rank, the twin of
//! [`ViewMut`](super::view_mut::ViewMut) over the same layout code and kernels.

use super::dyn_transforms::dynamic_transforms;
use super::dynamic::{DynTensor, DynView, dynamic_getters};
use super::iter::{axis_iters, piece_maker};
use super::shared::{layout_getters, view_transforms};
use super::view_mut::{mutable_writes, read_cells, write_cells};
use crate::tensor::error::TensorViewError;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::Layout;
use std::cell::Cell;

/// A mutable view whose rank is known only at run time: same semantics
/// and errors as [`ViewMut`](super::view_mut::ViewMut), with run-time
/// checks of axis lists, coordinates and broadcast ranks.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::DynTensor;
/// let mut cache = DynTensor::zeros(vec![2, 4, 3])?;
/// let row = DynTensor::from_vec(vec![3], vec![1.0, 2.0, 3.0])?;
/// cache.view_mut().select(1, 2)?.assign(&row.view())?; // broadcast to [2, 3]
/// assert_eq!(cache.get(&[1, 2, 2])?, &3.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DynViewMut<'a, T = f64> {
    pub(crate) data: &'a [Cell<T>],
    pub(crate) layout: Layout<DynDims>,
}

impl<T> DynTensor<T> {
    /// Borrows the whole tensor as a [`DynViewMut`] (no copy; no
    /// allocation up to rank 12).
    #[must_use]
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let mut d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// d.view_mut().set(&[1, 0], 9.0)?;
    /// assert_eq!(d.as_slice(), &[1.0, 2.0, 9.0, 4.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view_mut(&mut self) -> DynViewMut<'_, T> {
        let layout = self.layout.clone();
        DynViewMut {
            data: Cell::from_mut(self.values.as_mut_slice()).as_slice_of_cells(),
            layout,
        }
    }
}

/// The docs' `[2, 3]` example owner of a dynamic mutable view.
macro_rules! dynamic_mutable_setup {
    () => {
        "use llm_from_scratch::tensor::dynamic::DynTensor;\nlet mut owner = DynTensor::from_vec(vec![2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;"
    };
}

impl<'a, T> DynViewMut<'a, T> {
    layout_getters!(dynamic_mutable_setup!(), "owner.view_mut()");
    view_transforms!([] self, split_at_mut, dynamic_mutable_setup!(), "owner.view_mut()");
    dynamic_transforms!([] self, dynamic_mutable_setup!(), "owner.view_mut()");
    dynamic_getters!();
    axis_iters!(
        [] self,
        axis_iter_mut,
        outer_iter_mut,
        axis_chunks_iter_mut,
        [] DynViewMut<'a, T>,
        [],
        dynamic_mutable_setup!(),
        "owner.view_mut()"
    );

    piece_maker!();

    pub(crate) fn from_parts_unchecked(data: &'a [Cell<T>], layout: Layout<DynDims>) -> Self {
        Self { data, layout }
    }

    /// Views `data` mutably through a strided layout, without copying.
    ///
    /// # Errors
    /// `StridesLengthMismatch`, then as for
    /// [`ViewMut::from_parts`](super::view_mut::ViewMut::from_parts).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{dynamic::DynViewMut, TensorViewError};
    /// let mut data = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    /// let mut v = DynViewMut::from_parts(&mut data, vec![3, 2], vec![1, 3], 0)?; // transposed
    /// v.set(&[2, 1], 60.0)?;
    /// assert_eq!(data[5], 60.0);
    /// let repeated = DynViewMut::from_parts(&mut data, vec![2, 3], vec![0, 1], 0);
    /// assert!(matches!(repeated, Err(TensorViewError::OverlappingMutableView { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_parts(
        data: &'a mut [T],
        shape: Vec<usize>,
        strides: Vec<usize>,
        base_offset: usize,
    ) -> Result<Self, TensorViewError> {
        let view = DynView::from_parts(data, shape, strides, base_offset)?;
        if !view.layout.is_non_overlapping() {
            return Err(TensorViewError::OverlappingMutableView {
                shape: view.shape().to_vec(),
                strides: view.strides().to_vec(),
            });
        }
        let layout = view.layout;
        Ok(Self {
            data: Cell::from_mut(data).as_slice_of_cells(),
            layout,
        })
    }

    /// A shorter-lived mutable view of the same layout, leaving `self`
    /// usable afterwards.
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let mut d = DynTensor::<f64>::zeros(vec![2, 2])?;
    /// let mut v = d.view_mut();
    /// v.reborrow().select(0, 1)?.fill(1.0);
    /// v.set(&[0, 0], 5.0)?; // `v` is still usable
    /// assert_eq!(d.as_slice(), &[5.0, 0.0, 1.0, 1.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reborrow(&mut self) -> DynViewMut<'_, T> {
        DynViewMut {
            data: self.data,
            layout: self.layout.clone(),
        }
    }
}

impl<T: Copy> DynViewMut<'_, T> {
    mutable_writes!();

    /// The value at `index` (a copy).
    ///
    /// # Errors
    /// `RankMismatch` or `IndexOutOfBounds` (as `TensorViewError::Tensor`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{dynamic::DynTensor, TensorError, TensorViewError};
    /// let mut d = DynTensor::from_vec(vec![2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let v = d.view_mut().permute(&[1, 0])?;
    /// assert_eq!(v.get(&[2, 1])?, 22.0);
    /// assert!(matches!(v.get(&[2]), Err(TensorViewError::Tensor(TensorError::RankMismatch { expected: 2, actual: 1 }))));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, index: &[usize]) -> Result<T, TensorViewError> {
        Ok(self.data[self.layout.offset(index)?].get())
    }

    /// Writes `value` at `index`.
    ///
    /// # Errors
    /// `RankMismatch` or `IndexOutOfBounds` (as `TensorViewError::Tensor`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{dynamic::DynTensor, TensorError, TensorViewError};
    /// let mut d = DynTensor::<f64>::zeros(vec![2, 2])?;
    /// let mut v = d.view_mut();
    /// v.set(&[0, 1], 3.0)?;
    /// assert!(matches!(v.set(&[2, 0], 1.0), Err(TensorViewError::Tensor(TensorError::IndexOutOfBounds { .. }))));
    /// assert_eq!(d.as_slice(), &[0.0, 3.0, 0.0, 0.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set(&mut self, index: &[usize], value: T) -> Result<(), TensorViewError> {
        self.data[self.layout.offset(index)?].set(value);
        Ok(())
    }

    /// Copies `source` into this view, broadcasting it to this view's
    /// shape; see [`ViewMut::assign`](super::view_mut::ViewMut::assign).
    ///
    /// # Errors
    /// `BroadcastRankTooSmall` if the source has more axes, then
    /// `IncompatibleBroadcast` at the leftmost failing axis.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{dynamic::DynTensor, TensorViewError};
    /// let mut d = DynTensor::<f64>::zeros(vec![2, 3])?;
    /// let row = DynTensor::from_vec(vec![3], vec![1.0, 2.0, 3.0])?;
    /// d.view_mut().assign(&row.view())?; // [3] broadcast to [2, 3]
    /// assert_eq!(d.as_slice(), &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    /// let wrong = DynTensor::from_vec(vec![2], vec![1.0, 2.0])?;
    /// assert!(matches!(d.view_mut().assign(&wrong.view()), Err(TensorViewError::IncompatibleBroadcast { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn assign(&mut self, source: &DynView<'_, T>) -> Result<(), TensorViewError> {
        self.zip_map_inplace(source, |_, value| value)
    }

    /// `x <- f(x, s)` with `s` from `source` broadcast to this view's shape;
    /// see [`ViewMut::zip_map_inplace`](super::view_mut::ViewMut::zip_map_inplace).
    ///
    /// # Errors
    /// As for [`DynViewMut::assign`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let mut x = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let bias = DynTensor::from_vec(vec![2], vec![10.0, 20.0])?;
    /// x.view_mut().zip_map_inplace(&bias.view(), |v, b| v + b)?;
    /// assert_eq!(x.as_slice(), &[11.0, 22.0, 13.0, 24.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn zip_map_inplace<U: Copy>(
        &mut self,
        source: &DynView<'_, U>,
        f: impl FnMut(T, U) -> T,
    ) -> Result<(), TensorViewError> {
        let stretched = source.layout.broadcast_onto(&self.layout)?;
        write_cells(self.data, &self.layout, source.data, &stretched, f);
        Ok(())
    }

    /// Copies the values into a new row-major owner.
    ///
    /// # Errors
    /// `AllocationFailed` (as `TensorViewError::Tensor`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let mut d = DynTensor::from_vec(vec![2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let copy = d.view_mut().permute(&[1, 0])?.materialize()?;
    /// assert_eq!((copy.shape(), copy.as_slice()), (&[3, 2][..], &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0][..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn materialize(&self) -> Result<DynTensor<T>, TensorViewError> {
        let (layout, values) = read_cells(self.data, &self.layout)?;
        Ok(DynTensor { layout, values })
    }
}
