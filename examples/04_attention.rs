//! # 04 · Attention: one head, then several, on four tokens
//!
//! `cargo run --example 04_attention`
//!
//! Causal self-attention as GPT-2 computes it (OpenAI's `model.py`,
//! `multihead_attn`): scores `Q·Kᵀ / √D`, a causal mask (token `i` sees
//! tokens `j <= i`), a softmax over each row, and `P·V`. The softmax is the
//! stable one: subtract the row maximum before `exp`, so no score can
//! overflow, then divide by the row sum. First on one head of width
//! `D = 2`, then on `H = 2` heads of the `C = 4`-wide tokens with GPT-2's
//! `split_heads` / `merge_heads`. Every step prints its values (rounded to
//! three places); the program checks that every probability row sums to 1,
//! that no token attends to a later one, that the library's one-call
//! `attention` gives the same result, and that head 0 of the multi-head
//! run equals the single-head run on the same channels.

#[path = "common/show.rs"]
mod show;

use llm_from_scratch::prelude::*;
use std::error::Error;

type Outcome<T = ()> = Result<T, Box<dyn Error>>;

const T: usize = 4; // tokens
const H: usize = 2; // heads
const D: usize = 2; // head width
const C: usize = H * D; // model width

fn main() -> Outcome {
    // Q and K hold -1, 0 and 1; V[t, c] = 10·t + c, so an output row shows
    // how much of each token it mixes in.
    let q = Tensor::from_fn([1, T, C], |[_, t, c]| ((t + 2 * c) % 3) as f64 - 1.0)?;
    let k = Tensor::from_fn([1, T, C], |[_, t, c]| ((2 * t + c) % 3) as f64 - 1.0)?;
    let v = Tensor::from_fn([1, T, C], |[_, t, c]| (10 * t + c) as f64)?;
    println!("Q =\n{q}\nK =\n{k}\nV =\n{v}");

    println!("\n==== 1. One head: channels 0..2 of every token ====");
    // The head's channels, copied into an owner of shape [B, H = 1, T, D].
    let one = |x: &Tensor<3>| -> Outcome<Tensor<4>> {
        let channels = x.view().slice(2, 0..D)?.materialize()?;
        Ok(channels.into_shape([1, 1, T, D])?) // the copy's storage, moved
    };
    let (q0, k0, v0) = (one(&q)?, one(&k)?, one(&v)?);
    let single = attend(&q0.view(), &k0.view(), &v0.view())?;

    println!("\n==== 2. Two heads: split, attend, merge ====");
    let (qh, kh, vh) = (split_heads(&q)?, split_heads(&k)?, split_heads(&v)?);
    show::layout("Q split into heads: [B, H, T, D], a view of Q", &qh);
    let y = attend(&qh, &kh, &vh)?;

    // merge_heads: [B, H, T, D] -> permute [B, T, H, D] -> reshape [B, T, C].
    // The permuted view is not contiguous, so reshape refuses it and the
    // merge costs one explicit copy.
    let tokens_first = y.view().permute([0, 2, 1, 3])?;
    let refused = tokens_first.reshape([1, T, C]).unwrap_err();
    println!("\nY.permute([0, 2, 1, 3]).reshape([1, T, C]) is refused: {refused}");
    let merged = tokens_first.materialize()?.into_shape([1, T, C])?;
    print(
        "merged = Y.permute([0, 2, 1, 3]).materialize() as [B, T, C]",
        &merged,
    )?;

    let head0 = y.view().slice(1, 0..1)?;
    if !head0.iter().eq(single.view().iter()) {
        return Err("head 0 of the two-head run differs from the single head".into());
    }
    println!("\nOK: head 0 of the two-head run equals the single-head run, value for value");
    Ok(())
}

/// GPT-2's `split_heads`: `[B, T, C]` -> reshape `[B, T, H, D]` -> permute
/// `[B, H, T, D]`; both steps are views of `x`, nothing is copied.
fn split_heads(x: &Tensor<3>) -> Result<View<'_, 4>, llm_from_scratch::Error> {
    x.view().reshape([1, T, H, D])?.permute([0, 2, 1, 3])
}

