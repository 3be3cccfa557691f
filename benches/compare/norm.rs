//! The fused norms and the causal softmax against their compositions.
//!
//! layer_norm/f32 and rms_norm/f32: the hidden states of a GPT-2 small
//! prefill, `[1024, 768]` f32, normalized over the last axis (GPT-2's
//! `ln_1`, eps 1e-5). `composition` is the op-by-op form the fused ops are
//! bit-identical to (checked before timing): `mean_axis` (KeepDim) ->
//! `sub` -> `square` -> `mean_axis` -> `sqrt(v + eps)` -> `div` -> `mul` ->
//! `add` (RMSNorm: `square` -> `mean_axis` -> `sqrt(v + eps)` -> `div` ->
//! `mul`), a fresh owner per step; `ndarray` is its idiomatic equivalent
//! (`mean_axis`, `x - mean`, `mapv`, broadcasting `/`, `*`, `+`).
//! causal_softmax/f32: GPT-2 small's scores `[12, 1024, 1024]` under the
//! causal mask; `composition` writes `-inf` above the diagonal into a copy
//! (`map_binary` with a broadcast `[T, T]` mask, as `attention_heads`
//! does) and calls `softmax_axis`.

use super::harness::*;
use super::table::{Row, row};
use criterion::Criterion;
use llm_from_scratch::prelude::*;
use ndarray::{Array1, Array2, Axis};

/// Prefill rows and GPT-2 small's width.
const ROWS: usize = 1024;
const WIDTH: usize = 768;
/// GPT-2's layer-norm epsilon.
const EPS: f64 = 1e-5;
/// The attention scores' shape: heads, queries, keys.
const SCORES: [usize; 3] = [12, 1024, 1024];

/// LayerNorm op by op (the composition `layer_norm` equals).
fn layer_composition(x: &Tensor<2, f32>, g: &Tensor<1, f32>, b: &Tensor<1, f32>) -> Tensor<2, f32> {
    let eps = EPS as f32;
    let c = x.sub(&x.mean_axis(1, KeepDim).unwrap()).unwrap();
    let var = c.square().unwrap().mean_axis(1, KeepDim).unwrap();
    let s = map_unary(&var, |v| (v + eps).sqrt()).unwrap();
    c.div(&s).unwrap().mul(g).unwrap().add(b).unwrap()
}

/// RMSNorm op by op (the composition `rms_norm` equals).
fn rms_composition(x: &Tensor<2, f32>, g: &Tensor<1, f32>) -> Tensor<2, f32> {
    let eps = EPS as f32;
    let ms = x.square().unwrap().mean_axis(1, KeepDim).unwrap();
    let r = map_unary(&ms, |m| (m + eps).sqrt()).unwrap();
    x.div(&r).unwrap().mul(g).unwrap()
}

/// ndarray's idiomatic LayerNorm over the last axis.
fn ndarray_layer(x: &Array2<f32>, g: &Array1<f32>, b: &Array1<f32>) -> Array2<f32> {
    let eps = EPS as f32;
    let mean = x.mean_axis(Axis(1)).unwrap().insert_axis(Axis(1));
    let c = x - &mean;
    let var = c
        .mapv(|v| v * v)
        .mean_axis(Axis(1))
        .unwrap()
        .insert_axis(Axis(1));
    let s = var.mapv(|v| (v + eps).sqrt());
    c / &s * g + b
}

