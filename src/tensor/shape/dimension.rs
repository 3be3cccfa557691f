//! The dimension parameter of [`ArrayBase<S, D>`](crate::tensor::ArrayBase):
//! [`Rank<R>`] (the rank in the type) or [`DynRank`] (the rank at run time),
//! and [`IntoShape`], the shape arguments each of them takes.
//!
//! See [`Dimension`] for what a dimension decides.

use super::dims::{Dims, DynDims, MAX_DYN_RANK};
use crate::error::Error;
use std::fmt::Debug;
use std::hash::Hash;

mod sealed {
    pub trait Sealed {}
    impl<const R: usize> Sealed for super::Rank<R> {}
    impl Sealed for super::DynRank {}
    impl<const N: usize> Sealed for [usize; N] {}
    impl<const N: usize> Sealed for &[usize; N] {}
    impl Sealed for &[usize] {}
    impl Sealed for Vec<usize> {}
    impl Sealed for &Vec<usize> {}
}

/// A rank as a type: the dimension of the typed arrays ([`Tensor<R>`](crate::tensor::Tensor)
/// is `ArrayBase<Vec<T>, Rank<R>>`), and the key of the rank tables in
/// [`rank`](super::rank) that map ranks to ranks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Rank<const R: usize>;

/// A rank known only at run time: the dimension of
/// [`DynTensor`](crate::tensor::DynTensor), [`DynView`](crate::tensor::DynView)
/// and their mutable twins. Shapes are `&[usize]`; rank errors are typed
/// errors at run time instead of compile errors.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DynRank;

/// The dimension parameter `D` of [`ArrayBase<S, D>`](crate::tensor::ArrayBase):
/// [`Rank<R>`] or [`DynRank`]. Sealed.
///
/// A dimension decides the types of everything rank-shaped in a signature:
///
/// | | `Rank<R>` | `DynRank` |
/// |---|---|---|
/// | `shape()`, `strides()` return | `&[usize; R]` | `&[usize]` |
/// | coordinates and axis lists ([`Dimension::Index`]: `get`, `permute`) | `[usize; R]` | `&[usize]` |
/// | shape arguments ([`IntoShape`]: `from_vec`, `reshape`, `broadcast_to`) | `[usize; S]` | `&[usize]`, `Vec<usize>` |
/// | one axis less / more ([`RemoveAxis`](super::rank::RemoveAxis), [`InsertAxis`](super::rank::InsertAxis)) | `Rank<R - 1>` / `Rank<R + 1>` (the rank table) | `DynRank` |
/// | a wrong rank | a compile error | a typed error at run time |
///
/// So a method is written once for both (ndarray's `Dimension` for `IxN` /
/// `IxDyn`, nalgebra's `Const<N>` / `Dyn`), and the rank tables of
/// [`rank`](super::rank) give the typed ranks their arithmetic.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a dimension: use `Rank<R>` (rank in the type) or `DynRank` (rank at run time)",
    label = "not `Rank<R>` or `DynRank`"
)]
#[allow(private_bounds)] // `Axes` is the crate's internal axis list, unnameable outside.
pub trait Dimension:
    sealed::Sealed + Clone + Copy + Debug + Default + PartialEq + Eq + Hash + Send + Sync + 'static
{
    /// The axis list the layout stores (internal).
    #[doc(hidden)]
    type Axes: Dims;
    /// What `shape()` and `strides()` return a reference to: `[usize; R]`
    /// or `[usize]`.
    /// `shape().to_owned()` is an [`Owned`](Dimension::Owned) shape, which
    /// builds an owner of this dimension (`Tensor::zeros(v.shape().to_owned())`).
    type Shape: ?Sized
        + Debug
        + PartialEq
        + Eq
        + Hash
        + AsRef<[usize]>
        + ToOwned<Owned = Self::Owned>;
    /// A coordinate or an axis list argument: `[usize; R]` (its length is
    /// checked by the compiler) or `&[usize]` (checked at run time).
    type Index<'i>: Copy;
    /// An owned shape: `[usize; R]` or `Vec<usize>`.
    type Owned: Clone + Debug + PartialEq + Eq + Hash + AsRef<[usize]> + IntoShape<Dim = Self>;
    /// The rank when it is part of the type (`Some(R)` for `Rank<R>`).
    const RANK: Option<usize>;

    #[doc(hidden)]
    fn shape_of(axes: &Self::Axes) -> &Self::Shape;
    #[doc(hidden)]
    fn index_slice<'s>(index: &'s Self::Index<'_>) -> &'s [usize];
    #[doc(hidden)]
    fn index_of(axes: &Self::Axes) -> Self::Index<'_>;
    #[doc(hidden)]
    fn to_owned(axes: &Self::Axes) -> Self::Owned;
}

