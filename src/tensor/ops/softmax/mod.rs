//! `softmax_axis`: the numerically stable softmax along one axis, fused.

mod causal;
mod kernel;
mod row;

pub(crate) use causal::Causal;
pub use causal::{causal_softmax, causal_softmax_into};

use super::widen::{into_narrowed, narrow, widen};
use super::{check_output_shape, output_buffer, output_zeroed, owner};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::checked_len;
use crate::tensor::traverse::simd;

/// The checks of `softmax_axis` (the public function `op`): the axis, then
/// the output's overflow. Returns the output's element count.
fn softmax_len(shape: &[usize], axis: usize, op: &'static str) -> Result<usize, Error> {
    let rank = shape.len();
    if axis >= rank {
        return Err(Error::AxisOutOfBounds { op, axis, rank });
    }
    checked_len(shape, op)
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
/// composition `m = max_axis(x, axis, KeepDim)`, `e = sub(x, m).exp()`,
/// `z = sum_axis(e, axis, KeepDim)`, `y = div(e, z)`: the same operations
/// with the same operands per element (the max policy's `m`, the crate's
/// own `exp` ([`Function::Exp`](crate::tensor::ops::Function), 1 ulp), the
/// fixed-tree sum of `sum_axis`, one division). So a group holding a NaN is all
/// NaN, a group whose maximum is `+inf` is all NaN (`inf - inf`), and a fully
/// masked group (all `-inf`) is all NaN, as in PyTorch; `-inf` next to a
/// finite value gives exactly 0. But fused: the input is read from memory
/// once (for the maxima) and the output written once, the exponentials go
/// straight into the output and are summed and divided there while still
/// in cache; nothing is allocated but the output. An axis of extent 0 gives
/// an empty result (not `EmptyMaxAxis`: there is nothing to normalize).
///
/// # Errors
/// [`Error::AxisOutOfBounds`] if `axis >= R` (always for rank 0), then
/// [`Error::ShapeOverflow`] for a shape whose row-major strides overflow
/// (only possible for some empty views), then [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let scores = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 0.0, f64::NEG_INFINITY, 0.0])?;
/// let p = softmax_axis(&scores, 1)?; // [2, 3] -> [2, 3], rows sum to 1
/// assert_eq!(&p.as_slice()[3..], &[0.5, 0.0, 0.5]); // a masked (-inf) score gets 0
/// // Bit-identical to the four-call composition (with the crate's `exp`;
/// // std's `f64::exp` may differ in the last bit):
/// let m = max_axis(&scores, 1, KeepDim)?;
/// let e = sub(&scores, &m)?.exp()?;
/// let z = sum_axis(&e, 1, KeepDim)?;
/// assert_eq!(p, map_binary(&e, &z, |e, z| e / z)?);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn softmax_axis<D: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    let op = "softmax_axis";
    let input = input.as_array();
    let len = softmax_len(input.layout.shape(), axis, op)?;
    let widened = widen(input, op)?;
    let input = widened.view();
    let input = input.strided();
    let threads = softmax_threads(len);
    let values = if threads <= 1 {
        let mut values = output_buffer(len, op)?;
        kernel::softmax(input, axis, len, &mut values);
        values
    } else {
        let mut values = output_zeroed(len, threads, op)?;
        kernel::softmax_blocks(input, axis, &mut values, threads);
        values
    };
    narrow(owner(D::Axes::from_slice(input.shape), values, op)?, op)
}

/// [`softmax_axis`] into `out` (the input's shape), reusing its storage;
/// allocates nothing.
///
/// # Errors
/// As for [`softmax_axis`] but no allocation, then
/// [`Error::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let scores = Tensor::from_vec([1, 2], vec![0.0, f64::NEG_INFINITY])?;
/// let mut p = Tensor::zeros([1, 2])?;
/// softmax_axis_into(&scores, 1, &mut p)?;
/// assert_eq!(p.as_slice(), &[1.0, 0.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn softmax_axis_into<D: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    out: &mut ArrayBase<Vec<T>, D>,
) -> Result<(), Error> {
    let op = "softmax_axis_into";
    let input = input.as_array();
    let len = softmax_len(input.layout.shape(), axis, op)?;
    check_output_shape(input.layout.shape(), out.layout.shape(), op)?;
    let widened = widen(input, op)?;
    into_narrowed(&mut out.data, op, |out| {
        kernel::softmax_blocks(widened.view().strided(), axis, out, softmax_threads(len));
        Ok(())
    })
}

impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// [`softmax_axis`] as a method: the stable softmax along `axis`, fused,
    /// bit-identical to its composition.
    ///
    /// # Errors
    /// As for [`softmax_axis`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let scores = Tensor::from_vec([1, 2], vec![0.0, 0.0])?;
    /// assert_eq!(scores.softmax_axis(1)?.as_slice(), &[0.5, 0.5]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn softmax_axis(&self, axis: usize) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        softmax_axis(self, axis)
    }
}
