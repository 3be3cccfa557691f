//! # 03 · Split heads: GPT-2's head layouts on a tiny packed projection
//!
//! `cargo run --example 03_split_heads`
//!
//! GPT-2's attention (OpenAI's `model.py`) projects every token once into a
//! packed `[B, T, 3C]` tensor that holds Q, K and V side by side, cuts it in
//! three (`split_states`), cuts the width `C` of each part into `H` heads of
//! width `D = C / H` (`split_heads`: `[B, T, C] -> [B, T, H, D] -> [B, H, T, D]`)
//! and, after attention, puts the heads back (`merge_heads`). Here `B = 1`,
//! `T = 2` tokens and `H = 2` heads of width `D = 3`, so `C = 6` and the
//! packed projection is `[1, 2, 18]`. Value `100·t + c` is token `t`,
//! packed channel `c` (Q: `0..6`, K: `6..12`, V: `12..18`; channel `c` of Q
//! is head `c / 3`, lane `c % 3`), so every printed number says where it
//! came from. Each layout prints its strides, the storage offsets it reads
//! and its values, and the program checks the values it states.
//! `cargo run --release --example attention_heads` runs the same path at
//! GPT-2 small's size.

#[path = "common/show.rs"]
mod show;

use llm_from_scratch::prelude::*;
use show::layout as show;
use std::error::Error;

const B: usize = 1;
const T: usize = 2;
const H: usize = 2;
const D: usize = 3;
const C: usize = H * D;

fn main() -> Result<(), Box<dyn Error>> {
    let qkv = Tensor::from_fn([B, T, 3 * C], |[_, t, c]| (100 * t + c) as f64)?;
    let mut trace = LayoutTrace::new();
    trace.owner("qkv", &qkv);
    show(
        "qkv: [B, T, 3C] = [1, 2, 18], the packed projection (one owner)",
        &qkv.view(),
    );

    // split_states: three equal parts of the last axis, views of qkv. Each
    // token's 6 values of Q are followed by 12 of K and V, so Q's offsets
    // jump from 5 to 18: Q is not contiguous.
    let [q, k, v] = qkv.view().chunk::<3>(2)?;
    trace.view("Q = qkv.chunk::<3>(2)[0]", &q);
    show("Q = qkv.chunk::<3>(2)[0]: [1, 2, 6], a view of qkv", &q);
    println!(
        "  (K and V are the same view at base offsets {} and {})",
        k.base_offset(),
        v.base_offset()
    );

    // The strict rule: reshape takes only contiguous views, so it refuses Q...
    let refused = q.reshape([B, T, H, D]).unwrap_err();
    trace.rejected("Q.reshape([1, 2, 2, 3])", &refused);
    println!("\nQ.reshape([1, 2, 2, 3]) is refused: {refused}");

    // ... but cutting one axis in two needs no contiguity: channel stride s
    // becomes head stride 3·s and lane stride s. No copy.
    let split = q.split_axis(2, [H, D])?;
    trace.view("Q.split_axis(2, [2, 3])", &split);
    show(
        "Q.split_axis(2, [2, 3]): [B, T, H, D], still a view of qkv",
        &split,
    );
    // PyTorch's `view` rule finds the same strides for the whole shape at once.
    let viewed = q.reshape_strided([B, T, H, D])?;
    same(
        "Q.reshape_strided([1, 2, 2, 3])",
        viewed.strides(),
        split.strides(),
    )?;

    // split_heads, second half: the head axis moves before the tokens.
    let heads = split.permute([0, 2, 1, 3])?;
    trace.view("….permute([0, 2, 1, 3])", &heads);
    show(
        "….permute([0, 2, 1, 3]): [B, H, T, D], head h of token t",
        &heads,
    );
    for h in 0..H {
        for t in 0..T {
            let row: Vec<f64> = (0..D)
                .map(|lane| *heads.get([0, h, t, lane]).unwrap())
                .collect();
            let want: Vec<f64> = (0..D).map(|lane| (100 * t + D * h + lane) as f64).collect();
            same(&format!("head {h}, token {t}"), &row, &want)?;
        }
    }
    for (name, part) in [("K", k), ("V", v)] {
        let heads = part.split_axis(2, [H, D])?.permute([0, 2, 1, 3])?;
        trace.view(&format!("{name}.split_axis(2, [2, 3]).permute(..)"), &heads);
        show(
            &format!("{name}.split_axis(2, [2, 3]).permute([0, 2, 1, 3]): {name}'s heads"),
            &heads,
        );
    }

    // merge_heads of the view: permuting back restores Q's strides; reshape
    // still refuses (Q is not contiguous), but merging heads and lanes only
    // needs those two axes to chain (head stride = lane stride · D). No copy.
    let tokens_first = heads.permute([0, 2, 1, 3])?;
    println!(
        "\nheads.permute([0, 2, 1, 3]).reshape([1, 2, 6]) is refused: {}",
        tokens_first.reshape([B, T, C]).unwrap_err()
    );
    let merged = tokens_first.merge_axes(2)?;
    trace.view("heads.permute(..).merge_axes(2)", &merged);
    show(
        "heads.permute([0, 2, 1, 3]).merge_axes(2): Q again, no copy",
        &merged,
    );
    same("merged view", &values(&merged), &values(&q))?;

    // merge_heads of a fresh head-major owner, the layout attention returns:
    // after the permute, heads sit T·D = 6 apart and lanes 1 apart, so no
    // stride can merge them; materialize copies once, then merge_axes works.
    let y = heads.materialize()?;
    trace.owner("y = heads.materialize()", &y);
    show(
        "y: a new head-major owner [B, H, T, D] (an attention output's layout)",
        &y.view(),
    );
    let y_tokens = y.view().permute([0, 2, 1, 3])?;
    trace.view("y.permute([0, 2, 1, 3])", &y_tokens);
    show(
        "y.permute([0, 2, 1, 3]): [B, T, H, D], heads 6 apart",
        &y_tokens,
    );
    let refused = y_tokens.merge_axes(2).unwrap_err();
    trace.rejected("y.permute(..).merge_axes(2)", &refused);
    println!("\ny.permute([0, 2, 1, 3]).merge_axes(2) is refused: {refused}");
    let copy = y_tokens.materialize()?;
    trace.owner("y.permute(..).materialize()", &copy);
    let merged = copy.view().merge_axes(2)?;
    trace.view("….materialize().merge_axes(2)", &merged);
    show(
        "y.permute([0, 2, 1, 3]).materialize().merge_axes(2): merged, equal to Q",
        &merged,
    );
    same("merged copy", &values(&merged), &values(&q))?;

    println!("\nThe whole tour as a layout trace (\"shares\" = no copy):\n\n{trace}");
    Ok(())
}

/// The values of `view` in logical order.
fn values<const R: usize>(view: &View<'_, R>) -> Vec<f64> {
    view.iter().copied().collect()
}

/// An error naming `what` unless `got == want`.
fn same<T: PartialEq + std::fmt::Debug + ?Sized>(
    what: &str,
    got: &T,
    want: &T,
) -> Result<(), Box<dyn Error>> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, expected {want:?}").into())
    }
}
