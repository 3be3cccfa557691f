//! `add_assign`, `sub_assign`, `mul_assign`, `div_assign`: the arithmetic
//! in place on a mutable view, the right-hand side broadcast to its shape.

use super::kernel::Arith;
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Writable;
use crate::tensor::element::Element;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::rank::RankAtMost;

impl<S: Writable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// `x <- op(x, s)` at every position, `s` from `source` broadcast to
    /// this view's shape (the rule of [`assign`](ArrayBase::assign)).
    fn arith_assign<E: Dimension + RankAtMost<D>>(
        &mut self,
        source: &(impl AsArray<E, S::Elem> + ?Sized),
        op: Arith,
    ) -> Result<(), Error> {
        let [_, _, name] = op.names();
        self.zip_with(source, |x, s| op.apply(x, s), name)
    }

    /// `x <- x + s` in place at every position of this mutable view (or
    /// piece), `s` read from `source` broadcast to this view's shape
    /// (NumPy's `x += s`, PyTorch's `x.add_(s)`): the same value, bit
    /// for bit, as [`add()`](crate::tensor::ops::add) writes, in logical row-major order. GPT-2's residual add: `x.view_mut().add_assign(&attn)?`.
    /// An owner is written through `view_mut()`.
    ///
    /// # Errors
    /// [`Error::BroadcastRankTooSmall`] if a dynamic source has more axes;
    /// [`Error::IncompatibleBroadcast`] (`op: "add_assign"`) at the leftmost
    /// axis where the source's extent is neither this view's nor 1. Nothing
    /// is written then.
    ///
    /// ```
    /// use llm_from_scratch::{prelude::*, Error};
    /// let mut x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let s = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// x.view_mut().add_assign(&s)?; // [2, 2] += [2]
    /// assert_eq!(x.as_slice(), &[11.0, 22.0, 13.0, 24.0]);
    /// let three = Tensor::<1>::zeros([3])?;
    /// assert!(matches!(
    ///     x.view_mut().add_assign(&three),
    ///     Err(Error::IncompatibleBroadcast { op: "add_assign", .. })
    /// ));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn add_assign<E: Dimension + RankAtMost<D>>(
        &mut self,
        source: &(impl AsArray<E, S::Elem> + ?Sized),
    ) -> Result<(), Error> {
        self.arith_assign(source, Arith::Add)
    }

    /// `x <- x - s` in place at every position of this mutable view (or
    /// piece), `s` read from `source` broadcast to this view's shape
    /// (NumPy's `x -= s`, PyTorch's `x.sub_(s)`): the same value, bit
    /// for bit, as [`sub()`](crate::tensor::ops::sub) writes, in logical row-major order. Centering for LayerNorm: `x.view_mut().sub_assign(&mean)?` with the mean kept as `[T, 1]`.
    /// An owner is written through `view_mut()`.
    ///
    /// # Errors
    /// [`Error::BroadcastRankTooSmall`] if a dynamic source has more axes;
    /// [`Error::IncompatibleBroadcast`] (`op: "sub_assign"`) at the leftmost
    /// axis where the source's extent is neither this view's nor 1. Nothing
    /// is written then.
    ///
    /// ```
    /// use llm_from_scratch::{prelude::*, Error};
    /// let mut x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let s = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// x.view_mut().sub_assign(&s)?; // [2, 2] -= [2]
    /// assert_eq!(x.as_slice(), &[-9.0, -18.0, -7.0, -16.0]);
    /// let three = Tensor::<1>::zeros([3])?;
    /// assert!(matches!(
    ///     x.view_mut().sub_assign(&three),
    ///     Err(Error::IncompatibleBroadcast { op: "sub_assign", .. })
    /// ));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn sub_assign<E: Dimension + RankAtMost<D>>(
        &mut self,
        source: &(impl AsArray<E, S::Elem> + ?Sized),
    ) -> Result<(), Error> {
        self.arith_assign(source, Arith::Sub)
    }

    /// `x <- x * s` in place at every position of this mutable view (or
    /// piece), `s` read from `source` broadcast to this view's shape
    /// (NumPy's `x *= s`, PyTorch's `x.mul_(s)`): the same value, bit
    /// for bit, as [`mul()`](crate::tensor::ops::mul) writes, in logical row-major order. A norm's gain: `x.view_mut().mul_assign(&gamma)?` with `gamma: [C]`.
    /// An owner is written through `view_mut()`.
    ///
    /// # Errors
    /// [`Error::BroadcastRankTooSmall`] if a dynamic source has more axes;
    /// [`Error::IncompatibleBroadcast`] (`op: "mul_assign"`) at the leftmost
    /// axis where the source's extent is neither this view's nor 1. Nothing
    /// is written then.
    ///
    /// ```
    /// use llm_from_scratch::{prelude::*, Error};
    /// let mut x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let s = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// x.view_mut().mul_assign(&s)?; // [2, 2] *= [2]
    /// assert_eq!(x.as_slice(), &[10.0, 40.0, 30.0, 80.0]);
    /// let three = Tensor::<1>::zeros([3])?;
    /// assert!(matches!(
    ///     x.view_mut().mul_assign(&three),
    ///     Err(Error::IncompatibleBroadcast { op: "mul_assign", .. })
    /// ));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn mul_assign<E: Dimension + RankAtMost<D>>(
        &mut self,
        source: &(impl AsArray<E, S::Elem> + ?Sized),
    ) -> Result<(), Error> {
        self.arith_assign(source, Arith::Mul)
    }

    /// `x <- x / s` in place at every position of this mutable view (or
    /// piece), `s` read from `source` broadcast to this view's shape
    /// (NumPy's `x /= s`, PyTorch's `x.div_(s)`): the same value, bit
    /// for bit, as [`div()`](crate::tensor::ops::div) writes, in logical row-major order. Normalizing rows: `e.view_mut().div_assign(&sums)?` with the sums kept as `[T, 1]`.
    /// An owner is written through `view_mut()`.
    ///
    /// # Errors
    /// [`Error::BroadcastRankTooSmall`] if a dynamic source has more axes;
    /// [`Error::IncompatibleBroadcast`] (`op: "div_assign"`) at the leftmost
    /// axis where the source's extent is neither this view's nor 1. Nothing
    /// is written then.
    ///
    /// ```
    /// use llm_from_scratch::{prelude::*, Error};
    /// let mut x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let s = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// x.view_mut().div_assign(&s)?; // [2, 2] /= [2]
    /// assert_eq!(x.as_slice(), &[0.1, 0.1, 0.3, 0.2]);
    /// let three = Tensor::<1>::zeros([3])?;
    /// assert!(matches!(
    ///     x.view_mut().div_assign(&three),
    ///     Err(Error::IncompatibleBroadcast { op: "div_assign", .. })
    /// ));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn div_assign<E: Dimension + RankAtMost<D>>(
        &mut self,
        source: &(impl AsArray<E, S::Elem> + ?Sized),
    ) -> Result<(), Error> {
        self.arith_assign(source, Arith::Div)
    }
}
