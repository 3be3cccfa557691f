// Happy path: the compile-time axis variants with valid axes, on ranks 1 to 4.
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::Axes1;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // [B, T, H, D] -> [B, H, T, D] (GPT-2 split_heads), then K^T: [B, H, D, T].
    let x = Tensor::from_fn([1, 3, 2, 4], |[_, t, h, d]| (100 * t + 10 * h + d) as f64)?;
    let heads = x.view().permute_axes::<Axes4<0, 2, 1, 3>>();
    assert_eq!(heads.shape(), &[1, 2, 3, 4]);
    assert_eq!(heads.get([0, 1, 2, 3])?, &213.0);
    let kt = heads.transpose_axes::<2, 3>();
    assert_eq!(kt.shape(), &[1, 2, 4, 3]);
    assert_eq!(kt.get([0, 1, 3, 2])?, &213.0);

    // The same axis twice is a valid (identity) transpose.
    let m = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let same = m.view().transpose_axes::<1, 1>();
    assert_eq!(same.shape(), &[2, 3]);
    let mt = m.view().transpose_axes::<1, 0>();
    assert_eq!(
        mt.iter().copied().collect::<Vec<_>>(),
        [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
    );
    let mt2 = m.view().permute_axes::<Axes2<1, 0>>();
    assert_eq!(mt2.strides(), mt.strides());

    let cube = Tensor::from_fn([2, 3, 4], |[i, j, k]| (100 * i + 10 * j + k) as f64)?;
    let rotated = cube.view().permute_axes::<Axes3<2, 0, 1>>(); // [4, 2, 3]
    assert_eq!(rotated.shape(), &[4, 2, 3]);
    assert_eq!(rotated.get([3, 1, 2])?, &123.0);

    let v = Tensor::from_vec([3], vec![7.0, 8.0, 9.0])?;
    assert_eq!(v.view().permute_axes::<Axes1<0>>().get([2])?, &9.0);
    Ok(())
}