impl<const R: usize> Dimension for Rank<R> {
    type Axes = [usize; R];
    type Shape = [usize; R];
    type Index<'i> = [usize; R];
    type Owned = [usize; R];
    const RANK: Option<usize> = Some(R);

    #[inline]
    fn shape_of(axes: &[usize; R]) -> &[usize; R] {
        axes
    }
    #[inline]
    fn index_slice(index: &[usize; R]) -> &[usize] {
        index
    }
    #[inline]
    fn index_of(axes: &[usize; R]) -> [usize; R] {
        *axes
    }
    #[inline]
    fn to_owned(axes: &[usize; R]) -> [usize; R] {
        *axes
    }
}

impl Dimension for DynRank {
    type Axes = DynDims;
    type Shape = [usize];
    type Index<'i> = &'i [usize];
    type Owned = Vec<usize>;
    const RANK: Option<usize> = None;

    #[inline]
    fn shape_of(axes: &DynDims) -> &[usize] {
        axes.as_slice()
    }
    #[inline]
    fn index_slice<'s>(index: &'s &[usize]) -> &'s [usize] {
        index
    }
    #[inline]
    fn index_of(axes: &DynDims) -> &[usize] {
        axes.as_slice()
    }
    fn to_owned(axes: &DynDims) -> Vec<usize> {
        axes.as_slice().to_vec()
    }
}

/// A shape argument, and the dimension it gives: `[usize; S]` gives
/// `Rank<S>`; `&[usize]`, `&[usize; N]`, `Vec<usize>` and `&Vec<usize>` give
/// [`DynRank`]. Sealed.
///
/// So `Tensor::from_vec([2, 3], v)` is a `Tensor<2>`, `DynTensor::from_vec(vec![2, 3], v)`
/// a `DynTensor`, and `view.reshape([6])` a rank-1 view whatever `view`'s
/// dimension was (`dyn_view.reshape([2, 3])?` fixes the rank in the type).
///
/// ```
/// use llm_from_scratch::tensor::{DynTensor, Tensor, View};
/// let t = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let flat: View<'_, 1> = t.view().reshape([6])?;
/// let d = DynTensor::from_vec(vec![3, 2], flat.iter().copied().collect())?;
/// assert_eq!(d.view().reshape(&[6])?.shape(), &[6]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a shape: pass `[usize; N]` (rank in the type) or `&[usize]` / `Vec<usize>` (rank at run time)",
    label = "expected a shape"
)]
pub trait IntoShape: sealed::Sealed {
    /// The dimension of the shape.
    type Dim: Dimension;
    /// The shape as the layout's axis list, for the operation `op`.
    ///
    /// # Errors
    /// [`Error::RankTooLarge`] for a dynamic shape of more than
    /// [`MAX_DYN_RANK`] axes.
    #[doc(hidden)]
    fn into_axes(self, op: &'static str) -> Result<<Self::Dim as Dimension>::Axes, Error>;
}

impl<const N: usize> IntoShape for [usize; N] {
    type Dim = Rank<N>;
    #[inline]
    fn into_axes(self, _op: &'static str) -> Result<[usize; N], Error> {
        Ok(self)
    }
}

/// A dynamic axis list of at most [`MAX_DYN_RANK`] axes.
pub(crate) fn dyn_axes(axes: &[usize], op: &'static str) -> Result<DynDims, Error> {
    DynDims::try_from_slice(axes).map_err(|rank| Error::RankTooLarge {
        op,
        rank,
        maximum: MAX_DYN_RANK,
    })
}

impl<const N: usize> IntoShape for &[usize; N] {
    type Dim = DynRank;
    fn into_axes(self, op: &'static str) -> Result<DynDims, Error> {
        dyn_axes(self, op)
    }
}

impl IntoShape for &[usize] {
    type Dim = DynRank;
    fn into_axes(self, op: &'static str) -> Result<DynDims, Error> {
        dyn_axes(self, op)
    }
}

impl IntoShape for Vec<usize> {
    type Dim = DynRank;
    fn into_axes(self, op: &'static str) -> Result<DynDims, Error> {
        dyn_axes(&self, op)
    }
}

impl IntoShape for &Vec<usize> {
    type Dim = DynRank;
    fn into_axes(self, op: &'static str) -> Result<DynDims, Error> {
        dyn_axes(self, op)
    }
}
