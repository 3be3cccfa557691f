//! GPT-2 attention written with the library alone (OpenAI's `model.py`:
//! `split_states`, `split_heads`, `multihead_attn`, `merge_heads`) against
//! the NumPy fixture of `scripts/attention_fixture.py`: the layout steps
//! exactly (they only move values), the softmax path within 1e-12 (NumPy's
//! `@` goes through BLAS, which may sum in another order), causality, which
//! steps share storage and which copy, the split / merge round trip at
//! GPT-2 small's size, and the typed errors of mismatched operands.
//!
//! The example `attention_heads` runs the same path with a layout trace and
//! checks itself against a plain-loop reference when it runs; its unit
//! tests (`cargo test --example attention_heads`) check its pipeline.

use llm_from_scratch::prelude::*;

/// The NumPy fixture: sizes `[B, T, H, D]` and named row-major tensors.
struct Fixture {
    dims: [usize; 4],
    tensors: Vec<(String, Vec<usize>, Vec<f64>)>,
}

impl Fixture {
    fn load() -> Self {
        let text = include_str!("fixtures/attention_small.txt");
        let mut lines = text.lines().filter(|line| !line.starts_with('#'));
        let config = lines.next().expect("a config line");
        let size = |key: &str| -> usize {
            config
                .split_whitespace()
                .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
                .and_then(|value| value.parse().ok())
                .unwrap_or_else(|| panic!("config has no `{key}`: {config}"))
        };
        let dims = ["batch", "seq", "heads", "head_width"].map(size);
        let mut tensors = Vec::new();
        while let Some(header) = lines.next() {
            let mut words = header.split_whitespace();
            assert_eq!(words.next(), Some("tensor"), "a tensor header: {header}");
            let name = words.next().expect("a tensor name").to_string();
            let shape: Vec<usize> = words.map(|n| n.parse().expect("an extent")).collect();
            let count = shape.iter().product();
            let values: Vec<f64> = (&mut lines)
                .take(count)
                .map(|v| v.parse().unwrap_or_else(|_| panic!("{name}: {v}")))
                .collect();
            assert_eq!(values.len(), count, "{name} is truncated");
            tensors.push((name, shape, values));
        }
        Self { dims, tensors }
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

    /// Tensor `name` as an owner of rank `R`.
    fn tensor<const R: usize>(&self, name: &str) -> Tensor<R> {
        let (shape, values) = self.get(name);
        let shape: [usize; R] = shape.try_into().expect("the rank of the fixture tensor");
        Tensor::from_vec(shape, values.to_vec()).expect(name)
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

/// Part `index` (0 = Q, 1 = K, 2 = V) of the packed `[B, T, 3C]` projection
/// (GPT-2 `split_states`): a slice of the last axis, refused by `reshape`
/// when `B·T > 1` (rows skip `2C` values), so materialized: `[B, T, C]`.
fn part(qkv: &Tensor<3>, index: usize, [b, t, h, d]: [usize; 4]) -> Tensor<3> {
    let c = h * d;
    let slice = qkv.view().slice(2, index * c..(index + 1) * c).unwrap();
    if b * t > 1 {
        let refused = slice.reshape([b, t, h, d]).unwrap_err();
        assert_eq!(refused, Error::NonContiguousReshape);
    }
    slice.materialize().unwrap()
}

/// GPT-2 `split_heads`: `[B, T, C]` -> reshape `[B, T, H, D]` -> permute
/// `[B, H, T, D]`, a view of `part` (the same storage, nothing copied).
fn split_heads(part: &Tensor<3>, [b, t, h, d]: [usize; 4]) -> View<'_, 4> {
    let heads = part.view().reshape([b, t, h, d]).unwrap();
    let heads = heads.permute([0, 2, 1, 3]).unwrap();
    assert_eq!(heads.storage().as_ptr(), part.as_slice().as_ptr());
    heads
}

/// The attention tensors NumPy writes, in `[B, H, T, T]` and `[B, H, T, D]`.
struct Attention {
    scores: Tensor<4>,
    masked: Tensor<4>,
    probs: Tensor<4>,
    out: Tensor<4>,
}

/// GPT-2 `multihead_attn` with its causal mask and a max-subtracted softmax;
/// `kt` is the zero-copy transposed key view `[B, H, D, T]`.
fn attend(q: &View<'_, 4>, kt: &View<'_, 4>, v: &View<'_, 4>) -> Attention {
    let t = q.shape()[2];
    let root = (q.shape()[3] as f64).sqrt();
    let scores = map_unary(&matmul(q, kt).unwrap().view(), |s| s / root).unwrap();
    let positions: Tensor<1, usize> = Tensor::from_fn([t], |[i]| i).unwrap();
    let i = positions.view().reshape([t, 1]).unwrap();
    let j = positions.view().reshape([1, t]).unwrap();
    let mask = map_binary(&i, &j, |i, j| j <= i).unwrap();
    let hide = |s: f64, keep: bool| if keep { s } else { f64::NEG_INFINITY };
    let masked = map_binary(&scores, &mask, hide).unwrap();
    let max = max_axis(&masked, 3, KeepDim).unwrap();
    let exp = map_binary(&masked, &max, |s, m| (s - m).exp()).unwrap();
    let total = sum_axis(&exp, 3, KeepDim).unwrap();
    let probs = map_binary(&exp, &total, |e, z| e / z).unwrap();
    let out = matmul(&probs, v).unwrap();
    Attention {
        scores,
        masked,
        probs,
        out,
    }
}

/// GPT-2 `merge_heads`: `[B, H, T, D]` -> permute `[B, T, H, D]` -> `[B, T, C]`.
/// A head-major owner permuted is not contiguous when `H > 1` and `T > 1`:
/// reshape refuses it and the merge is one `materialize`.
fn merge_heads(y: &Tensor<4>) -> Tensor<3> {
    let [b, h, t, d] = *y.shape();
    let tokens_first = y.view().permute([0, 2, 1, 3]).unwrap();
    if h > 1 && t > 1 {
        let refused = tokens_first.reshape([b, t, h * d]).unwrap_err();
        assert_eq!(refused, Error::NonContiguousReshape);
    }
    let copy = tokens_first.materialize().unwrap();
    Tensor::from_vec([b, t, h * d], copy.into_vec()).unwrap()
}

#[test]
fn layout_steps_match_numpy_exactly() {
    let fixture = Fixture::load();
    let qkv = fixture.tensor::<3>("qkv");
    let [q, k, v] = [0, 1, 2].map(|index| part(&qkv, index, fixture.dims));
    for (part, name) in [&q, &k, &v].into_iter().zip(["q", "k", "v"]) {
        assert_exact(&fixture, name, &part.view());
    }
    let heads = [&q, &k, &v].map(|part| split_heads(part, fixture.dims));
    for (view, name) in heads.iter().zip(["q_heads", "k_heads", "v_heads"]) {
        assert_exact(&fixture, name, view);
    }
    // Kᵀ for Q·Kᵀ (GPT-2 `tf.matmul(q, k, transpose_b=True)`): metadata only.
    let kt = heads[1].transpose(2, 3).unwrap();
    assert_eq!(kt.storage().as_ptr(), k.as_slice().as_ptr());
    assert_exact(&fixture, "kt", &kt);
}

#[test]
fn the_softmax_path_matches_numpy_within_1e_12() {
    let fixture = Fixture::load();
    let qkv = fixture.tensor::<3>("qkv");
    let [q, k, v] = [0, 1, 2].map(|index| part(&qkv, index, fixture.dims));
    let [q, k, v] = [&q, &k, &v].map(|part| split_heads(part, fixture.dims));
    let attention = attend(&q, &k.transpose(2, 3).unwrap(), &v);
    assert_close(&fixture, "scores", &attention.scores.view());
    assert_close(&fixture, "masked", &attention.masked.view());
    assert_close(&fixture, "probs", &attention.probs.view());
    assert_close(&fixture, "attn", &attention.out.view());
    assert_close(&fixture, "merged", &merge_heads(&attention.out).view());
}

#[test]
fn the_first_positions_alone_give_the_first_rows_of_full_attention() {
    // Causality: rows 0..3 of attention over all 5 positions depend on
    // positions 0..3 only, so running on qkv[:, :3, :] reproduces them.
    let fixture = Fixture::load();
    let [b, _, h, d] = fixture.dims;
    let first = 3;
    let qkv = fixture.tensor::<3>("qkv");
    let head = qkv
        .view()
        .slice(1, 0..first)
        .unwrap()
        .materialize()
        .unwrap();
    let dims = [b, first, h, d];
    let [q, k, v] = [0, 1, 2].map(|index| part(&head, index, dims));
    let [q, k, v] = [&q, &k, &v].map(|part| split_heads(part, dims));
    let attention = attend(&q, &k.transpose(2, 3).unwrap(), &v);
    assert_eq!(attention.probs.shape(), &[2, 3, first, first]);
    let full_probs = fixture.tensor::<4>("probs");
    let probs = full_probs.view().slice(2, 0..first).unwrap();
    let probs = probs.slice(3, 0..first).unwrap();
    let error = max_error(attention.probs.as_slice(), &values(&probs));
    assert!(error <= 1e-12, "probs: {error:e}");
    let full_out = fixture.tensor::<4>("attn");
    let out = full_out.view().slice(2, 0..first).unwrap();
    let error = max_error(attention.out.as_slice(), &values(&out));
    assert!(error <= 1e-12, "attn: {error:e}");
}

#[test]
fn a_full_size_split_and_merge_returns_the_original_values() {
    // GPT-2 small: B = 1, T = 1024, H = 12, D = 64; every value distinct.
    let dims = [1, 1024, 12, 64];
    let qkv = Tensor::from_fn([1, 1024, 3 * 768], |[_, t, c]| (t * 3 * 768 + c) as f64).unwrap();
    let parts = [0, 1, 2].map(|index| part(&qkv, index, dims));
    let heads = [&parts[0], &parts[1], &parts[2]].map(|part| split_heads(part, dims));
    assert_eq!(heads[0].shape(), &[1, 12, 1024, 64]);
    // Q head 5, token 700, lane 9 is channel 5·64 + 9 of token 700.
    assert_eq!(
        heads[0].get([0, 5, 700, 9]).unwrap(),
        qkv.get([0, 700, 5 * 64 + 9]).unwrap()
    );
    assert_eq!(
        heads[2].get([0, 11, 3, 63]).unwrap(),
        qkv.get([0, 3, 2 * 768 + 11 * 64 + 63]).unwrap()
    );
    for (part, split) in parts.iter().zip(heads) {
        // What a fresh attention output looks like: head-major and contiguous.
        let head_major = split.materialize().unwrap();
        assert!(head_major.view().is_contiguous());
        let merged = merge_heads(&head_major);
        assert_eq!(merged.shape(), &[1, 1024, 768]);
        assert_eq!(merged, *part, "split then merge must be the identity");
    }
}

#[test]
fn mismatched_operands_are_typed_errors() {
    let q = Tensor::<4>::zeros([1, 2, 3, 4]).unwrap();
    let kt = Tensor::<4>::zeros([1, 2, 5, 3]).unwrap(); // D = 5, not 4
    assert_eq!(
        matmul(&q, &kt).unwrap_err(),
        Error::MatmulInnerMismatch {
            op: "matmul",
            left_k: 4,
            right_k: 5
        }
    );
    let other_heads = Tensor::<4>::zeros([1, 3, 4, 3]).unwrap(); // H = 3, not 2
    assert_eq!(
        matmul(&q, &other_heads).unwrap_err(),
        Error::IncompatibleBroadcast {
            op: "matmul",
            axis: 1,
            left_dimension: 2,
            right_dimension: 3
        }
    );
    // V with 4 positions against 3 queries and keys: P·V cannot contract.
    let probs = Tensor::<4>::zeros([1, 2, 3, 3]).unwrap();
    let v = Tensor::<4>::zeros([1, 2, 4, 4]).unwrap();
    assert_eq!(
        matmul(&probs, &v).unwrap_err(),
        Error::MatmulInnerMismatch {
            op: "matmul",
            left_k: 3,
            right_k: 4
        }
    );
}

#[test]
fn fused_attention_matches_numpy_within_1e_12() {
    // `attention` on the split-head views of the packed projection (no
    // copy of Q, K or V), against NumPy's `probs @ v_heads`.
    let fixture = Fixture::load();
    let qkv = fixture.tensor::<3>("qkv");
    let [q, k, v] = [0, 1, 2].map(|index| part(&qkv, index, fixture.dims));
    let [q, k, v] = [&q, &k, &v].map(|part| split_heads(part, fixture.dims));
    let scale = 1.0 / (fixture.dims[3] as f64).sqrt();
    let out = attention(&q, &k, &v, scale, AttentionMask::Causal { offset: 0 }).unwrap();
    assert_close(&fixture, "attn", &out.view());
    assert_close(&fixture, "merged", &merge_heads(&out).view());
}
