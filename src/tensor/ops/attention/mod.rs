//! `attention`: scaled dot-product attention in one call, the scores never
//! stored as a tensor, bit-identical to its three-call composition in
//! `f32` and `f64`.

mod kernel;
mod packed;

use super::widen::{narrow, widen};
use super::{output_zeroed, owner};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::shape::broadcast::aligned_extent;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::checked_len;
use crate::tensor::traverse::simd::{threads_for_bytes, tuning};

/// Which keys each query of [`attention`] sees: all of them, or the keys
/// at or before its own position (`T_q` queries, `T_k` keys; the mask
/// itself is never built).
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let q = Tensor::from_vec([2, 1], vec![0.0, 0.0])?; // [T_q = 2, d = 1]
/// let k = Tensor::from_vec([2, 1], vec![0.0, 0.0])?; // [T_k = 2, d = 1]
/// let v = Tensor::from_vec([2, 1], vec![2.0, 4.0])?;
/// // Equal scores: the first query averages what it sees.
/// let causal = attention(&q, &k, &v, 1.0, AttentionMask::Causal { offset: 0 })?;
/// assert_eq!(causal.as_slice(), &[2.0, 3.0]); // query 0 sees key 0 only
/// let full = attention(&q, &k, &v, 1.0, AttentionMask::Full)?;
/// assert_eq!(full.as_slice(), &[3.0, 3.0]);
/// // One new query after a cache of one key: offset T_k - T_q = 1 sees both.
/// let last = q.view().slice(0, 1..2)?;
/// assert_eq!(attention(&last, &k, &v, 1.0, AttentionMask::Causal { offset: 1 })?.as_slice(), &[3.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttentionMask {
    /// Every query sees every key (an encoder: BERT, MiniLM).
    Full,
    /// Query `i` sees the keys `j <= i + offset` (a decoder's causal mask,
    /// as [`causal_softmax`](super::causal_softmax)): `offset = T_k - T_q`
    /// when the queries are the last `T_q` positions of a KV cache of
    /// `T_k`, 0 for a whole prompt (PyTorch's `is_causal=True`).
    Causal {
        /// Keys before the first query's own position.
        offset: usize,
    },
}

