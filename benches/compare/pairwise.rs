//! The fixed-tree sum of one long axis against ndarray's `sum`.
//!
//! sum/f32: 2^22 f32 values in one axis (16 MiB), reduced to one value.
//! `ours` is `sum_axis(&x, 0, RemoveDim)` (the fixed pairwise tree of the
//! numerics contract, one thread), `ndarray` is `Array1::sum` (unrolled
//! partial sums, not layout- or machine-independent), `ours_2t` ours on a
//! local pool of two threads (one group stays on one thread). Before
//! timing, ours is checked equal to `ops::tree_sum` (its scalar model) and
//! within `log2(n)·eps·Σ|x|` of the f64 sum. Target (issue 21): ours /
//! ndarray ≤ 1.0.

use super::harness::*;
use super::table::{Row, row};
use criterion::Criterion;
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::ops::tree_sum;
use ndarray::Array1;

/// The values per call: 2^22 (16 MiB of f32).
const LEN: usize = 1 << 22;

/// `sum/f32`: ours, ours_2t, ndarray.
pub(crate) fn sum_f32(c: &mut Criterion) {
    let name = "sum/f32";
    let mut g = group(c, name, 1500);
    let data = values::<f32>(LEN);
    let x = Tensor::from_vec([LEN], data.clone()).unwrap();
    let array = Array1::from_vec(data.clone());
    let ours = sum_axis(&x, 0, RemoveDim).unwrap().as_slice()[0];
    assert_eq!(ours.to_bits(), tree_sum(&data).to_bits(), "not the tree");
    let exact: f64 = data.iter().map(|&v| f64::from(v)).sum();
    let magnitude: f64 = data.iter().map(|&v| f64::from(v).abs()).sum();
    let bound = 22.0 * f64::from(f32::EPSILON) * magnitude;
    assert!((f64::from(ours) - exact).abs() <= bound, "tree error");
    timed(&mut g, name, "ours", || sum_axis(&x, 0, RemoveDim).unwrap());
    timed_on_two(&mut g, name, "ours_2t", || {
        sum_axis(&x, 0, RemoveDim).unwrap()
    });
    timed(&mut g, name, "ndarray", || array.sum());
    g.finish();
}

/// The report row: ours against ndarray.
pub(crate) fn rows() -> Vec<Row> {
    vec![row(
        "sum 2^22 f32, one axis, vs ndarray",
        "sum/f32",
        "ours",
        "ndarray",
        Some(1.0),
        "sum_f32_pairwise_vs_ndarray",
    )]
}
