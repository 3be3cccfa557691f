//! `add`, `sub`, `mul`, `div`: elementwise arithmetic with NumPy
//! broadcasting, as functions, `_into` forms and methods; the in-place
//! forms (`add_assign`, ...) are in `assign.rs`.
//!
//! Every public form is a thin call of one generic core with an [`Arith`]
//! value, so an operation is one variant, one closure arm and its names.

mod assign;
pub(crate) mod kernel;

use super::map::broadcast_of;
use super::{check_output_shape, output_zeroed, owner};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::rank::BroadcastRank;
use kernel::{Arith, arith_blocks, arith_threads};

/// The fresh form of `op`: broadcast, reserve, compute.
fn arith<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
    op: Arith,
) -> Result<ArrayBase<Vec<T>, O>, Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    let [name, _, _] = op.names();
    let (left, right) = (left.as_array(), right.as_array());
    let (left, right) = (left.strided(), right.strided());
    let (shape, len) = broadcast_of::<O::Axes>(left.shape, right.shape, name)?;
    let mut values = output_zeroed(len, arith_threads::<T>(len), name)?;
    arith_blocks(op, shape.as_slice(), left, right, &mut values);
    owner(shape, values, name)
}

/// The `_into` form of `op`: broadcast, check `out`, compute.
fn arith_into<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
    op: Arith,
    out: &mut ArrayBase<Vec<T>, O>,
) -> Result<(), Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    let [_, name, _] = op.names();
    let (left, right) = (left.as_array(), right.as_array());
    let (left, right) = (left.strided(), right.strided());
    let (shape, _) = broadcast_of::<DynDims>(left.shape, right.shape, name)?;
    check_output_shape(shape.as_slice(), out.layout.shape(), name)?;
    arith_blocks(op, shape.as_slice(), left, right, &mut out.data);
    Ok(())
}

/// The elementwise sum `left + right` after broadcasting the operands (NumPy's
/// rule, see [`broadcast_shape`](super::broadcast_shape); ≈ `np.add`,
/// `torch.add`); no operand is copied, broadcast axes are read with stride 0.
///
/// Shapes: `[L]` and `[M]` -> the broadcast shape, rank `max(L, M)`
/// inferred through [`BroadcastRank`] (a dynamic operand gives a dynamic
/// result). Elements: both operands of one [`Element`] type; `f32` / `f64`
/// are computed directly, `f16` / `bf16` in `f32` and rounded once, which
/// is the correctly rounded half-precision result (`f32` has more than
/// twice their precision plus two bits: Figueroa, "When is double
/// rounding innocuous?", 1995). One IEEE 754 operation per element, so the
/// result is bit-identical for every thread count, SIMD level and layout.
///
/// # Errors
/// - [`Error::IncompatibleBroadcast`] (`op: "add"`, the leftmost failing
///   output axis);
/// - [`Error::ShapeOverflow`] for an overflowing output;
/// - [`Error::AllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
/// let z = add(&x, &y)?; // [2, 2] and [2] -> [2, 2]
/// assert_eq!(z.as_slice(), &[11.0, 22.0, 13.0, 24.0]);
/// assert_eq!(z, x.map_binary(&y, |a, b| a + b)?);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn add<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
) -> Result<ArrayBase<Vec<T>, O>, Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    arith(left, right, Arith::Add)
}

/// [`add`] into a caller's owner of the broadcast shape, reusing its
/// storage; allocates nothing.
///
/// # Errors
/// [`Error::IncompatibleBroadcast`], then [`Error::OutputShapeMismatch`]
/// if `out` does not have the broadcast shape (both `op: "add_into"`).
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
/// let mut out = Tensor::zeros([2, 2])?;
/// add_into(&x, &y, &mut out)?;
/// assert_eq!(out.as_slice(), &[11.0, 22.0, 13.0, 24.0]);
/// let mut wrong = Tensor::zeros([1, 2])?;
/// assert!(matches!(
///     add_into(&x, &y, &mut wrong),
///     Err(Error::OutputShapeMismatch { op: "add_into", .. })
/// ));
/// # Ok::<(), Error>(())
/// ```
pub fn add_into<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
    out: &mut ArrayBase<Vec<T>, O>,
) -> Result<(), Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    arith_into(left, right, Arith::Add, out)
}

