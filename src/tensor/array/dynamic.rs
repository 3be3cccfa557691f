//! `DynTensor<T>` and `DynView<'a, T>`: owner and view whose rank is a
//! run-time value, thin shells over the same layout and kernels as the
//! ranked types.

use super::dyn_transforms::dynamic_transforms;
use super::iter::{axis_iters, piece_maker};
use super::materialize::{materialized, materialized_into};
use super::owned::{Tensor, filled, generated, layout_of, owner_common};
use super::shared::{layout_getters, view_read, view_transforms};
use super::view::View;
use crate::tensor::error::{TensorError, TensorViewError};
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::Layout;

/// Shape, strides and rank of the dynamic owner and view: written once.
macro_rules! dynamic_getters {
    () => {
        /// The extent of every axis.
        ///
        /// ```
        /// use llm_from_scratch::tensor::DynTensor;
        /// let d = DynTensor::<f64>::zeros(vec![2, 3])?;
        /// assert_eq!(d.view().permute(&[1, 0])?.shape(), &[3, 2]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn shape(&self) -> &[usize] {
            self.layout.shape()
        }

        /// The storage step of every axis, in elements (row-major for an owner).
        ///
        /// ```
        /// use llm_from_scratch::tensor::DynTensor;
        /// let d = DynTensor::<f64>::zeros(vec![2, 3])?;
        /// assert_eq!(d.strides(), &[3, 1]);
        /// assert_eq!(d.view().permute(&[1, 0])?.strides(), &[1, 3]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn strides(&self) -> &[usize] {
            self.layout.strides()
        }

        /// The number of axes.
        ///
        /// ```
        /// use llm_from_scratch::tensor::DynTensor;
        /// assert_eq!(DynTensor::<f64>::zeros(vec![1, 2, 3])?.rank(), 3);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn rank(&self) -> usize {
            self.layout.rank()
        }
    };
}
pub(crate) use dynamic_getters;

/// An owned, row-major contiguous tensor whose rank is known only at run time.
///
/// Kept for ranks above [`MAX_RANK`](crate::tensor::MAX_RANK) or read from
/// data; convert with [`DynTensor::into_ranked`] once the rank is known.
///
/// ```
/// use llm_from_scratch::tensor::dynamic::DynTensor;
/// use llm_from_scratch::tensor::Tensor;
///
/// let d = DynTensor::from_vec(vec![2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// assert_eq!(d.shape(), &[2, 3]);
/// let t: Tensor<2> = d.into_ranked()?;
/// assert_eq!(t.get([1, 0])?, &20.0);
/// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct DynTensor<T = f64> {
    pub(crate) layout: Layout<DynDims>,
    pub(crate) values: Vec<T>,
}

impl<T> DynTensor<T> {
    owner_common!();

    /// Takes ownership of `values` laid out row-major in `shape`.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`], then [`TensorError::ElementCountMismatch`],
    /// as for [`Tensor::from_vec`](crate::tensor::Tensor::from_vec).
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let d = DynTensor::from_vec(vec![2, 1, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!((d.rank(), d.strides()), (3, &[2, 2, 1][..]));
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    pub fn from_vec(shape: Vec<usize>, values: Vec<T>) -> Result<Self, TensorError> {
        let layout = layout_of(DynDims::from_slice(&shape), values.len())?;
        Ok(Self { layout, values })
    }

    /// Builds a tensor by calling `f` once per coordinate, in row-major order.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`]; [`TensorError::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let d = DynTensor::from_fn(vec![2, 2], |index| (10 * index[0] + index[1]) as f64)?;
    /// assert_eq!(d.as_slice(), &[0.0, 1.0, 10.0, 11.0]);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    pub fn from_fn(
        shape: Vec<usize>,
        mut f: impl FnMut(&[usize]) -> T,
    ) -> Result<Self, TensorError> {
        let (layout, values) = generated(DynDims::from_slice(&shape), |index| f(index.as_slice()))?;
        Ok(Self { layout, values })
    }

    dynamic_getters!();

    /// The value at `index`.
    ///
    /// # Errors
    /// [`TensorError::RankMismatch`] if `index.len()` is not the rank;
    /// [`TensorError::IndexOutOfBounds`] for the first axis out of range.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{dynamic::DynTensor, TensorError};
    /// let d = DynTensor::from_vec(vec![2], vec![1.0, 2.0])?;
    /// assert_eq!(d.get(&[1])?, &2.0);
    /// assert_eq!(d.get(&[1, 0]), Err(TensorError::RankMismatch { expected: 1, actual: 2 }));
    /// # Ok::<(), TensorError>(())
    /// ```
    pub fn get(&self, index: &[usize]) -> Result<&T, TensorError> {
        Ok(&self.values[self.layout.offset(index)?])
    }

    /// The value at `index`, mutably.
    ///
    /// # Errors
    /// As for [`DynTensor::get`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::{dynamic::DynTensor, TensorError};
    /// let mut d = DynTensor::from_vec(vec![2], vec![1.0, 2.0])?;
    /// *d.get_mut(&[1])? += 10.0;
    /// assert_eq!(d.as_slice(), &[1.0, 12.0]);
    /// assert!(matches!(d.get_mut(&[2]), Err(TensorError::IndexOutOfBounds { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get_mut(&mut self, index: &[usize]) -> Result<&mut T, TensorError> {
        let offset = self.layout.offset(index)?;
        Ok(&mut self.values[offset])
    }

