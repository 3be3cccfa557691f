//! Methods every view type has with one signature, ranked or dynamic,
//! borrowed or mutable, as macros invoked in each type's `impl` block:
//! written once, documented once.

/// Layout accessors every view type has with one signature, ranked or
/// dynamic, borrowed or mutable: written once. `$example` builds the
/// `[2, 3]` owner `owner` holding `10, 11, 12, 20, 21, 22` and its view
/// `v` for the docs.
macro_rules! layout_getters {
    ($example:expr) => {
        /// The storage offset of the logical origin (all coordinates 0).
        pub fn base_offset(&self) -> usize {
            self.layout.base_offset
        }

        /// The number of logical values (1 for a scalar, 0 for any zero extent).
        pub fn len(&self) -> usize {
            self.layout.len
        }

        /// Whether the view has no logical values (some extent is 0).
        pub fn is_empty(&self) -> bool {
            self.layout.len == 0
        }

        /// Whether logical row-major order visits one dense storage span from
        /// the base offset. Axes of extent 1 may carry any stride; empty and
        /// scalar views are contiguous.
        pub fn is_contiguous(&self) -> bool {
            self.layout.is_contiguous()
        }

        /// Storage offsets in logical row-major order (last axis fastest), one
        /// per logical value; a stride-0 axis repeats offsets. No allocation
        /// up to 12 axes.
        ///
        #[doc = concat!("```\n", $example, "\nlet t = v.transpose(0, 1)?;\nassert_eq!(t.offsets().collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn offsets(&self) -> crate::tensor::traverse::offsets::StridedOffsets {
            crate::tensor::traverse::offsets::StridedOffsets::new(
                self.layout.shape(),
                self.layout.strides(),
                self.layout.base_offset,
            )
        }
    };
}
pub(crate) use layout_getters;

/// Rank-keeping transforms of the borrowed view types, ranked or dynamic:
/// written once (see [`layout_getters`] for `$example`).
macro_rules! view_transforms {
    ($example:expr) => {

        /// Swaps two axes; the rank is unchanged. No copy.
        ///
        /// Shapes: `[.., a, .., b, ..]` -> `[.., b, .., a, ..]`. ≈ PyTorch
        /// `transpose(first, second)`, NumPy `swapaxes`. GPT-2's `Kᵀ`:
        /// `[B, H, T, D]` -> `[B, H, D, T]` with `transpose(2, 3)`.
        ///
        /// # Errors
        /// [`TensorViewError::AxisOutOfBounds`](crate::tensor::TensorViewError::AxisOutOfBounds)
        /// for `first`, then for `second`.
        ///
        #[doc = concat!("```\n", $example, "\nlet t = v.transpose(0, 1)?; // [2, 3] -> [3, 2]\nassert_eq!(t.shape(), &[3, 2]);\nassert_eq!(t.strides(), &[1, 3]);\nassert!(v.transpose(0, 2).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn transpose(
            &self,
            first: usize,
            second: usize,
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = self.layout.transpose(first, second)?;
            Ok(Self { data: self.data, layout })
        }

        /// Keeps the half-open, unit-step `range` of one axis; the rank is
        /// unchanged. No copy.
        ///
        /// Shapes: extent `n` of `axis` -> `range.len()`; strides unchanged;
        /// the base offset advances by `range.start * strides[axis]`. ≈ NumPy
        /// `a[:, start:end]`. GPT-2: Q, K and V are `slice(2, ..)` of `[B, T, 3C]`.
        ///
        /// # Errors
        /// In this order: [`TensorViewError::AxisOutOfBounds`](crate::tensor::TensorViewError::AxisOutOfBounds),
        /// [`TensorViewError::SliceStartAfterEnd`](crate::tensor::TensorViewError::SliceStartAfterEnd),
        /// [`TensorViewError::SliceEndOutOfBounds`](crate::tensor::TensorViewError::SliceEndOutOfBounds).
        ///
        #[doc = concat!("```\n", $example, "\nlet s = v.slice(1, 1..3)?; // [2, 3] -> [2, 2], base offset 1\nassert_eq!(s.offsets().collect::<Vec<_>>(), [1, 2, 4, 5]);\nassert!(v.slice(1, 1..4).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn slice(
            &self,
            axis: usize,
            range: std::ops::Range<usize>,
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = self.layout.slice(axis, range)?;
            Ok(Self { data: self.data, layout })
        }
    };
}
pub(crate) use view_transforms;

/// Read-only accessors every borrowed view type has: written once.
macro_rules! view_read {
    () => {
        /// The whole storage of the owner this view borrows (not only the viewed part).
        pub fn storage(&self) -> &'a [T] {
            self.data
        }

        /// The values as one slice when the view is contiguous, else `None`.
        pub fn as_contiguous_slice(&self) -> Option<&'a [T]> {
            self.layout
                .contiguous_range()
                .and_then(|span| self.data.get(span))
        }

        /// The values in logical row-major order, borrowed from the owner.
        pub fn iter(&self) -> crate::tensor::StridedValues<'a, T> {
            crate::tensor::StridedValues::new(self.data, self.offsets())
        }

        /// The rank-erased layout handed to the op cores.
        pub(crate) fn strided(&self) -> crate::tensor::traverse::Strided<'a, '_, T> {
            crate::tensor::traverse::Strided::new(self.data, &self.layout)
        }
    };
}
pub(crate) use view_read;
