//! The GPT-2 attention layout path, built only from the crate's public API.
//!
//! Each function is one step of OpenAI's GPT-2 `attn` block (`model.py`:
//! `split_states` / `split_heads`, `multihead_attn`, `merge_heads`) and
//! reports every layout it creates to a [`Recorder`], so a caller can print
//! where values are shared and where they are copied (`main.rs` prints and
//! audits those records; `tests.rs` checks the values against a plain-loop
//! reference). Nothing here copies values except [`View::materialize`], and
//! every such call is recorded as [`Made::Copy`]; `matmul` and the maps and
//! reductions compute new values (op outputs). `matmul` packs small panels
//! of its operands into its own bounded scratch while it multiplies: kernel
//! working memory, not a materialized operand.

use crate::args::Dims;
use crate::audit::record::{Made, Recorder};
use llm_from_scratch::Error;
use llm_from_scratch::prelude::*;

/// A layout that is either shared with an existing owner or had to be copied.
#[derive(Debug)]
pub enum Part<'a, const R: usize> {
    /// Reshapeable as it is: a view of an existing owner.
    Shared(View<'a, R>),
    /// Materialized because `reshape` refused the view.
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

/// `view` itself if `reshape(shape)` accepts it; otherwise the refusal is
/// recorded and `view` is materialized (the announced copy).
fn reshapeable<'a, const R: usize, const S: usize>(
    view: View<'a, R>,
    shape: [usize; S],
    name: &str,
    rec: &mut impl Recorder,
) -> Result<Part<'a, R>, Error> {
    match view.reshape(shape) {
        Ok(_) => Ok(Part::Shared(view)),
        Err(TensorViewError::NonContiguousReshape) => {
            rec.rejected(
                format_args!("{name}.reshape({shape:?})"),
                &TensorViewError::NonContiguousReshape,
            );
            let copy = view.materialize()?;
            rec.owner(format_args!("{name}.materialize()"), Made::Copy, &copy);
            Ok(Part::Copied(copy))
        }
        Err(other) => Err(other.into()),
    }
}

/// Step 1: Q, K and V as `slice` views of the packed projection's last axis,
/// `[B, T, 3C]` -> three `[B, T, C]` (GPT-2 `tf.split(c, 3, axis=2)`).
///
/// When `B * T > 1` each slice skips `2C` values between rows, so it is not
/// contiguous: `reshape` refuses it and one `materialize` per part fixes it.
///
/// # Errors
/// View errors for shapes that do not match `dims`; `AllocationFailed`.
pub fn slice_qkv<'a>(
    qkv: &'a Tensor<3>,
    dims: &Dims,
    rec: &mut impl Recorder,
) -> Result<[Part<'a, 3>; 3], Error> {
    rec.step(format_args!("1 · Q, K, V = slices of qkv's last axis"));
    let (c, split) = (dims.width(), dims.split());
    let mut part = |index: usize, name: &str| -> Result<Part<'a, 3>, Error> {
        let range = index * c..(index + 1) * c;
        let slice = qkv.view().slice(2, range.clone())?;
        rec.view(format_args!("{name} = qkv.slice(2, {range:?})"), &slice);
        reshapeable(slice, split, name, rec)
    };
    Ok([part(0, "Q")?, part(1, "K")?, part(2, "V")?])
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

/// Step 2: GPT-2 `split_heads`, `[B, T, C]` -> `reshape` `[B, T, H, D]` ->
/// `permute([0, 2, 1, 3])` `[B, H, T, D]`; metadata only.
///
/// # Errors
/// `NonContiguousReshape` if a part was neither contiguous nor copied.
pub fn split_heads<'a>(
    parts: &'a [Part<'_, 3>; 3],
    dims: &Dims,
    rec: &mut impl Recorder,
) -> Result<Heads<'a>, Error> {
    rec.step(format_args!(
        "2 · split heads: reshape, permute [B, H, T, D]"
    ));
    let split = dims.split();
    let mut heads = |part: &'a Part<'_, 3>, name: &str| -> Result<View<'a, 4>, Error> {
        let reshaped = part.view().reshape(split)?;
        rec.view(format_args!("{name}.reshape([B, T, H, D])"), &reshaped);
        let permuted = reshaped.permute([0, 2, 1, 3])?;
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

/// `Q·Kᵀ / √D`: `q` `[B, H, T, D]` and `kt` `[B, H, D, T]` -> `[B, H, T, T]`
/// (GPT-2 `w = tf.matmul(q, k, transpose_b=True)`, then `w * rsqrt(D)`).
///
/// `matmul` reads `kt`, the zero-copy transposed view (strides `[.., 1, C]`),
/// as it is: nobody materializes `Kᵀ`. The raw product is a temporary,
/// recorded as [`Made::Temporary`]; each score is the dot product summed
/// from +0.0 in ascending `d`, then divided by `√D`.
///
/// # Errors
/// `MatmulInnerMismatch` if `q`'s `D` differs from `kt`'s; batch axes that do
/// not broadcast; `OutputAllocationFailed`.
pub fn scores(
    q: &View<'_, 4>,
    kt: &View<'_, 4>,
    rec: &mut impl Recorder,
) -> Result<Tensor<4>, Error> {
    let dots = matmul(q, kt)?;
    rec.owner(format_args!("Q·Kᵀ = matmul(Q, Kᵀ)"), Made::Temporary, &dots);
    let scale = (q.shape()[3] as f64).sqrt();
    Ok(map_unary(&dots, |s| s / scale)?)
}

