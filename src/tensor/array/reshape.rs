//! The zero-copy transforms that change the rank: reshape (strict and
//! PyTorch's `view` rule), split and merge axes, insert, remove and select
//! an axis, and broadcasting a view to a larger shape. The output dimension
//! comes from the shape argument ([`IntoShape`]) or from the rank tables
//! ([`RemoveAxis`], [`InsertAxis`]); a dynamic rank gives a dynamic result.

use super::base::ArrayBase;
use super::storage::Borrowed;
use crate::error::Error;
use crate::tensor::shape::dimension::{Dimension, IntoShape};
use crate::tensor::shape::rank::{InsertAxis, RankAtMost, RemoveAxis};

impl<S: Borrowed, D: Dimension> ArrayBase<S, D> {
    /// Reinterprets a contiguous view with another shape of the same element
    /// count; the new dimension comes from `shape` (`[usize; S]` gives rank
    /// `S`, `&[usize]` a dynamic rank). No copy.
    ///
    /// Shapes: `[n_0, …, n_{R-1}]` -> `shape`, fresh row-major strides,
    /// same base offset. The strict rule: the view must be contiguous
    /// (NumPy's `reshape` without its silent copy). For any layout the
    /// strides can express, use [`reshape_strided`](ArrayBase::reshape_strided)
    /// (PyTorch's `view`).
    ///
    /// # Errors
    /// Checked in this order:
    /// 1. [`Error::ShapeOverflow`] if `shape` overflows;
    /// 2. [`Error::ReshapeElementCountMismatch`] if the counts differ;
    /// 3. [`Error::NonContiguousReshape`] if this view is not contiguous:
    ///    reshape never copies, call `materialize` first.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// let r = owner.view().reshape([3, 2])?;
    /// assert_eq!((r.shape(), r.strides()), (&[3, 2], &[2, 1]));
    /// assert!(owner.view().transpose(0, 1)?.reshape([6]).is_err()); // not contiguous
    /// assert_eq!(owner.view().reshape(&[3, 1, 2])?.strides(), &[2, 2, 1]); // a DynView
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn reshape<E: Dimension>(
        self,
        shape: impl IntoShape<Dim = E>,
    ) -> Result<ArrayBase<S, E>, Error> {
        let layout = self.layout.reshape(shape.into_axes("reshape")?)?;
        Ok(self.with_layout(layout))
    }

