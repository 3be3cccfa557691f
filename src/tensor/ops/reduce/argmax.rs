//! `argmax_axis`: the position of the value `max_axis` keeps.
//!
//! Same checks, output shape and max policy as `max_axis` (first NaN, else
//! the earliest of the largest, so `[-0.0, +0.0]` gives 0): the checks are
//! the reduction's own ([`reduce_core`]), a dense group's maximum is the
//! reduction kernel's ([`dense_max`]) and a strided group moves its index
//! exactly when the policy's step replaces the value ([`max_replaces`]).

use super::kernel::dense_max;
use super::{Reduction, reduce_core};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::float::{Float, max_replaces};
use crate::tensor::ops::widen::widen;
use crate::tensor::ops::{check_output_shape, output_buffer, owner};
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::row_major_strides;
use crate::tensor::shape::rank::ReduceDim;
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::groups::for_each_group;
use crate::tensor::traverse::parallel::{Split, for_each_block};
use crate::tensor::traverse::simd::{threads_for_bytes, tuning};

/// Shortest dense group worth the two-pass search (as `max_axis`'s dense kernel).
const DENSE_MIN: usize = 16;

/// How one group's argmax is found: data a test can inspect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArgmaxStrategy {
    /// A dense group (stride 1) of at least `DENSE_MIN` values: its maximum
    /// by the vectorized partial maxima, then the first position holding it
    /// (the first NaN when it is a NaN; `==`, so -0.0 and +0.0 match).
    Dense,
    /// One ascending pass carrying the kept value and its position.
    Sequential,
}

impl ArgmaxStrategy {
    /// The strategy for groups of `extent` values `stride` apart.
    pub(crate) fn of(extent: usize, stride: usize) -> Self {
        if stride == 1 && extent >= DENSE_MIN {
            ArgmaxStrategy::Dense
        } else {
            ArgmaxStrategy::Sequential
        }
    }
}

/// The position in a dense non-empty group of the value the max policy keeps.
fn dense_argmax<F: Float>(group: &[F]) -> usize {
    let kept = dense_max(group);
    let found = if kept.is_nan() {
        group.iter().position(|value| value.is_nan())
    } else {
        group.iter().position(|&value| value == kept)
    };
    found.unwrap_or(0)
}

/// The same, for `extent >= 1` values `stride` apart from `start`.
fn sequential_argmax<F: Float>(data: &[F], start: usize, stride: usize, extent: usize) -> usize {
    let (mut kept, mut at) = (data[start], 0);
    for i in 1..extent {
        let value = data[start + i * stride];
        if max_replaces(kept, value) {
            (kept, at) = (value, i);
        }
    }
    at
}

/// Writes every group's argmax into `out` (row-major over the reduced
/// shape); the axis must be non-empty.
fn argmax<F: Float>(input: Strided<'_, '_, F>, axis: usize, out: &mut [usize]) {
    if out.is_empty() {
        return;
    }
    let (extent, stride) = (input.shape[axis], input.strides[axis]);
    // The output's strides over the full shape with extent 1 on `axis`.
    let mut out_strides = DynDims::from_slice(input.shape);
    out_strides.as_mut_slice()[axis] = 1;
    let kept_shape = out_strides;
    // A checked output shape: its row-major strides fit.
    let _ = row_major_strides(
        kept_shape.as_slice(),
        out_strides.as_mut_slice(),
        "argmax_axis",
    );
    let strategy = ArgmaxStrategy::of(extent, stride);
    let (data, shape, strides) = (input.data, input.shape, input.strides);
    let out_strides = out_strides.as_slice();
    // Threads as for `max_axis`: contiguous blocks of groups, one task each
    // (a group's output offset is its position among the groups).
    let read = out
        .len()
        .saturating_mul(extent)
        .saturating_mul(size_of::<F>());
    let threads = threads_for_bytes(read, tuning());
    let split = Split {
        unit: 1,
        min_units: DENSE_MIN,
    };
    for_each_block(out, split, threads, |groups, block| {
        let first = groups.start;
        for_each_group(
            shape,
            strides,
            input.base,
            axis,
            out_strides,
            groups,
            |x, o| {
                block[o - first] = match strategy {
                    ArgmaxStrategy::Dense => dense_argmax(&data[x..x + extent]),
                    ArgmaxStrategy::Sequential => sequential_argmax(data, x, stride, extent),
                };
            },
        );
    });
}

