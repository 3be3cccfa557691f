//! `softmax_axis`: the numerically stable softmax along one axis, fused.

mod kernel;

use super::{check_output_shape, output_buffer};
use crate::tensor::array::owned::Tensor;
use crate::tensor::array::view::AsView;
use crate::tensor::error::TensorOpError;
use crate::tensor::float::Float;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::checked_len;
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::alloc::try_filled_parallel;
use crate::tensor::traverse::simd;

/// The checks of `softmax_axis`: the axis (as a reduction's), then the
/// output's overflow. Returns the output shape (the input's) and its length.
pub(crate) fn softmax_shape<D: Dims>(
    shape: &[usize],
    axis: usize,
) -> Result<(D, usize), TensorOpError> {
    let rank = shape.len();
    if axis >= rank {
        return Err(TensorOpError::ReductionAxisOutOfBounds { axis, rank });
    }
    Ok((D::from_slice(shape), checked_len(shape)?))
}

/// Work per value of a softmax against the flop threshold: one `exp`
/// (std's) plus a max step, a sum step and a division, about 4 ns here
/// (a masked `[1, 256, 256]` f32 softmax takes 230-330 µs), what ~256 flops
/// of the matmul kernel cost; so from 16 Ki values on, the groups are
/// split over rayon's threads.
const FLOPS_PER_VALUE: u64 = 256;

/// Threads for a softmax over `len` values.
fn softmax_threads(len: usize) -> usize {
    simd::threads_for((len as u64).saturating_mul(FLOPS_PER_VALUE), simd::tuning())
}

/// Fresh-output `softmax_axis` of any rank: the input's shape and the values.
pub(crate) fn softmax_fresh<F: Float, D: Dims>(
    input: Strided<'_, '_, F>,
    axis: usize,
) -> Result<(D, Vec<F>), TensorOpError> {
    let (shape, len) = softmax_shape::<D>(input.shape, axis)?;
    let threads = softmax_threads(len);
    if threads <= 1 {
        let mut values = output_buffer(len)?;
        kernel::softmax(input, axis, len, &mut values);
        return Ok((shape, values));
    }
    let mut values = try_filled_parallel(len, F::ZERO, threads).map_err(|failed| {
        TensorOpError::OutputAllocationFailed {
            elements: failed.elements,
        }
    })?;
    kernel::softmax_blocks(input, axis, &mut values, threads);
    Ok((shape, values))
}

/// `softmax_axis` into a caller's row-major output of shape `out_shape`.
pub(crate) fn softmax_into<F: Float>(
    input: Strided<'_, '_, F>,
    axis: usize,
    out_shape: &[usize],
    out: &mut [F],
) -> Result<(), TensorOpError> {
    let (shape, len) = softmax_shape::<DynDims>(input.shape, axis)?;
    check_output_shape(shape.as_slice(), out_shape)?;
    kernel::softmax_blocks(input, axis, out, softmax_threads(len));
    Ok(())
}

/// The softmax along `axis`: `y_i = exp(x_i - m) / Σ_j exp(x_j - m)` per
/// group, with `m` the group's maximum (the numerically stable form).
///
/// Shapes: `[..]` -> the same shape, rank `R` kept; each group (a position
/// of the other axes) sums to 1 up to rounding. ≈ PyTorch
/// `torch.softmax(input, dim)`, NumPy/SciPy `scipy.special.softmax(a,
/// axis)`, candle `candle_nn::ops::softmax` / `softmax_last_dim`. GPT-2
/// attention: the masked scores `[B, H, T, T]` over axis 3.
///
/// Numerics: bit-identical, for every layout of the input, to the
/// composition `m = max_axis(x, axis, KeepDim)`, `e = map_binary(x, m, |x,
/// m| (x - m).exp())`, `z = sum_axis(e, axis, KeepDim)`, `y = map_binary(e,
/// z, |e, z| e / z)`: the same operations in the same order per element (the
/// max policy's `m`, `exp` from the standard library, the sum folded in
/// ascending order from +0.0, one division). So a group holding a NaN is all
/// NaN, a group whose maximum is `+inf` is all NaN (`inf - inf`), and a fully
/// masked group (all `-inf`) is all NaN, as in PyTorch; `-inf` next to a
/// finite value gives exactly 0. But fused: the input is read from memory
/// once (for the maxima) and the output written once, the exponentials go
/// straight into the output and are summed and divided there while still
/// in cache; nothing is allocated but the output. An axis of extent 0 gives
/// an empty result (not `EmptyMaxAxis`: there is nothing to normalize).
///
/// # Errors
/// [`TensorOpError::ReductionAxisOutOfBounds`] if `axis >= R` (always for
/// rank 0), then `TensorOpError::Tensor(TensorError::ShapeOverflow)` for a
/// shape whose row-major strides overflow (only possible for some empty
/// views), then [`TensorOpError::OutputAllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let scores = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 0.0, f64::NEG_INFINITY, 0.0])?;
/// let p = softmax_axis(&scores, 1)?; // [2, 3] -> [2, 3], rows sum to 1
/// assert_eq!(&p.as_slice()[3..], &[0.5, 0.0, 0.5]); // a masked (-inf) score gets 0
/// // Bit-identical to the four-call composition:
/// let m = max_axis(&scores, 1, KeepDim)?;
/// let e = map_binary(&scores, &m, |x, m| (x - m).exp())?;
/// let z = sum_axis(&e, 1, KeepDim)?;
/// assert_eq!(p, map_binary(&e, &z, |e, z| e / z)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn softmax_axis<const R: usize, F: Float>(
    input: &(impl AsView<R, F> + ?Sized),
    axis: usize,
) -> Result<Tensor<R, F>, TensorOpError> {
    let view = input.as_view();
    let (shape, values) = softmax_fresh::<F, [usize; R]>(view.strided(), axis)?;
    Ok(Tensor::from_vec(shape, values)?)
}

/// [`softmax_axis`] into `out` (the input's shape), reusing its storage;
/// allocates nothing.
///
/// # Errors
/// As for [`softmax_axis`] but no allocation, then
/// [`TensorOpError::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let scores = Tensor::from_vec([1, 2], vec![0.0, f64::NEG_INFINITY])?;
/// let mut p = Tensor::zeros([1, 2])?;
/// softmax_axis_into(&scores, 1, &mut p)?;
/// assert_eq!(p.as_slice(), &[1.0, 0.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn softmax_axis_into<const R: usize, F: Float>(
    input: &(impl AsView<R, F> + ?Sized),
    axis: usize,
    out: &mut Tensor<R, F>,
) -> Result<(), TensorOpError> {
    let view = input.as_view();
    let shape = *out.shape();
    softmax_into(view.strided(), axis, &shape, out.as_mut_slice())
}
