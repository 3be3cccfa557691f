//! GPT-2 attention heads (issue 5, with issue 8's `matmul`): the pipeline of
//! `examples/attention_heads` against a NumPy fixture
//! (`scripts/attention_fixture.py`), against the example's plain-loop
//! reference on edge shapes (bit for bit: `matmul`, the maps and the
//! reductions keep the loops' summation order), its copy accounting, and
//! the full-size split / merge round trip.
//!
//! The example's modules are compiled in here by path (no example code in
//! `src/`), so the test runs the very functions the example prints; the
//! flag parser's unit tests in `args.rs` run here too.

#[path = "../examples/attention_heads/args.rs"]
mod args;
#[path = "../examples/attention_heads/naive.rs"]
mod naive;
#[path = "../examples/attention_heads/pipeline.rs"]
mod pipeline;
#[path = "../examples/attention_heads/prng.rs"]
mod prng;

use llm_from_scratch::prelude::*;
use naive::{Naive, Which, select_rows};
use pipeline::{Dims, Made, Part, Recorder};
use std::fmt::Arguments;

/// The NumPy fixture: sizes, seed and named row-major tensors.
struct Fixture {
    dims: Dims,
    seed: u64,
    tensors: Vec<(String, Vec<usize>, Vec<f64>)>,
}

impl Fixture {
    fn load() -> Self {
        let text = include_str!("fixtures/attention_small.txt");
        let mut lines = text.lines().filter(|line| !line.starts_with('#'));
        let config = lines.next().expect("a config line");
        let field = |key: &str| -> u64 {
            config
                .split_whitespace()
                .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
                .and_then(|value| value.parse().ok())
                .unwrap_or_else(|| panic!("config has no `{key}`: {config}"))
        };
        let size = |key: &str| usize::try_from(field(key)).expect("a size fits usize");
        let dims = Dims::new(
            size("batch"),
            size("seq"),
            size("heads"),
            size("head_width"),
        )
        .expect("small sizes");
        let mut tensors = Vec::new();
        while let Some(header) = lines.next() {
            let mut words = header.split_whitespace();
            assert_eq!(
                words.next(),
                Some("tensor"),
                "expected a tensor header: {header}"
            );
            let name = words.next().expect("a tensor name").to_string();
            let shape: Vec<usize> = words.map(|n| n.parse().expect("an extent")).collect();
            let values: Vec<f64> = (&mut lines)
                .take(shape.iter().product())
                .map(|v| {
                    v.parse()
                        .unwrap_or_else(|_| panic!("{name}: not a float: {v}"))
                })
                .collect();
            assert_eq!(
                values.len(),
                shape.iter().product::<usize>(),
                "{name} is truncated"
            );
            tensors.push((name, shape, values));
        }
        Self {
            dims,
            seed: field("seed"),
            tensors,
        }
    }

    /// Shape and values of tensor `name`.
    fn get(&self, name: &str) -> (&[usize], &[f64]) {
        let (_, shape, values) = self
            .tensors
            .iter()
            .find(|(n, _, _)| n == name)
            .unwrap_or_else(|| panic!("the fixture has no tensor `{name}`"));
        (shape, values)
    }

    fn qkv(&self) -> Tensor<3> {
        let (shape, values) = self.get("qkv");
        Tensor::from_vec([shape[0], shape[1], shape[2]], values.to_vec()).expect("qkv")
    }
}

/// Values of `view` in logical order.
fn values<const R: usize>(view: &View<'_, R>) -> Vec<f64> {
    view.iter().copied().collect()
}

/// Exact equality with the fixture's tensor, shape included.
fn assert_exact<const R: usize>(fixture: &Fixture, name: &str, view: &View<'_, R>) {
    let (shape, expected) = fixture.get(name);
    assert_eq!(view.shape().as_slice(), shape, "{name}: shape");
    assert_eq!(
        values(view),
        expected,
        "{name}: values must match NumPy exactly"
    );
}