/// Scaled dot-product attention, `softmax(mask(Q · Kᵀ · scale)) · V`
/// (Vaswani et al., "Attention is all you need", 2017, eq. 1), in one call
/// that never stores the `[.., T_q, T_k]` scores or probabilities:
/// [`matmul_affine`](super::matmul_affine)`(query, keyᵀ, scale)`, then
/// [`causal_softmax`](super::causal_softmax) (or
/// [`softmax_axis`](super::softmax_axis) over the keys for
/// [`AttentionMask::Full`]), then [`matmul`](super::matmul) with `value`,
/// fused. ≈ PyTorch `torch.nn.functional.scaled_dot_product_attention(q,
/// k, v, is_causal=..., scale=...)` (which takes `k` untransposed too).
///
/// Shapes: `query [.., T_q, d]`, `key [.., T_k, d]`, `value [.., T_k, d_v]`
/// -> `[batch.., T_q, d_v]`: typed operands share one rank `R >= 2`, the
/// output's; dynamic operands (a dynamic result) may differ in rank, their
/// batch axes right-aligned. The batch axes broadcast by NumPy's rule, so
/// grouped-query attention's shared key / value heads are
/// a stride-0 axis (`[G, 1, T, d]` keys against `[G, H/G, T, d]` queries).
/// Any strided view is read as it is: split heads of a packed projection,
/// a KV cache's first `T_k` positions, a transposed key cache read back
/// with `transpose` (no copy).
///
/// Numerics: for `f32` and `f64`, bit-identical to the composition above
/// (NaN payloads aside) for every input, layout, SIMD level and thread
/// count: each score is the product's fused multiply-add chain over
/// ascending `d`, then `· scale`; each row the causal softmax's (max, the
/// crate's `exp`, the fixed-tree sum, divide); each output the chain over
/// ascending keys. Keys no query of a block sees are skipped (not
/// scored) where the composition multiplies their exact zero
/// probabilities by their values, which changes nothing but two cases,
/// both reproduced: a value holding NaN or an infinity (`0 · v` is NaN;
/// one scan of `value` finds such rows, and they are included) and a
/// chain that is `-0.0` because all its products underflowed (a later `0
/// · v` with `v` of positive sign makes it `+0.0`). A query row whose
/// visible scores are all `-inf`, or hold NaN or `+inf`, is NaN, as in
/// the composition and PyTorch. `f16` / `bf16` operands are widened to
/// `f32`, computed exactly as `f32`, and rounded once: more accurate than
/// the half-precision composition, which rounds the scores and the
/// probabilities too, so the two can differ in the last bit (as for
/// [`matmul_affine`](super::matmul_affine)). `T_k = 0` gives zeros (an
/// empty softmax times an empty `value`), as the composition does.
///
/// Speed and memory: blocks of 64 query rows per task, their scores in a
/// per-thread buffer of `64 · T_k` values kept between calls (256 KiB at
/// GPT-2's `T_k = 1024` in `f32`), computed, normalized and multiplied by
/// `value` while in cache; a causal block computes only the keys its last
/// query sees (about half of all scores). A thread packs a batch
/// matrix's keys and values for the two products once and multiplies
/// every block of that matrix it runs by them (query heads that share a
/// key and value head share the packing too): at GPT-2's `T = 1024` a
/// one-thread call took 21.2 ms against 27 when each block packed what it
/// read, and PyTorch's SDPA 22.8 (Intel Xeon, 2026-12-06). Keys and
/// values that would pack into more than 8 MiB, padding included (`f32`
/// heads of `d = 64` past about 16000 keys), are packed by each block's
/// products instead, over the keys the block reads. Besides the output, a
/// call allocates only widened copies of `f16` / `bf16` operands and, the
/// first time on a thread (or when a longer context needs more), the
/// score buffer, the packed keys and values and the product's packing
/// scratch; a score buffer over 8 MiB (`f32` with `T_k > 32768`) is freed
/// after each block rather than kept.
///
/// # Errors
/// In this order:
/// 1. [`Error::RankTooSmall`] for a dynamic operand of rank below 2;
/// 2. [`Error::AttentionMismatch`] if the query's and the key's row widths
///    `d` differ, then if the key's and the value's row counts `T_k` do;
/// 3. [`Error::IncompatibleBroadcast`] at the leftmost output batch axis
///    where the three do not broadcast (`left_dimension`: the extent of
///    the operands before, in the order query, key, value;
///    `right_dimension`: the first one that conflicts);
/// 4. [`Error::ShapeOverflow`] if the output's element count overflows;
/// 5. [`Error::AllocationFailed`] for the output, a widened operand, a
///    score buffer, the packed keys and values or a product's scratch.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// // One head, three positions, d = 2: [T, d] each.
/// let q = Tensor::from_vec([3, 2], vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0])?;
/// let k = Tensor::from_vec([3, 2], vec![1.0, 0.0, 0.0, 1.0, 0.0, 0.0])?;
/// let v = Tensor::from_vec([3, 1], vec![10.0, 20.0, 30.0])?;
/// let scale = 1.0 / 2.0_f64.sqrt();
/// let out = attention(&q, &k, &v, scale, AttentionMask::Causal { offset: 0 })?; // [3, 1]
/// // The first query sees only the first key.
/// assert_eq!(out.as_slice()[0], 10.0);
/// // The same bits as the three calls it fuses.
/// let scores = matmul_affine(&q, &k.view().transpose(0, 1)?, scale, None)?;
/// let composed = matmul(&causal_softmax(&scores, 0)?, &v)?;
/// assert_eq!(out, composed);
/// // Keys are rows, like the queries: their widths must agree.
/// let wide = Tensor::<2>::zeros([3, 4])?;
/// assert_eq!(
///     attention(&q, &wide, &v, scale, AttentionMask::Full).unwrap_err().to_string(),
///     "attention: the query has 2 values per row, the key 4"
/// );
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[doc(alias = "scaled_dot_product_attention")]
#[doc(alias = "sdpa")]
pub fn attention<D: Dimension, T: Element>(
    query: &(impl AsArray<D, T> + ?Sized),
    key: &(impl AsArray<D, T> + ?Sized),
    value: &(impl AsArray<D, T> + ?Sized),
    scale: T,
    mask: AttentionMask,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    let op = "attention";
    let (query, key, value) = (query.as_array(), key.as_array(), value.as_array());
    let shapes = [
        query.layout.shape(),
        key.layout.shape(),
        value.layout.shape(),
    ];
    let (shape, len) = attention_shape::<D::Axes>(shapes, op)?;
    let (query, key, value) = (widen(query, op)?, widen(key, op)?, widen(value, op)?);
    let (query, key, value) = (query.view(), key.view(), value.view());
    let threads = threads_for_bytes(len.saturating_mul(size_of::<T::Acc>()), tuning());
    let mut values = output_zeroed(len, threads, op)?;
    let offset = match mask {
        AttentionMask::Full => usize::MAX,
        AttentionMask::Causal { offset } => offset,
    };
    kernel::attention(
        [query.strided(), key.strided(), value.strided()],
        shape.as_slice(),
        &mut values,
        scale.to_acc(),
        offset,
        op,
    )?;
    narrow(owner(shape, values, op)?, op)
}

