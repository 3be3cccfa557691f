//! [`ArrayBase<S, D>`]: the one array type, over a storage `S` and a
//! dimension `D`, and the aliases every model file uses.
//!
//! | alias | storage `S` | dimension `D` | what it is |
//! |---|---|---|---|
//! | [`Tensor<R, T>`] | `Vec<T>` | `Rank<R>` | the owner: row-major, contiguous |
//! | [`View<'a, R, T>`] | `&'a [T]` | `Rank<R>` | a borrowed strided view; `Copy` |
//! | [`ViewMut<'a, R, T>`] | `&'a mut [T]` | `Rank<R>` | an exclusive mutable view; an operand like the others |
//! | [`CellView<'a, R, T>`] | [`Cells<'a, T>`] | `Rank<R>` | a piece of a split mutable view: pieces coexist, even interleaved |
//! | [`DynTensor<T>`], [`DynView<'a, T>`], [`DynViewMut<'a, T>`], [`DynCellView<'a, T>`] | the same | [`DynRank`] | the rank at run time |
//!
//! Every method is written once for every storage and dimension it makes
//! sense for (ndarray's `ArrayBase<S, D>` with its `Data` / `DataMut`
//! traits): read methods for [`Readable`] storages, transforms for
//! [`Borrowed`] ones, writes for [`Writable`] ones. The dimension decides
//! the rank-shaped types in each signature (see [`Dimension`]).

use super::storage::Cells;
#[cfg(doc)]
use super::storage::{Borrowed, Readable, Writable};
use crate::tensor::shape::dimension::{Dimension, DynRank};
use crate::tensor::shape::layout::Layout;
use crate::tensor::shape::rank::Rank;

/// An array: values in a storage `S` (owned, borrowed or mutably borrowed)
/// read through a checked strided layout of dimension `D` (shape, strides,
/// base offset). Use it through its aliases: [`Tensor`], [`View`],
/// [`ViewMut`], [`CellView`] and their `Dyn` twins.
///
/// Invariants: every reachable offset lies inside the storage; an owner
/// (`S = Vec<T>`) is row-major contiguous from offset 0; a mutable view never
/// reaches one stored value from two coordinates.
///
/// ```
/// use llm_from_scratch::tensor::{ArrayBase, Rank, Tensor, View};
/// let t: Tensor<2> = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let v: View<'_, 2> = t.view().transpose(0, 1)?;         // [3, 2], strides [1, 3]
/// let same: &ArrayBase<&[f64], Rank<2>> = &v;                // what the alias stands for
/// assert_eq!((same.shape(), same.strides()), (&[3, 2], &[1, 3]));
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub struct ArrayBase<S, D: Dimension> {
    pub(crate) data: S,
    pub(crate) layout: Layout<D::Axes>,
}

/// An owned, row-major contiguous tensor of rank `R` (shape `[usize; R]`).
///
/// The only kind of array that owns values. [`Tensor::view`] borrows it as
/// a [`View`]; every view transform borrows the same storage, and only
/// named operations (`materialize`, the ops) create a new owner. Rank is
/// part of the type: a `Tensor<3>` is `[B, T, C]`, never a matrix.
///
/// ```
/// use llm_from_scratch::tensor::Tensor;
///
/// let t = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// assert_eq!(t.shape(), &[2, 3]);
/// assert_eq!(t.strides(), &[3, 1]);
/// assert_eq!(t.get([1, 2])?, &22.0);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub type Tensor<const R: usize, T = f64> = ArrayBase<Vec<T>, Rank<R>>;

/// A borrowed view of rank `R`: the owner's storage `&'a [T]` read through
/// a shape, strides (in elements) and a base offset.
///
/// Creating and transforming views never copies values and never touches
/// the heap: `reshape`, `transpose`, `permute` and `slice` only compute new
/// metadata. `materialize` is the one copy. `View` is `Copy`, like a slice
/// reference.
///
/// ```
/// use llm_from_scratch::tensor::Tensor;
///
/// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// let t = owner.view().transpose(0, 1)?; // [2, 3] -> [3, 2], strides [1, 3]
/// assert_eq!(t.strides(), &[1, 3]);
/// assert_eq!(t.offsets().collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);
/// assert_eq!(t.get([2, 1])?, &22.0);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub type View<'a, const R: usize, T = f64> = ArrayBase<&'a [T], Rank<R>>;

