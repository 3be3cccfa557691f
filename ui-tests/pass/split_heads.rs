// Happy path: GPT-2 attention plumbing with runtime-checked axes.
// [B, T, C] -> [B, T, H, D] -> [B, H, T, D] (zero-copy), K^T, slicing Q/K/V
// out of a fused projection, and one explicit materialize.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (b, t, h, d) = (1, 3, 2, 2);
    let c = h * d;
    // qkv[0, i, j] = 100 * i + j, shape [B, T, 3C].
    let qkv = Tensor::from_fn([b, t, 3 * c], |[_, i, j]| (100 * i + j) as f64)?;
    let k = qkv.view().slice(2, c..2 * c)?; // [1, 3, 4], channels 4..8
    assert_eq!(k.shape(), &[1, 3, 4]);
    assert!(!k.is_contiguous());

    let k = k.materialize()?; // reshape never copies: make K contiguous first
    let heads = k.view().reshape([b, t, h, d])?.permute([0, 2, 1, 3])?;
    assert_eq!(heads.shape(), &[1, 2, 3, 2]);
    // head 1, token 2, lane 0 is channel 4 + 2 = 6 of token 2.
    assert_eq!(heads.get([0, 1, 2, 0])?, &206.0);

    let kt = heads.transpose(2, 3)?; // [B, H, D, T]
    assert_eq!(kt.shape(), &[1, 2, 2, 3]);
    assert_eq!(kt.get([0, 1, 0, 2])?, &206.0);
    let values: Vec<f64> = kt.iter().copied().take(3).collect();
    assert_eq!(values, [4.0, 104.0, 204.0]);
    Ok(())
}
