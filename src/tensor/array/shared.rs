//! Methods every view type has with one signature, ranked or dynamic,
//! borrowed or mutable, as macros invoked in each type's `impl` block:
//! written once, documented once.
//!
//! Conventions of the macros: `[$($recv)*] $s` is the receiver (`[&] self`
//! for the borrowed views, which are cheap to copy; `[] self` for the
//! mutable ones, which move so that no two mutable views alias); `$setup`
//! is the doc examples' code that builds the `[2, 3]` owner `owner`
//! holding `10, 11, 12, 20, 21, 22`, and `$view` the expression that views it.

/// Layout accessors of every view type.
macro_rules! layout_getters {
    ($setup:expr, $view:expr) => {
        /// The storage offset of the logical origin (all coordinates 0).
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".base_offset(), 0);\nassert_eq!(", $view, ".slice(0, 1..2)?.base_offset(), 3);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn base_offset(&self) -> usize {
            self.layout.base_offset
        }

        /// The number of logical values (1 for a scalar, 0 for any zero extent).
        ///
        #[doc = concat!("```\n", $setup, "\nassert_eq!(", $view, ".len(), 6);\nassert_eq!(", $view, ".slice(1, 0..2)?.len(), 4);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn len(&self) -> usize {
            self.layout.len
        }

        /// Whether the view has no logical values (some extent is 0).
        ///
        #[doc = concat!("```\n", $setup, "\nassert!(!", $view, ".is_empty());\nassert!(", $view, ".slice(0, 1..1)?.is_empty());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn is_empty(&self) -> bool {
            self.layout.len == 0
        }

        /// Whether logical row-major order visits one dense storage span from
        /// the base offset. Axes of extent 1 may carry any stride; empty and
        /// scalar views are contiguous.
        ///
        #[doc = concat!("```\n", $setup, "\nassert!(", $view, ".is_contiguous());\nassert!(!", $view, ".transpose(0, 1)?.is_contiguous());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn is_contiguous(&self) -> bool {
            self.layout.is_contiguous()
        }

        /// Storage offsets in logical row-major order (last axis fastest), one
        /// per logical value; a stride-0 axis repeats offsets. No allocation
        /// up to 12 axes.
        ///
        #[doc = concat!("```\n", $setup, "\nlet t = ", $view, ".transpose(0, 1)?;\nassert_eq!(t.offsets().collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
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

