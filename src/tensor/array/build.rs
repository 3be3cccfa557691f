//! Building owners: from a `Vec`, from a function of the coordinates, filled
//! with one value; and giving an owner's values another shape.

use super::base::ArrayBase;
use crate::error::Error;
use crate::tensor::shape::dimension::{Dimension, IntoShape};
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::Layout;
use crate::tensor::traverse::alloc::{try_buffer, try_filled};
use crate::tensor::traverse::plan::next_index;

/// The row-major layout of `shape` holding exactly `values` values.
fn layout_of<A: Dims>(shape: A, values: usize, op: &'static str) -> Result<Layout<A>, Error> {
    let layout = Layout::row_major(shape, op)?;
    if values != layout.len {
        return Err(Error::ElementCountMismatch {
            op,
            expected: layout.len,
            actual: values,
        });
    }
    Ok(layout)
}

impl<T, D: Dimension> ArrayBase<Vec<T>, D> {
    /// Takes ownership of `values` laid out row-major in `shape`
    /// (`[usize; R]`, or `Vec<usize>` / `&[usize]` for a dynamic rank).
    ///
    /// # Errors
    /// - [`Error::ShapeOverflow`] if the element count or a stride of
    ///   `shape` overflows `usize` (checked even behind a zero extent);
    /// - [`Error::ElementCountMismatch`] if `values.len()` is not the
    ///   shape's element count (1 for rank 0, 0 for any zero extent).
    ///
    /// ```
    /// use llm_from_scratch::{tensor::{DynTensor, Tensor}, Error};
    /// let t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(t.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
    /// assert_eq!(
    ///     Tensor::from_vec([2, 3], vec![1.0]).unwrap_err(),
    ///     Error::ElementCountMismatch { op: "from_vec", expected: 6, actual: 1 }
    /// );
    /// let d = DynTensor::from_vec(vec![2, 1, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!((d.rank(), d.strides()), (3, &[2, 2, 1][..]));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn from_vec(shape: impl IntoShape<Dim = D>, values: Vec<T>) -> Result<Self, Error> {
        let layout = layout_of(shape.into_axes("from_vec")?, values.len(), "from_vec")?;
        Ok(Self {
            data: values,
            layout,
        })
    }

    /// Builds an owner by calling `f` once per coordinate, in row-major
    /// order. The coordinate is `[usize; R]` for a typed rank (so the
    /// closure can destructure it, `|[i, j]| ..`) and `&[usize]` for a
    /// dynamic one.
    ///
    /// # Errors
    /// [`Error::ShapeOverflow`] for an overflowing shape;
    /// [`Error::AllocationFailed`] if the storage cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, Tensor};
    /// let t: Tensor<2, usize> = Tensor::from_fn([2, 3], |[r, c]| 10 * r + c)?;
    /// assert_eq!(t.as_slice(), &[0, 1, 2, 10, 11, 12]);
    /// let d = DynTensor::from_fn(vec![2, 2], |index| (10 * index[0] + index[1]) as f64)?;
    /// assert_eq!(d.as_slice(), &[0.0, 1.0, 10.0, 11.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn from_fn(
        shape: impl IntoShape<Dim = D>,
        mut f: impl FnMut(D::Index<'_>) -> T,
    ) -> Result<Self, Error> {
        let layout = Layout::row_major(shape.into_axes("from_fn")?, "from_fn")?;
        let mut values = try_buffer(layout.len).map_err(|failed| Error::AllocationFailed {
            op: "from_fn",
            elements: failed.elements,
        })?;
        if layout.len != 0 {
            let mut index = D::Axes::zeros(layout.rank());
            loop {
                values.push(f(D::index_of(&index)));
                if !next_index(layout.shape(), index.as_mut_slice()) {
                    break;
                }
            }
        }
        Ok(Self {
            data: values,
            layout,
        })
    }

    /// Gives the values another shape of the same element count, of any
    /// dimension (the new rank comes from `shape`). No copy, no allocation:
    /// the storage moves into the result.
    ///
    /// Shapes: `[n_0, …, n_{R-1}]` -> `shape` with `Π n = Π shape`. ≈ PyTorch
    /// `reshape` on a contiguous tensor, ndarray `into_shape`.
    ///
    /// # Errors
    /// [`Error::ShapeOverflow`] if `shape` overflows, then
    /// [`Error::ElementCountMismatch`] if the counts differ (the owner is
    /// dropped; reshape a view to keep it on failure).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let x = Tensor::from_vec([2, 6], (0..12).map(f64::from).collect())?;
    /// let heads = x.into_shape([2, 3, 2])?; // [T, C] -> [T, H, D]
    /// assert_eq!(heads.get([1, 2, 1])?, &11.0);
    /// let flat = heads.into_shape(vec![12])?; // a DynTensor
    /// assert_eq!(flat.shape(), &[12]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn into_shape<E: Dimension>(
        self,
        shape: impl IntoShape<Dim = E>,
    ) -> Result<ArrayBase<Vec<T>, E>, Error> {
        let layout = layout_of(
            shape.into_axes("into_shape")?,
            self.data.len(),
            "into_shape",
        )?;
        Ok(ArrayBase {
            data: self.data,
            layout,
        })
    }
}

impl<T: Clone, D: Dimension> ArrayBase<Vec<T>, D> {
    /// An owner of `shape` with every value `value`.
    ///
    /// # Errors
    /// [`Error::ShapeOverflow`] for an overflowing shape;
    /// [`Error::AllocationFailed`] if the storage cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, Tensor};
    /// let mask = Tensor::full([2, 2], f64::NEG_INFINITY)?;
    /// assert!(mask.as_slice().iter().all(|&x| x == f64::NEG_INFINITY));
    /// assert_eq!(DynTensor::full(vec![2, 2], 7.0)?.as_slice(), &[7.0; 4]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn full(shape: impl IntoShape<Dim = D>, value: T) -> Result<Self, Error> {
        Self::filled(shape.into_axes("full")?, value, "full")
    }

    /// An owner of `shape` filled with `T::default()` (0 for numbers).
    ///
    /// # Errors
    /// As for [`full`](ArrayBase::full).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, Tensor};
    /// let z: Tensor<2, f32> = Tensor::zeros([2, 3])?;
    /// assert_eq!((z.shape(), z.as_slice()), (&[2, 3], &[0.0_f32; 6][..]));
    /// let d = DynTensor::<f64>::zeros(vec![2, 1, 2])?;
    /// assert_eq!(d.as_slice(), &[0.0; 4]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn zeros(shape: impl IntoShape<Dim = D>) -> Result<Self, Error>
    where
        T: Default,
    {
        Self::filled(shape.into_axes("zeros")?, T::default(), "zeros")
    }

    fn filled(shape: D::Axes, value: T, op: &'static str) -> Result<Self, Error> {
        let layout = Layout::row_major(shape, op)?;
        let values = try_filled(layout.len, value).map_err(|failed| Error::AllocationFailed {
            op,
            elements: failed.elements,
        })?;
        Ok(Self {
            data: values,
            layout,
        })
    }
}
