//! `causal_softmax`: the softmax of attention scores under a causal mask,
//! fused: the mask is never built and masked scores never enter a result.
//!
//! Per row `i` (the query, axis `R - 2`) of the last axis (the keys), the
//! keys `j <= i + offset` are live; the others count as `-inf`. The row is
//! the composition's, step by step (`softmax/kernel.rs` does the same for
//! an unmasked group): `m`, the max policy's maximum of the live scores
//! (the masked `-inf`s never replace it, so it is the whole masked row's
//! maximum); `e_j = exp(x_j - m)` by the crate's `exp` for the live keys
//! and the one value `exp(-inf - m)` (0 unless `m` is `-inf` or NaN) for
//! the masked ones; `z`, the fixed-tree sum of all `e_j` leaf by leaf as
//! `sum_axis` adds them; `y_j = e_j / z`.

use super::row::exp_normalize;
use super::softmax_threads;
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::float::Float;
use crate::tensor::math::apply::Function;
use crate::tensor::ops::reduce::{Counter, dense_max};
use crate::tensor::ops::widen::{into_narrowed, narrow, widen};
use crate::tensor::ops::{check_output_shape, output_zeroed, owner};
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::checked_len;
use crate::tensor::traverse::last_axis::{RowKernel, for_each_row};
use crate::tensor::traverse::simd::{Dispatch, tuning};

/// The checks of `causal_softmax` (the public function `op`): rank >= 2,
/// then the output's overflow. Returns the output's element count.
fn causal_len(shape: &[usize], op: &'static str) -> Result<usize, Error> {
    let rank = shape.len();
    if rank < 2 {
        return Err(Error::RankTooSmall {
            op,
            rank,
            minimum: 2,
        });
    }
    checked_len(shape, op)
}

/// The row kernel: queries along axis `R - 2`, the first key of query `i`
/// masked is `i + offset + 1` (none with `offset = usize::MAX`: the plain
/// softmax, bit-identical to `softmax_axis`'s).
pub(crate) struct Causal {
    queries: usize,
    offset: usize,
    dispatch: Dispatch,
}

impl Causal {
    /// The kernel for rows of `queries` queries each (rows `r` and
    /// `r + queries` are the same query of two batches), with the exp of
    /// `dispatch`.
    pub(crate) fn new(queries: usize, offset: usize, dispatch: Dispatch) -> Self {
        Causal {
            queries: queries.max(1),
            offset,
            dispatch,
        }
    }
}

impl<F: Float> RowKernel<F> for Causal {
    type Scratch = Counter<F>;

    fn scratch(&self) -> Counter<F> {
        Counter::new()
    }

    #[inline(always)]
    fn row(&self, counter: &mut Counter<F>, row: usize, out: &mut [F]) {
        let i = row % self.queries;
        let n = out.len();
        // At least one live key: i + offset + 1 >= 1.
        let live = n.min(i.saturating_add(self.offset).saturating_add(1));
        let m = dense_max(&out[..live]);
        let masked = Function::Exp.eval(F::neg_infinity() - m);
        exp_normalize(self.dispatch, counter, None, out, live, m, masked);
    }
}

