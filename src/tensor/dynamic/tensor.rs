//! `DynTensor<T>`: an owner whose rank is a run-time value.

use super::view::DynView;
use crate::tensor::error::TensorError;
use crate::tensor::kernels;
use crate::tensor::layout;
use crate::tensor::storage::Tensor;

/// An owned, row-major contiguous tensor whose rank is known only at run time.
///
/// The chapters' `Tensor`, kept for ranks above 8 or read from data; convert
/// with [`DynTensor::into_ranked`] once the rank is known.
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
#[derive(Debug, Clone, PartialEq)]
pub struct DynTensor<T = f64> {
    shape: Vec<usize>,
    strides: Vec<usize>,
    values: Vec<T>,
}

impl<T> DynTensor<T> {
    /// Takes ownership of `values` laid out row-major in `shape`.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`], then [`TensorError::ElementCountMismatch`],
    /// as for [`Tensor::from_vec`].
    pub fn from_vec(shape: Vec<usize>, values: Vec<T>) -> Result<Self, TensorError> {
        let mut strides = vec![0; shape.len()];
        let expected = layout::row_major_strides(&shape, &mut strides)?;
        if values.len() != expected {
            return Err(TensorError::ElementCountMismatch {
                expected,
                actual: values.len(),
            });
        }
        Ok(Self::from_checked(shape, strides, values))
    }

    /// Builds a tensor by calling `f` once per coordinate, in row-major order.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`]; [`TensorError::AllocationFailed`].
    pub fn from_fn(
        shape: Vec<usize>,
        mut f: impl FnMut(&[usize]) -> T,
    ) -> Result<Self, TensorError> {
        let mut strides = vec![0; shape.len()];
        let len = layout::row_major_strides(&shape, &mut strides)?;
        let mut values =
            kernels::buffer(len).ok_or(TensorError::AllocationFailed { elements: len })?;
        let mut index = vec![0; shape.len()];
        for _ in 0..len {
            values.push(f(&index));
            for axis in (0..shape.len()).rev() {
                index[axis] += 1;
                if index[axis] < shape[axis] {
                    break;
                }
                index[axis] = 0;
            }
        }
        Ok(Self::from_checked(shape, strides, values))
    }

    pub(crate) fn from_checked(shape: Vec<usize>, strides: Vec<usize>, values: Vec<T>) -> Self {
        Self {
            shape,
            strides,
            values,
        }
    }

    /// The extent of every axis.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Row-major strides in elements.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// The number of axes.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the tensor holds no values.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The values in row-major order.
    pub fn as_slice(&self) -> &[T] {
        &self.values
    }

    /// The values in row-major order, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.values
    }

    /// Gives the values back in row-major order.
    pub fn into_vec(self) -> Vec<T> {
        self.values
    }

    /// The value at `index`.
    ///
    /// # Errors
    /// [`TensorError::RankMismatch`] if `index.len()` is not the rank;
    /// [`TensorError::IndexOutOfBounds`] for the first axis out of range.
    pub fn get(&self, index: &[usize]) -> Result<&T, TensorError> {
        let offset = layout::checked_offset(&self.shape, &self.strides, 0, index)?;
        Ok(&self.values[offset])
    }

    /// The value at `index`, mutably.
    ///
    /// # Errors
    /// As for [`DynTensor::get`].
    pub fn get_mut(&mut self, index: &[usize]) -> Result<&mut T, TensorError> {
        let offset = layout::checked_offset(&self.shape, &self.strides, 0, index)?;
        Ok(&mut self.values[offset])
    }

    /// Borrows the whole tensor as a contiguous [`DynView`] (no value copy).
    #[must_use]
    pub fn view(&self) -> DynView<'_, T> {
        DynView::from_checked(
            &self.values,
            self.shape.clone(),
            self.strides.clone(),
            0,
            self.values.len(),
        )
    }

    /// Fixes the rank in the type.
    ///
    /// # Errors
    /// [`TensorError::RankMismatch`] `{ expected: R, actual: self.rank() }`.
    pub fn into_ranked<const R: usize>(self) -> Result<Tensor<R, T>, TensorError> {
        let actual = self.rank();
        let mismatch = || TensorError::RankMismatch {
            expected: R,
            actual,
        };
        let shape: [usize; R] = self.shape.try_into().map_err(|_| mismatch())?;
        let strides: [usize; R] = self.strides.try_into().map_err(|_| mismatch())?;
        Ok(Tensor::from_checked(shape, strides, self.values))
    }
}

impl<const R: usize, T> From<Tensor<R, T>> for DynTensor<T> {
    fn from(value: Tensor<R, T>) -> Self {
        value.into_dyn()
    }
}
