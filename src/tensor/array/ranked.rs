//! The transforms of the ranked view types (`View`, `ViewMut`) whose
//! signatures carry the rank: the shape getters, reshape, permute and the
//! operations that add or remove an axis, each output rank computed by the
//! rank tables. One macro, so both types share code and docs (see
//! [`shared`](super::shared) for the macro conventions; `$Ty` is the type).

macro_rules! ranked_transforms {
    ([$($recv:tt)*] $s:ident, $Ty:ident, $setup:expr, $view:expr) => {
        /// The extent of every axis.
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".transpose(0, 1)?.shape(), &[3, 2]);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn shape(&self) -> &[usize; R] {
            &self.layout.shape
        }

        /// The storage step of every axis, in elements.
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".transpose(0, 1)?.strides(), &[1, 3]);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn strides(&self) -> &[usize; R] {
            &self.layout.strides
        }

        /// The number of axes, `R`.
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".rank(), 2);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub const fn rank(&self) -> usize {
            R
        }

        /// The owner's storage offset of the coordinate `index`.
        ///
        /// # Errors
        /// [`TensorError::IndexOutOfBounds`](crate::tensor::TensorError::IndexOutOfBounds)
        /// (as `TensorViewError::Tensor`) naming the first axis whose
        /// coordinate is not below its extent.
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".transpose(0, 1)?.storage_offset([2, 1])?, 5);\nassert!(", $view, ".storage_offset([2, 0]).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn storage_offset(
            &self,
            index: [usize; R],
        ) -> Result<usize, crate::tensor::TensorViewError> {
            Ok(self.layout.offset(&index)?)
        }

        /// Reinterprets a contiguous view with another shape of the same
        /// element count; the new rank `S` comes from the shape array. No copy.
        ///
        /// Shapes: `[n_0, …, n_{R-1}]` -> `shape`, fresh row-major strides,
        /// same base offset. The strict rule: the view must be contiguous
        /// (NumPy's `reshape` without its silent copy). For any layout the
        /// strides can express, use `reshape_strided` (PyTorch's `view`).
        ///
        /// # Errors
        /// Checked in this order:
        /// 1. `TensorError::ShapeOverflow` if `shape` overflows;
        /// 2. `TensorViewError::ReshapeElementCountMismatch` if the counts differ;
        /// 3. `TensorViewError::NonContiguousReshape` if this view is not
        ///    contiguous: reshape never copies, call `materialize` first.
        ///
        #[doc = concat!("```\n", $setup, "\nlet r = ", $view, ".reshape([3, 2])?;\nassert_eq!((r.shape(), r.strides()), (&[3, 2], &[2, 1]));\nlet t = ", $view, ".transpose(0, 1)?;\nassert!(t.reshape([6]).is_err()); // not contiguous\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn reshape<const S: usize>(
            $($recv)* $s,
            shape: [usize; S],
        ) -> Result<$Ty<'a, S, T>, crate::tensor::TensorViewError> {
            let layout = $s.layout.reshape(shape)?;
            Ok($Ty { data: $s.data, layout })
        }

        /// Any reshape the strides allow without a copy: PyTorch's `view`
        /// rule (`computeStride` in ATen's `TensorUtils.cpp`). The axes are
        /// grouped into runs whose strides chain (extent-1 axes never break a
        /// run); each run must map to consecutive new axes. GPT-2's Q slice of
        /// the packed `[B, T, 3C]` projection reshapes to `[B, T, H, D]` here,
        /// although `reshape` refuses it.
        ///
        /// # Errors
        /// As for `reshape` (overflow, then element count), then
        /// `TensorViewError::NonStrideCompatibleReshape` when the strides
        /// cannot express the shape (e.g. flattening a transposed matrix),
        /// naming the view's run of chained axes that the new axes do not
        /// cover exactly and its element count.
        ///
        #[doc = concat!("```\n", $setup, "\nlet q = ", $view, ".slice(1, 0..2)?; // [2, 2], strides [3, 1]: not contiguous\nassert_eq!(q.reshape_strided([2, 2, 1])?.strides(), &[3, 1, 1]);\nassert!(", $view, ".transpose(0, 1)?.reshape_strided([6]).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn reshape_strided<const S: usize>(
            $($recv)* $s,
            shape: [usize; S],
        ) -> Result<$Ty<'a, S, T>, crate::tensor::TensorViewError> {
            let layout = $s.layout.reshape_strided(shape)?;
            Ok($Ty { data: $s.data, layout })
        }

        /// Reorders axes: output axis `k` is source axis `axes[k]`; rank
        /// stays `R`. No copy. ≈ PyTorch `permute`, NumPy `transpose(axes)`.
        /// GPT-2 `split_heads`: `[B, T, H, D]` -> `[B, H, T, D]` with
        /// `permute([0, 2, 1, 3])`. A list of the wrong length does not compile.
        ///
        /// # Errors
        /// Scanning left to right, the first of `TensorViewError::AxisOutOfBounds`
        /// and `TensorViewError::DuplicateAxis`.
        ///
        #[doc = concat!("```\n", $setup, "\nlet p = ", $view, ".permute([1, 0])?;\nassert_eq!(p.strides(), &[1, 3]);\nassert!(", $view, ".permute([0, 0]).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn permute(
            $($recv)* $s,
            axes: [usize; R],
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.permute(&axes)?;
            Ok(Self { data: $s.data, layout })
        }

        /// One axis becomes two: `[.., n, ..]` -> `[.., a, b, ..]` with
        /// `a * b == n`, strides `[b * s, s]`. Works on every layout (no
        /// contiguity needed), so GPT-2 splits the heads of the Q, K and V
        /// slices of the packed projection, `[B, T, C]` -> `[B, T, H, D]`,
        /// with no copy. ≈ PyTorch `unflatten`. Rank `R + 1`, from the
        /// [`InsertAxis`](crate::tensor::InsertAxis) table.
        ///
        /// # Errors
        /// `TensorViewError::AxisOutOfBounds`, then
        /// `TensorViewError::SplitAxisMismatch` if `a * b != n`.
        ///
        #[doc = concat!("```\n", $setup, "\nlet q = ", $view, ".slice(1, 0..2)?; // strides [3, 1]\nlet heads = q.split_axis(1, [2, 1])?; // [2, 2] -> [2, 2, 1]\nassert_eq!((heads.shape(), heads.strides()), (&[2, 2, 1], &[3, 1, 1]));\nassert!(", $view, ".split_axis(1, [2, 2]).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn split_axis<const S: usize>(
            $($recv)* $s,
            axis: usize,
            extents: [usize; 2],
        ) -> Result<$Ty<'a, S, T>, crate::tensor::TensorViewError>
        where
            crate::tensor::Rank<R>: crate::tensor::InsertAxis<Larger = crate::tensor::Rank<S>>,
        {
            let layout = $s.layout.split_axis(axis, extents)?;
            Ok($Ty { data: $s.data, layout })
        }

        /// Axes `axis` and `axis + 1` become one when their strides chain
        /// (`stride[axis] == stride[axis + 1] * shape[axis + 1]`, or either
        /// extent is at most 1, or the view is empty): exactly when
        /// `reshape_strided` to the merged shape succeeds. ≈ PyTorch
        /// `flatten(axis, axis + 1)` without its copy. GPT-2 `merge_heads` after the permute back:
        /// `[B, T, H, D]` -> `[B, T, C]`. Rank `R - 1`.
        ///
        /// # Errors
        /// `TensorViewError::AxisOutOfBounds` naming `axis + 1` when the pair
        /// does not exist, then `TensorViewError::NonMergeableAxes` with both
        /// extents and strides.
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".merge_axes(0)?.shape(), &[6]);\nassert!(", $view, ".transpose(0, 1)?.merge_axes(0).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn merge_axes<const S: usize>(
            $($recv)* $s,
            axis: usize,
        ) -> Result<$Ty<'a, S, T>, crate::tensor::TensorViewError>
        where
            crate::tensor::Rank<R>: crate::tensor::RemoveAxis<Smaller = crate::tensor::Rank<S>>,
        {
            let layout = $s.layout.merge_axes(axis)?;
            Ok($Ty { data: $s.data, layout })
        }

        /// A new extent-1 axis at position `axis` (`0..=R`). ≈ PyTorch
        /// `unsqueeze`, NumPy `expand_dims`, ndarray `insert_axis`. Rank `R + 1`.
        ///
        /// # Errors
        /// `TensorViewError::AxisOutOfBounds` (with the result's rank) if `axis > R`.
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".unsqueeze(1)?.shape(), &[2, 1, 3]);\nassert!(", $view, ".unsqueeze(3).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn unsqueeze<const S: usize>(
            $($recv)* $s,
            axis: usize,
        ) -> Result<$Ty<'a, S, T>, crate::tensor::TensorViewError>
        where
            crate::tensor::Rank<R>: crate::tensor::InsertAxis<Larger = crate::tensor::Rank<S>>,
        {
            let layout = $s.layout.unsqueeze(axis)?;
            Ok($Ty { data: $s.data, layout })
        }

        /// Removes an extent-1 axis. ≈ PyTorch `squeeze(axis)`. Rank `R - 1`.
        ///
        /// # Errors
        /// `TensorViewError::AxisOutOfBounds`, then
        /// `TensorViewError::SqueezeNonUnitAxis` if the extent is not 1.
        ///
        #[doc = concat!("```\n", $setup, "\nlet row = ", $view, ".slice(0, 1..2)?; // [1, 3]\nassert_eq!(row.squeeze(0)?.shape(), &[3]);\nassert!(", $view, ".squeeze(0).is_err()); // extent 2\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn squeeze<const S: usize>(
            $($recv)* $s,
            axis: usize,
        ) -> Result<$Ty<'a, S, T>, crate::tensor::TensorViewError>
        where
            crate::tensor::Rank<R>: crate::tensor::RemoveAxis<Smaller = crate::tensor::Rank<S>>,
        {
            let layout = $s.layout.squeeze(axis)?;
            Ok($Ty { data: $s.data, layout })
        }

        /// Fixes one coordinate: `x[:, index]` keeps every axis but `axis`.
        /// ≈ PyTorch `select`, ndarray `index_axis`. GPT-2: the last
        /// position's hidden state, `[T, C]` -> `[C]` with `select(0, T - 1)`.
        /// Rank `R - 1`.
        ///
        /// # Errors
        /// `TensorViewError::AxisOutOfBounds`, then `TensorError::IndexOutOfBounds`
        /// (as `TensorViewError::Tensor`) if `index` is not below the extent.
        ///
        #[doc = concat!("```\n", $setup, "\nlet column = ", $view, ".select(1, 2)?; // [2, 3] -> [2]\nassert_eq!((column.shape(), column.base_offset(), column.strides()), (&[2], 2, &[3]));\nassert!(", $view, ".select(1, 3).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn select<const S: usize>(
            $($recv)* $s,
            axis: usize,
            index: usize,
        ) -> Result<$Ty<'a, S, T>, crate::tensor::TensorViewError>
        where
            crate::tensor::Rank<R>: crate::tensor::RemoveAxis<Smaller = crate::tensor::Rank<S>>,
        {
            let layout = $s.layout.select(axis, index)?;
            Ok($Ty { data: $s.data, layout })
        }
    };
}
pub(crate) use ranked_transforms;
