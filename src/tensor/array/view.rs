//! `View<'a, R, T>`: a borrowed, strided interpretation of an owner's
//! storage, and [`AsView`], which lets every operation take owners and
//! views alike.

use super::owned::Tensor;
use crate::tensor::error::{TensorError, TensorViewError};
use crate::tensor::shape::axes::{AxisList, all_below_rank, has_repeated_axis};
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::Layout;
use crate::tensor::traverse::alloc::try_buffer;
use crate::tensor::traverse::copy::copy;
use crate::tensor::traverse::sink::SliceSink;

/// Anything that can be read as a rank-`R` [`View`]: a [`Tensor`], a
/// `View`, a `ViewMut`, or a reference to one of them. Every operation
/// takes its operands as `&impl AsView<R, T>`, so `matmul(&x, &w)` works on
/// owners and views without `.view()` at each call (ndarray's `AsArray`).
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let x = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let w = Tensor::from_vec([2, 3], vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0])?;
/// let xw = matmul(&x, &w.view().transpose(0, 1)?)?; // a tensor and a view: [2, 3] x [3, 2]
/// assert_eq!(xw.as_slice(), &[1.0, 2.0, 4.0, 5.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait AsView<const R: usize, T> {
    /// Borrows `self` as a view (no copy, no allocation).
    fn as_view(&self) -> View<'_, R, T>;
}

impl<const R: usize, T> AsView<R, T> for View<'_, R, T> {
    #[inline]
    fn as_view(&self) -> View<'_, R, T> {
        *self
    }
}

impl<const R: usize, T> AsView<R, T> for Tensor<R, T> {
    #[inline]
    fn as_view(&self) -> View<'_, R, T> {
        self.view()
    }
}

impl<const R: usize, T, A: AsView<R, T> + ?Sized> AsView<R, T> for &A {
    #[inline]
    fn as_view(&self) -> View<'_, R, T> {
        (**self).as_view()
    }
}

/// A borrowed view of rank `R`: the owner's storage `&'a [T]` read through
/// a shape, strides (in elements) and a base offset.
///
/// Creating and transforming views never copies values and never touches
/// the heap: `reshape`, `transpose`, `permute` and `slice` only compute new
/// metadata. [`View::materialize`] is the one copy. `View` is `Copy`, like
/// a slice reference.
///
/// ```
/// use llm_from_scratch::tensor::Tensor;
///
/// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// let t = owner.view().transpose(0, 1)?; // [2, 3] -> [3, 2], strides [1, 3]
/// assert_eq!(t.strides(), &[1, 3]);
/// assert_eq!(t.offsets().collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);
/// assert_eq!(t.get([2, 1])?, &22.0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct View<'a, const R: usize, T = f64> {
    pub(crate) data: &'a [T],
    pub(crate) layout: Layout<[usize; R]>,
}

impl<const R: usize, T> Clone for View<'_, R, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<const R: usize, T> Copy for View<'_, R, T> {}

impl<const R: usize, T> Tensor<R, T> {
    /// Borrows the whole tensor as a contiguous [`View`] (no copy, no allocation).
    ///
    /// The view borrows the owner, so the owner cannot be mutated while a
    /// later-used view exists:
    ///
    /// ```compile_fail,E0502
    /// use llm_from_scratch::tensor::Tensor;
    ///
    /// let mut tensor = Tensor::from_vec([2], vec![10.0, 20.0]).unwrap();
    /// let view = tensor.view();
    /// tensor.as_mut_slice()[0] = 99.0;
    /// assert_eq!(*view.get([0]).unwrap(), 10.0);
    /// ```
    #[must_use]
    pub fn view(&self) -> View<'_, R, T> {
        View {
            data: &self.values,
            layout: self.layout,
        }
    }
}

