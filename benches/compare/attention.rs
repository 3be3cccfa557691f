//! Case 12: GPT-2 small's causal self-attention end to end, from the packed
//! projection `qkv [1, 1024, 2304]` to the merged `[1, 1024, 768]`, with no
//! projections: the pipeline of the `attention_heads` example and of
//! `scripts/bench_torch.py`'s `attention_e2e`, so PyTorch's time for the
//! same work sits beside ours in BENCHMARKS.md.
//!
//! Ours: `chunk::<3>`, `split_axis` + `permute` (views), `matmul` against
//! the transposed key view, one `par_map_binary` (threads) that scales by `D^-0.5` and
//! masks with -inf, `softmax_axis`, `matmul` with V, then the merge
//! (`permute`, `materialize`, `into_shape`). ndarray: the same per head,
//! `general_mat_mul` on slices of the packed input (scale folded into its
//! alpha), the mask and a row softmax by hand, `P·V` written straight into
//! the head's columns of the merged output (so ndarray's merge is free).
//! `ours_into` is ours with every output reused from call to call;
//! `ours_fused` is ours with the fused operations model code uses
//! (`matmul_affine` for the scale, `causal_softmax` for mask + softmax),
//! the same bits as `ours` (asserted) with two of its four `[1, H, T, T]`
//! tensors and the mask never built: the peer of PyTorch's fused
//! `scaled_dot_product_attention(..., is_causal=True)` in
//! `scripts/bench_torch.py` (`attention_sdpa`). `ours_sdpa` is ours with
//! the one-call `attention` (from 2026-12-06): no `[1, H, T, T]` tensor at
//! all, the same bits again (asserted).

use super::harness::*;
use criterion::Criterion;
use llm_from_scratch::prelude::*;
use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, Array3, Axis, s};

/// GPT-2 small: context, heads, head width.
const T_CTX: usize = 1024;
const HEADS: usize = 12;
const D: usize = 64;
const C: usize = HEADS * D;

/// Q, K and V `[1, H, T, D]` of the packed `qkv` `[1, T, 3C]`: thirds of
/// the last axis, each split into heads and permuted (no copy).
fn split_heads<T: Elem>(qkv: &Tensor<3, T>) -> [View<'_, 4, T>; 3] {
    qkv.view().chunk::<3>(2).unwrap().map(|part| {
        let split: View<'_, 4, T> = part.split_axis(2, [HEADS, D]).unwrap();
        split.permute([0, 2, 1, 3]).unwrap()
    })
}

/// The heads `[1, H, T, D]` merged back into `[1, T, C]` (one copy).
fn merge_heads<T: Elem>(out: &Tensor<4, T>) -> Tensor<3, T> {
    let merged = out
        .view()
        .permute([0, 2, 1, 3])
        .unwrap()
        .materialize()
        .unwrap();
    merged.into_shape([1, T_CTX, C]).unwrap()
}

/// Ours: the library's calls, as a user writes them.
fn ours<T: Elem>(qkv: &Tensor<3, T>, mask: &Tensor<2, bool>) -> Tensor<3, T> {
    let scale = T::one() / T::from(D).unwrap().sqrt();
    let [q, k, v] = split_heads(qkv);
    let dots = matmul(&q, &k.transpose(2, 3).unwrap()).unwrap();
    let scores = par_map_binary(&dots, mask, |s, keep| {
        if keep { s * scale } else { T::neg_infinity() }
    })
    .unwrap();
    let probs = softmax_axis(&scores, 3).unwrap();
    merge_heads(&matmul(&probs, &v).unwrap())
}

/// Ours on the fused operations: `Q·Kᵀ·D^-0.5` by one `matmul_affine`, the
/// causal mask and the softmax by one `causal_softmax` (bit-identical to
/// masking with -inf and `softmax_axis`), `matmul` with V, the merge.
fn ours_fused<T: Elem>(qkv: &Tensor<3, T>) -> Tensor<3, T> {
    let scale = T::one() / T::from(D).unwrap().sqrt();
    let [q, k, v] = split_heads(qkv);
    let scores = matmul_affine(&q, &k.transpose(2, 3).unwrap(), scale, None).unwrap();
    let probs = scores.causal_softmax(0).unwrap();
    merge_heads(&matmul(&probs, &v).unwrap())
}

/// Ours in one call: `attention(Q, K, V, D^-0.5, causal)` on the split-head
/// views (the scores never stored), then the merge.
fn ours_sdpa<T: Elem>(qkv: &Tensor<3, T>) -> Tensor<3, T> {
    let scale = T::one() / T::from(D).unwrap().sqrt();
    let [q, k, v] = split_heads(qkv);
    let causal = AttentionMask::Causal { offset: 0 };
    merge_heads(&attention(&q, &k, &v, scale, causal).unwrap())
}

/// The outputs [`ours_into`] reuses from call to call, as a model loop
/// reuses them from layer to layer.
struct Buffers<T: Elem> {
    scores: Tensor<4, T>,
    probs: Tensor<4, T>,
    out: Tensor<4, T>,
    merged: Tensor<4, T>,
}

