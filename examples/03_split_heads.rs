//! # 03 · Split heads: GPT-2's head layouts on six numbers per token
//!
//! `cargo run --example 03_split_heads`
//!
//! GPT-2's attention (OpenAI's `model.py`) cuts the model width `C` of
//! every token into `H` heads of width `D = C / H`: `split_heads` is a
//! reshape `[B, T, C] -> [B, T, H, D]` then a permute to `[B, H, T, D]`,
//! and `merge_heads` is the inverse. Here one batch holds two tokens of two
//! heads of width three, and value `10 * t + c` is token `t`, channel `c`,
//! so every printed number says where it came from (channel `c` of head `h`
//! is `c = 3 * h + lane`). Each layout prints its values and the storage
//! offsets it reads; `cargo run --release --example attention_heads` runs
//! the same path at GPT-2 small's size.

#[path = "common/show.rs"]
mod show;

use llm_from_scratch::prelude::*;
use show::layout as show;
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    let (b, t, h, d) = (1, 2, 2, 3);
    let x = Tensor::from_fn([b, t, h * d], |[_, token, channel]| {
        (10 * token + channel) as f64
    })?;
    let mut trace = LayoutTrace::new();
    trace.owner("x", &x);
    show(
        "x: [B, T, C] = [1, 2, 6], the owner (row-major, 12 values)",
        &x.view(),
    );

    // A slice of the channel axis skips values between tokens: this is the
    // gap Q has inside GPT-2's packed [B, T, 3C] projection.
    let head0 = x.view().slice(2, 0..d)?;
    trace.view("x.slice(2, 0..3)", &head0);
    show(
        "x.slice(2, 0..3): head 0's channels of both tokens (offsets jump 2 → 6)",
        &head0,
    );

    // Split heads, step 1: reshape cuts the channel axis into (head, lane).
    // Same storage, same order: only the shape and strides change.
    let split = x.view().reshape([b, t, h, d])?;
    trace.view("reshape [1, 2, 2, 3]", &split);
    show(
        "x.reshape([1, 2, 2, 3]): [B, T, H, D], channel c = 3·h + lane",
        &split,
    );

    // Split heads, step 2: permute brings the head axis before the tokens.
    // Now [0, h] is one head's [T, D] matrix; the offsets jump by 6 between
    // tokens, so the view is not contiguous, and still nothing was copied.
    let heads = split.permute([0, 2, 1, 3])?;
    trace.view("permute [0, 2, 1, 3]", &heads);
    show(
        "….permute([0, 2, 1, 3]): [B, H, T, D], head 1 holds channels 3..6",
        &heads,
    );

    // Kᵀ for Q·Kᵀ: swap the last two axes, again metadata only.
    let kt = heads.transpose(2, 3)?;
    trace.view("transpose(2, 3)", &kt);
    show(
        "heads.transpose(2, 3): Kᵀ, [B, H, D, T], column t is token t",
        &kt,
    );

    // Merge heads of a *view* of the split: the inverse permutation restores
    // the original strides, so reshape accepts it and nothing is copied.
    let back = heads.permute([0, 2, 1, 3])?.reshape([b, t, h * d])?;
    trace.view("permute back, reshape [1, 2, 6]", &back);
    show(
        "heads.permute([0, 2, 1, 3]).reshape([1, 2, 6]): contiguous again, no copy",
        &back,
    );

    // Merge heads of a *fresh* head-major tensor, as attention produces one:
    // its permutation is not contiguous, reshape refuses, materialize copies once.
    let y = heads.materialize()?;
    trace.owner("y = heads.materialize()", &y);
    show(
        "y: a new head-major owner [B, H, T, D] (an attention output's layout)",
        &y.view(),
    );
    let y_tokens = y.view().permute([0, 2, 1, 3])?;
    trace.view("y.permute [0, 2, 1, 3]", &y_tokens);
    show(
        "y.permute([0, 2, 1, 3]): [B, T, H, D], not contiguous",
        &y_tokens,
    );
    let refused = y_tokens.reshape([b, t, h * d]).unwrap_err();
    trace.rejected("y.….reshape [1, 2, 6]", &refused);
    println!("\ny.permute(..).reshape([1, 2, 6]) is refused: {refused}");
    let merged = y_tokens.materialize()?;
    trace.owner("materialize", &merged);
    let merged = merged.view().reshape([b, t, h * d])?;
    trace.view("reshape [1, 2, 6]", &merged);
    show(
        "….materialize().reshape([1, 2, 6]): merged, equal to x",
        &merged,
    );
    if !merged.iter().eq(x.view().iter()) {
        return Err("split then merge did not give x back".into());
    }

    println!("\nThe whole tour as a layout trace (\"shares\" = no copy):\n\n{trace}");
    Ok(())
}
