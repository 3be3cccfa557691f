//! Every pipeline output against the plain-loop reference of `naive.rs`:
//! layout steps must match exactly (they only move values), the attention
//! path within 1e-12 (same formulas, same summation order, the scores
//! scaled by the same rounded `1/√D`: in practice 0; the tolerance would
//! also cover the one rounding by which dividing by `√D` can differ).
//! Layout steps are checked in full; the attention tensors on the query rows
//! the configuration selects (all of them for small sizes). The causal
//! structure of P is checked in full: every key `j > i` exactly 0, every
//! row summing to 1.

use crate::args::Dims;
use crate::naive::{Naive, Which, select_rows};
use crate::pipeline::{Attention, Heads, Part};
use llm_from_scratch::prelude::*;

/// Tolerance of the computed (softmax path) outputs.
pub const TOLERANCE: f64 = 1e-12;

/// The pipeline outputs to check.
pub struct Outputs<'o, 'a> {
    /// The packed input `[B, T, 3C]`.
    pub qkv: &'o Tensor<3>,
    /// Q, K, V `[B, T, C]`: views of `qkv`.
    pub parts: &'o [View<'a, 3>; 3],
    /// Split heads `[B, H, T, D]`.
    pub heads: &'o Heads<'o>,
    /// `Kᵀ` `[B, H, D, T]`.
    pub kt: &'o View<'o, 4>,
    /// Attention over all positions.
    pub attention: &'o Attention,
    /// Merged output `[B, T, C]`.
    pub merged: &'o Part<'o, 3>,
}

/// Prints one line per output; true if all match. `rows` are the query
/// rows (ascending, each `< T`) on which the attention tensors are checked.
pub fn against_naive(dims: &Dims, rows: &[usize], out: &Outputs<'_, '_>) -> bool {
    let (b, t, h, d) = (dims.batch(), dims.seq(), dims.heads(), dims.head_width());
    let naive = Naive::new(out.qkv.as_slice(), b, t, h, d);
    let mut ok = true;
    for (part, (which, name)) in
        out.parts
            .iter()
            .zip([(Which::Q, "Q"), (Which::K, "K"), (Which::V, "V")])
    {
        ok &= compare(
            &format!("{name} [B, T, C]"),
            part.iter(),
            &naive.part(which),
            0.0,
        );
    }
    for (view, (which, name)) in [out.heads.q, out.heads.k, out.heads.v].iter().zip([
        (Which::Q, "Q"),
        (Which::K, "K"),
        (Which::V, "V"),
    ]) {
        ok &= compare(
            &format!("{name} heads [B, H, T, D]"),
            view.iter(),
            &naive.heads(which),
            0.0,
        );
    }
    ok &= compare(
        "Kᵀ [B, H, D, T]",
        out.kt.iter(),
        &naive.keys_transposed(),
        0.0,
    );
    let att = out.attention;
    let y = att.out.as_slice();
    let mut by_index = Vec::with_capacity(y.len());
    for (bi, ti, hi) in
        (0..b).flat_map(|bi| (0..t).flat_map(move |ti| (0..h).map(move |hi| (bi, ti, hi))))
    {
        let start = ((bi * h + hi) * t + ti) * d;
        by_index.extend_from_slice(&y[start..start + d]);
    }
    ok &= compare(
        "Y merged [B, T, C] = Y by index",
        out.merged.view().iter(),
        &by_index,
        0.0,
    );

    let sampled = if rows.len() == t {
        "all query rows".to_string()
    } else {
        format!("query rows {}", Abbrev(rows))
    };
    println!(
        "  attention: the reference recomputes {sampled} ({} of {t}) in each of the B·H = {} heads",
        rows.len(),
        b * h
    );
    let reference = naive.attention(rows);
    let square = [b, h, t, t];
    let steps = [
        (
            "scores Q·Kᵀ/√D [B, H, T, T]",
            &att.scores,
            square,
            &reference.scores,
        ),
        (
            "softmax P [B, H, T, T]",
            &att.probs,
            square,
            &reference.probs,
        ),
        (
            "Y = P·V [B, H, T, D]",
            &att.out,
            [b, h, t, d],
            &reference.out,
        ),
    ];
    for (name, got, shape, want) in steps {
        let got = select_rows(got.as_slice(), shape, rows);
        ok &= compare(name, got.iter(), want, TOLERANCE);
    }
    ok &= causal_rows(att.probs.as_slice(), t);
    let merged: Vec<f64> = out.merged.view().iter().copied().collect();
    ok &= compare(
        "Y merged [B, T, C]",
        select_rows(&merged, [b, 1, t, h * d], rows).iter(),
        &reference.merged,
        TOLERANCE,
    );
    ok
}