/// Largest absolute difference; infinities must coincide exactly.
fn max_error(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "lengths differ");
    got.iter().zip(want).fold(0.0_f64, |max, (&g, &w)| {
        let error = if g == w { 0.0 } else { (g - w).abs() };
        max.max(if error.is_nan() { f64::INFINITY } else { error })
    })
}

fn assert_close<const R: usize>(fixture: &Fixture, name: &str, view: &View<'_, R>) {
    let (shape, expected) = fixture.get(name);
    assert_eq!(view.shape().as_slice(), shape, "{name}: shape");
    let error = max_error(&values(view), expected);
    assert!(error <= 1e-12, "{name}: max |error| {error:e} > 1e-12");
}

#[test]
fn the_fixture_input_is_the_examples_seeded_input() {
    let fixture = Fixture::load();
    assert_eq!(fixture.seed, prng::SEED);
    let dims = fixture.dims;
    let ours = prng::packed_qkv(dims.batch(), dims.seq(), dims.width(), fixture.seed).unwrap();
    assert_eq!(
        ours,
        fixture.qkv(),
        "Rust and NumPy must start from the same bits"
    );
}

#[test]
fn layout_steps_match_numpy_exactly() {
    let fixture = Fixture::load();
    let qkv = fixture.qkv();
    let parts = pipeline::slice_qkv(&qkv, &fixture.dims, &mut ()).unwrap();
    for (part, name) in parts.iter().zip(["q", "k", "v"]) {
        assert!(
            matches!(part, Part::Copied(_)),
            "B·T > 1: {name} must be copied"
        );
        assert_exact(&fixture, name, &part.view());
    }
    let heads = pipeline::split_heads(&parts, &fixture.dims, &mut ()).unwrap();
    assert_exact(&fixture, "q_heads", &heads.q);
    assert_exact(&fixture, "k_heads", &heads.k);
    assert_exact(&fixture, "v_heads", &heads.v);
    let kt = pipeline::transpose_keys(&heads.k, &mut ()).unwrap();
    assert_exact(&fixture, "kt", &kt);
}

#[test]
fn the_softmax_path_matches_numpy_within_1e_12() {
    let fixture = Fixture::load();
    let qkv = fixture.qkv();
    let parts = pipeline::slice_qkv(&qkv, &fixture.dims, &mut ()).unwrap();
    let heads = pipeline::split_heads(&parts, &fixture.dims, &mut ()).unwrap();
    let kt = pipeline::transpose_keys(&heads.k, &mut ()).unwrap();
    let attention = pipeline::attention(&heads, &kt, &mut ()).unwrap();
    assert_close(&fixture, "scores", &attention.scores.view());
    assert_close(&fixture, "masked", &attention.masked.view());
    assert_close(&fixture, "probs", &attention.probs.view());
    assert_close(&fixture, "attn", &attention.out.view());
    let merged = pipeline::merge_heads(attention.out.view(), "Y", &mut ()).unwrap();
    assert!(
        matches!(merged, Part::Copied(_)),
        "H > 1 and T > 1: the merge copies once"
    );
    assert_close(&fixture, "merged", &merged.view());
}

