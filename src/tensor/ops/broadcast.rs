//! `broadcast_shape`: NumPy's trailing-axis rule, with the output rank in
//! the type for typed shapes.

use crate::error::Error;
use crate::tensor::shape::broadcast::broadcast_into;
use crate::tensor::shape::dimension::{Dimension, DynRank};
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::rank::{BroadcastRank, Rank};

mod sealed {
    pub trait Sealed {}
    impl<const N: usize> Sealed for [usize; N] {}
    impl Sealed for [usize] {}
    impl Sealed for Vec<usize> {}
}

/// A shape as the arrays return it (`shape()`): `[usize; N]` for a typed
/// rank, `[usize]` (or a `Vec<usize>`) for a dynamic one. Sealed.
pub trait ShapeRef: sealed::Sealed {
    /// The dimension of the shape.
    type Dim: Dimension;
    /// The extents.
    #[doc(hidden)]
    fn extents(&self) -> &[usize];
}

impl<const N: usize> ShapeRef for [usize; N] {
    type Dim = Rank<N>;
    fn extents(&self) -> &[usize] {
        self
    }
}

impl ShapeRef for [usize] {
    type Dim = DynRank;
    fn extents(&self) -> &[usize] {
        self
    }
}

impl ShapeRef for Vec<usize> {
    type Dim = DynRank;
    fn extents(&self) -> &[usize] {
        self
    }
}

/// The shape two operands broadcast to, by NumPy's rule (numpy.org,
/// "Broadcasting"): right-align the shapes, treat missing leading extents
/// as 1; per axis, equal extents pass and an extent 1 yields to the other
/// (so 0 with 1 gives 0).
///
/// Shapes: `[usize; L]` with `[usize; M]` -> `[usize; max(L, M)]`, the
/// output rank inferred through [`BroadcastRank`] (ranks 0..=8); two
/// dynamic shapes (`&[usize]`) give a `Vec<usize>`. Pass shapes as the
/// arrays return them: `broadcast_shape(x.shape(), bias.shape())`. So here
/// an array literal `&[2, 3]` is a typed shape (unlike a shape argument of
/// `reshape`, where `&[..]` asks for a dynamic result): pass a slice
/// (`&v[..]`, a `Vec`) for a dynamic one.
///
/// # Errors
/// Compatibility over all axes first, then overflow:
/// - [`Error::IncompatibleBroadcast`] at the leftmost output axis whose
///   extents differ with neither being 1, with both extents;
/// - [`Error::ShapeOverflow`] if the output's element count overflows
///   (`[0, usize::MAX, 1]` with `[1, 1, 2]`).
///
/// ```
/// use llm_from_scratch::{tensor::ops::broadcast_shape, Error};
/// assert_eq!(broadcast_shape(&[2, 1, 3], &[4, 3])?, [2, 4, 3]);
/// assert_eq!(broadcast_shape(&[0, 3], &[1, 3])?, [0, 3]);
/// assert_eq!(
///     broadcast_shape(&[2, 3], &[2]),
///     Err(Error::IncompatibleBroadcast { op: "broadcast_shape", axis: 1, left_dimension: 3, right_dimension: 2 })
/// );
/// let (left, right): (&[usize], &[usize]) = (&[2, 1, 3], &[4, 3]);
/// assert_eq!(broadcast_shape(left, right)?, vec![2, 4, 3]); // dynamic shapes
/// # Ok::<(), Error>(())
/// ```
pub fn broadcast_shape<A, B, O>(left: &A, right: &B) -> Result<O::Owned, Error>
where
    A: ShapeRef + ?Sized,
    B: ShapeRef + ?Sized,
    A::Dim: BroadcastRank<B::Dim, Output = O>,
    O: Dimension,
{
    let (left, right) = (left.extents(), right.extents());
    let mut output = O::Axes::zeros(left.len().max(right.len()));
    broadcast_into(left, right, output.as_mut_slice(), "broadcast_shape")?;
    Ok(O::to_owned(&output))
}