/// The rank-keeping transforms of every view type. `$split_at` names the
/// two-way split (`split_at`, or `split_at_mut` for the mutable views).
macro_rules! view_transforms {
    ([$($recv:tt)*] $s:ident, $split_at:ident, $setup:expr, $view:expr) => {
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
        #[doc = concat!("```\n", $setup, "\nlet t = ", $view, ".transpose(0, 1)?; // [2, 3] -> [3, 2]\nassert_eq!(t.shape(), &[3, 2]);\nassert_eq!(t.strides(), &[1, 3]);\nassert!(", $view, ".transpose(0, 2).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn transpose(
            $($recv)* $s,
            first: usize,
            second: usize,
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.transpose(first, second)?;
            Ok(Self { data: $s.data, layout })
        }

        /// Keeps the half-open, unit-step `range` of one axis; the rank is
        /// unchanged. No copy.
        ///
        /// Shapes: extent `n` of `axis` -> `range.len()`; strides unchanged;
        /// the base offset advances by `range.start * strides[axis]`. ≈ NumPy
        /// `a[:, start:end]`, PyTorch `narrow`. GPT-2: Q, K and V are
        /// `slice(2, ..)` of `[B, T, 3C]`.
        ///
        /// # Errors
        /// In this order: [`TensorViewError::AxisOutOfBounds`](crate::tensor::TensorViewError::AxisOutOfBounds),
        /// [`TensorViewError::SliceStartAfterEnd`](crate::tensor::TensorViewError::SliceStartAfterEnd),
        /// [`TensorViewError::SliceEndOutOfBounds`](crate::tensor::TensorViewError::SliceEndOutOfBounds).
        ///
        #[doc = concat!("```\n", $setup, "\nlet s = ", $view, ".slice(1, 1..3)?; // [2, 3] -> [2, 2], base offset 1\nassert_eq!(s.offsets().collect::<Vec<_>>(), [1, 2, 4, 5]);\nassert!(", $view, ".slice(1, 1..4).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn slice(
            $($recv)* $s,
            axis: usize,
            range: std::ops::Range<usize>,
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.slice(axis, range)?;
            Ok(Self { data: $s.data, layout })
        }

        /// Every `step`-th index of the half-open `range` of one axis
        /// (NumPy's `a[:, start:end:step]`); the rank is unchanged. No copy.
        ///
        /// Shapes: extent `n` of `axis` -> `ceil(range.len() / step)`; that
        /// axis's stride is multiplied by `step`. Steps are positive: strides
        /// are `usize`, so there are no reversed views.
        ///
        /// # Errors
        /// As for `slice`, then
        /// [`TensorViewError::ZeroSliceStep`](crate::tensor::TensorViewError::ZeroSliceStep).
        ///
        #[doc = concat!("```\n", $setup, "\nlet odd = ", $view, ".slice_step(1, 0..3, 2)?; // columns 0 and 2\nassert_eq!(odd.offsets().collect::<Vec<_>>(), [0, 2, 3, 5]);\nassert!(", $view, ".slice_step(1, 0..3, 0).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn slice_step(
            $($recv)* $s,
            axis: usize,
            range: std::ops::Range<usize>,
            step: usize,
        ) -> Result<Self, crate::tensor::TensorViewError> {
            let layout = $s.layout.slice_step(axis, range, step)?;
            Ok(Self { data: $s.data, layout })
        }

        /// Splits one axis at `index` into `[0, index)` and `[index, n)`;
        /// both parts keep the rank. No copy. ≈ ndarray `split_at`.
        ///
        /// # Errors
        /// [`TensorViewError::AxisOutOfBounds`](crate::tensor::TensorViewError::AxisOutOfBounds),
        /// then [`TensorViewError::SliceEndOutOfBounds`](crate::tensor::TensorViewError::SliceEndOutOfBounds)
        /// if `index` is past the extent.
        ///
        #[doc = concat!("```\n", $setup, "\nlet (left, right) = ", $view, ".", stringify!($split_at), "(1, 1)?; // [2, 3] -> [2, 1] and [2, 2]\nassert_eq!(left.shape(), &[2, 1]);\nassert_eq!(right.offsets().collect::<Vec<_>>(), [1, 2, 4, 5]);\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn $split_at(
            $($recv)* $s,
            axis: usize,
            index: usize,
        ) -> Result<(Self, Self), crate::tensor::TensorViewError> {
            let (first, second) = $s.layout.split_at(axis, index)?;
            Ok((Self { data: $s.data, layout: first }, Self { data: $s.data, layout: second }))
        }

        /// `N` equal parts of one axis, in order; each keeps the rank. No
        /// copy. ≈ PyTorch `chunk(N, axis)` for a divisible extent. GPT-2:
        /// the packed `[B, T, 3C]` projection -> Q, K, V with `chunk::<3>(2)`.
        /// `N = 0` does not compile.
        ///
        /// # Errors
        /// [`TensorViewError::AxisOutOfBounds`](crate::tensor::TensorViewError::AxisOutOfBounds),
        /// then [`TensorViewError::UnevenChunk`](crate::tensor::TensorViewError::UnevenChunk)
        /// if the extent is not a multiple of `N`.
        ///
        #[doc = concat!("```\n", $setup, "\nlet [a, b, c] = ", $view, ".chunk::<3>(1)?; // three [2, 1] columns\nassert_eq!(a.shape(), &[2, 1]);\nassert_eq!((b.base_offset(), c.base_offset()), (1, 2));\nassert!(", $view, ".chunk::<2>(1).is_err());\n# Ok::<(), Box<dyn std::error::Error>>(())\n```")]
        pub fn chunk<const N: usize>(
            $($recv)* $s,
            axis: usize,
        ) -> Result<[Self; N], crate::tensor::TensorViewError> {
            const {
                if N == 0 {
                    panic!("chunk::<N>(): N must be at least 1")
                }
            };
            let parts = $s.layout.chunk::<N>(axis)?;
            Ok(parts.map(|layout| Self { data: $s.data, layout }))
        }
    };
}
pub(crate) use view_transforms;

/// Read-only accessors every borrowed view type has.
macro_rules! view_read {
    () => {
        /// The whole storage of the owner this view borrows (not only the viewed part).
        ///
        /// ```
        /// use llm_from_scratch::tensor::Tensor;
        /// let owner = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
        /// assert_eq!(owner.view().slice(0, 1..2)?.storage(), &[1.0, 2.0, 3.0, 4.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn storage(&self) -> &'a [T] {
            self.data
        }

        /// The values as one slice when the view is contiguous, else `None`.
        ///
        /// ```
        /// use llm_from_scratch::tensor::Tensor;
        /// let owner = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
        /// assert_eq!(owner.view().slice(0, 1..2)?.as_contiguous_slice(), Some(&[3.0, 4.0][..]));
        /// assert_eq!(owner.view().transpose(0, 1)?.as_contiguous_slice(), None);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn as_contiguous_slice(&self) -> Option<&'a [T]> {
            self.layout
                .contiguous_range()
                .and_then(|span| self.data.get(span))
        }

        /// The values in logical row-major order, borrowed from the owner.
        ///
        /// ```
        /// use llm_from_scratch::tensor::Tensor;
        /// let owner = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
        /// let values: Vec<f64> = owner.view().transpose(0, 1)?.iter().copied().collect();
        /// assert_eq!(values, [1.0, 3.0, 2.0, 4.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
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
