//! `matmul_affine` (the product with its bias added as each block is
//! finished) against the composition it replaces, `add(matmul(x, Wᵀ), b)`.
//!
//! affine/f32: a GPT-2 small `c_attn` layer on a 32-token prompt,
//! `[32, 768] x [768, 2304] + b`, `Wᵀ` the transposed view of `[2304, 768]`
//! (as PyTorch stores a linear layer), a fresh output each call, one
//! thread. The two results must have the same bits (checked before timing).
//! Target (issue 21): fused / composition ≤ 1.0.

use super::harness::*;
use super::table::{Row, row};
use criterion::Criterion;
use llm_from_scratch::prelude::*;

/// `[m, k] x [k, n]`: GPT-2 small's `c_attn` on 32 tokens.
const SHAPE: [usize; 3] = [32, 768, 2304];

/// `affine/f32`: ours (fused), composition.
pub(crate) fn linear_f32(c: &mut Criterion) {
    let [m, k, n] = SHAPE;
    let name = "affine/f32";
    let x = Tensor::from_vec([m, k], values::<f32>(m * k)).unwrap();
    let w = Tensor::from_vec([n, k], values::<f32>(n * k)).unwrap();
    let b = Tensor::from_vec([n], values::<f32>(n)).unwrap();
    let w_t = w.view().transpose(0, 1).unwrap();
    let fused = || -> Tensor<2, f32> { matmul_affine(&x, &w_t, 1.0, Some(b.view())).unwrap() };
    let composed = || -> Tensor<2, f32> { add(&matmul(&x, &w_t).unwrap(), &b).unwrap() };
    assert!(
        fused().as_slice() == composed().as_slice(),
        "fused != composition"
    );
    let mut g = group(c, name, 1000);
    timed(&mut g, name, "ours", fused);
    timed(&mut g, name, "composition", composed);
    g.finish();
}

/// The report row: fused against the composition (the `memcpy|nv` column).
pub(crate) fn rows() -> Vec<Row> {
    vec![row(
        "linear x·Wᵀ+b [32,768]x[768,2304] f32 vs matmul + add",
        "affine/f32",
        "ours",
        "composition",
        Some(1.0),
        "linear_affine_f32_vs_composition",
    )]
}