    /// Gives the same values another shape of the same element count (any
    /// rank); no copy. See [`Tensor::into_shape`](crate::tensor::Tensor::into_shape).
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`], then [`TensorError::ElementCountMismatch`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let d = DynTensor::from_vec(vec![4], vec![1.0, 2.0, 3.0, 4.0])?.into_shape(&[2, 2])?;
    /// assert_eq!(d.shape(), &[2, 2]);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    pub fn into_shape(self, shape: &[usize]) -> Result<Self, TensorError> {
        let layout = layout_of(DynDims::from_slice(shape), self.values.len())?;
        Ok(Self { layout, ..self })
    }

    /// Fixes the rank in the type (no copy).
    ///
    /// # Errors
    /// [`TensorError::RankMismatch`] `{ expected: R, actual: self.rank() }`.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{dynamic::DynTensor, Tensor, TensorError};
    /// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(d.clone().into_ranked::<3>().unwrap_err(), TensorError::RankMismatch { expected: 3, actual: 2 });
    /// let t: Tensor<2> = d.into_ranked()?;
    /// assert_eq!(t.shape(), &[2, 2]);
    /// # Ok::<(), TensorError>(())
    /// ```
    pub fn into_ranked<const R: usize>(self) -> Result<Tensor<R, T>, TensorError> {
        let layout = self.layout.into_dims()?;
        Ok(Tensor {
            layout,
            values: self.values,
        })
    }

    /// Borrows the whole tensor as a contiguous [`DynView`] (no copy; no
    /// allocation up to rank 12).
    #[must_use]
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let v = d.view();
    /// assert_eq!((v.shape(), v.strides(), v.as_contiguous_slice()), (&[2, 2][..], &[2, 1][..], Some(d.as_slice())));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn view(&self) -> DynView<'_, T> {
        DynView {
            data: &self.values,
            layout: self.layout.clone(),
        }
    }
}

impl<T: Clone> DynTensor<T> {
    /// A tensor of `shape` with every value `value`.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`]; [`TensorError::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let d = DynTensor::full(vec![2, 2], 7.0)?;
    /// assert_eq!(d.as_slice(), &[7.0; 4]);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    pub fn full(shape: Vec<usize>, value: T) -> Result<Self, TensorError> {
        let (layout, values) = filled(DynDims::from_slice(&shape), value)?;
        Ok(Self { layout, values })
    }

    /// A tensor of `shape` filled with `T::default()`.
    ///
    /// # Errors
    /// As for [`DynTensor::full`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let d = DynTensor::<f64>::zeros(vec![2, 1, 2])?;
    /// assert_eq!((d.shape(), d.as_slice()), (&[2, 1, 2][..], &[0.0; 4][..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn zeros(shape: Vec<usize>) -> Result<Self, TensorError>
    where
        T: Default,
    {
        Self::full(shape, T::default())
    }
}

/// A borrowed view whose rank is known only at run time. Same semantics
/// and errors as [`View`](crate::tensor::View), plus
/// [`TensorViewError::PermutationLengthMismatch`] and
/// [`TensorError::RankMismatch`] since the lengths of axis lists and
/// coordinates are not checked by the compiler here. Its metadata lives
/// inline up to rank 12, so transforms allocate nothing below that.
#[derive(PartialEq)]
pub struct DynView<'a, T = f64> {
    pub(crate) data: &'a [T],
    pub(crate) layout: Layout<DynDims>,
}

impl<T> Clone for DynView<'_, T> {
    fn clone(&self) -> Self {
        Self {
            data: self.data,
            layout: self.layout.clone(),
        }
    }
}

/// The docs' `[2, 3]` example owner of the dynamic API.
macro_rules! dynamic_setup {
    () => {
        "use llm_from_scratch::tensor::dynamic::DynTensor;\nlet owner = DynTensor::from_vec(vec![2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;"
    };
}

impl<'a, T> DynView<'a, T> {
    layout_getters!(dynamic_setup!(), "owner.view()");
    view_transforms!([&] self, split_at, dynamic_setup!(), "owner.view()");
    dynamic_transforms!([&] self, dynamic_setup!(), "owner.view()");
    dynamic_getters!();
    axis_iters!(
        [&] self,
        axis_iter,
        outer_iter,
        axis_chunks_iter,
        [] DynView<'a, T>,
        [],
        dynamic_setup!(),
        "owner.view()"
    );
    view_read!();

    piece_maker!();

    pub(crate) fn from_parts_unchecked(data: &'a [T], layout: Layout<DynDims>) -> Self {
        Self { data, layout }
    }