#[test]
fn the_first_positions_alone_give_the_first_rows_of_full_attention() {
    // Causality: rows 0..3 of attention over all 5 positions depend on
    // positions 0..3 only, so running on qkv[:, :3, :] reproduces them.
    let fixture = Fixture::load();
    let full = fixture.dims;
    let first = 3;
    let qkv = fixture.qkv();
    let head = qkv
        .view()
        .slice(1, 0..first)
        .unwrap()
        .materialize()
        .unwrap();
    let dims = Dims::new(full.batch(), first, full.heads(), full.head_width()).unwrap();
    let parts = pipeline::slice_qkv(&head, &dims, &mut ()).unwrap();
    let heads = pipeline::split_heads(&parts, &dims, &mut ()).unwrap();
    let kt = pipeline::transpose_keys(&heads.k, &mut ()).unwrap();
    let attention = pipeline::attention(&heads, &kt, &mut ()).unwrap();
    assert_eq!(attention.probs.shape(), &[2, 3, first, first]);
    let (t, d) = (full.seq(), full.head_width());
    let full_probs = Tensor::from_vec(
        [full.batch(), full.heads(), t, t],
        fixture.get("probs").1.to_vec(),
    )
    .unwrap();
    let probs = full_probs
        .view()
        .slice(2, 0..first)
        .unwrap()
        .slice(3, 0..first)
        .unwrap();
    let error = max_error(attention.probs.as_slice(), &values(&probs));
    assert!(error <= 1e-12, "probs: {error:e}");
    let full_out = Tensor::from_vec(
        [full.batch(), full.heads(), t, d],
        fixture.get("attn").1.to_vec(),
    )
    .unwrap();
    let out = full_out.view().slice(2, 0..first).unwrap();
    let error = max_error(attention.out.as_slice(), &values(&out));
    assert!(error <= 1e-12, "attn: {error:e}");
}

