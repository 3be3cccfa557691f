//! `unary` and `unary_into`: the crate's named elementwise functions
//! ([`Function`]: `exp`, `silu`, `gelu_tanh`, ...) over any readable array,
//! SIMD and threaded; the methods `x.exp()`, `x.silu()`, ... are in
//! `methods.rs`.

pub(crate) mod kernel;
mod methods;

use super::{check_output_shape, output_zeroed, owner};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::element::Element;
pub use crate::tensor::math::apply::Function;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::checked_len;
use crate::tensor::traverse::simd::tuning;
use kernel::{unary_blocks, unary_threads};

/// [`unary`] reporting its errors as the public function `op`.
pub(crate) fn unary_as<D: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    function: Function,
    op: &'static str,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    let input = input.as_array();
    let input = input.strided();
    let len = checked_len(input.shape, op)?;
    let tuning = tuning();
    let threads = unary_threads::<T>(len, tuning);
    let mut values = output_zeroed(len, threads, op)?;
    unary_blocks(function, input, &mut values, tuning, threads);
    owner(D::Axes::from_slice(input.shape), values, op)
}

/// Applies one of the crate's named elementwise functions to every value,
/// into a new owner: `y[i] = function(x[i])`.
///
/// Shapes: `[..]` -> the same shape and dimension (typed or dynamic).
/// Elements: `f32` and `f64` are computed directly; `f16` and `bf16` are
/// widened to `f32`, computed there and rounded to the element type once
/// (as PyTorch does on the CPU). ≈ NumPy ufuncs (`np.exp`, ...) and
/// PyTorch's `torch.exp`, `torch.nn.functional.silu`, `gelu(approximate=
/// "tanh")`, ...; the functions and their accuracy are listed at
/// [`Function`].
///
/// Numerics: every element goes through the same vector code, so the
/// result is bit-identical for every SIMD level (AVX-512, AVX2, the
/// baseline), every thread count and every layout of the same logical
/// values (contiguous, strided, transposed, broadcast), and equal to the
/// scalar model of each function. Large outputs (about 1 MiB of values
/// read and written) are split into contiguous blocks over rayon's
/// current pool; contiguous `f32` / `f64` inputs are mapped slice by slice,
/// other layouts and half types through a small stack buffer (no heap
/// scratch).
///
/// # Errors
/// [`Error::ShapeOverflow`] for an empty view whose shape has no row-major
/// layout; [`Error::AllocationFailed`] if the output cannot be reserved.
/// Errors name `unary` (the methods name themselves: `exp`, `silu`, ...).
///
/// ```
/// use llm_from_scratch::{prelude::*, tensor::bf16};
/// let x = Tensor::from_vec([2, 2], vec![0.0_f32, 1.0, -1.0, 2.0])?;
/// let e = unary(&x, Function::Exp)?; // [2, 2] -> [2, 2]
/// assert_eq!(e.as_slice()[0], 1.0);
/// let want = std::f32::consts::E;
/// assert!((e.as_slice()[1] - want).abs() <= want * f32::EPSILON); // within 1 ulp
/// // A transposed view gives the same bits as its contiguous copy.
/// let t = x.view().transpose(0, 1)?;
/// assert_eq!(unary(&t, Function::Exp)?, unary(&t.materialize()?, Function::Exp)?);
/// // Dynamic rank and half precision (computed in f32, rounded once).
/// let h = Tensor::from_vec([2], vec![bf16::from_f32(1.0), bf16::from_f32(4.0)])?.into_dyn();
/// assert_eq!(unary(&h, Function::Sqrt)?.as_slice()[1], bf16::from_f32(2.0));
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn unary<D: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    function: Function,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    unary_as(input, function, "unary")
}

/// [`unary`] into a caller's owner of the same shape, reusing its storage;
/// allocates nothing (half types are staged through a stack buffer).
///
/// # Errors
/// [`Error::OutputShapeMismatch`] (`op: "unary_into"`) if `out` has
/// another shape than the input; nothing is written then.
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// let x = Tensor::from_vec([3], vec![1.0_f64, 4.0, 9.0])?;
/// let mut out = Tensor::zeros([3])?;
/// unary_into(&x, Function::Sqrt, &mut out)?;
/// assert_eq!(out.as_slice(), &[1.0, 2.0, 3.0]);
/// let mut wrong = Tensor::zeros([4])?;
/// assert!(matches!(
///     unary_into(&x, Function::Sqrt, &mut wrong),
///     Err(Error::OutputShapeMismatch { op: "unary_into", .. })
/// ));
/// # Ok::<(), Error>(())
/// ```
pub fn unary_into<D: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    function: Function,
    out: &mut ArrayBase<Vec<T>, D>,
) -> Result<(), Error> {
    let op = "unary_into";
    let input = input.as_array();
    check_output_shape(input.layout.shape(), out.layout.shape(), op)?;
    let tuning = tuning();
    let threads = unary_threads::<T>(out.data.len(), tuning);
    unary_blocks(function, input.strided(), &mut out.data, tuning, threads);
    Ok(())
}

#[cfg(test)]
mod tests;