impl<T: Elem> Buffers<T> {
    fn new() -> Self {
        let zeros = |shape| Tensor::zeros(shape).unwrap();
        Buffers {
            scores: zeros([1, HEADS, T_CTX, T_CTX]),
            probs: zeros([1, HEADS, T_CTX, T_CTX]),
            out: zeros([1, HEADS, T_CTX, D]),
            merged: zeros([1, T_CTX, HEADS, D]),
        }
    }
}

/// Ours into reused outputs: `matmul_into`, the scale and mask in place
/// (`zip_map_inplace`), `softmax_axis_into`, `matmul_into`, and the merge by
/// `materialize_into`; the same values as [`ours`], without the page faults
/// of four fresh outputs (48 MiB each in f32 for the scores).
fn ours_into<T: Elem>(qkv: &Tensor<3, T>, mask: &Tensor<2, bool>, b: &mut Buffers<T>) {
    let scale = T::one() / T::from(D).unwrap().sqrt();
    let [q, k, v] = split_heads(qkv);
    matmul_into(&q, &k.transpose(2, 3).unwrap(), &mut b.scores).unwrap();
    b.scores
        .view_mut()
        .zip_map_inplace(
            mask,
            |s, keep| {
                if keep { s * scale } else { T::neg_infinity() }
            },
        )
        .unwrap();
    softmax_axis_into(&b.scores, 3, &mut b.probs).unwrap();
    matmul_into(&b.probs, &v, &mut b.out).unwrap();
    let heads_last = b.out.view().permute([0, 2, 1, 3]).unwrap();
    heads_last.materialize_into(&mut b.merged).unwrap();
}

/// ndarray: per head on slices of the packed input.
fn nd<T: Elem>(qkv: &Array3<T>) -> Array3<T> {
    let scale = T::one() / T::from(D).unwrap().sqrt();
    let packed = qkv.index_axis(Axis(0), 0);
    let mut merged = Array3::<T>::zeros((1, T_CTX, C));
    let mut scores = Array2::<T>::zeros((T_CTX, T_CTX));
    for h in 0..HEADS {
        let cols = |part: usize| s![.., part * C + h * D..part * C + (h + 1) * D];
        let (q, k, v) = (
            packed.slice(cols(0)),
            packed.slice(cols(1)),
            packed.slice(cols(2)),
        );
        general_mat_mul(scale, &q, &k.t(), T::ZERO, &mut scores);
        for (i, mut row) in scores.axis_iter_mut(Axis(0)).enumerate() {
            row.slice_mut(s![i + 1..]).fill(T::neg_infinity());
            let max = row.fold(T::neg_infinity(), |m, &x| m.max(x));
            row.mapv_inplace(|x| (x - max).exp());
            let sum = row.sum();
            row.mapv_inplace(|x| x / sum);
        }
        let mut head = merged.slice_mut(s![0, .., h * D..(h + 1) * D]);
        general_mat_mul(T::one(), &scores, &v, T::ZERO, &mut head);
    }
    merged
}

/// Times ours (one and two threads) and ndarray after checking they agree.
pub(crate) fn attention_e2e<T: Elem>(c: &mut Criterion) {
    let values = values::<T>(T_CTX * 3 * C);
    let qkv = Tensor::from_vec([1, T_CTX, 3 * C], values.clone()).unwrap();
    let qkv_nd = Array3::from_shape_vec((1, T_CTX, 3 * C), values).unwrap();
    let mask: Tensor<2, bool> = Tensor::from_fn([T_CTX, T_CTX], |[i, j]| j <= i).unwrap();
    let (a, b) = (ours(&qkv, &mask), nd(&qkv_nd));
    let tolerance = if T::NAME == "f32" { 1e-5 } else { 1e-12 };
    let worst = a
        .as_slice()
        .iter()
        .zip(b.as_slice().unwrap())
        .map(|(x, y)| (x.as_f64() - y.as_f64()).abs())
        .fold(0.0, f64::max);
    assert!(
        worst <= tolerance,
        "attention disagrees with ndarray by {worst}"
    );
    let mut buffers = Buffers::new();
    ours_into(&qkv, &mask, &mut buffers);
    assert_eq!(buffers.merged.as_slice(), a.as_slice(), "ours_into differs");
    assert_eq!(ours_fused(&qkv), a, "ours_fused differs");
    assert_eq!(ours_sdpa(&qkv), a, "ours_sdpa differs");
    let name = format!("attention_e2e/{}", T::NAME);
    let mut g = group(c, &name, 2000);
    timed(&mut g, &name, "ours", || ours(&qkv, &mask));
    timed_on_two(&mut g, &name, "ours_2t", || ours(&qkv, &mask));
    timed(&mut g, &name, "ours_into", || {
        ours_into(&qkv, &mask, &mut buffers)
    });
    let mut buffers_2t = Buffers::new();
    timed_on_two(&mut g, &name, "ours_into_2t", || {
        ours_into(&qkv, &mask, &mut buffers_2t)
    });
    timed(&mut g, &name, "ours_fused", || ours_fused(&qkv));
    timed_on_two(&mut g, &name, "ours_fused_2t", || ours_fused(&qkv));
    timed(&mut g, &name, "ours_sdpa", || ours_sdpa(&qkv));
    timed_on_two(&mut g, &name, "ours_sdpa_2t", || ours_sdpa(&qkv));
    timed(&mut g, &name, "ndarray", || nd(&qkv_nd));
    g.finish();
}
