//! `Tensor<R, T>`: the owner of contiguous row-major values.

use super::dynamic::DynTensor;
use super::error::TensorError;
use super::kernels;
use super::layout;
use super::view::View;

/// An owned, row-major contiguous tensor of rank `R` (shape `[usize; R]`).
///
/// The only type that owns values. [`Tensor::view`] borrows it as a
/// [`View`]; every view transform borrows the same storage, and only
/// [`View::materialize`] creates a new owner. Rank is part of the type:
/// a `Tensor<3>` is `[B, T, C]`, never a matrix.
///
/// ```
/// use llm_from_scratch::tensor::Tensor;
///
/// let t = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// assert_eq!(t.shape(), &[2, 3]);
/// assert_eq!(t.strides(), &[3, 1]);
/// assert_eq!(t.get([1, 2])?, &22.0);
/// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor<const R: usize, T = f64> {
    shape: [usize; R],
    strides: [usize; R],
    values: Vec<T>,
}

impl<const R: usize, T> Tensor<R, T> {
    /// Takes ownership of `values` laid out row-major in `shape`.
    ///
    /// # Errors
    /// - [`TensorError::ShapeOverflow`] if the element count or a stride of
    ///   `shape` overflows `usize` (checked even behind a zero extent);
    /// - [`TensorError::ElementCountMismatch`] if `values.len()` is not the
    ///   shape's element count (1 for `R = 0`, 0 for any zero extent).
    pub fn from_vec(shape: [usize; R], values: Vec<T>) -> Result<Self, TensorError> {
        let mut strides = [0; R];
        let expected = layout::row_major_strides(&shape, &mut strides)?;
        if values.len() != expected {
            return Err(TensorError::ElementCountMismatch {
                expected,
                actual: values.len(),
            });
        }
        Ok(Self {
            shape,
            strides,
            values,
        })
    }

    /// Builds a tensor by calling `f` once per coordinate, in row-major order.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`] for an overflowing shape;
    /// [`TensorError::AllocationFailed`] if the storage cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t: Tensor<2, usize> = Tensor::from_fn([2, 3], |[r, c]| 10 * r + c)?;
    /// assert_eq!(t.as_slice(), &[0, 1, 2, 10, 11, 12]);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    pub fn from_fn(
        shape: [usize; R],
        mut f: impl FnMut([usize; R]) -> T,
    ) -> Result<Self, TensorError> {
        let mut strides = [0; R];
        let len = layout::row_major_strides(&shape, &mut strides)?;
        let mut values =
            kernels::buffer(len).ok_or(TensorError::AllocationFailed { elements: len })?;
        let mut index = [0; R];
        for _ in 0..len {
            values.push(f(index));
            for axis in (0..R).rev() {
                index[axis] += 1;
                if index[axis] < shape[axis] {
                    break;
                }
                index[axis] = 0;
            }
        }
        Ok(Self {
            shape,
            strides,
            values,
        })
    }

    /// The extent of every axis.
    pub fn shape(&self) -> &[usize; R] {
        &self.shape
    }

    /// Row-major strides in elements (suffix products of the shape).
    pub fn strides(&self) -> &[usize; R] {
        &self.strides
    }

    /// The number of axes, `R`.
    pub const fn rank(&self) -> usize {
        R
    }

    /// The number of values (1 for a scalar, 0 for any zero extent).
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

    /// The values in row-major order, mutably (the shape stays fixed).
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
    /// [`TensorError::IndexOutOfBounds`] naming the first axis whose
    /// coordinate is not below its extent.
    pub fn get(&self, index: [usize; R]) -> Result<&T, TensorError> {
        let offset = layout::checked_offset(&self.shape, &self.strides, 0, &index)?;
        Ok(&self.values[offset])
    }

    /// The value at `index`, mutably.
    ///
    /// # Errors
    /// [`TensorError::IndexOutOfBounds`] as for [`Tensor::get`].
    pub fn get_mut(&mut self, index: [usize; R]) -> Result<&mut T, TensorError> {
        let offset = layout::checked_offset(&self.shape, &self.strides, 0, &index)?;
        Ok(&mut self.values[offset])
    }

    /// Borrows the whole tensor as a contiguous [`View`] (no copy, no allocation).
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
    #[must_use]
    pub fn view(&self) -> View<'_, R, T> {
        View::from_checked(&self.values, self.shape, self.strides, 0, self.values.len())
    }

    /// Forgets the rank in the type: the same storage as a [`DynTensor`].
    pub fn into_dyn(self) -> DynTensor<T> {
        DynTensor::from_checked(self.shape.to_vec(), self.strides.to_vec(), self.values)
    }

    /// Internal constructor for values already laid out row-major in `shape`.
    pub(crate) fn from_checked(shape: [usize; R], strides: [usize; R], values: Vec<T>) -> Self {
        Self {
            shape,
            strides,
            values,
        }
    }
}

impl<const R: usize, T: Clone> Tensor<R, T> {
    /// A tensor of `shape` with every value `value`.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`] for an overflowing shape;
    /// [`TensorError::AllocationFailed`] if the storage cannot be reserved.
    pub fn full(shape: [usize; R], value: T) -> Result<Self, TensorError> {
        let mut strides = [0; R];
        let len = layout::row_major_strides(&shape, &mut strides)?;
        let mut values =
            kernels::buffer(len).ok_or(TensorError::AllocationFailed { elements: len })?;
        values.resize(len, value);
        Ok(Self {
            shape,
            strides,
            values,
        })
    }

    /// A tensor of `shape` filled with `T::default()` (0 for numbers).
    ///
    /// # Errors
    /// As for [`Tensor::full`].
    pub fn zeros(shape: [usize; R]) -> Result<Self, TensorError>
    where
        T: Default,
    {
        Self::full(shape, T::default())
    }
}

impl<const R: usize, T> TryFrom<DynTensor<T>> for Tensor<R, T> {
    type Error = TensorError;

    /// Same as [`DynTensor::into_ranked`].
    fn try_from(value: DynTensor<T>) -> Result<Self, TensorError> {
        value.into_ranked()
    }
}

/// Builds the transpose of a matrix by allocating and copying every value
/// (the views chapter's eager counterpart of the borrowed [`View::transpose`]).
///
/// Shapes: `[rows, columns]` -> `[columns, rows]`. Ranks other than 2 do
/// not compile. Equivalent to NumPy `a.T.copy()`, PyTorch `a.t().contiguous()`.
///
/// # Errors
/// [`TensorError::AllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::tensor::{copying_transpose, Tensor};
/// let k = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// let kt = copying_transpose(&k)?;
/// assert_eq!(kt.shape(), &[3, 2]);
/// assert_eq!(kt.as_slice(), &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0]);
/// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
/// ```
pub fn copying_transpose<T: Copy>(source: &Tensor<2, T>) -> Result<Tensor<2, T>, TensorError> {
    let [rows, columns] = source.shape;
    let mut values = kernels::buffer(source.len()).ok_or(TensorError::AllocationFailed {
        elements: source.len(),
    })?;
    kernels::copy::copy(
        &source.values,
        &[columns, rows],
        &[1, columns],
        0,
        &mut values,
    );
    Tensor::from_vec([columns, rows], values)
}