/// Causal attention on `[B, H, T, D]` queries, keys and values; prints
/// every step and checks the probabilities. Returns `P·V`, `[B, H, T, D]`.
fn attend(q: &View<'_, 4>, k: &View<'_, 4>, v: &View<'_, 4>) -> Outcome<Tensor<4>> {
    // Kᵀ swaps the last two axes: metadata only, matmul reads it as it is.
    let kt = k.transpose(2, 3)?;
    let scale = (q.shape()[3] as f64).sqrt();
    let scores = q.matmul(&kt)?.map_unary(|s| s / scale)?;
    print("scores = Q·Kᵀ / √D  [B, H, T, T]", &scores)?;

    // The mask by broadcasting: rows i as [T, 1] against columns j as [1, T].
    let positions: Tensor<1, usize> = Tensor::from_fn([T], |[i]| i)?;
    let (i, j) = (
        positions.view().reshape([T, 1])?,
        positions.view().reshape([1, T])?,
    );
    let mask = i.map_binary(&j, |i, j| j <= i)?; // [T, T]
    println!("\ncausal mask j <= i  [T, T]:\n{mask}");
    let masked = scores.map_binary(&mask, |s, keep| if keep { s } else { f64::NEG_INFINITY })?;
    print("masked = where(mask, scores, -inf)", &masked)?;

    // Stable softmax over the last axis; KeepDim lets max and sum broadcast back.
    let max = masked.max_axis(3, KeepDim)?; // [B, H, T, 1]
    print("row max  [B, H, T, 1]", &max)?;
    let exp = masked.sub(&max)?.exp()?; // the crate's exp, as softmax_axis uses
    print("exp(masked - max): exp(-inf) = 0 hides the future", &exp)?;
    let sum = exp.sum_axis(3, KeepDim)?; // [B, H, T, 1]
    let p = exp.map_binary(&sum, |e, z| e / z)?;
    print("P = exp / row sum", &p)?;
    // The library's softmax_axis does these four steps in one fused call,
    // bit for bit, without the full-size exp temporary.
    if masked.softmax_axis(3)? != p {
        return Err("softmax_axis differs from the four-step softmax".into());
    }
    println!("masked.softmax_axis(3) gives the same P in one call, bit for bit");
    let totals = p.sum_axis(3, RemoveDim)?;
    if totals
        .as_slice()
        .iter()
        .any(|total| (total - 1.0).abs() > 1e-12)
    {
        return Err(format!("a probability row does not sum to 1: {totals}").into());
    }
    let future = (0..p.len()).filter(|n| n % T > n / T % T);
    if future.clone().any(|n| p.as_slice()[n] != 0.0) {
        return Err("a token attends to a later token".into());
    }

    let y = p.matmul(v)?;
    print("Y = P·V  [B, H, T, D]", &y)?;
    // The library's `attention` does every step above in one call, the
    // scores never stored (it multiplies by 1/√D where the steps divide by
    // √D, so the last bit may differ).
    let fused = attention(q, k, v, 1.0 / scale, AttentionMask::Causal { offset: 0 })?;
    let worst = fused
        .as_slice()
        .iter()
        .zip(y.as_slice())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    if worst > 1e-12 {
        return Err(format!("attention differs from the steps by {worst:e}").into());
    }
    let agreement = if worst == 0.0 {
        "bit for bit here".to_string()
    } else {
        format!("within {worst:.1e}")
    };
    println!("attention(Q, K, V, 1/√D, causal) gives the same Y in one call ({agreement})");
    Ok(y)
}

/// Prints `label` and the values of `tensor` rounded to three places.
fn print<const R: usize>(label: &str, tensor: &Tensor<R>) -> Outcome {
    let rounded = tensor.map_unary(|x| {
        if x.is_finite() {
            (x * 1e3).round() / 1e3
        } else {
            x
        }
    })?;
    println!("\n{label}:\n{rounded}");
    Ok(())
}