/// Records storages so a test can check who shares what.
#[derive(Default)]
struct Log {
    owners: Vec<(usize, String, Made)>,
    views: Vec<(usize, String)>,
    rejected: Vec<String>,
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
    fn rejected(&mut self, label: Arguments<'_>, error: &TensorViewError) {
        assert_eq!(error, &TensorViewError::NonContiguousReshape);
        self.rejected.push(label.to_string());
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
    let parts = pipeline::slice_qkv(qkv, dims, &mut log).unwrap();
    let heads = pipeline::split_heads(&parts, dims, &mut log).unwrap();
    let kt = pipeline::transpose_keys(&heads.k, &mut log).unwrap();
    let attention = pipeline::attention(&heads, &kt, &mut log).unwrap();
    let merged = pipeline::merge_heads(attention.out.view(), "Y", &mut log).unwrap();
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
    let fixture = Fixture::load();
    let log = logged_run(&fixture.qkv(), &fixture.dims);
    assert_eq!(
        log.copies(),
        [
            "Q.materialize()",
            "K.materialize()",
            "V.materialize()",
            "Y.materialize()"
        ]
    );
    assert_eq!(
        log.rejected,
        [
            "Q.reshape([2, 5, 3, 4])",
            "K.reshape([2, 5, 3, 4])",
            "V.reshape([2, 5, 3, 4])",
            "Y.reshape([2, 5, 12])"
        ]
    );
    // 3 slices, 6 split-head views, Kᵀ, 2 mask reshapes, 2 merge views:
    // matmul takes Q and the transposed view Kᵀ as they are, so attention
    // adds no layout of its own.
    assert_eq!(log.views.len(), 14, "{:?}", log.views);
    let products: Vec<(&str, Made)> = log
        .owners
        .iter()
        .filter(|(_, label, _)| label.contains("matmul("))
        .map(|(_, label, made)| (label.as_str(), *made))
        .collect();
    assert_eq!(
        products,
        [
            ("Q·Kᵀ = matmul(Q, Kᵀ)", Made::Temporary),
            ("Y = matmul(P, V)", Made::Computed)
        ],
        "matmul outputs are op outputs, not copies"
    );
}

#[test]
fn a_single_position_needs_no_copy_at_all() {
    // B·T = 1: each slice is contiguous; [1, H, 1, D] permuted to [1, 1, H, D] is too.
    let dims = Dims::new(1, 1, 3, 2).unwrap();
    let qkv = prng::packed_qkv(1, 1, 6, prng::SEED).unwrap();
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
    // takes matmul past one 256-deep k block (P·V) and one row block.
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
        let qkv = prng::packed_qkv(b, t, h * d, 7 + b as u64).unwrap();
        let reference = Naive::new(qkv.as_slice(), b, t, h, d);
        let parts = pipeline::slice_qkv(&qkv, &dims, &mut ()).unwrap();
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
                values(&part.view()),
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
        let (square, column) = ([b, h, t, t], [b, h, t, 1]);
        for (name, got, shape, expected) in [
            ("scores", &attention.scores, square, &want.scores),
            ("masked", &attention.masked, square, &want.masked),
            ("max", &attention.max, column, &want.max),
            ("exp", &attention.exp, square, &want.exps),
            ("sum", &attention.sum, column, &want.sums),
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
        assert_eq!(
            attention.positions.as_slice(),
            (0..t).collect::<Vec<_>>(),
            "{case}: positions"
        );
        assert_eq!(
            attention
                .mask
                .as_slice()
                .iter()
                .filter(|&&keep| keep)
                .count(),
            t * (t + 1) / 2
        );
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

#[test]
fn a_full_size_split_and_merge_returns_the_original_values() {
    let dims = Dims::new(1, 1024, 12, 64).unwrap();
    let qkv = prng::packed_qkv(1, 1024, 768, prng::SEED).unwrap();
    let parts = pipeline::slice_qkv(&qkv, &dims, &mut ()).unwrap();
    let heads = pipeline::split_heads(&parts, &dims, &mut ()).unwrap();
    assert_eq!(heads.q.shape(), &[1, 12, 1024, 64]);
    // Spot check the split against the packed input: Q head 5, token 700, lane 9 is channel 5·64 + 9.
    assert_eq!(
        heads.q.get([0, 5, 700, 9]).unwrap(),
        qkv.get([0, 700, 5 * 64 + 9]).unwrap()
    );
    assert_eq!(
        heads.v.get([0, 11, 3, 63]).unwrap(),
        qkv.get([0, 3, 2 * 768 + 11 * 64 + 63]).unwrap()
    );
    for (part, split) in parts.iter().zip([heads.q, heads.k, heads.v]) {
        // What a fresh attention output looks like: head-major and contiguous.
        let head_major = split.materialize().unwrap();
        assert!(head_major.view().is_contiguous());
        let merged = pipeline::merge_heads(head_major.view(), "heads", &mut ()).unwrap();
        let Part::Copied(merged) = merged else {
            panic!("a head-major [1, 12, 1024, 64] owner must be copied to merge")
        };
        assert_eq!(merged.shape(), &[1, 1024, 768]);
        assert_eq!(
            merged.as_slice(),
            values(&part.view()).as_slice(),
            "split then merge must be the identity"
        );
    }
}

#[test]
fn mismatched_operands_are_typed_errors() {
    let q = Tensor::<4>::zeros([1, 2, 3, 4]).unwrap();
    let kt = Tensor::<4>::zeros([1, 2, 5, 3]).unwrap(); // D = 5, not 4
    assert_eq!(
        pipeline::scores(&q.view(), &kt.view(), &mut ()).unwrap_err(),
        llm_from_scratch::Error::Op(TensorOpError::MatmulInnerMismatch {
            left_k: 4,
            right_k: 5
        })
    );
    let other_heads = Tensor::<4>::zeros([1, 3, 4, 3]).unwrap(); // H = 3, not 2
    assert_eq!(
        pipeline::scores(&q.view(), &other_heads.view(), &mut ()).unwrap_err(),
        llm_from_scratch::Error::Op(TensorOpError::IncompatibleBroadcast {
            axis: 1,
            left_dimension: 2,
            right_dimension: 3
        })
    );
    // V with 4 positions against 3 queries and keys: P·V cannot contract.
    let k = Tensor::<4>::zeros([1, 2, 3, 4]).unwrap();
    let v = Tensor::<4>::zeros([1, 2, 4, 4]).unwrap();
    let heads = pipeline::Heads {
        q: q.view(),
        k: k.view(),
        v: v.view(),
    };
    let kt = pipeline::transpose_keys(&heads.k, &mut ()).unwrap();
    assert_eq!(
        pipeline::attention(&heads, &kt, &mut ()).unwrap_err(),
        llm_from_scratch::Error::Op(TensorOpError::MatmulInnerMismatch {
            left_k: 3,
            right_k: 4
        })
    );
}