/// The values of a checked layout over `data`, copied row-major into a new buffer.
pub(crate) fn materialized<D: Dims, T: Copy>(
    data: &[T],
    layout: &Layout<D>,
) -> Result<(Layout<D>, Vec<T>), TensorViewError> {
    // An empty view whose shape has no row-major layout (the transpose of
    // `[usize::MAX / 2, 3, 0]`) cannot have an owner: `ShapeOverflow`.
    let fresh = Layout::row_major(layout.shape.clone())?;
    let mut values = try_buffer(layout.len).map_err(|failed| TensorError::AllocationFailed {
        elements: failed.elements,
    })?;
    copy(
        data,
        layout.shape(),
        layout.strides(),
        layout.base_offset,
        &mut values,
    );
    Ok((fresh, values))
}

/// Copies a checked layout over `data` into `out`, an owner of shape `out_shape`.
pub(crate) fn materialized_into<D: Dims, T: Copy>(
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
    let sink = &mut SliceSink::new(out);
    copy(
        data,
        layout.shape(),
        layout.strides(),
        layout.base_offset,
        sink,
    );
    Ok(())
}

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

/// The docs' `[2, 3]` example view of the ranked API.
macro_rules! ranked_example {
    () => {
        "use llm_from_scratch::tensor::Tensor;\nlet owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;\nlet v = owner.view();"
    };
}

impl<'a, const R: usize, T> View<'a, R, T> {
    layout_getters!(ranked_example!());
    view_transforms!(ranked_example!());
    view_read!();

    /// Views borrowed row-major data (a `Vec`, a weights buffer) as `shape`, without copying.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`] (as `TensorViewError::Tensor`) for an
    /// overflowing shape; [`TensorViewError::ViewOutOfBounds`] if `data` is
    /// shorter than the shape's element count (longer is fine: the tail is unused).
    ///
    /// ```
    /// use llm_from_scratch::tensor::View;
    /// let data = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    /// let v = View::from_slice(&data, [3, 2])?;
    /// assert_eq!(v.get([2, 0])?, &5.0);
    /// assert!(View::from_slice(&data, [4, 2]).is_err());
    /// # Ok::<(), llm_from_scratch::tensor::TensorViewError>(())
    /// ```
    pub fn from_slice(data: &'a [T], shape: [usize; R]) -> Result<Self, TensorViewError> {
        let strides = Layout::row_major(shape)?.strides;
        Self::from_parts(data, shape, strides, 0)
    }

    /// Views `data` through an arbitrary strided layout, without copying.
    ///
    /// Strides are in elements and may be 0 (a repeated value) or any order.
    ///
    /// # Errors
    /// [`TensorError::ShapeOverflow`] if the element count or the largest
    /// reachable offset overflows; [`TensorViewError::ViewOutOfBounds`] if
    /// that offset is not inside `data`. An empty view is always in bounds.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{View, TensorViewError};
    /// let data = [1.0, 2.0, 3.0];
    /// // Each of 3 rows repeats one stored value 4 times: [3, 4], strides [1, 0].
    /// let rows = View::from_parts(&data, [3, 4], [1, 0], 0)?;
    /// assert_eq!(rows.get([2, 3])?, &3.0);
    /// assert_eq!(
    ///     View::from_parts(&data, [2, 2], [2, 1], 0).unwrap_err(),
    ///     TensorViewError::ViewOutOfBounds { required_len: 4, available: 3 }
    /// );
    /// # Ok::<(), TensorViewError>(())
    /// ```
    pub fn from_parts(
        data: &'a [T],
        shape: [usize; R],
        strides: [usize; R],
        base_offset: usize,
    ) -> Result<Self, TensorViewError> {
        let layout = Layout::borrowed(shape, strides, base_offset, data.len())?;
        Ok(Self { data, layout })
    }

    /// The extent of every axis.
    pub fn shape(&self) -> &[usize; R] {
        &self.layout.shape
    }

    /// The storage step of every axis, in elements.
    pub fn strides(&self) -> &[usize; R] {
        &self.layout.strides
    }