/// The elementwise difference `left - right` after broadcasting the operands (NumPy's
/// rule, see [`broadcast_shape`](super::broadcast_shape); ≈ `np.subtract`,
/// `torch.sub`); no operand is copied, broadcast axes are read with stride 0.
///
/// Shapes: `[L]` and `[M]` -> the broadcast shape, rank `max(L, M)`
/// inferred through [`BroadcastRank`] (a dynamic operand gives a dynamic
/// result). Elements: both operands of one [`Element`] type; `f32` / `f64`
/// are computed directly, `f16` / `bf16` in `f32` and rounded once, which
/// is the correctly rounded half-precision result (`f32` has more than
/// twice their precision plus two bits: Figueroa, "When is double
/// rounding innocuous?", 1995). One IEEE 754 operation per element, so the
/// result is bit-identical for every thread count, SIMD level and layout.
///
/// # Errors
/// - [`Error::IncompatibleBroadcast`] (`op: "sub"`, the leftmost failing
///   output axis);
/// - [`Error::ShapeOverflow`] for an overflowing output;
/// - [`Error::AllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
/// let z = sub(&x, &y)?; // [2, 2] and [2] -> [2, 2]
/// assert_eq!(z.as_slice(), &[-9.0, -18.0, -7.0, -16.0]);
/// assert_eq!(z, x.map_binary(&y, |a, b| a - b)?);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn sub<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
) -> Result<ArrayBase<Vec<T>, O>, Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    arith(left, right, Arith::Sub)
}

/// [`sub`] into a caller's owner of the broadcast shape, reusing its
/// storage; allocates nothing.
///
/// # Errors
/// [`Error::IncompatibleBroadcast`], then [`Error::OutputShapeMismatch`]
/// if `out` does not have the broadcast shape (both `op: "sub_into"`).
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
/// let mut out = Tensor::zeros([2, 2])?;
/// sub_into(&x, &y, &mut out)?;
/// assert_eq!(out.as_slice(), &[-9.0, -18.0, -7.0, -16.0]);
/// let mut wrong = Tensor::zeros([1, 2])?;
/// assert!(matches!(
///     sub_into(&x, &y, &mut wrong),
///     Err(Error::OutputShapeMismatch { op: "sub_into", .. })
/// ));
/// # Ok::<(), Error>(())
/// ```
pub fn sub_into<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
    out: &mut ArrayBase<Vec<T>, O>,
) -> Result<(), Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    arith_into(left, right, Arith::Sub, out)
}

/// The elementwise product `left * right` after broadcasting the operands (NumPy's
/// rule, see [`broadcast_shape`](super::broadcast_shape); ≈ `np.multiply`,
/// `torch.mul`); no operand is copied, broadcast axes are read with stride 0.
///
/// Shapes: `[L]` and `[M]` -> the broadcast shape, rank `max(L, M)`
/// inferred through [`BroadcastRank`] (a dynamic operand gives a dynamic
/// result). Elements: both operands of one [`Element`] type; `f32` / `f64`
/// are computed directly, `f16` / `bf16` in `f32` and rounded once, which
/// is the correctly rounded half-precision result (`f32` has more than
/// twice their precision plus two bits: Figueroa, "When is double
/// rounding innocuous?", 1995). One IEEE 754 operation per element, so the
/// result is bit-identical for every thread count, SIMD level and layout.
///
/// # Errors
/// - [`Error::IncompatibleBroadcast`] (`op: "mul"`, the leftmost failing
///   output axis);
/// - [`Error::ShapeOverflow`] for an overflowing output;
/// - [`Error::AllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
/// let z = mul(&x, &y)?; // [2, 2] and [2] -> [2, 2]
/// assert_eq!(z.as_slice(), &[10.0, 40.0, 30.0, 80.0]);
/// assert_eq!(z, x.map_binary(&y, |a, b| a * b)?);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn mul<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
) -> Result<ArrayBase<Vec<T>, O>, Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    arith(left, right, Arith::Mul)
}

/// [`mul`] into a caller's owner of the broadcast shape, reusing its
/// storage; allocates nothing.
///
/// # Errors
/// [`Error::IncompatibleBroadcast`], then [`Error::OutputShapeMismatch`]
/// if `out` does not have the broadcast shape (both `op: "mul_into"`).
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
/// let mut out = Tensor::zeros([2, 2])?;
/// mul_into(&x, &y, &mut out)?;
/// assert_eq!(out.as_slice(), &[10.0, 40.0, 30.0, 80.0]);
/// let mut wrong = Tensor::zeros([1, 2])?;
/// assert!(matches!(
///     mul_into(&x, &y, &mut wrong),
///     Err(Error::OutputShapeMismatch { op: "mul_into", .. })
/// ));
/// # Ok::<(), Error>(())
/// ```
pub fn mul_into<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
    out: &mut ArrayBase<Vec<T>, O>,
) -> Result<(), Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    arith_into(left, right, Arith::Mul, out)
}