/// The softmax over the last axis of attention scores `[.., T_q, T_k]`
/// under a causal mask: key `j` of query `i` gets probability 0 when
/// `j > i + offset`. `offset = T_k - T_q` when the queries are the last
/// `T_q` positions of a KV cache of `T_k` (0 for a full prompt).
///
/// Shapes: `[.., T_q, T_k]` -> the same (rank `R >= 2` kept). Source:
/// GPT-2's `attention_mask` (OpenAI `model.py`: `w * b - 1e10 * (1 - b)`
/// with `b` lower triangular, here exact `-inf`); ≈ PyTorch
/// `torch.softmax(scores.masked_fill(mask, -inf), -1)` with `mask =
/// torch.ones(T_q, T_k).triu(offset + 1).bool()`, and
/// `scaled_dot_product_attention(.., is_causal=True)`'s mask for `offset =
/// 0`.
///
/// Numerics: bit-identical, for every layout, thread count and SIMD level,
/// to the composition `s = x` with `s[.., i, j] = -inf` for `j > i +
/// offset`, then [`softmax_axis`](crate::tensor::ops::softmax_axis)`(s, R -
/// 1)`. So the live keys sum to 1 up to rounding and masked keys are
/// exactly 0, except where the composition gives NaN (a live NaN or
/// `+inf`, or every live score `-inf`: the whole row is NaN, as in
/// PyTorch). Fused: the mask is never built and masked scores never enter
/// a result (only the one vector of a row that straddles the mask's edge
/// computes `exp` of some and drops them); each row is copied into the
/// output and finished there in cache; nothing is allocated but the output.
///
/// # Errors
/// [`Error::RankTooSmall`] for rank 0 or 1, then [`Error::ShapeOverflow`],
/// then [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let scores = Tensor::from_vec([2, 2], vec![1.0, 5.0, 0.0, 0.0])?;
/// let p = causal_softmax(&scores, 0)?; // [T_q = 2, T_k = 2]
/// assert_eq!(p.as_slice(), &[1.0, 0.0, 0.5, 0.5]);
/// // A KV cache: one new query (T_q = 1) sees all three keys (offset 2).
/// let last = Tensor::from_vec([1, 3], vec![0.0, 0.0, 0.0])?;
/// let p = causal_softmax(&last, 2)?;
/// assert_eq!(p, softmax_axis(&last, 1)?);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn causal_softmax<D: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    offset: usize,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    let op = "causal_softmax";
    let input = input.as_array();
    let len = causal_len(input.layout.shape(), op)?;
    let widened = widen(input, op)?;
    let input = widened.view();
    let input = input.strided();
    let threads = softmax_threads(len);
    let mut values = output_zeroed(len, threads, op)?;
    let kernel = causal(input.shape, offset);
    for_each_row(input, &mut values, threads, kernel.dispatch, &kernel);
    narrow(owner(D::Axes::from_slice(input.shape), values, op)?, op)
}

/// The kernel for scores of `shape` (rank >= 2).
fn causal(shape: &[usize], offset: usize) -> Causal {
    Causal::new(shape[shape.len() - 2], offset, Dispatch::new(tuning().simd))
}

/// [`causal_softmax`] into `out` (the input's shape), reusing its storage;
/// allocates nothing for `f32` / `f64`.
///
/// # Errors
/// As for [`causal_softmax`], then [`Error::OutputShapeMismatch`] if `out`
/// has another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let scores = Tensor::from_vec([1, 2, 2], vec![3.0, 1.0, 2.0, 2.0])?;
/// let mut p = Tensor::zeros([1, 2, 2])?;
/// causal_softmax_into(&scores, 0, &mut p)?;
/// assert_eq!(p.as_slice(), &[1.0, 0.0, 0.5, 0.5]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn causal_softmax_into<D: Dimension, T: Element>(
    input: &(impl AsArray<D, T> + ?Sized),
    offset: usize,
    out: &mut ArrayBase<Vec<T>, D>,
) -> Result<(), Error> {
    let op = "causal_softmax_into";
    let input = input.as_array();
    let len = causal_len(input.layout.shape(), op)?;
    check_output_shape(input.layout.shape(), out.layout.shape(), op)?;
    let widened = widen(input, op)?;
    let input = widened.view();
    let input = input.strided();
    let kernel = causal(input.shape, offset);
    into_narrowed(&mut out.data, op, |out| {
        for_each_row(input, out, softmax_threads(len), kernel.dispatch, &kernel);
        Ok(())
    })
}

impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// [`causal_softmax`] as a method: the causally masked softmax over the
    /// last axis, fused, bit-identical to masking with `-inf` and
    /// `softmax_axis`.
    ///
    /// # Errors
    /// As for [`causal_softmax`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let scores = Tensor::from_vec([2, 2], vec![0.0, 9.0, 0.0, 0.0])?;
    /// assert_eq!(scores.causal_softmax(0)?.as_slice(), &[1.0, 0.0, 0.5, 0.5]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn causal_softmax(&self, offset: usize) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        causal_softmax(self, offset)
    }
}
