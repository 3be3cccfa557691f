//! `cast`: every value converted to another float element type, correctly
//! rounded (to nearest, ties to even).

use super::map::unary_core;
use super::{output_buffer, owner};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::checked_len;

/// Converts every value to the element type `U` into a new row-major
/// owner: `f32` to `bf16` for half the bytes, `f16` to `f32` to compute,
/// `f64` to `f32`, ... ≈ PyTorch `x.to(dtype)`, NumPy `astype`.
///
/// Shapes: the same shape and dimension. Values are rounded once, to
/// nearest with ties to even, from every source type (also `f64` to `f16`,
/// where a conversion through `f32` would round twice; NumPy rounds once
/// too, PyTorch does not); overflow gives ±infinity, a NaN stays a NaN (its
/// payload is not kept). Widening (`f16` to `f32`, `bf16` to `f32`, `f32`
/// to `f64`) is exact.
///
/// # Errors
/// [`Error::ShapeOverflow`] for an empty view whose shape has no row-major
/// layout; [`Error::AllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// use llm_from_scratch::tensor::{bf16, f16};
/// let x = Tensor::from_vec([3], vec![1.0_f32, 1.0 + 1.0 / 2048.0, 70000.0])?; // 1 + 2^-11: an f16 tie
/// let h: Tensor<1, f16> = x.cast()?;
/// assert_eq!(h.as_slice(), &[f16::from_f32(1.0), f16::from_f32(1.0), f16::INFINITY]); // tie to even; overflow
/// let b = cast::<bf16, _, _>(&x)?;
/// assert_eq!(b.cast::<f32>()?.as_slice(), &[1.0, 1.0, 70144.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn cast<U: Element, D: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
) -> Result<ArrayBase<Vec<U>, D>, Error> {
    let op = "cast";
    let input = input.as_array();
    let input = input.strided();
    let mut values = output_buffer(checked_len(input.shape, op)?, op)?;
    unary_core(input, |x: T| U::from_f64(x.to_f64()), &mut values);
    owner(D::Axes::from_slice(input.shape), values, op)
}

impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// [`cast`] as a method: the values as element type `U`, correctly rounded.
    ///
    /// # Errors
    /// As for [`cast`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// use llm_from_scratch::tensor::f16;
    /// let x = Tensor::from_vec([2], vec![0.1_f64, -2.5])?;
    /// assert_eq!(x.cast::<f16>()?.as_slice(), &[f16::from_bits(0x2e66), f16::from_f32(-2.5)]); // 0.1 rounded once
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn cast<U: Element>(&self) -> Result<ArrayBase<Vec<U>, D>, Error> {
        cast(self)
    }
}
