//! `materialize`: the one copy, from any layout into a new row-major owner
//! (or a caller's owner with `materialize_into`), and `copying_transpose`.

use super::base::{ArrayBase, Tensor};
use super::storage::{Cells, Readable};
use crate::error::Error;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::layout::Layout;
use crate::tensor::traverse::alloc::{AllocationFailed, try_buffer};
use crate::tensor::traverse::cells;
use crate::tensor::traverse::copy::{copy_fresh, copy_into};

/// A new row-major owner of `layout`'s shape and the values `make` returns
/// (exactly `layout.len`, in a buffer reserved with `try_reserve`).
fn fresh_owner<D: Dimension, T>(
    layout: &Layout<D::Axes>,
    make: impl FnOnce() -> Result<Vec<T>, AllocationFailed>,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    // An empty view whose shape has no row-major layout (the transpose of
    // `[usize::MAX / 2, 3, 0]`) cannot have an owner: `ShapeOverflow`.
    let fresh = Layout::row_major(layout.shape, "materialize")?;
    let values = make().map_err(|failed| Error::AllocationFailed {
        op: "materialize",
        elements: failed.elements,
    })?;
    Ok(ArrayBase {
        data: values,
        layout: fresh,
    })
}

impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Copy + Send + Sync,
{
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
    /// [`Error::AllocationFailed`] if the output cannot be reserved;
    /// [`Error::ShapeOverflow`] for an empty view whose shape has no
    /// row-major layout (the transpose of `[usize::MAX / 2, 3, 0]`), since
    /// no owner of that shape can exist.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let s = owner.view().slice(1, 1..3)?; // offsets [1, 2, 4, 5]: not contiguous
    /// assert!(!s.is_contiguous());
    /// let m = s.materialize()?;
    /// assert_eq!(m.as_slice(), &[11.0, 12.0, 21.0, 22.0]);
    /// assert!(m.view().reshape([4]).is_ok());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn materialize(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        let (data, layout) = (self.data.values(), &self.layout);
        fresh_owner(layout, || {
            copy_fresh(data, layout.shape(), layout.strides(), layout.base_offset)
        })
    }

    /// Copies the logical values into `out`, reusing its storage.
    ///
    /// # Errors
    /// [`Error::OutputShapeMismatch`] if `out` has another shape.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let k = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let mut kt = Tensor::zeros([3, 2])?; // reused across calls in a hot loop
    /// k.view().transpose(0, 1)?.materialize_into(&mut kt)?;
    /// assert_eq!(kt.as_slice(), &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn materialize_into(&self, out: &mut ArrayBase<Vec<S::Elem>, D>) -> Result<(), Error> {
        if out.layout.shape() != self.layout.shape() {
            return Err(Error::OutputShapeMismatch {
                op: "materialize_into",
                expected: self.layout.shape().to_vec(),
                actual: out.layout.shape().to_vec(),
            });
        }
        copy_into(
            self.data.values(),
            self.layout.shape(),
            self.layout.strides(),
            self.layout.base_offset,
            &mut out.data,
        );
        Ok(())
    }
}

impl<T: Copy, D: Dimension> ArrayBase<Cells<'_, T>, D> {
    /// Copies the values of a piece into a new row-major owner.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] if the output cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let (_, right) = t.view_mut().split_at(1, 1)?;
    /// let copy = right.transpose(0, 1)?.materialize()?;
    /// assert_eq!((copy.shape(), copy.as_slice()), (&[2, 2], &[11.0, 21.0, 12.0, 22.0][..]));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn materialize(&self) -> Result<ArrayBase<Vec<T>, D>, Error> {
        let layout = &self.layout;
        fresh_owner(layout, || {
            let mut values = try_buffer(layout.len)?;
            cells::read(
                self.data.0,
                (layout.shape(), layout.strides(), layout.base_offset),
                &mut values,
            );
            Ok(values)
        })
    }
}

/// Builds the transpose of a matrix by allocating and copying every value:
/// the eager counterpart of the borrowed `transpose`.
///
/// Shapes: `[rows, columns]` -> `[columns, rows]`. Ranks other than 2 do
/// not compile. Equivalent to NumPy `a.T.copy()`, PyTorch `a.t().contiguous()`.
///
/// # Errors
/// [`Error::AllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::tensor::{copying_transpose, Tensor};
/// let k = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// let kt = copying_transpose(&k)?;
/// assert_eq!(kt.shape(), &[3, 2]);
/// assert_eq!(kt.as_slice(), &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn copying_transpose<T: Copy + Send + Sync>(
    source: &Tensor<2, T>,
) -> Result<Tensor<2, T>, Error> {
    source.view().transpose_axes::<0, 1>().materialize()
}