/// The position along `axis` of the value [`max_axis`](super::max_axis)
/// keeps: the first NaN, else the earliest of the largest values (`-0.0`
/// and `+0.0` tie, so the earlier zero wins). Greedy decoding's next token.
///
/// Shapes: `[.., n, ..]` -> `[.., ..]` (`RemoveDim`) or `[.., 1, ..]`
/// (`KeepDim`), values in `0..n` as `usize`; see the
/// [`ops` module docs](crate::tensor::ops#reductions). ≈ PyTorch
/// `torch.argmax(input, dim, keepdim)` and NumPy `np.argmax(a, axis,
/// keepdims)` (both return the first occurrence of the maximum and treat
/// NaN as the maximum; NumPy also picks the first NaN), candle
/// `Tensor::argmax_keepdim`.
///
/// # Errors
/// As for `max_axis`, in this order: [`Error::AxisOutOfBounds`],
/// [`Error::EmptyMaxAxis`] (no position to return), then
/// [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let logits = Tensor::from_vec([2, 4], vec![0.5, 3.0, 3.0, -1.0, -0.0, 0.0, -2.0, -0.5])?;
/// let next = argmax_axis(&logits, 1, RemoveDim)?; // [2, 4] -> [2]
/// assert_eq!(next.as_slice(), &[1, 0]); // the earlier of the tied 3.0s; -0.0 before +0.0
/// assert_eq!(
///     argmax_axis(&logits, 2, KeepDim),
///     Err(llm_from_scratch::Error::AxisOutOfBounds { op: "argmax_axis", axis: 2, rank: 2 })
/// );
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn argmax_axis<D: Dimension, E: Dimension, T: Element, K: ReduceDim<D, Output = E>>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    keep: K,
) -> Result<ArrayBase<Vec<usize>, E>, Error> {
    let op = "argmax_axis";
    let input = input.as_array();
    let (shape, len) =
        reduce_core::<T, E::Axes>(input.strided(), axis, keep.keep(), Reduction::Max, op)?;
    let input = widen(input, op)?;
    let mut values = output_buffer(len, op)?;
    values.resize(len, 0);
    argmax(input.view().strided(), axis, &mut values);
    owner(shape, values, op)
}

/// [`argmax_axis`] into `out` (the reduced shape), reusing its storage.
///
/// # Errors
/// As for [`argmax_axis`] but no allocation; [`Error::OutputShapeMismatch`]
/// for another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let logits = Tensor::from_vec([2, 3], vec![0.1, 0.7, 0.2, 0.9, 0.05, 0.05])?;
/// let mut next = Tensor::<1, usize>::zeros([2])?;
/// argmax_axis_into(&logits, 1, RemoveDim, &mut next)?;
/// assert_eq!(next.as_slice(), &[1, 0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn argmax_axis_into<D: Dimension, E: Dimension, T: Element, K: ReduceDim<D, Output = E>>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    keep: K,
    out: &mut ArrayBase<Vec<usize>, E>,
) -> Result<(), Error> {
    let op = "argmax_axis_into";
    let input = input.as_array();
    let (shape, _) =
        reduce_core::<T, DynDims>(input.strided(), axis, keep.keep(), Reduction::Max, op)?;
    check_output_shape(shape.as_slice(), out.layout.shape(), op)?;
    let input = widen(input, op)?;
    argmax(input.view().strided(), axis, &mut out.data);
    Ok(())
}

impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// [`argmax_axis`] as a method: the position `max_axis` keeps (first
    /// NaN, else the earliest of the largest).
    ///
    /// # Errors
    /// As for [`argmax_axis`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let logits = Tensor::from_vec([2, 3], vec![0.1, 2.0, 2.0, 5.0, -1.0, 4.0])?;
    /// assert_eq!(logits.argmax_axis(1, RemoveDim)?.as_slice(), &[1, 0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn argmax_axis<E: Dimension, K: ReduceDim<D, Output = E>>(
        &self,
        axis: usize,
        keep: K,
    ) -> Result<ArrayBase<Vec<usize>, E>, Error> {
        argmax_axis(self, axis, keep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_strategies_point_at_the_kept_value() {
        assert_eq!(ArgmaxStrategy::of(16, 1), ArgmaxStrategy::Dense);
        assert_eq!(ArgmaxStrategy::of(15, 1), ArgmaxStrategy::Sequential);
        assert_eq!(ArgmaxStrategy::of(64, 3), ArgmaxStrategy::Sequential);
        let mut group = vec![-1.0_f64; 40];
        group[30] = -0.0;
        group[35] = 0.0;
        assert_eq!(dense_argmax(&group), 30);
        assert_eq!(sequential_argmax(&group, 0, 1, 40), 30);
        group[7] = f64::from_bits(0x7ff8_0000_0000_0001);
        group[9] = f64::NAN;
        assert_eq!(dense_argmax(&group), 7);
        assert_eq!(sequential_argmax(&group, 0, 1, 40), 7);
        // Every other value of a stride-2 walk.
        let data = [1.0_f32, 9.0, 4.0, 9.0, 4.0, 9.0];
        assert_eq!(sequential_argmax(&data, 0, 2, 3), 1);
    }
}
