//! Unit tests of the pipeline (`cargo test --example attention_heads`, and
//! `cargo test`, which runs them too: the example is declared with
//! `test = true`): the copy accounting of every step and the values against
//! the plain-loop reference on edge shapes, bit for bit (`matmul` and
//! `matmul_affine` keep the loops' summation order and scale by the same
//! rounded `1/√D`; `causal_softmax` is the crate's `exp` and summation
//! tree, which the loops call). The NumPy fixture
//! checks of the same attention path, written with the library alone, are
//! in `tests/attention.rs`.

use crate::args::Dims;
use crate::audit::record::{Made, Recorder};
use crate::input;
use crate::naive::{Naive, Which, select_rows};
use crate::pipeline;
use crate::verify;
use llm_from_scratch::prelude::*;
use std::fmt::Arguments;

/// Values of `view` in logical order.
fn values<const R: usize>(view: &View<'_, R>) -> Vec<f64> {
    view.iter().copied().collect()
}

/// Records storages so a test can check who shares what.
#[derive(Default)]
struct Log {
    owners: Vec<(usize, String, Made)>,
    views: Vec<(usize, String)>,
    rejected: Vec<(String, Error)>,
}

impl Recorder for Log {
    fn step(&mut self, _: Arguments<'_>) {}
    fn view<const R: usize, T>(&mut self, label: Arguments<'_>, view: &View<'_, R, T>) {
        self.views
            .push((view.storage().as_ptr() as usize, label.to_string()));
    }
    fn owner<const R: usize, T>(
        &mut self,
        label: Arguments<'_>,
        made: Made,
        tensor: &Tensor<R, T>,
    ) {
        self.owners
            .push((tensor.as_slice().as_ptr() as usize, label.to_string(), made));
    }
    fn rejected(&mut self, label: Arguments<'_>, error: &Error) {
        self.rejected.push((label.to_string(), error.clone()));
    }
}

impl Log {
    fn copies(&self) -> Vec<&str> {
        self.owners
            .iter()
            .filter(|(_, _, made)| *made == Made::Copy)
            .map(|(_, label, _)| label.as_str())
            .collect()
    }
}

/// Runs the whole pipeline with a [`Log`]; every view must borrow `qkv` or a recorded owner.
fn logged_run(qkv: &Tensor<3>, dims: &Dims) -> Log {
    let mut log = Log::default();
    log.owner(format_args!("qkv"), Made::Input, qkv);
    let parts = pipeline::chunk_qkv(qkv, &mut log).unwrap();
    let heads = pipeline::split_heads(&parts, dims, &mut log).unwrap();
    let kt = pipeline::transpose_keys(&heads.k, &mut log).unwrap();
    let attention = pipeline::attention(&heads, &kt, &mut log).unwrap();
    let merged = pipeline::merge_heads(attention.out.view(), "Y", &mut log).unwrap();
    // The split heads are views of the packed projection itself.
    for view in [heads.q, heads.k, heads.v] {
        assert_eq!(view.storage().as_ptr(), qkv.as_slice().as_ptr());
    }
    for (storage, label) in &log.views {
        assert!(
            log.owners.iter().any(|(owner, _, _)| owner == storage),
            "view `{label}` borrows no recorded owner"
        );
    }
    drop(merged);
    log
}

#[test]
fn only_the_announced_views_are_copied() {
    // The NumPy fixture's sizes and input (B = 2, T = 5, H = 3, D = 4).
    let dims = Dims::new(2, 5, 3, 4).unwrap();
    let log = logged_run(&input::tensor([2, 5, 36], input::SEED).unwrap(), &dims);
    // Only the merge copies: split_axis splits the parts of qkv in place.
    assert_eq!(log.copies(), ["Y.….materialize()"]);
    let refused = |name: &str| {
        (
            format!("{name}.reshape([2, 5, 3, 4])"),
            Error::NonContiguousReshape,
        )
    };
    assert_eq!(
        log.rejected,
        [
            refused("Q"),
            refused("K"),
            refused("V"),
            (
                "Y.….merge_axes(2)".to_string(),
                Error::NonMergeableAxes {
                    axis: 2,
                    extents: [3, 4],
                    strides: [20, 1]
                }
            )
        ]
    );
    // 3 chunks, 6 split-head views, Kᵀ, 2 merge views: matmul_affine
    // takes Q and the transposed view Kᵀ as they are and causal_softmax
    // needs no mask, so attention adds no layout of its own.
    assert_eq!(log.views.len(), 12, "{:?}", log.views);
    // Attention makes three owners, all kept (no temporary): the scaled
    // scores, P and Y; then the merge's copy.
    let owners: Vec<(&str, Made)> = log
        .owners
        .iter()
        .map(|(_, label, made)| (label.as_str(), *made))
        .collect();
    assert_eq!(
        owners,
        [
            ("qkv", Made::Input),
            ("scores = matmul(Q, Kᵀ)·(1/√D)", Made::Computed),
            ("P = causal_softmax(scores, 0)", Made::Computed),
            ("Y = matmul(P, V)", Made::Computed),
            ("Y.….materialize()", Made::Copy),
        ],
        "op outputs are computed values, not copies"
    );
}

#[test]
fn a_single_position_needs_no_copy_at_all() {
    // B·T = 1: each part is contiguous (reshape agrees); [1, H, 1, D]
    // permuted to [1, 1, H, D] merges heads and lanes without a copy.
    let dims = Dims::new(1, 1, 3, 2).unwrap();
    let qkv = input::tensor([1, 1, 18], input::SEED).unwrap();
    let log = logged_run(&qkv, &dims);
    assert!(
        log.copies().is_empty(),
        "unexpected copies: {:?}",
        log.copies()
    );
    assert!(
        log.rejected.is_empty(),
        "unexpected refusals: {:?}",
        log.rejected
    );
}

#[test]
fn the_pipeline_matches_the_plain_loop_reference_bit_for_bit() {
    // (B, T, H, D, checked query rows): edge shapes checked on every row,
    // and sampled rows as the example samples them at full size. T = 300
    // puts matmul's Q·Kᵀ (k = D) and P·V (D columns, so 512-deep k
    // slices) in 24-row blocks that reuse the first block's panels.
    let every = |t: usize, step: usize| -> Vec<usize> {
        let mut rows: Vec<usize> = (0..t).step_by(step).collect();
        if rows.last() != Some(&(t - 1)) {
            rows.push(t - 1);
        }
        rows
    };
    for (b, t, h, d, rows) in [
        (1, 1, 1, 1, every(1, 1)),
        (1, 1, 4, 2, every(1, 1)),
        (3, 2, 1, 5, every(2, 1)),
        (2, 7, 2, 3, every(7, 1)),
        (2, 7, 2, 3, every(7, 3)),
        (1, 4, 5, 1, every(4, 1)),
        (1, 300, 2, 8, every(300, 37)),
    ] {
        let dims = Dims::new(b, t, h, d).unwrap();
        let qkv = input::tensor([b, t, 3 * h * d], 7 + b as u64).unwrap();
        let reference = Naive::new(qkv.as_slice(), b, t, h, d);
        let parts = pipeline::chunk_qkv(&qkv, &mut ()).unwrap();
        let heads = pipeline::split_heads(&parts, &dims, &mut ()).unwrap();
        let kt = pipeline::transpose_keys(&heads.k, &mut ()).unwrap();
        let case = format!("B={b} T={t} H={h} D={d} rows={rows:?}");
        for ((part, view), which) in
            parts
                .iter()
                .zip([heads.q, heads.k, heads.v])
                .zip([Which::Q, Which::K, Which::V])
        {
            assert_eq!(
                values(part),
                reference.part(which),
                "{case}: {which:?} part"
            );
            assert_eq!(
                values(&view),
                reference.heads(which),
                "{case}: {which:?} heads"
            );
        }
        assert_eq!(values(&kt), reference.keys_transposed(), "{case}: Kᵀ");
        let attention = pipeline::attention(&heads, &kt, &mut ()).unwrap();
        let merged = pipeline::merge_heads(attention.out.view(), "Y", &mut ()).unwrap();
        let want = reference.attention(&rows);
        let square = [b, h, t, t];
        for (name, got, shape, expected) in [
            ("scores", &attention.scores, square, &want.scores),
            ("probs", &attention.probs, square, &want.probs),
            ("out", &attention.out, [b, h, t, d], &want.out),
        ] {
            assert_eq!(got.shape(), &shape, "{case}: {name} shape");
            assert_eq!(
                &select_rows(got.as_slice(), shape, &rows),
                expected,
                "{case}: {name}"
            );
        }
        assert_eq!(
            select_rows(&values(&merged.view()), [b, 1, t, h * d], &rows),
            want.merged,
            "{case}: merged"
        );
        // On every row, sampled or not: key j > query i exactly 0, and
        // t(t + 1)/2 live keys per head.
        let probs = attention.probs.as_slice();
        for (n, row) in probs.chunks_exact(t).enumerate() {
            let i = n % t;
            assert!(
                row[i + 1..].iter().all(|&p| p == 0.0),
                "{case}: row {n} has a nonzero masked key"
            );
        }
        assert_eq!(
            probs.iter().filter(|&&p| p != 0.0).count(),
            b * h * t * (t + 1) / 2,
            "{case}: live keys"
        );
        assert!(verify::causal_rows(probs, t), "{case}: causal rows");
    }
}

#[test]
fn select_rows_picks_rows_of_axis_2_in_every_group() {
    // [2, 1, 3, 2]: groups of 3 rows of width 2; rows 0 and 2 of each group.
    let values: Vec<f64> = (0..12).map(f64::from).collect();
    assert_eq!(
        select_rows(&values, [2, 1, 3, 2], &[0, 2]),
        [0.0, 1.0, 4.0, 5.0, 6.0, 7.0, 10.0, 11.0]
    );
}