    /// Any reshape the strides allow without a copy: PyTorch's `view` rule
    /// (`computeStride` in ATen's `TensorUtils.cpp`). The axes are grouped
    /// into runs whose strides chain (extent-1 axes never break a run); each
    /// run must map to consecutive new axes. GPT-2's Q slice of the packed
    /// `[B, T, 3C]` projection reshapes to `[B, T, H, D]` here, although
    /// `reshape` refuses it.
    ///
    /// # Errors
    /// As for [`reshape`](ArrayBase::reshape) (overflow, then element
    /// count), then [`Error::NonStrideCompatibleReshape`] when the strides
    /// cannot express the shape (e.g. flattening a transposed matrix),
    /// naming the view's run of chained axes that the new axes do not cover
    /// exactly and its element count.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// let q = owner.view().slice(1, 0..2)?; // [2, 2], strides [3, 1]: not contiguous
    /// assert_eq!(q.reshape_strided([2, 2, 1])?.strides(), &[3, 1, 1]);
    /// assert!(owner.view().transpose(0, 1)?.reshape_strided([6]).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn reshape_strided<E: Dimension>(
        self,
        shape: impl IntoShape<Dim = E>,
    ) -> Result<ArrayBase<S, E>, Error> {
        let layout = self
            .layout
            .reshape_strided(shape.into_axes("reshape_strided")?)?;
        Ok(self.with_layout(layout))
    }

    /// One axis becomes two: `[.., n, ..]` -> `[.., a, b, ..]` with
    /// `a * b == n`, strides `[b * s, s]`. Works on every layout (no
    /// contiguity needed), so GPT-2 splits the heads of the Q, K and V
    /// slices of the packed projection, `[B, T, C]` -> `[B, T, H, D]`, with
    /// no copy. ≈ PyTorch `unflatten`. Rank `R + 1`, from the
    /// [`InsertAxis`] table.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`], then [`Error::SplitAxisMismatch`] if
    /// `a * b != n`, then [`Error::ShapeOverflow`] if the result's shape has
    /// no row-major layout (`[0, 2]` split as `[0, usize::MAX, 2]`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// let q = owner.view().slice(1, 0..2)?; // strides [3, 1]
    /// let heads = q.split_axis(1, [2, 1])?; // [2, 2] -> [2, 2, 1]
    /// assert_eq!((heads.shape(), heads.strides()), (&[2, 2, 1], &[3, 1, 1]));
    /// assert!(owner.view().split_axis(1, [2, 2]).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn split_axis<E: Dimension>(
        self,
        axis: usize,
        extents: [usize; 2],
    ) -> Result<ArrayBase<S, E>, Error>
    where
        D: InsertAxis<Larger = E>,
    {
        let layout = self.layout.split_axis(axis, extents)?;
        Ok(self.with_layout(layout))
    }

    /// Axes `axis` and `axis + 1` become one when their strides chain
    /// (`stride[axis] == stride[axis + 1] * shape[axis + 1]`, or either
    /// extent is at most 1, or the view is empty): exactly when
    /// `reshape_strided` to the merged shape succeeds. ≈ PyTorch
    /// `flatten(axis, axis + 1)` without its copy. GPT-2 `merge_heads` after
    /// the permute back: `[B, T, H, D]` -> `[B, T, C]`. Rank `R - 1`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`] naming `axis + 1` when the pair does not
    /// exist, then [`Error::NonMergeableAxes`] with both extents and strides.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// assert_eq!(owner.view().merge_axes(0)?.shape(), &[6]);
    /// assert!(owner.view().transpose(0, 1)?.merge_axes(0).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn merge_axes<E: Dimension>(self, axis: usize) -> Result<ArrayBase<S, E>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        let layout = self.layout.merge_axes(axis)?;
        Ok(self.with_layout(layout))
    }

    /// A new extent-1 axis at position `axis` (`0..=R`). ≈ PyTorch
    /// `unsqueeze`, NumPy `expand_dims`, ndarray `insert_axis`. Rank `R + 1`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`] (with the result's rank) if `axis > R`.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// assert_eq!(owner.view().unsqueeze(1)?.shape(), &[2, 1, 3]);
    /// assert!(owner.view().unsqueeze(3).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn unsqueeze<E: Dimension>(self, axis: usize) -> Result<ArrayBase<S, E>, Error>
    where
        D: InsertAxis<Larger = E>,
    {
        let layout = self.layout.unsqueeze(axis)?;
        Ok(self.with_layout(layout))
    }

    /// Removes an extent-1 axis. ≈ PyTorch `squeeze(axis)`. Rank `R - 1`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`], then [`Error::SqueezeNonUnitAxis`] if the
    /// extent is not 1.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// let row = owner.view().slice(0, 1..2)?; // [1, 3]
    /// assert_eq!(row.squeeze(0)?.shape(), &[3]);
    /// assert!(owner.view().squeeze(0).is_err()); // extent 2
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn squeeze<E: Dimension>(self, axis: usize) -> Result<ArrayBase<S, E>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        let layout = self.layout.squeeze(axis)?;
        Ok(self.with_layout(layout))
    }

    /// Fixes one coordinate: `x[:, index]` keeps every axis but `axis`.
    /// ≈ PyTorch `select`, ndarray `index_axis`. GPT-2: the last position's
    /// hidden state, `[T, C]` -> `[C]` with `select(0, T - 1)`. Rank `R - 1`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`], then [`Error::IndexOutOfBounds`] if
    /// `index` is not below the extent.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::<2>::zeros([2, 3])?;
    /// let column = owner.view().select(1, 2)?; // [2, 3] -> [2]
    /// assert_eq!((column.shape(), column.base_offset(), column.strides()), (&[2], 2, &[3]));
    /// assert!(owner.view().select(1, 3).is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn select<E: Dimension>(self, axis: usize, index: usize) -> Result<ArrayBase<S, E>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        let layout = self.layout.select(axis, index)?;
        Ok(self.with_layout(layout))
    }
}

impl<'a, T, D: Dimension> ArrayBase<&'a [T], D> {
    /// A read-only view of `shape` where every missing or extent-1 axis is
    /// repeated with stride 0 (NumPy's `broadcast_to`, PyTorch's `expand`):
    /// no value is copied. Shapes right-align; the target rank is at least
    /// the view's (a smaller typed rank does not compile). There is no
    /// mutable twin: a stride-0 axis would write one stored value from
    /// several positions.
    ///
    /// GPT-2: a bias `[C]` viewed as `[B, T, C]`; a causal mask `[T, T]` as
    /// `[B, H, T, T]`.
    ///
    /// # Errors
    /// [`Error::BroadcastRankTooSmall`] for a dynamic target of fewer axes;
    /// [`Error::IncompatibleBroadcast`] at the leftmost output axis whose
    /// extent is neither equal nor stretched from 1; then
    /// [`Error::ShapeOverflow`] if the target shape overflows.
    ///
    /// ```
    /// use llm_from_scratch::{tensor::Tensor, Error};
    /// let bias = Tensor::from_vec([3], vec![1.0, 2.0, 3.0])?;
    /// let wide = bias.view().broadcast_to([2, 3])?; // [3] -> [2, 3], strides [0, 1]
    /// assert_eq!(wide.strides(), &[0, 1]);
    /// assert_eq!(wide.iter().copied().collect::<Vec<_>>(), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    /// assert_eq!(
    ///     bias.view().broadcast_to([2, 4]).unwrap_err(),
    ///     Error::IncompatibleBroadcast { op: "broadcast_to", axis: 1, left_dimension: 3, right_dimension: 4 }
    /// );
    /// # Ok::<(), Error>(())
    /// ```
    pub fn broadcast_to<E: Dimension>(
        self,
        shape: impl IntoShape<Dim = E>,
    ) -> Result<ArrayBase<&'a [T], E>, Error>
    where
        D: RankAtMost<E>,
    {
        let layout = self
            .layout
            .broadcast_to(shape.into_axes("broadcast_to")?, "broadcast_to")?;
        Ok(self.with_layout(layout))
    }
}
