//! The GPT-2 attention layout path, built only from the crate's public API.
//!
//! Each function is one step of OpenAI's GPT-2 `attn` block (`model.py`:
//! `split_states` / `split_heads`, `multihead_attn`, `merge_heads`) and
//! reports every layout it creates to a [`Recorder`], so a caller can print
//! where values are shared and where they are copied (`main.rs` prints and
//! audits those records; `tests.rs` checks the values against a plain-loop
//! reference). Nothing here copies values except [`View::materialize`], and
//! every such call is recorded as [`Made::Copy`]; `matmul`, `matmul_affine`
//! and `causal_softmax` compute new values (op outputs). The two products
//! pack small panels of their operands into their own bounded scratch while
//! they multiply: kernel working memory, not a materialized operand.

use crate::args::Dims;
use crate::audit::record::{Made, Recorder};
use llm_from_scratch::Error;
use llm_from_scratch::prelude::*;

/// A layout that is either shared with an existing owner or had to be copied.
#[derive(Debug)]
pub enum Part<'a, const R: usize> {
    /// A view of an existing owner.
    Shared(View<'a, R>),
    /// Materialized because the strides could not express the layout.
    Copied(Tensor<R>),
}

impl<const R: usize> Part<'_, R> {
    /// The values, as a view (no copy).
    pub fn view(&self) -> View<'_, R> {
        match self {
            Part::Shared(view) => *view,
            Part::Copied(tensor) => tensor.view(),
        }
    }
}

/// Step 1: Q, K and V as the three equal parts of the packed projection's
/// last axis, `[B, T, 3C]` -> three `[B, T, C]` views of `qkv` (GPT-2
/// `tf.split(c, 3, axis=2)`; the same views as `slice(2, 0..C)`,
/// `slice(2, C..2C)`, `slice(2, 2C..3C)`). No copy.
///
/// When `B * T > 1` each part skips `2C` values between tokens, so it is
/// not contiguous.
///
/// # Errors
/// None for a `[B, T, 3C]` owner (its last extent divides by 3).
pub fn chunk_qkv<'a>(
    qkv: &'a Tensor<3>,
    rec: &mut impl Recorder,
) -> Result<[View<'a, 3>; 3], Error> {
    rec.step(format_args!("1 · Q, K, V = qkv.chunk::<3>(2)"));
    let parts = qkv.view().chunk::<3>(2)?;
    for (index, (part, name)) in parts.iter().zip(["Q", "K", "V"]).enumerate() {
        rec.view(format_args!("{name} = qkv.chunk::<3>(2)[{index}]"), part);
    }
    Ok(parts)
}

/// The three split-head views `[B, H, T, D]`.
#[derive(Debug, Clone, Copy)]
pub struct Heads<'a> {
    /// Queries.
    pub q: View<'a, 4>,
    /// Keys.
    pub k: View<'a, 4>,
    /// Values.
    pub v: View<'a, 4>,
}

/// Step 2: GPT-2 `split_heads`, `[B, T, C]` -> `[B, T, H, D]` ->
/// `permute([0, 2, 1, 3])` `[B, H, T, D]`; metadata only, on the parts of
/// `qkv` themselves.
///
/// `reshape` keeps the strict rule (a contiguous view only), so it refuses
/// a part that skips memory; the refusal is recorded. `split_axis(2, [H, D])`
/// cuts the channel axis of any layout into head and lane (strides
/// `[.., D·s, s]`, PyTorch's `view` of the slice), so no part is copied.
///
/// # Errors
/// `SplitAxisMismatch` if a part's last extent is not `H·D`; a `reshape`
/// error other than the strict rule's refusal.
pub fn split_heads<'a>(
    parts: &[View<'a, 3>; 3],
    dims: &Dims,
    rec: &mut impl Recorder,
) -> Result<Heads<'a>, Error> {
    rec.step(format_args!("2 · split heads: split_axis + permute"));
    let (split, heads_lanes) = (dims.split(), [dims.heads(), dims.head_width()]);
    let mut heads = |part: &View<'a, 3>, name: &str| -> Result<View<'a, 4>, Error> {
        match part.reshape(split) {
            Ok(_) => {} // contiguous (B·T = 1): reshape agrees with split_axis
            Err(refused @ Error::NonContiguousReshape) => {
                rec.rejected(format_args!("{name}.reshape({split:?})"), &refused);
            }
            Err(other) => return Err(other),
        }
        let split = part.split_axis(2, heads_lanes)?;
        rec.view(format_args!("{name}.split_axis(2, [H, D])"), &split);
        let permuted = split.permute([0, 2, 1, 3])?;
        rec.view(format_args!("{name}.….permute([0, 2, 1, 3])"), &permuted);
        Ok(permuted)
    };
    let [q, k, v] = parts;
    Ok(Heads {
        q: heads(q, "Q")?,
        k: heads(k, "K")?,
        v: heads(v, "V")?,
    })
}