/// The elementwise quotient `left / right` after broadcasting the operands (NumPy's
/// rule, see [`broadcast_shape`](super::broadcast_shape); ≈ `np.divide`,
/// `torch.div`); no operand is copied, broadcast axes are read with stride 0.
///
/// Shapes: `[L]` and `[M]` -> the broadcast shape, rank `max(L, M)`
/// inferred through [`BroadcastRank`] (a dynamic operand gives a dynamic
/// result). Elements: both operands of one [`Element`] type; `f32` / `f64`
/// are computed directly, `f16` / `bf16` in `f32` and rounded once, which
/// is the correctly rounded half-precision result (`f32` has more than
/// twice their precision plus two bits: Figueroa, "When is double
/// rounding innocuous?", 1995). One IEEE 754 operation per element, so the
/// result is bit-identical for every thread count, SIMD level and layout.
///
/// # Errors
/// - [`Error::IncompatibleBroadcast`] (`op: "div"`, the leftmost failing
///   output axis);
/// - [`Error::ShapeOverflow`] for an overflowing output;
/// - [`Error::AllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
/// let z = div(&x, &y)?; // [2, 2] and [2] -> [2, 2]
/// assert_eq!(z.as_slice(), &[0.1, 0.1, 0.3, 0.2]);
/// assert_eq!(z, x.map_binary(&y, |a, b| a / b)?);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn div<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
) -> Result<ArrayBase<Vec<T>, O>, Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    arith(left, right, Arith::Div)
}

/// [`div`] into a caller's owner of the broadcast shape, reusing its
/// storage; allocates nothing.
///
/// # Errors
/// [`Error::IncompatibleBroadcast`], then [`Error::OutputShapeMismatch`]
/// if `out` does not have the broadcast shape (both `op: "div_into"`).
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
/// let mut out = Tensor::zeros([2, 2])?;
/// div_into(&x, &y, &mut out)?;
/// assert_eq!(out.as_slice(), &[0.1, 0.1, 0.3, 0.2]);
/// let mut wrong = Tensor::zeros([1, 2])?;
/// assert!(matches!(
///     div_into(&x, &y, &mut wrong),
///     Err(Error::OutputShapeMismatch { op: "div_into", .. })
/// ));
/// # Ok::<(), Error>(())
/// ```
pub fn div_into<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
    out: &mut ArrayBase<Vec<T>, O>,
) -> Result<(), Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    arith_into(left, right, Arith::Div, out)
}

/// The arithmetic as methods of every readable array: `x.add(&y)?` is
/// `add(&x, &y)?`, with the same rules and errors.
impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// [`add()`]: `self + other` elementwise, broadcast.
    ///
    /// # Errors
    /// As for [`add()`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// assert_eq!(x.add(&y)?.as_slice(), &[11.0, 22.0, 13.0, 24.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn add<M: Dimension, O: Dimension>(
        &self,
        other: &(impl AsArray<M, S::Elem> + ?Sized),
    ) -> Result<ArrayBase<Vec<S::Elem>, O>, Error>
    where
        D: BroadcastRank<M, Output = O>,
    {
        add(self, other)
    }

    /// [`sub()`]: `self - other` elementwise, broadcast.
    ///
    /// # Errors
    /// As for [`sub()`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// assert_eq!(x.sub(&y)?.as_slice(), &[-9.0, -18.0, -7.0, -16.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn sub<M: Dimension, O: Dimension>(
        &self,
        other: &(impl AsArray<M, S::Elem> + ?Sized),
    ) -> Result<ArrayBase<Vec<S::Elem>, O>, Error>
    where
        D: BroadcastRank<M, Output = O>,
    {
        sub(self, other)
    }

    /// [`mul()`]: `self * other` elementwise, broadcast.
    ///
    /// # Errors
    /// As for [`mul()`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// assert_eq!(x.mul(&y)?.as_slice(), &[10.0, 40.0, 30.0, 80.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn mul<M: Dimension, O: Dimension>(
        &self,
        other: &(impl AsArray<M, S::Elem> + ?Sized),
    ) -> Result<ArrayBase<Vec<S::Elem>, O>, Error>
    where
        D: BroadcastRank<M, Output = O>,
    {
        mul(self, other)
    }

    /// [`div()`]: `self / other` elementwise, broadcast.
    ///
    /// # Errors
    /// As for [`div()`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let y = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// assert_eq!(x.div(&y)?.as_slice(), &[0.1, 0.1, 0.3, 0.2]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn div<M: Dimension, O: Dimension>(
        &self,
        other: &(impl AsArray<M, S::Elem> + ?Sized),
    ) -> Result<ArrayBase<Vec<S::Elem>, O>, Error>
    where
        D: BroadcastRank<M, Output = O>,
    {
        div(self, other)
    }
}