/// The output shape `[batch.., T_q, d_v]` of `query`, `key`, `value` and its
/// element count, checked in [`attention`]'s error order.
fn attention_shape<A: Dims>(
    [query, key, value]: [&[usize]; 3],
    op: &'static str,
) -> Result<(A, usize), Error> {
    if let Some(rank) = [query, key, value]
        .iter()
        .map(|shape| shape.len())
        .find(|&rank| rank < 2)
    {
        return Err(Error::RankTooSmall {
            op,
            rank,
            minimum: 2,
        });
    }
    fn last(shape: &[usize], from_end: usize) -> usize {
        shape[shape.len() - from_end]
    }
    let mismatch = [
        (
            "values per row",
            ("query", last(query, 1)),
            ("key", last(key, 1)),
        ),
        ("rows", ("key", last(key, 2)), ("value", last(value, 2))),
    ];
    for (quantity, (left, left_extent), (right, right_extent)) in mismatch {
        if left_extent != right_extent {
            return Err(Error::AttentionMismatch {
                op,
                quantity,
                left,
                left_extent,
                right,
                right_extent,
            });
        }
    }
    // The batch axes of all three, right-aligned in the output's frame.
    let rank = query.len().max(key.len()).max(value.len());
    let mut shape = A::zeros(rank);
    let out = shape.as_mut_slice();
    for (axis, slot) in out[..rank - 2].iter_mut().enumerate() {
        let mut extent = 1;
        for operand in [query, key, value] {
            let here = aligned_extent(operand, rank, axis);
            if here != extent && here != 1 {
                if extent != 1 {
                    return Err(Error::IncompatibleBroadcast {
                        op,
                        axis,
                        left_dimension: extent,
                        right_dimension: here,
                    });
                }
                extent = here;
            }
        }
        *slot = extent;
    }
    out[rank - 2] = last(query, 2);
    out[rank - 1] = last(value, 1);
    let len = checked_len(out, op)?;
    Ok((shape, len))
}

impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// [`attention`] with `self` as the query: `[.., T_q, d]` attending to
    /// `key [.., T_k, d]` and `value [.., T_k, d_v]` -> `[batch.., T_q,
    /// d_v]`, in `f32` / `f64` bit-identical to `matmul_affine` +
    /// `causal_softmax` (`softmax_axis` for [`AttentionMask::Full`]) +
    /// `matmul`; see [`attention`] for half precision.
    ///
    /// # Errors
    /// As for [`attention`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let q = Tensor::from_vec([1, 2], vec![0.0_f32, 0.0])?;
    /// let k = Tensor::from_vec([2, 2], vec![1.0, 0.0, 0.0, 1.0])?;
    /// let v = Tensor::from_vec([2, 2], vec![1.0, 3.0, 5.0, 7.0])?;
    /// // Equal scores: the mean of the values.
    /// let out = q.attention(&k, &v, 1.0, AttentionMask::Full)?;
    /// assert_eq!(out.as_slice(), &[3.0, 5.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn attention(
        &self,
        key: &(impl AsArray<D, S::Elem> + ?Sized),
        value: &(impl AsArray<D, S::Elem> + ?Sized),
        scale: S::Elem,
        mask: AttentionMask,
    ) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        attention(self, key, value, scale, mask)
    }
}