/// Step 3: the key operand of `Q·Kᵀ`, `[B, H, T, D]` -> `transpose(2, 3)`
/// `[B, H, D, T]` (GPT-2 `tf.matmul(q, k, transpose_b=True)`); metadata only.
///
/// # Errors
/// None for a rank-4 view (the axes are in range).
pub fn transpose_keys<'a>(k: &View<'a, 4>, rec: &mut impl Recorder) -> Result<View<'a, 4>, Error> {
    rec.step(format_args!("3 · Kᵀ = K.transpose(2, 3)"));
    let kt = k.transpose(2, 3)?;
    rec.view(format_args!("Kᵀ = K.transpose(2, 3)"), &kt);
    Ok(kt)
}

/// The attention scores `Q·Kᵀ/√D` in one call: `q` `[B, H, T, D]` and `kt`
/// `[B, H, D, T]` -> `[B, H, T, T]` (GPT-2 `w = tf.matmul(q, k,
/// transpose_b=True)`, then `w * rsqrt(D)`; the `1/√d` scale of Vaswani et
/// al. 2017).
///
/// `matmul_affine(q, kt, α, None)` with `α = 1/√D`: each score is the dot
/// product summed from +0.0 in ascending `d` (`matmul`'s order), then
/// multiplied by `α` once as the kernel finishes its block of rows, into
/// the one output; no raw `Q·Kᵀ` owner exists. `kt`, the zero-copy
/// transposed view (strides `[.., 1, 3C]`), is read as it is: nobody
/// materializes `Kᵀ`. `α` is `1/√D` rounded, exact for `D = 64` (1/8), where
/// the product equals the division by `√D`; for other `D` the two can
/// differ in the last bit (`naive.rs` scales as this does).
///
/// # Errors
/// `MatmulInnerMismatch` if `q`'s `D` differs from `kt`'s; batch axes that do
/// not broadcast; `AllocationFailed`.
pub fn scores(q: &View<'_, 4>, kt: &View<'_, 4>) -> Result<Tensor<4>, Error> {
    let alpha = 1.0 / (q.shape()[3] as f64).sqrt();
    matmul_affine(q, kt, alpha, None)
}

/// Every owner of the attention step, kept alive so a layout trace never
/// sees a freed address reused.
#[derive(Debug)]
pub struct Attention {
    /// `Q·Kᵀ/√D`, `[B, H, T, T]`, unmasked.
    pub scores: Tensor<4>,
    /// Causal softmax probabilities over the last axis, `[B, H, T, T]`:
    /// exactly 0 where key `j` > query `i`.
    pub probs: Tensor<4>,
    /// `P·V`, `[B, H, T, D]`: a fresh head-major owner.
    pub out: Tensor<4>,
}

