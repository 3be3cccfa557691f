//! NumPy as the oracle for the data-movement and fused ops: replays every
//! case of `tests/fixtures/numpy/{concat,stack,take,argmax,softmax}.txt`.
//!
//! The fixtures are written by `scripts/numpy_fixtures.py` (via
//! `scripts/fixture_data_ops.py`): NumPy's `concatenate`, `stack`, `take`
//! and `argmax` give the values (exact: data movement and positions), our
//! rules in `scripts/fixture_rules.py` the shapes and errors, and the
//! softmax reference is computed in our order (the max policy, the C
//! library's `exp`, the ascending sum, the division). Every case runs
//! through the dynamic API and, dispatched by rank, the ranked API, and
//! both must match bit for bit. Where NumPy differs (its softmax rounds
//! differently, `take` skips the index check on an empty result, 0-d arrays
//! accept axis 0) the fixture records NumPy's answer on an `np` line and
//! the tests check that each difference is one of those documented kinds.
//!
//! Run `cargo test --test numpy_data_ops -- --nocapture` for the counts.

#[allow(dead_code)] // the operand format only
#[path = "numpy_conformance/broadcast.rs"]
mod broadcast;
mod common;
#[allow(dead_code)]
#[path = "numpy_conformance/fixture.rs"]
mod fixture;
#[path = "numpy_data_ops/fused.rs"]
mod fused;
#[path = "numpy_data_ops/gather.rs"]
mod gather;

use fixture::{Report, load};

/// `np.concatenate` of strided inputs: shapes, values, the first mismatch.
#[test]
fn concat_matches_numpy() {
    let mut report = Report::new("concat.txt");
    for case in load("concat.txt") {
        gather::replay_join(&case, false, &mut report);
    }
    report.finish(&[
        ("ok", 110),
        ("error: ConcatShapeMismatch", 18),
        ("error: EmptyInputList", 5),
        ("error: AxisOutOfBounds", 18),
        ("error: ConcatRankMismatch", 2),
        ("numpy raises too", 48),
        ("ranked replays", 160),
    ]);
}

/// `np.stack` of strided inputs along every new axis position.
#[test]
fn stack_matches_numpy() {
    let mut report = Report::new("stack.txt");
    for case in load("stack.txt") {
        gather::replay_join(&case, true, &mut report);
    }
    report.finish(&[
        ("ok", 120),
        ("error: ConcatShapeMismatch", 15),
        ("error: AxisOutOfBounds", 15),
        ("numpy raises too", 36),
        ("ranked replays", 180),
    ]);
}

/// `np.take(a, indices, axis)`: `index_select` with its first bad index.
#[test]
fn index_select_matches_numpy_take() {
    let mut report = Report::new("take.txt");
    for case in load("take.txt") {
        gather::replay_take(&case, &mut report);
    }
    report.finish(&[
        ("ok", 110),
        ("error: IndexSelectOutOfBounds", 25),
        (
            "numpy differs: take checks no index when the result is empty",
            2,
        ),
        ("numpy raises too", 35),
        ("ranked replays", 200),
    ]);
}

/// `np.argmax` on every axis, both keepdims ways: first NaN, else first maximum.
#[test]
fn argmax_matches_numpy() {
    let mut report = Report::new("argmax.txt");
    for case in load("argmax.txt") {
        fused::replay_argmax(&case, &mut report);
    }
    report.finish(&[
        ("argmax ok", 800),
        ("error: EmptyMaxAxis", 35),
        ("numpy differs: accepts axis 0 of a 0-d array", 40),
        ("numpy raises too", 280),
        ("ranked replays", 1100),
    ]);
}

/// The softmax in our order, bit for bit; NumPy's within its rounding.
#[test]
fn softmax_matches_the_ordered_reference() {
    let mut report = Report::new("softmax.txt");
    for case in load("softmax.txt") {
        fused::replay_softmax(&case, &mut report);
    }
    report.finish(&[
        ("softmax ok", 320),
        ("softmax of an empty view", 100),
        (
            "numpy differs: exp and pairwise-sum rounding (<= 4 ulp)",
            80,
        ),
        ("ranked replays", 570),
    ]);
}