/// An exclusive mutable view of rank `R`: the owner's storage `&'a mut [T]`
/// read and written through a layout in which no two coordinates reach the
/// same stored value (there is no mutable `broadcast_to`).
///
/// Transforms take it by value, so one mutable view of a storage exists at
/// a time; [`reborrow`](ArrayBase::reborrow) lends a shorter one, and
/// [`view`](ArrayBase::view) a read-only [`View`]. It is an operand of
/// every operation, like a `Tensor` or a `View`: what you wrote is read
/// without a copy. Splitting it into pieces that are alive together
/// (`split_at`, `chunk`, `axis_iter`) gives [`CellView`]s.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// // A KV cache [H, T_max, D]: write position 2 of every head in place, then read it.
/// let mut cache = Tensor::<3>::zeros([2, 4, 3])?;
/// let new_kv = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let mut slot = cache.view_mut().select(1, 2)?; // [H, D], position 2
/// slot.assign(&new_kv)?;
/// assert_eq!(sum_axis(&slot, 1, RemoveDim)?.as_slice(), &[6.0, 15.0]); // an operand
/// assert_eq!(cache.get([1, 2, 0])?, &4.0);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
///
/// The source of an `assign` cannot borrow its destination:
///
/// ```compile_fail,E0502
/// use llm_from_scratch::tensor::Tensor;
/// let mut x = Tensor::<2>::zeros([2, 2]).unwrap();
/// let mut target = x.view_mut();
/// target.assign(&x.view()).unwrap();
/// ```
///
/// Two mutable views of one tensor cannot coexist:
///
/// ```compile_fail,E0499
/// use llm_from_scratch::tensor::Tensor;
/// let mut x = Tensor::<2>::zeros([2, 2]).unwrap();
/// let mut a = x.view_mut();
/// let mut b = x.view_mut();
/// a.fill(1.0);
/// b.fill(2.0);
/// ```
pub type ViewMut<'a, const R: usize, T = f64> = ArrayBase<&'a mut [T], Rank<R>>;

/// A piece of a split mutable view, of rank `R`: several pieces of one
/// storage are alive at once, even when they interleave in memory (the
/// heads of a `[T, H, D]` cache), because the storage is shared as cells
/// ([`Cells`]). A piece is written (`fill`, `assign`, `map_inplace`,
/// `zip_map_inplace`, `set`), read by value (`get`, `materialize`) and
/// split further; it is not `Sync` and not an operand of the operations
/// (those read `&[T]`). Made by `split_at`, `chunk`, `axis_iter`,
/// `outer_iter` and `axis_chunks_iter` of a [`ViewMut`], or [`into_cells`](ArrayBase::into_cells).
///
/// ```
/// use llm_from_scratch::tensor::Tensor;
/// let mut cache = Tensor::<3>::zeros([4, 2, 3])?; // [T, H, D]: the heads interleave
/// let [mut h0, mut h1] = cache.view_mut().chunk::<2>(1)?; // two [T, 1, D] pieces, alive together
/// h0.fill(1.0);
/// h1.fill(2.0);
/// assert_eq!(cache.get([3, 1, 2])?, &2.0);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub type CellView<'a, const R: usize, T = f64> = ArrayBase<Cells<'a, T>, Rank<R>>;

/// An owned, row-major contiguous tensor whose rank is known only at run
/// time: ranks above [`MAX_RANK`](crate::tensor::MAX_RANK), or read from
/// data. Convert with `into_ranked::<R>()` once the rank is known.
///
/// ```
/// use llm_from_scratch::tensor::{DynTensor, Tensor};
///
/// let d = DynTensor::from_vec(vec![2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
/// assert_eq!(d.shape(), &[2, 3]);
/// let t: Tensor<2> = d.into_ranked()?;
/// assert_eq!(t.get([1, 0])?, &20.0);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub type DynTensor<T = f64> = ArrayBase<Vec<T>, DynRank>;

/// A borrowed view whose rank is known only at run time. Same semantics
/// and errors as [`View`], plus the run-time checks of lengths the compiler
/// checks for a `View` (`PermutationLengthMismatch`, `RankMismatch`). Its
/// metadata lives inline (at most 32 axes, NumPy 1.x's limit), so it is
/// `Copy` and its transforms never touch the heap.
pub type DynView<'a, T = f64> = ArrayBase<&'a [T], DynRank>;

/// An exclusive mutable view whose rank is known only at run time; see [`ViewMut`].
pub type DynViewMut<'a, T = f64> = ArrayBase<&'a mut [T], DynRank>;

/// A piece of a split mutable view whose rank is known only at run time; see [`CellView`].
pub type DynCellView<'a, T = f64> = ArrayBase<Cells<'a, T>, DynRank>;

impl<T: Clone, D: Dimension> Clone for ArrayBase<Vec<T>, D> {
    fn clone(&self) -> Self {
        Self {
            data: self.data.clone(),
            layout: self.layout,
        }
    }
}

impl<T, D: Dimension> Clone for ArrayBase<&[T], D> {
    fn clone(&self) -> Self {
        *self
    }
}

/// A view is `Copy`, like a slice reference: its layout is a few inline
/// arrays (a dynamic one holds at most 32 axes).
impl<T, D: Dimension> Copy for ArrayBase<&[T], D> {}

/// A piece of a split mutable view is `Copy` too: pieces share the storage
/// as cells by design (a copy is one more piece over the same values).
impl<T, D: Dimension> Clone for ArrayBase<Cells<'_, T>, D> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, D: Dimension> Copy for ArrayBase<Cells<'_, T>, D> {}

/// Owners compare shape and values; views compare their layout and the
/// whole storage they borrow.
impl<S: PartialEq, D: Dimension> PartialEq for ArrayBase<S, D> {
    fn eq(&self, other: &Self) -> bool {
        self.layout == other.layout && self.data == other.data
    }
}