/// `layer_norm/f32` and `rms_norm/f32`: ours, ours_into, composition, ndarray.
pub(crate) fn norms(c: &mut Criterion) {
    let data = values::<f32>(ROWS * WIDTH);
    let x = Tensor::from_vec([ROWS, WIDTH], data.clone()).unwrap();
    let g = Tensor::from_fn([WIDTH], |[j]| 1.0 + j as f32 * 1e-3).unwrap();
    let b = Tensor::from_fn([WIDTH], |[j]| j as f32 * -1e-3).unwrap();
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let fused = layer_norm(&x, &g, &b, EPS).unwrap();
    assert!(
        bits(fused.as_slice()) == bits(layer_composition(&x, &g, &b).as_slice()),
        "layer_norm is not bit-identical to the composition"
    );
    let (xa, ga, ba) = (
        Array2::from_shape_vec((ROWS, WIDTH), data).unwrap(),
        Array1::from_vec(g.as_slice().to_vec()),
        Array1::from_vec(b.as_slice().to_vec()),
    );
    let worst = fused
        .as_slice()
        .iter()
        .zip(ndarray_layer(&xa, &ga, &ba).iter())
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f32::max);
    assert!(worst < 1e-4, "ndarray's layer norm disagrees by {worst}");
    let name = "layer_norm/f32";
    let mut group_ = group(c, name, 1500);
    timed(&mut group_, name, "ours", || {
        layer_norm(&x, &g, &b, EPS).unwrap()
    });
    let mut out = Tensor::zeros([ROWS, WIDTH]).unwrap();
    timed(&mut group_, name, "ours_into", || {
        layer_norm_into(&x, &g, &b, EPS, &mut out).unwrap();
        out.as_slice()[7]
    });
    timed(&mut group_, name, "composition", || {
        layer_composition(&x, &g, &b)
    });
    timed(&mut group_, name, "ndarray", || {
        ndarray_layer(&xa, &ga, &ba)
    });
    group_.finish();

    let fused = rms_norm(&x, &g, EPS).unwrap();
    assert!(
        bits(fused.as_slice()) == bits(rms_composition(&x, &g).as_slice()),
        "rms_norm is not bit-identical to the composition"
    );
    let name = "rms_norm/f32";
    let mut group_ = group(c, name, 1500);
    timed(&mut group_, name, "ours", || rms_norm(&x, &g, EPS).unwrap());
    timed(&mut group_, name, "composition", || rms_composition(&x, &g));
    group_.finish();
}

/// The causal mask and `softmax_axis`, as model code wrote it.
fn causal_composition(scores: &Tensor<3, f32>, mask: &Tensor<2, bool>) -> Tensor<3, f32> {
    let masked = map_binary(
        scores,
        mask,
        |s, keep| if keep { s } else { f32::NEG_INFINITY },
    )
    .unwrap();
    softmax_axis(&masked, 2).unwrap()
}

/// `causal_softmax/f32`: ours, ours_2t, composition.
pub(crate) fn causal(c: &mut Criterion) {
    let name = "causal_softmax/f32";
    let scores = Tensor::from_vec(SCORES, values::<f32>(SCORES.iter().product())).unwrap();
    let mask = Tensor::from_fn([SCORES[1], SCORES[2]], |[i, j]| j <= i).unwrap();
    let fused = causal_softmax(&scores, 0).unwrap();
    assert!(
        fused == causal_composition(&scores, &mask),
        "causal_softmax is not bit-identical to the composition"
    );
    let mut g = group(c, name, 3000);
    timed(&mut g, name, "ours", || causal_softmax(&scores, 0).unwrap());
    timed_on_two(&mut g, name, "ours_2t", || {
        causal_softmax(&scores, 0).unwrap()
    });
    timed(&mut g, name, "composition", || {
        causal_composition(&scores, &mask)
    });
    g.finish();
}

/// The report rows (the reference column `memcpy|nv` shows the composition).
pub(crate) fn rows() -> Vec<Row> {
    vec![
        row(
            "layer_norm f32 vs composition",
            "layer_norm/f32",
            "ours",
            "composition",
            None,
            "layer_norm_f32_vs_composition",
        ),
        row(
            "layer_norm f32 vs ndarray",
            "layer_norm/f32",
            "ours",
            "ndarray",
            None,
            "layer_norm_f32_vs_ndarray",
        ),
        row(
            "layer_norm_into f32 vs composition",
            "layer_norm/f32",
            "ours_into",
            "composition",
            None,
            "layer_norm_into_f32_vs_composition",
        ),
        row(
            "rms_norm f32 vs composition",
            "rms_norm/f32",
            "ours",
            "composition",
            None,
            "rms_norm_f32_vs_composition",
        ),
        row(
            "causal_softmax f32 vs composition",
            "causal_softmax/f32",
            "ours",
            "composition",
            None,
            "causal_softmax_f32_vs_composition",
        ),
    ]
}
