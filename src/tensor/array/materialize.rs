//! `materialize`: the one copy, from any view layout into a new
//! row-major owner (or a caller's owner with `materialize_into`).

use super::owned::Tensor;
use super::view::View;
use crate::tensor::error::{TensorError, TensorViewError};
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::Layout;
use crate::tensor::traverse::alloc::AllocationFailed;
use crate::tensor::traverse::copy::{copy_fresh, copy_into};

/// A new row-major owner of `layout`'s shape and the values `make` returns
/// (exactly `layout.len`, in a buffer reserved with `try_reserve`).
pub(crate) fn fresh_owner<D: Dims, T>(
    layout: &Layout<D>,
    make: impl FnOnce() -> Result<Vec<T>, AllocationFailed>,
) -> Result<(Layout<D>, Vec<T>), TensorViewError> {
    // An empty view whose shape has no row-major layout (the transpose of
    // `[usize::MAX / 2, 3, 0]`) cannot have an owner: `ShapeOverflow`.
    let fresh = Layout::row_major(layout.shape.clone())?;
    let values = make().map_err(|failed| TensorError::AllocationFailed {
        elements: failed.elements,
    })?;
    Ok((fresh, values))
}

/// The values of a checked layout over `data`, copied row-major into a new buffer.
pub(crate) fn materialized<D: Dims, T: Copy + Send + Sync>(
    data: &[T],
    layout: &Layout<D>,
) -> Result<(Layout<D>, Vec<T>), TensorViewError> {
    fresh_owner(layout, || {
        copy_fresh(data, layout.shape(), layout.strides(), layout.base_offset)
    })
}

/// Copies a checked layout over `data` into `out`, an owner of shape `out_shape`.
pub(crate) fn materialized_into<D: Dims, T: Copy + Send + Sync>(
    data: &[T],
    layout: &Layout<D>,
    out_shape: &[usize],
    out: &mut [T],
) -> Result<(), TensorViewError> {
    if out_shape != layout.shape() {
        return Err(TensorViewError::OutputShapeMismatch {
            expected: layout.shape().to_vec(),
            actual: out_shape.to_vec(),
        });
    }
    copy_into(
        data,
        layout.shape(),
        layout.strides(),
        layout.base_offset,
        out,
    );
    Ok(())
}

impl<const R: usize, T: Copy + Send + Sync> View<'_, R, T> {
    /// Copies the logical values into a new contiguous owner: the only copy.
    ///
    /// Shapes: same shape, fresh row-major strides. ≈ PyTorch `.contiguous()`
    /// (which we call explicitly, always), NumPy `ascontiguousarray`. An
    /// empty view allocates nothing. A large copy (about 1 MiB moved or
    /// more) is split into contiguous blocks of the output over rayon's
    /// threads (`RAYON_NUM_THREADS`), hence `Send + Sync` (every number
    /// type is); the values are the same on any number of threads.
    ///
    /// # Errors
    /// [`TensorError::AllocationFailed`] (as `TensorViewError::Tensor`) if the
    /// output cannot be reserved; [`TensorError::ShapeOverflow`] for an empty
    /// view whose shape has no row-major layout (the transpose of
    /// `[usize::MAX / 2, 3, 0]`), since no owner of that shape can exist.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let s = owner.view().slice(1, 1..3)?; // offsets [1, 2, 4, 5]: not contiguous
    /// assert!(!s.is_contiguous());
    /// let m = s.materialize()?;
    /// assert_eq!(m.as_slice(), &[11.0, 12.0, 21.0, 22.0]);
    /// assert!(m.view().reshape([4]).is_ok());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn materialize(&self) -> Result<Tensor<R, T>, TensorViewError> {
        let (layout, values) = materialized(self.data, &self.layout)?;
        Ok(Tensor { layout, values })
    }

    /// Copies the logical values into `out`, reusing its storage.
    ///
    /// # Errors
    /// [`TensorViewError::OutputShapeMismatch`] if `out` has another shape.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let k = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let mut kt = Tensor::zeros([3, 2])?; // reused across calls in a hot loop
    /// k.view().transpose(0, 1)?.materialize_into(&mut kt)?;
    /// assert_eq!(kt.as_slice(), &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn materialize_into(&self, out: &mut Tensor<R, T>) -> Result<(), TensorViewError> {
        let out_shape = out.layout.shape;
        materialized_into(self.data, &self.layout, &out_shape, &mut out.values)
    }
}

/// Builds the transpose of a matrix by allocating and copying every value:
/// the eager counterpart of the borrowed [`View::transpose`].
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
pub fn copying_transpose<T: Copy + Send + Sync>(
    source: &Tensor<2, T>,
) -> Result<Tensor<2, T>, TensorError> {
    let transposed = source.view().transpose_axes::<0, 1>();
    transposed.materialize().map_err(|error| match error {
        TensorViewError::Tensor(inner) => inner,
        // A transposed owner always has a row-major layout; only allocation can fail.
        _ => TensorError::AllocationFailed {
            elements: source.len(),
        },
    })
}
