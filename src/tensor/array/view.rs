//! `View<'a, R, T>`: a borrowed, strided interpretation of an owner's
//! storage, and [`AsView`], which lets every operation take owners and
//! views alike.

use super::iter::{axis_iters, piece_maker};
use super::owned::Tensor;
use super::ranked::ranked_transforms;
use super::shared::{layout_getters, view_read, view_transforms};
#[cfg(doc)]
use crate::tensor::error::TensorError;
use crate::tensor::error::TensorViewError;
use crate::tensor::shape::axes::{AxisList, all_below_rank, has_repeated_axis};
use crate::tensor::shape::layout::Layout;
use crate::tensor::shape::rank::{Rank, RankAtMost};

/// The docs' `[2, 3]` example owner of the ranked API.
macro_rules! ranked_setup {
    () => {
        "use llm_from_scratch::tensor::Tensor;\nlet owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;"
    };
}

/// Anything that can be read as a rank-`R` [`View`]: a [`Tensor`], a
/// `View`, or a reference to one of them. (A `ViewMut` is not: its storage
/// is `&[Cell<T>]`, not the `&[T]` a `View` borrows.) Every operation
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

impl<'a, const R: usize, T> View<'a, R, T> {
    layout_getters!(ranked_setup!(), "owner.view()");
    view_transforms!([&] self, split_at, ranked_setup!(), "owner.view()");
    ranked_transforms!([&] self, View, ranked_setup!(), "owner.view()");
    axis_iters!(
        [&] self,
        axis_iter,
        outer_iter,
        axis_chunks_iter,
        [<const S: usize>] View<'a, S, T>,
        [Rank<R>: crate::tensor::RemoveAxis<Smaller = Rank<S>>],
        ranked_setup!(),
        "owner.view()"
    );
    view_read!();

    piece_maker!();

    pub(crate) fn from_parts_unchecked(data: &'a [T], layout: Layout<[usize; R]>) -> Self {
        Self { data, layout }
    }

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

    /// A read-only view of `shape` where every missing or extent-1 axis is
    /// repeated with stride 0 (NumPy's `broadcast_to`, PyTorch's `expand`):
    /// no value is copied. Shapes right-align; `S >= R` (a smaller target
    /// rank does not compile). There is no mutable twin: a stride-0 axis
    /// would write one stored value from several positions.
    ///
    /// GPT-2: a bias `[C]` viewed as `[B, T, C]`; a causal mask `[T, T]` as
    /// `[B, H, T, T]`.
    ///
    /// # Errors
    /// [`TensorViewError::IncompatibleBroadcast`] at the leftmost output axis
    /// whose extent is neither equal nor stretched from 1; then
    /// `TensorError::ShapeOverflow` if the target shape overflows.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{Tensor, TensorViewError};
    /// let bias = Tensor::from_vec([3], vec![1.0, 2.0, 3.0])?;
    /// let wide = bias.view().broadcast_to([2, 3])?; // [3] -> [2, 3], strides [0, 1]
    /// assert_eq!(wide.strides(), &[0, 1]);
    /// assert_eq!(wide.iter().copied().collect::<Vec<_>>(), [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
    /// assert_eq!(
    ///     bias.view().broadcast_to([2, 4]).unwrap_err(),
    ///     TensorViewError::IncompatibleBroadcast { axis: 1, extent: 3, target: 4 }
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn broadcast_to<const S: usize>(
        &self,
        shape: [usize; S],
    ) -> Result<View<'a, S, T>, TensorViewError>
    where
        Rank<R>: RankAtMost<Rank<S>>,
    {
        let layout = self.layout.broadcast_to(shape)?;
        Ok(View {
            data: self.data,
            layout,
        })
    }
}

/// The axis-checked-at-compile-time transforms, plain methods (not from a
/// macro) so a failed check points at the caller's line.
impl<const R: usize, T> View<'_, R, T> {
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
