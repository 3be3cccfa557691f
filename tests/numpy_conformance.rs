//! NumPy as the oracle: replays every case of `tests/fixtures/numpy/*.txt`.
//!
//! The fixtures are written by `scripts/numpy_fixtures.py` (NumPy for
//! indexing, strides, views and broadcasting; Python's IEEE 754 arithmetic
//! for our exact ascending sums and first-NaN maxima) and read here with std
//! only, so neither the tests nor CI need Python. Every case runs through the
//! dynamic API (`tensor::dynamic`) and, dispatched by rank with
//! `common::with_rank!`, through the ranked API (`Tensor<R>`, `View<R>`, `tensor::ops`); both are
//! compared bit for bit. Where NumPy deliberately differs from us (reshape of
//! a non-contiguous view, empty mean / max, slices past the end, max ties
//! and NaN payloads, pairwise summation, layouts of empty and extent-1 axes)
//! the fixture records NumPy's answer on an `np` line, and the tests check
//! that every difference is one of those documented kinds.
//!
//! `view_ops.txt` takes PyTorch as the oracle of `view` and its kin
//! (`unflatten`, `flatten`, `unsqueeze`; PyTorch's version is in the file's
//! header) and NumPy for the other view operations.
//!
//! Run `cargo test --test numpy_conformance -- --nocapture` to see the
//! number of cases per operation and per kind of NumPy difference.

#[path = "numpy_conformance/broadcast.rs"]
mod broadcast;
mod common;
#[path = "numpy_conformance/fixture.rs"]
mod fixture;
#[path = "common/ranked_views.rs"]
mod ranked_views;
#[path = "numpy_conformance/reduce.rs"]
mod reduce;
#[path = "numpy_conformance/view_ops.rs"]
mod view_ops;
#[path = "numpy_conformance/views.rs"]
mod views;

use fixture::{Report, load};

/// At least 1,000 seeded cases over ranks 0 to 6, so every rank and op is covered many times.
#[test]
fn fixtures_hold_at_least_a_thousand_cases_over_ranks_0_to_6() {
    let mut report = Report::new("fixture totals");
    let mut total = 0;
    for name in ["views.txt", "broadcast.txt", "reduce.txt", "view_ops.txt"] {
        let cases = load(name);
        total += cases.len();
        report.add(&format!("cases in {name}"), cases.len());
    }
    for rank in 0..=6 {
        let owners = load("views.txt")
            .iter()
            .filter(|case| fixture::shape(case.first("owner")).len() == rank)
            .count();
        report.add(&format!("view chains over rank-{rank} owners"), owners);
        assert!(
            owners >= 80,
            "only {owners} view chains start at rank {rank}"
        );
    }
    report.add("cases in total", total);
    report.finish(&[("cases in total", 2500)]);
}

/// Transpose / permute / slice / reshape chains: shape, strides in elements,
/// base offset, contiguity and values after every step.
#[test]
fn view_chains_match_numpy() {
    let mut report = Report::new("views.txt");
    for case in load("views.txt") {
        views::replay(&case, &mut report);
    }
    report.finish(&[
        ("view chains", 600),
        ("transpose", 300),
        ("permute", 400),
        ("slice", 350),
        ("reshape", 400),
        ("error: NonContiguousReshape", 25),
        ("ranked replays", 550),
    ]);
}

/// Broadcasting pairs of strided operands: output shape and `left - right`,
/// or `IncompatibleBroadcast` at the leftmost failing axis.
#[test]
fn broadcasting_pairs_match_numpy() {
    let mut report = Report::new("broadcast.txt");
    for case in load("broadcast.txt") {
        broadcast::replay(&case, &mut report);
    }
    report.finish(&[
        ("broadcast ok", 350),
        ("broadcast error", 75),
        ("ranked replays", 500),
    ]);
}

/// Sum, mean and max over every axis (and one past the last), both keep_dim
/// ways, on values with NaN payloads, signed zeros and ties.
#[test]
fn reductions_match_the_exact_python_folds() {
    let mut report = Report::new("reduce.txt");
    for case in load("reduce.txt") {
        reduce::replay(&case, &mut report);
    }
    report.finish(&[
        ("sum", 2500),
        ("mean", 2500),
        ("max", 2500),
        ("error: EmptyMeanAxis", 100),
        ("error: EmptyMaxAxis", 100),
        ("ranked replays", 7000),
        ("numpy differs: max -0.0 / +0.0 tie or NaN payload", 50),
        ("numpy differs: summation order rounding", 4),
    ]);
}

/// Chains of split_axis, merge_axes, reshape_strided (PyTorch's `view`),
/// unsqueeze, squeeze, select, broadcast_to, slice_step, chunk and
/// split_at over owners and `as_strided` bases: layout after every step,
/// values, and every difference from PyTorch / NumPy a documented one.
#[test]
fn view_operation_chains_match_pytorch_and_numpy() {
    let mut report = Report::new("view_ops.txt");
    for case in load("view_ops.txt") {
        view_ops::replay(&case, &mut report);
    }
    report.finish(&[
        ("view-op chains", 900),
        ("chains from an as_strided base", 250),
        ("split_axis", 120),
        ("merge_axes", 150),
        ("reshape_strided", 400),
        ("unsqueeze", 200),
        ("squeeze", 100),
        ("select", 100),
        ("broadcast_to", 150),
        ("slice_step", 100),
        ("chunk", 100),
        ("split_at", 100),
        (
            "reshape_strided of a non-contiguous view (reshape refuses it)",
            60,
        ),
        ("error: NonStrideCompatibleReshape", 25),
        ("torch view refuses too", 25),
        ("error: NonMergeableAxes", 20),
        ("torch differs: flatten copies what merge_axes refuses", 20),
        ("error: SplitAxisMismatch", 10),
        ("error: SqueezeNonUnitAxis", 40),
        ("error: ZeroSliceStep", 10),
        ("error: UnevenChunk", 10),
        ("ranked replays", 850),
    ]);
}