/// The causal structure of the probabilities `probs`, row-major `[.., T, T]`,
/// on every row: the keys `j > i` of query `i` exactly 0 (GPT-2's
/// `mask_attn_weights`), and each row's sum within `T·ε` of 1 (each of
/// the `T` quotients and the sum's additions round once; the softmax's
/// own sum is inside that bound too). Prints one line each; true if both hold.
pub fn causal_rows(probs: &[f64], t: usize) -> bool {
    let (mut masked, mut largest, mut worst) = (0_usize, 0.0_f64, 0.0_f64);
    for (n, row) in probs.chunks_exact(t.max(1)).enumerate() {
        let i = n % t;
        for &p in &row[i + 1..] {
            masked += 1;
            if p != 0.0 {
                // A NaN fails too: it is not 0.
                largest = largest.max(if p.is_nan() { f64::INFINITY } else { p.abs() });
            }
        }
        let error = (row.iter().sum::<f64>() - 1.0).abs();
        worst = worst.max(if error.is_nan() { f64::INFINITY } else { error });
    }
    let bound = t as f64 * f64::EPSILON;
    let (zero, one) = (largest == 0.0, worst <= bound);
    println!(
        "  {:<32} {masked:>9} values  max |P| {largest:.2e} (exact 0){}",
        "P where key j > query i",
        if zero { "" } else { "  MISMATCH" }
    );
    println!(
        "  {:<32} {:>9} rows    max |sum - 1| {worst:.2e} (≤ T·ε = {bound:.0e}){}",
        "P rows sum to 1",
        probs.len() / t.max(1),
        if one { "" } else { "  MISMATCH" }
    );
    zero && one
}

/// Prints a row list with its middle elided: `[0, 37, 74, …, 999, 1023]`.
struct Abbrev<'r>(&'r [usize]);

impl std::fmt::Display for Abbrev<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rows = self.0;
        if rows.len() <= 6 {
            return write!(f, "{rows:?}");
        }
        let [a, b, c] = [rows[0], rows[1], rows[2]];
        let [x, y] = [rows[rows.len() - 2], rows[rows.len() - 1]];
        write!(f, "[{a}, {b}, {c}, …, {x}, {y}]")
    }
}

/// Compares `got` with `want` value by value; prints the largest absolute error.
pub fn compare<'v>(
    name: &str,
    got: impl ExactSizeIterator<Item = &'v f64>,
    want: &[f64],
    tolerance: f64,
) -> bool {
    let count = got.len();
    let max_error = got.zip(want).fold(0.0_f64, |max, (&g, &w)| {
        // Equal values (also equal infinities) differ by 0; a NaN anywhere fails.
        let error = if g == w { 0.0 } else { (g - w).abs() };
        max.max(if error.is_nan() { f64::INFINITY } else { error })
    });
    let pass = count == want.len() && max_error <= tolerance;
    let rule = if tolerance == 0.0 {
        "exact".to_string()
    } else {
        format!("≤ {tolerance:.0e}")
    };
    println!(
        "  {name:<32} {count:>9} values  max |error| {max_error:.2e} ({rule}){}",
        if pass { "" } else { "  MISMATCH" }
    );
    if count != want.len() {
        println!(
            "    MISMATCH: {count} values, the reference has {}",
            want.len()
        );
    }
    pass
}

/// Prints a failed structural check; returns false.
pub fn problem(message: &str) -> bool {
    println!("  PROBLEM: {message}");
    false
}
