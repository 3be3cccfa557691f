//! `Tensor<R, T>`: the owner of contiguous row-major values, and the
//! owner-building steps it shares with `DynTensor`.

use crate::tensor::error::TensorError;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::Layout;
use crate::tensor::traverse::alloc::{try_buffer, try_filled};
use crate::tensor::traverse::plan::next_index;

/// An owned, row-major contiguous tensor of rank `R` (shape `[usize; R]`).
///
/// The only type that owns values. [`Tensor::view`] borrows it as a
/// [`View`](crate::tensor::View); every view transform borrows the same
/// storage, and only `materialize` creates a new owner. Rank is part of the
/// type: a `Tensor<3>` is `[B, T, C]`, never a matrix.
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
#[derive(Clone, PartialEq)]
pub struct Tensor<const R: usize, T = f64> {
    pub(crate) layout: Layout<[usize; R]>,
    pub(crate) values: Vec<T>,
}

/// The row-major layout of `shape` holding exactly `values`.
pub(crate) fn layout_of<D: Dims>(shape: D, values: usize) -> Result<Layout<D>, TensorError> {
    let layout = Layout::row_major(shape)?;
    if values != layout.len {
        return Err(TensorError::ElementCountMismatch {
            expected: layout.len,
            actual: values,
        });
    }
    Ok(layout)
}

/// A row-major layout of `shape` with every value `value`.
pub(crate) fn filled<D: Dims, T: Clone>(
    shape: D,
    value: T,
) -> Result<(Layout<D>, Vec<T>), TensorError> {
    let layout = Layout::row_major(shape)?;
    let values = try_filled(layout.len, value).map_err(|failed| TensorError::AllocationFailed {
        elements: failed.elements,
    })?;
    Ok((layout, values))
}

/// A row-major layout of `shape` with `f(index)` at each index, called in row-major order.
pub(crate) fn generated<D: Dims, T>(
    shape: D,
    mut f: impl FnMut(&D) -> T,
) -> Result<(Layout<D>, Vec<T>), TensorError> {
    let layout = Layout::row_major(shape)?;
    let mut values = try_buffer(layout.len).map_err(|failed| TensorError::AllocationFailed {
        elements: failed.elements,
    })?;
    if layout.len != 0 {
        let mut index = D::zeros(layout.rank());
        loop {
            values.push(f(&index));
            if !next_index(layout.shape(), index.as_mut_slice()) {
                break;
            }
        }
    }
    Ok((layout, values))
}

impl<const R: usize, T> Tensor<R, T> {
    /// Takes ownership of `values` laid out row-major in `shape`.
    ///
    /// # Errors
    /// - [`TensorError::ShapeOverflow`] if the element count or a stride of
    ///   `shape` overflows `usize` (checked even behind a zero extent);
    /// - [`TensorError::ElementCountMismatch`] if `values.len()` is not the
    ///   shape's element count (1 for `R = 0`, 0 for any zero extent).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Tensor, TensorError};
    /// let t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(t.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(
    ///     Tensor::from_vec([2, 3], vec![1.0]).unwrap_err(),
    ///     TensorError::ElementCountMismatch { expected: 6, actual: 1 }
    /// );
    /// # Ok::<(), TensorError>(())
    /// ```
    pub fn from_vec(shape: [usize; R], values: Vec<T>) -> Result<Self, TensorError> {
        let layout = layout_of(shape, values.len())?;
        Ok(Self { layout, values })
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
        let (layout, values) = generated(shape, |index| f(*index))?;
        Ok(Self { layout, values })
    }