/// Step 4: causal self-attention over all `T` positions (GPT-2
/// `multihead_attn`: `w = matmul(q, k, transpose_b) * rsqrt(D)`,
/// `mask_attn_weights`, `softmax`, `matmul(w, v)`), in three calls and
/// three owners, `[B, H, T, D]` heads and `Kᵀ` `[B, H, D, T]` ->
/// scores and P `[B, H, T, T]` -> Y `[B, H, T, D]`:
///
/// - 4a: [`scores`], `matmul_affine(Q, Kᵀ, 1/√D, None)` against the
///   transposed key view (the `1/√d` of Vaswani et al. 2017);
/// - 4b: `causal_softmax(scores, 0)`, GPT-2's `mask_attn_weights` (`w * b
///   - 1e10 * (1 - b)`, `b` lower triangular; here exact `-inf`) and the
///   stable softmax, fused: key `j > i` gets exactly 0, and no `[T, T]`
///   mask or masked copy of the scores is built; bit-identical to
///   `softmax_axis` of the scores with `-inf` above the diagonal;
/// - 4c: the weighted sum of V, `matmul(P, V)`, with V the split-head view.
///
/// # Errors
/// Op errors for inconsistent views (`MatmulInnerMismatch`, batch axes
/// that do not broadcast); `AllocationFailed`.
pub fn attention(
    heads: &Heads<'_>,
    kt: &View<'_, 4>,
    rec: &mut impl Recorder,
) -> Result<Attention, Error> {
    rec.step(format_args!("4a · scores = matmul_affine(Q, Kᵀ, 1/√D)"));
    let scores = scores(&heads.q, kt)?;
    rec.owner(
        format_args!("scores = matmul(Q, Kᵀ)·(1/√D)"),
        Made::Computed,
        &scores,
    );

    rec.step(format_args!("4b · P = causal_softmax(scores, 0)"));
    let probs = causal_softmax(&scores, 0)?;
    rec.owner(
        format_args!("P = causal_softmax(scores, 0)"),
        Made::Computed,
        &probs,
    );

    rec.step(format_args!("4c · Y = matmul(P, V)"));
    let out = matmul(&probs, &heads.v)?;
    rec.owner(format_args!("Y = matmul(P, V)"), Made::Computed, &out);
    Ok(Attention { scores, probs, out })
}

/// Step 5: GPT-2 `merge_heads`, `[B, H, T, D]` -> `permute([0, 2, 1, 3])`
/// `[B, T, H, D]` -> `merge_axes(2)` `[B, T, C]`, with one `materialize`
/// in between when the strides cannot merge.
///
/// A fresh head-major owner permuted to `[B, T, H, D]` has head stride
/// `T·D` and lane stride 1, so heads and lanes are not adjacent in memory
/// when `H > 1` and `T > 1`: `merge_axes` refuses (no layout of these
/// values is `[B, T, C]` without moving them) and the one announced copy
/// follows; the copy's buffer then becomes the `[B, T, C]` owner without
/// another copy. Records into the caller's current step.
///
/// # Errors
/// A `merge_axes` error other than `NonMergeableAxes`; `AllocationFailed`.
pub fn merge_heads<'a>(
    y: View<'a, 4>,
    name: &str,
    rec: &mut impl Recorder,
) -> Result<Part<'a, 3>, Error> {
    let permuted = y.permute([0, 2, 1, 3])?;
    rec.view(format_args!("{name}.permute([0, 2, 1, 3])"), &permuted);
    match permuted.merge_axes(2) {
        Ok(merged) => {
            rec.view(format_args!("{name}.….merge_axes(2)"), &merged);
            Ok(Part::Shared(merged))
        }
        Err(refused @ Error::NonMergeableAxes { .. }) => {
            rec.rejected(format_args!("{name}.….merge_axes(2)"), &refused);
            let copy = permuted.materialize()?;
            rec.owner(format_args!("{name}.….materialize()"), Made::Copy, &copy);
            let merged = copy.view().merge_axes(2)?;
            rec.view(
                format_args!("{name}.….materialize().merge_axes(2)"),
                &merged,
            );
            let shape = *merged.shape();
            Ok(Part::Copied(copy.into_shape(shape)?))
        }
        Err(other) => Err(other),
    }
}
