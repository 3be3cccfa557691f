//! The crate's own `exp` (the named elementwise op, `x.exp()`) against the
//! standard library's `f32::exp` mapped over the same values.
//!
//! exp/f32: 2^22 f32 values in [-1, 1), a fresh output each call. `ours`
//! is `x.exp()` on one thread (the global pool has one), `std` is
//! `map_unary(&x, f32::exp)` (the closure map the named op replaces),
//! `ndarray` is `mapv(f32::exp)`; `ours_2t` the same on a local pool of
//! two threads (wall clock). Ours must stay within 1 ulp of std's, which
//! is checked before timing. Target (issue 21): ours / std ≤ 0.25.

use super::harness::*;
use super::table::{Row, row};
use criterion::Criterion;
use llm_from_scratch::prelude::*;
use ndarray::Array1;

/// The values per call: 2^22 (16 MiB of f32).
const LEN: usize = 1 << 22;

/// `exp/f32`: ours, ours_2t, std, ndarray.
pub(crate) fn exp_f32(c: &mut Criterion) {
    let name = "exp/f32";
    let mut g = group(c, name, 1500);
    let x = Tensor::from_vec([LEN], values::<f32>(LEN)).unwrap();
    let array = Array1::from_vec(values::<f32>(LEN));
    let ours = x.exp().unwrap();
    let std = map_unary(&x, f32::exp).unwrap();
    let worst = ours
        .as_slice()
        .iter()
        .zip(std.as_slice())
        .map(|(a, b)| a.to_bits().abs_diff(b.to_bits()))
        .max();
    assert!(worst <= Some(1), "ours is {worst:?} ulp from std's exp");
    timed(&mut g, name, "std", || map_unary(&x, f32::exp).unwrap());
    timed(&mut g, name, "ours", || x.exp().unwrap());
    timed_on_two(&mut g, name, "ours_2t", || x.exp().unwrap());
    timed(&mut g, name, "ndarray", || array.mapv(f32::exp));
    g.finish();
}

/// The report row: ours against the std map (the `memcpy|nv` column).
pub(crate) fn rows() -> Vec<Row> {
    vec![row(
        "exp 2^22 f32 vs map(f32::exp)",
        "exp/f32",
        "ours",
        "std",
        Some(0.25),
        "exp_f32_vs_std",
    )]
}
