//! Every pipeline output against the plain-loop reference of `naive.rs`:
//! layout steps must match exactly (they only move values), the softmax
//! path within 1e-12 (same formulas, same summation order: in practice 0).

use crate::naive::{Naive, Which};
use crate::pipeline::{Attention, Dims, Heads, Part};
use llm_from_scratch::prelude::*;

/// Tolerance of the computed (softmax path) outputs.
pub const TOLERANCE: f64 = 1e-12;

/// The pipeline outputs to check.
pub struct Outputs<'o, 'a> {
    /// The packed input `[B, T, 3C]`.
    pub qkv: &'o Tensor<3>,
    /// Q, K, V `[B, T, C]`.
    pub parts: &'o [Part<'a, 3>; 3],
    /// Split heads `[B, H, T, D]`.
    pub heads: &'o Heads<'o>,
    /// `Kᵀ` `[B, H, D, T]`.
    pub kt: &'o View<'o, 4>,
    /// Attention on the prefix.
    pub attention: &'o Attention,
    /// Merged prefix output `[B, Ta, C]`.
    pub merged: &'o Part<'o, 3>,
    /// Q's heads copied head-major and merged back, `[B, T, C]`.
    pub merged_full: &'o Part<'o, 3>,
}

/// Prints one line per output; true if all match.
pub fn against_naive(dims: &Dims, ta: usize, out: &Outputs<'_, '_>) -> bool {
    let naive = Naive::new(
        out.qkv.as_slice(),
        dims.batch(),
        dims.seq(),
        dims.heads(),
        dims.head_width(),
    );
    let mut ok = true;
    for (part, (which, name)) in
        out.parts
            .iter()
            .zip([(Which::Q, "Q"), (Which::K, "K"), (Which::V, "V")])
    {
        ok &= compare(
            &format!("{name} [B, T, C]"),
            part.view().iter(),
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
    ok &= compare(
        "Q heads merged back [B, T, C]",
        out.merged_full.view().iter(),
        &naive.part(Which::Q),
        0.0,
    );
    let reference = naive.attention(ta);
    let att = out.attention;
    let positions: Vec<usize> = (0..ta).collect();
    let mask: Vec<bool> = (0..ta * ta).map(|n| n % ta <= n / ta).collect();
    ok &= att.positions.as_slice() == positions || problem("positions are not 0..Ta");
    ok &= att.mask.as_slice() == mask || problem("the mask is not j <= i");
    println!(
        "  {:<32} {:>9} values  (exact)",
        "positions, mask j <= i",
        ta + ta * ta
    );
    let steps = [
        (
            "scores Q·Kᵀ/√D [B, H, Ta, Ta]",
            &att.scores,
            &reference.scores,
        ),
        ("masked [B, H, Ta, Ta]", &att.masked, &reference.masked),
        ("row max [B, H, Ta, 1]", &att.max, &reference.max),
        ("exp(masked - max)", &att.exp, &reference.exps),
        ("row sum [B, H, Ta, 1]", &att.sum, &reference.sums),
        ("softmax P [B, H, Ta, Ta]", &att.probs, &reference.probs),
        ("Y = P·V [B, H, Ta, D]", &att.out, &reference.out),
    ];
    for (name, got, want) in steps {
        ok &= compare(name, got.as_slice().iter(), want, TOLERANCE);
    }
    ok &= compare(
        "Y merged [B, Ta, C]",
        out.merged.view().iter(),
        &reference.merged,
        TOLERANCE,
    );
    ok
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