    /// The number of axes, `R`.
    pub const fn rank(&self) -> usize {
        R
    }

    /// The owner's storage offset of the coordinate `index`.
    ///
    /// # Errors
    /// [`TensorError::IndexOutOfBounds`] (as `TensorViewError::Tensor`)
    /// naming the first axis whose coordinate is not below its extent.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::from_vec([2, 3], vec![0.0; 6])?;
    /// assert_eq!(owner.view().transpose(0, 1)?.storage_offset([2, 1])?, 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn storage_offset(&self, index: [usize; R]) -> Result<usize, TensorViewError> {
        Ok(self.layout.offset(&index)?)
    }

    /// Borrows the owner's value at the coordinate `index`.
    ///
    /// # Errors
    /// As for [`View::storage_offset`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// assert_eq!(owner.view().get([1, 2])?, &22.0);
    /// assert!(owner.view().get([2, 0]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn get(&self, index: [usize; R]) -> Result<&'a T, TensorViewError> {
        let offset = self.storage_offset(index)?;
        Ok(&self.data[offset])
    }

    /// Reinterprets a contiguous view with another shape of the same element
    /// count; the new rank `S` comes from the shape array. No copy.
    ///
    /// Shapes: `[n_0, …, n_{R-1}]` -> `shape`, fresh row-major strides, same
    /// base offset. ≈ PyTorch `Tensor.view` on a contiguous tensor, NumPy
    /// `reshape` without its silent copy. GPT-2 `split_heads`: `[B, T, C]`
    /// -> `[B, T, H, C / H]`.
    ///
    /// # Errors
    /// Checked in this order:
    /// 1. [`TensorError::ShapeOverflow`] if `shape` overflows;
    /// 2. [`TensorViewError::ReshapeElementCountMismatch`] if the counts differ;
    /// 3. [`TensorViewError::NonContiguousReshape`] if this view is not
    ///    contiguous: reshape never copies, call [`View::materialize`] first.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Tensor, TensorViewError};
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let r = owner.view().reshape([3, 2])?;
    /// assert_eq!((r.shape(), r.strides()), (&[3, 2], &[2, 1]));
    /// let t = owner.view().transpose(0, 1)?;
    /// assert_eq!(t.reshape([6]).unwrap_err(), TensorViewError::NonContiguousReshape);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reshape<const S: usize>(
        &self,
        shape: [usize; S],
    ) -> Result<View<'a, S, T>, TensorViewError> {
        let layout = self.layout.reshape(shape)?;
        Ok(View {
            data: self.data,
            layout,
        })
    }

    /// Reorders axes: output axis `k` is source axis `axes[k]`; rank stays `R`. No copy.
    ///
    /// Shapes: `[n_0, …]` -> `[n_{axes[0]}, …]`. ≈ PyTorch `permute`, NumPy
    /// `transpose(axes)`. GPT-2 `split_heads`: `[B, T, H, D]` -> `[B, H, T, D]`
    /// with `permute([0, 2, 1, 3])`. An axis list of the wrong length does
    /// not compile (`[usize; R]`).
    ///
    /// # Errors
    /// Scanning left to right, the first of: [`TensorViewError::AxisOutOfBounds`],
    /// [`TensorViewError::DuplicateAxis`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Tensor, TensorViewError};
    /// let x = Tensor::from_vec([2, 3, 4], vec![0.0; 24])?;
    /// let p = x.view().permute([2, 0, 1])?; // [2, 3, 4] -> [4, 2, 3]
    /// assert_eq!((p.shape(), p.strides()), (&[4, 2, 3], &[1, 12, 4]));
    /// assert_eq!(x.view().permute([0, 0, 1]).unwrap_err(), TensorViewError::DuplicateAxis { axis: 0 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn permute(&self, axes: [usize; R]) -> Result<Self, TensorViewError> {
        let layout = self.layout.permute(&axes)?;
        Ok(Self { layout, ..*self })
    }

    /// [`View::transpose`] with the axes checked at compile time; infallible.
    ///
    /// Shapes: `[.., a, .., b, ..]` -> `[.., b, .., a, ..]`, rank `R` kept.
    /// An axis `>= R` fails to build (not at `cargo check`):
    ///
    /// ```compile_fail,E0080
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::from_vec([2, 3], vec![0.0; 6]).unwrap();
    /// let bad = t.view().transpose_axes::<0, 3>(); // rank 2 has no axis 3
    /// ```
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let q = Tensor::from_vec([1, 2, 3, 4], vec![0.0; 24])?; // [B, H, T, D]
    /// let kt = q.view().transpose_axes::<2, 3>();             // [B, H, D, T]
    /// assert_eq!(kt.shape(), &[1, 2, 4, 3]);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    #[must_use]
    pub fn transpose_axes<const A: usize, const B: usize>(&self) -> Self {
        // One `const` block per check, so each error names its own check. They
        // fail the build (not `cargo check`); the "while instantiating" note
        // of the error shows `View<'_, R>` and `transpose_axes::<A, B>`.
        const {
            if A >= R {
                panic!(
                    "transpose_axes::<A, B>(): axis A is not below the view's rank R (values in the last note)"
                )
            }
        };
        const {
            if B >= R {
                panic!(
                    "transpose_axes::<A, B>(): axis B is not below the view's rank R (values in the last note)"
                )
            }
        };
        let mut view = *self;
        view.layout.shape.swap(A, B);
        view.layout.strides.swap(A, B);
        view
    }

    /// [`View::permute`] with the axis list checked at compile time; infallible.
    ///
    /// `P` is a marker such as `Axes4<0, 2, 1, 3>` (GPT-2 `split_heads`:
    /// `[B, T, H, D]` -> `[B, H, T, D]`). A marker of another rank does not
    /// satisfy `AxisList<R>`; a repeated or out-of-range axis fails the
    /// build (not at `cargo check`).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Axes4, Tensor};
    /// let x = Tensor::from_vec([1, 3, 2, 4], vec![0.0; 24])?; // [B, T, H, D]
    /// let heads = x.view().permute_axes::<Axes4<0, 2, 1, 3>>(); // [B, H, T, D]
    /// assert_eq!(heads.shape(), &[1, 2, 3, 4]);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    #[must_use]
    pub fn permute_axes<P: AxisList<R>>(&self) -> Self {
        const {
            if !all_below_rank(&P::AXES) {
                panic!(
                    "permute_axes::<P>(): P names an axis >= the view's rank R (values in the last note)"
                )
            }
        };
        const {
            if has_repeated_axis(&P::AXES) {
                panic!(
                    "permute_axes::<P>(): P repeats an axis; each must appear once (values in the last note)"
                )
            }
        };
        let mut view = *self;
        view.layout.shape = P::AXES.map(|axis| self.layout.shape[axis]);
        view.layout.strides = P::AXES.map(|axis| self.layout.strides[axis]);
        view
    }
}

impl<const R: usize, T: Copy> View<'_, R, T> {
    /// Copies the logical values into a new contiguous owner: the only copy.
    ///
    /// Shapes: same shape, fresh row-major strides. ≈ PyTorch `.contiguous()`
    /// (which we call explicitly, always), NumPy `ascontiguousarray`. An
    /// empty view allocates nothing.
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
pub fn copying_transpose<T: Copy>(source: &Tensor<2, T>) -> Result<Tensor<2, T>, TensorError> {
    let transposed = source.view().transpose_axes::<0, 1>();
    transposed.materialize().map_err(|error| match error {
        TensorViewError::Tensor(inner) => inner,
        // A transposed owner always has a row-major layout; only allocation can fail.
        _ => TensorError::AllocationFailed {
            elements: source.len(),
        },
    })
}