    /// Views borrowed row-major data as `shape`, without copying.
    ///
    /// # Errors
    /// As for [`View::from_slice`](crate::tensor::View::from_slice).
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynView;
    /// let data = [1.0, 2.0, 3.0, 4.0];
    /// let v = DynView::from_slice(&data, &[2, 2])?;
    /// assert_eq!(v.get(&[1, 0])?, &3.0);
    /// # Ok::<(), llm_from_scratch::tensor::TensorViewError>(())
    /// ```
    pub fn from_slice(data: &'a [T], shape: &[usize]) -> Result<Self, TensorViewError> {
        let row_major = Layout::row_major(DynDims::from_slice(shape))?;
        let layout = Layout::borrowed(row_major.shape, row_major.strides, 0, data.len())?;
        Ok(Self { data, layout })
    }

    /// Views `data` through an arbitrary strided layout, without copying.
    ///
    /// # Errors
    /// [`TensorViewError::StridesLengthMismatch`] if `shape` and `strides`
    /// differ in length; otherwise as for [`View::from_parts`](crate::tensor::View::from_parts).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{dynamic::DynView, TensorViewError};
    /// let data = [1.0, 2.0, 3.0];
    /// let rows = DynView::from_parts(&data, vec![3, 4], vec![1, 0], 0)?;
    /// assert_eq!(rows.get(&[2, 3])?, &3.0);
    /// assert_eq!(
    ///     DynView::from_parts(&data, vec![3], vec![1, 0], 0).unwrap_err(),
    ///     TensorViewError::StridesLengthMismatch { rank: 1, strides: 2 }
    /// );
    /// # Ok::<(), TensorViewError>(())
    /// ```
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
        let (shape, strides) = (DynDims::from_slice(&shape), DynDims::from_slice(&strides));
        let layout = Layout::borrowed(shape, strides, base_offset, data.len())?;
        Ok(Self { data, layout })
    }

    /// Borrows the owner's value at `index`.
    ///
    /// # Errors
    /// As for [`DynView::storage_offset`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(d.view().transpose(0, 1)?.get(&[0, 1])?, &3.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, index: &[usize]) -> Result<&'a T, TensorViewError> {
        let offset = self.storage_offset(index)?;
        Ok(&self.data[offset])
    }

    /// Fixes the rank in the type (no copy).
    ///
    /// # Errors
    /// [`TensorError::RankMismatch`] `{ expected: R, actual: self.rank() }`.
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let v = d.view().into_ranked::<2>()?;
    /// assert_eq!(v.get([1, 1])?, &4.0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_ranked<const R: usize>(self) -> Result<View<'a, R, T>, TensorError> {
        let layout = self.layout.into_dims()?;
        Ok(View {
            data: self.data,
            layout,
        })
    }

    /// A read-only view broadcast to `shape` (NumPy's `broadcast_to`); see
    /// [`View::broadcast_to`].
    ///
    /// # Errors
    /// [`TensorViewError::BroadcastRankTooSmall`] if `shape` has fewer axes
    /// than the view; [`TensorViewError::IncompatibleBroadcast`] at the
    /// leftmost failing output axis; then `ShapeOverflow`.
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let bias = DynTensor::from_vec(vec![2], vec![1.0, 2.0])?;
    /// let wide = bias.view().broadcast_to(&[3, 2])?;
    /// assert_eq!(wide.strides(), &[0, 1]);
    /// assert!(bias.view().broadcast_to(&[]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Self, TensorViewError> {
        let layout = self.layout.broadcast_to(DynDims::from_slice(shape))?;
        Ok(Self {
            data: self.data,
            layout,
        })
    }
}

impl<T: Copy + Send + Sync> DynView<'_, T> {
    /// Copies the logical values into a new contiguous owner (on rayon's
    /// threads when large, hence `Send + Sync`); see
    /// [`View::materialize`](crate::tensor::View::materialize).
    ///
    /// # Errors
    /// [`TensorError::AllocationFailed`] if the output cannot be reserved;
    /// `ShapeOverflow` for an empty shape with no row-major layout.
    ///
    /// ```
    /// use llm_from_scratch::tensor::dynamic::DynTensor;
    /// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(d.view().transpose(0, 1)?.materialize()?.as_slice(), &[1.0, 3.0, 2.0, 4.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn materialize(&self) -> Result<DynTensor<T>, TensorViewError> {
        let (layout, values) = materialized(self.data, &self.layout)?;
        Ok(DynTensor { layout, values })
    }

    /// Copies the logical values into `out`, reusing its storage.
    ///
    /// # Errors
    /// [`TensorViewError::OutputShapeMismatch`] if `out` has another shape.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{dynamic::DynTensor, TensorViewError};
    /// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let mut out = DynTensor::<f64>::zeros(vec![2, 2])?;
    /// d.view().transpose(0, 1)?.materialize_into(&mut out)?;
    /// assert_eq!(out.as_slice(), &[1.0, 3.0, 2.0, 4.0]);
    /// let mut wrong = DynTensor::<f64>::zeros(vec![4])?;
    /// assert!(matches!(d.view().materialize_into(&mut wrong), Err(TensorViewError::OutputShapeMismatch { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn materialize_into(&self, out: &mut DynTensor<T>) -> Result<(), TensorViewError> {
        materialized_into(self.data, &self.layout, out.layout.shape(), &mut out.values)
    }
}
