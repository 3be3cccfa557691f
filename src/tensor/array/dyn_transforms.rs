//! The transforms of the dynamic view types (`DynView`, `DynViewMut`)
//! with run-time axis lists and ranks: the same layout code as the ranked
//! ones, with `&[usize]` arguments. One macro for both types (see
//! [`shared`](super::shared) for the conventions).

macro_rules! dynamic_transforms {
    ([$($recv:tt)*] $s:ident, $setup:expr, $view:expr) => {
        /// The owner's storage offset of `index`.
        ///
        /// # Errors
        /// `TensorError::RankMismatch` for an index of the wrong length;
        /// `TensorError::IndexOutOfBounds` for the first axis out of range
        /// (both as `TensorViewError::Tensor`).
        pub fn storage_offset(
            &self,
            index: &[usize],
        ) -> Result<usize, crate::tensor::TensorViewError> {
            Ok(self.layout.offset(index)?)
        }

        /// Reinterprets a contiguous view with another shape (any rank); see
        /// [`View::reshape`](crate::tensor::View::reshape).
        ///
        /// # Errors
        /// `ShapeOverflow`, then `ReshapeElementCountMismatch`, then `NonContiguousReshape`.
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".reshape(&[3, 1, 2])?.strides(), &[2, 2, 1]);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn reshape(
            $($recv)* $s,
            shape: &[usize],
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.reshape(crate::tensor::shape::dims::DynDims::from_slice(shape))?;
            Ok(Self { data: $s.data, layout })
        }

        /// Any reshape the strides allow (PyTorch's `view` rule); see
        /// [`View::reshape_strided`](crate::tensor::View::reshape_strided).
        ///
        /// # Errors
        /// `ShapeOverflow`, `ReshapeElementCountMismatch`, then `NonStrideCompatibleReshape`.
        pub fn reshape_strided(
            $($recv)* $s,
            shape: &[usize],
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.reshape_strided(crate::tensor::shape::dims::DynDims::from_slice(shape))?;
            Ok(Self { data: $s.data, layout })
        }

        /// Reorders axes; see [`View::permute`](crate::tensor::View::permute).
        ///
        /// # Errors
        /// `TensorViewError::PermutationLengthMismatch` if `axes.len()` is not
        /// the rank; then, scanning left to right, `AxisOutOfBounds` or `DuplicateAxis`.
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".permute(&[1, 0])?.strides(), &[1, 3]);\nassert!(", $view, ".permute(&[1, 0, 2]).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn permute(
            $($recv)* $s,
            axes: &[usize],
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.permute(axes)?;
            Ok(Self { data: $s.data, layout })
        }

        /// One axis becomes two (rank + 1); see [`View::split_axis`](crate::tensor::View::split_axis).
        ///
        /// # Errors
        /// `AxisOutOfBounds`, then `SplitAxisMismatch`.
        pub fn split_axis(
            $($recv)* $s,
            axis: usize,
            extents: [usize; 2],
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.split_axis(axis, extents)?;
            Ok(Self { data: $s.data, layout })
        }

        /// Two chained axes become one (rank - 1); see [`View::merge_axes`](crate::tensor::View::merge_axes).
        ///
        /// # Errors
        /// `AxisOutOfBounds` (naming `axis + 1`), then `NonMergeableAxes`.
        pub fn merge_axes(
            $($recv)* $s,
            axis: usize,
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.merge_axes(axis)?;
            Ok(Self { data: $s.data, layout })
        }

        /// A new extent-1 axis (rank + 1); see [`View::unsqueeze`](crate::tensor::View::unsqueeze).
        ///
        /// # Errors
        /// `AxisOutOfBounds` if `axis > rank`.
        pub fn unsqueeze(
            $($recv)* $s,
            axis: usize,
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.unsqueeze(axis)?;
            Ok(Self { data: $s.data, layout })
        }

        /// Removes an extent-1 axis (rank - 1); see [`View::squeeze`](crate::tensor::View::squeeze).
        ///
        /// # Errors
        /// `AxisOutOfBounds`, then `SqueezeNonUnitAxis`.
        pub fn squeeze(
            $($recv)* $s,
            axis: usize,
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.squeeze(axis)?;
            Ok(Self { data: $s.data, layout })
        }

        /// Fixes one coordinate (rank - 1); see [`View::select`](crate::tensor::View::select).
        ///
        /// # Errors
        /// `AxisOutOfBounds`, then `IndexOutOfBounds`.
        ///
        #[doc = concat!("```\n", $setup, "\nlet row = ", $view, ".select(0, 1)?;\nassert_eq!((row.shape(), row.base_offset()), (&[3][..], 3));\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn select(
            $($recv)* $s,
            axis: usize,
            index: usize,
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.select(axis, index)?;
            Ok(Self { data: $s.data, layout })
        }
    };
}
pub(crate) use dynamic_transforms;
