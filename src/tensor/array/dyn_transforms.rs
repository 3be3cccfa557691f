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
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".storage_offset(&[1, 2])?, 5);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
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
        ///
        #[doc = concat!("```\nuse llm_from_scratch::tensor::TensorViewError;\n", $setup, "\nassert_eq!(", $view, ".reshape_strided(&[3, 2])?.strides(), &[2, 1]);\nlet transposed = ", $view, ".permute(&[1, 0])?;\nassert!(matches!(transposed.reshape_strided(&[6]), Err(TensorViewError::NonStrideCompatibleReshape { .. })));\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
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
        ///
        #[doc = concat!("```\nuse llm_from_scratch::tensor::TensorViewError;\n", $setup, "\nlet split = ", $view, ".reshape(&[6])?.split_axis(0, [2, 3])?;\nassert_eq!((split.shape(), split.strides()), (&[2, 3][..], &[3, 1][..]));\nassert!(matches!(", $view, ".split_axis(1, [2, 2]), Err(TensorViewError::SplitAxisMismatch { .. })));\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
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
        ///
        #[doc = concat!("```\nuse llm_from_scratch::tensor::TensorViewError;\n", $setup, "\nlet flat = ", $view, ".merge_axes(0)?;\nassert_eq!((flat.shape(), flat.strides()), (&[6][..], &[1][..]));\nlet transposed = ", $view, ".permute(&[1, 0])?;\nassert!(matches!(transposed.merge_axes(0), Err(TensorViewError::NonMergeableAxes { .. })));\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
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
        ///
        #[doc = concat!("```\nuse llm_from_scratch::tensor::TensorViewError;\n", $setup, "\nassert_eq!(", $view, ".unsqueeze(0)?.shape(), &[1, 2, 3]);\nassert!(matches!(", $view, ".unsqueeze(3), Err(TensorViewError::AxisOutOfBounds { .. })));\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
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
        ///
        #[doc = concat!("```\nuse llm_from_scratch::tensor::TensorViewError;\n", $setup, "\nassert_eq!(", $view, ".unsqueeze(1)?.squeeze(1)?.shape(), &[2, 3]);\nassert!(matches!(", $view, ".squeeze(0), Err(TensorViewError::SqueezeNonUnitAxis { .. })));\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
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
