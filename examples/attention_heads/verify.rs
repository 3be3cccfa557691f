//! Every pipeline output against the plain-loop reference of `naive.rs`:
//! layout steps must match exactly (they only move values), the softmax
//! path within 1e-12 (same formulas, same summation order: in practice 0).
//! Layout steps are checked in full; the attention tensors on the query rows
//! the configuration selects (all of them for small sizes).

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
    let positions: Vec<usize> = (0..t).collect();
    let mask: Vec<bool> = (0..t * t).map(|n| n % t <= n / t).collect();
    ok &= att.positions.as_slice() == positions || problem("positions are not 0..T");
    ok &= att.mask.as_slice() == mask || problem("the mask is not j <= i");
    println!(
        "  {:<32} {:>9} values  (exact)",
        "positions, mask j <= i",
        t + t * t
    );
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
            "masked [B, H, T, T]",
            &att.masked,
            square,
            &reference.masked,
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
    let merged: Vec<f64> = out.merged.view().iter().copied().collect();
    ok &= compare(
        "Y merged [B, T, C]",
        select_rows(&merged, [b, 1, t, h * d], rows).iter(),
        &reference.merged,
        TOLERANCE,
    );
    ok
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