    /// The extent of every axis.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// assert_eq!(Tensor::<3>::zeros([2, 1, 3])?.shape(), &[2, 1, 3]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shape(&self) -> &[usize; R] {
        &self.layout.shape
    }

    /// Row-major strides in elements (suffix products of the shape).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// assert_eq!(Tensor::<3>::zeros([2, 1, 3])?.strides(), &[3, 3, 1]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn strides(&self) -> &[usize; R] {
        &self.layout.strides
    }

    /// The number of axes, `R`.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// assert_eq!(Tensor::<3>::zeros([2, 1, 3])?.rank(), 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub const fn rank(&self) -> usize {
        R
    }

    /// The value at `index`.
    ///
    /// # Errors
    /// [`TensorError::IndexOutOfBounds`] naming the first axis whose
    /// coordinate is not below its extent.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Tensor, TensorError};
    /// let t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(t.get([1, 0])?, &3.0);
    /// assert_eq!(t.get([0, 2]), Err(TensorError::IndexOutOfBounds { axis: 1, index: 2, dimension: 2 }));
    /// # Ok::<(), TensorError>(())
    /// ```
    pub fn get(&self, index: [usize; R]) -> Result<&T, TensorError> {
        Ok(&self.values[self.layout.offset(&index)?])
    }

    /// The value at `index`, mutably.
    ///
    /// # Errors
    /// [`TensorError::IndexOutOfBounds`] as for [`Tensor::get`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::from_vec([2], vec![1.0, 2.0])?;
    /// *t.get_mut([1])? = 5.0;
    /// assert_eq!(t.as_slice(), &[1.0, 5.0]);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    pub fn get_mut(&mut self, index: [usize; R]) -> Result<&mut T, TensorError> {
        let offset = self.layout.offset(&index)?;
        Ok(&mut self.values[offset])
    }

    /// Gives the same values another shape of the same element count; the
    /// new rank `S` comes from the shape array. No copy, no allocation: the
    /// storage moves into the result.
    ///
    /// Shapes: `[n_0, …, n_{R-1}]` -> `shape` with `Π n = Π shape`. ≈ PyTorch
    /// `reshape` on a contiguous tensor, ndarray `into_shape`.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`] if `shape` overflows, then
    /// [`TensorError::ElementCountMismatch`] if the counts differ (the
    /// tensor is dropped; reshape a view with [`View::reshape`](crate::tensor::View::reshape)
    /// to keep it on failure).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let x = Tensor::from_vec([2, 6], (0..12).map(f64::from).collect())?;
    /// let heads = x.into_shape([2, 3, 2])?; // [T, C] -> [T, H, D]
    /// assert_eq!(heads.get([1, 2, 1])?, &11.0);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    pub fn into_shape<const S: usize>(
        self,
        shape: [usize; S],
    ) -> Result<Tensor<S, T>, TensorError> {
        Tensor::from_vec(shape, self.values)
    }
}

impl<const R: usize, T: Clone> Tensor<R, T> {
    /// A tensor of `shape` with every value `value`.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`] for an overflowing shape;
    /// [`TensorError::AllocationFailed`] if the storage cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mask = Tensor::full([2, 2], f64::NEG_INFINITY)?;
    /// assert!(mask.as_slice().iter().all(|&x| x == f64::NEG_INFINITY));
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    pub fn full(shape: [usize; R], value: T) -> Result<Self, TensorError> {
        let (layout, values) = filled(shape, value)?;
        Ok(Self { layout, values })
    }

    /// A tensor of `shape` filled with `T::default()` (0 for numbers).
    ///
    /// # Errors
    /// As for [`Tensor::full`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let z: Tensor<2, f32> = Tensor::zeros([2, 3])?;
    /// assert_eq!((z.shape(), z.as_slice()), (&[2, 3], &[0.0_f32; 6][..]));
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    pub fn zeros(shape: [usize; R]) -> Result<Self, TensorError>
    where
        T: Default,
    {
        Self::full(shape, T::default())
    }
}

/// Methods every owner has with one signature, ranked or dynamic: written once.
macro_rules! owner_common {
    () => {
        /// The number of values (1 for a scalar, 0 for any zero extent).
        ///
        /// ```
        /// use llm_from_scratch::tensor::Tensor;
        /// assert_eq!(Tensor::<2>::zeros([2, 3])?.len(), 6);
        /// assert_eq!(Tensor::<0>::zeros([])?.len(), 1); // a scalar
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn len(&self) -> usize {
            self.values.len()
        }

        /// Whether the tensor holds no values.
        ///
        /// ```
        /// use llm_from_scratch::tensor::Tensor;
        /// assert!(Tensor::<2>::zeros([2, 0])?.is_empty());
        /// assert!(!Tensor::<2>::zeros([2, 3])?.is_empty());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn is_empty(&self) -> bool {
            self.values.is_empty()
        }

        /// The values in row-major order.
        ///
        /// ```
        /// use llm_from_scratch::tensor::Tensor;
        /// let t = Tensor::from_fn([2, 2], |[i, j]| (10 * i + j) as f64)?;
        /// assert_eq!(t.as_slice(), &[0.0, 1.0, 10.0, 11.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn as_slice(&self) -> &[T] {
            &self.values
        }

        /// The values in row-major order, mutably (the shape stays fixed).
        ///
        /// ```
        /// use llm_from_scratch::tensor::Tensor;
        /// let mut t = Tensor::<2>::zeros([2, 2])?;
        /// t.as_mut_slice()[2] = 5.0;
        /// assert_eq!(t.get([1, 0])?, &5.0);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn as_mut_slice(&mut self) -> &mut [T] {
            &mut self.values
        }

        /// Gives the values back in row-major order (no copy).
        ///
        /// ```
        /// use llm_from_scratch::tensor::Tensor;
        /// let t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
        /// assert_eq!(t.into_vec(), vec![1.0, 2.0, 3.0, 4.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn into_vec(self) -> Vec<T> {
            self.values
        }
    };
}
pub(crate) use owner_common;

impl<const R: usize, T> Tensor<R, T> {
    owner_common!();
}