/// Every owner of the attention step, kept alive so a layout trace never
/// sees a freed address reused.
#[derive(Debug)]
pub struct Attention {
    /// `0..T` as `[T]`.
    pub positions: Tensor<1, usize>,
    /// `mask[i, j] = j <= i`, `[T, T]`.
    pub mask: Tensor<2, bool>,
    /// `Q·Kᵀ / √D`, `[B, H, T, T]`.
    pub scores: Tensor<4>,
    /// Scores with `-inf` above the diagonal.
    pub masked: Tensor<4>,
    /// Softmax probabilities over the last axis, `[B, H, T, T]`.
    pub probs: Tensor<4>,
    /// `P·V`, `[B, H, T, D]`: a fresh head-major owner.
    pub out: Tensor<4>,
}

/// Step 4: causal self-attention over all `T` positions (GPT-2
/// `multihead_attn`, `mask_attn_weights`, `softmax`): scores by `matmul`
/// against the transposed key view, the causal mask by broadcasting, the
/// numerically stable softmax (`softmax_axis`: fused, bit-identical to
/// `max_axis` -> `exp(x - max)` -> `sum_axis` -> divide, with no full-size
/// temporary), the weighted sum of V by `matmul`.
///
/// # Errors
/// Op errors for inconsistent views; `OutputAllocationFailed`.
pub fn attention(
    heads: &Heads<'_>,
    kt: &View<'_, 4>,
    rec: &mut impl Recorder,
) -> Result<Attention, Error> {
    let seq = heads.q.shape()[2];
    rec.step(format_args!("4a · causal mask over all T positions"));
    let positions: Tensor<1, usize> = Tensor::from_fn([seq], |[i]| i)?;
    rec.owner(format_args!("positions 0..T"), Made::Input, &positions);
    let rows = positions.view().reshape([seq, 1])?;
    rec.view(format_args!("i = positions.reshape([T, 1])"), &rows);
    let columns = positions.view().reshape([1, seq])?;
    rec.view(format_args!("j = positions.reshape([1, T])"), &columns);
    let mask: Tensor<2, bool> = map_binary(&rows, &columns, |i, j| j <= i)?;
    rec.owner(format_args!("mask = j <= i"), Made::Computed, &mask);

    rec.step(format_args!("4b · scores = matmul(Q, Kᵀ)/√D"));
    let scores = scores(&heads.q, kt, rec)?;
    rec.owner(format_args!("scores = Q·Kᵀ/√D"), Made::Computed, &scores);

    rec.step(format_args!("4c · mask, then a stable softmax"));
    let masked = map_binary(
        &scores,
        &mask,
        |s, keep| {
            if keep { s } else { f64::NEG_INFINITY }
        },
    )?;
    rec.owner(
        format_args!("masked = where(mask, scores, -inf)"),
        Made::Computed,
        &masked,
    );
    let probs = softmax_axis(&masked, 3)?;
    rec.owner(
        format_args!("P = softmax_axis(masked, 3)"),
        Made::Computed,
        &probs,
    );

    rec.step(format_args!("4d · Y = matmul(P, V)"));
    let out = matmul(&probs, &heads.v)?;
    rec.owner(format_args!("Y = matmul(P, V)"), Made::Computed, &out);
    Ok(Attention {
        positions,
        mask,
        scores,
        masked,
        probs,
        out,
    })
}

/// Step 5: GPT-2 `merge_heads`, `[B, H, T, D]` -> `permute([0, 2, 1, 3])`
/// `[B, T, H, D]` -> (`materialize` if not contiguous) -> `reshape` `[B, T, C]`.
///
/// A fresh head-major owner permuted to `[B, T, H, D]` is not contiguous
/// when `H > 1` and `T > 1`, so that case costs the one announced copy; the
/// copy's buffer then becomes the `[B, T, C]` owner without another copy.
/// Records into the caller's current step.
///
/// # Errors
/// `ShapeOverflow` (impossible for a valid view); `AllocationFailed`.
pub fn merge_heads<'a>(
    y: View<'a, 4>,
    name: &str,
    rec: &mut impl Recorder,
) -> Result<Part<'a, 3>, Error> {
    let permuted = y.permute([0, 2, 1, 3])?;
    rec.view(format_args!("{name}.permute([0, 2, 1, 3])"), &permuted);
    let [b, t, h, d] = *permuted.shape();
    let merged = [b, t, h.checked_mul(d).ok_or(TensorError::ShapeOverflow)?];
    Ok(match reshapeable(permuted, merged, name, rec)? {
        Part::Shared(view) => {
            let view = view.reshape(merged)?;
            rec.view(format_args!("{name}.reshape([B, T, C])"), &view);
            Part::Shared(view)
        }
        Part::Copied(copy) => {
            let view = copy.view().reshape(merged)?;
            rec.view(format_args!("{name}.….reshape([B, T, C])"), &view);
            Part::Copied(Tensor::from_vec(merged, copy.into_vec())?)
        }
    })
}
