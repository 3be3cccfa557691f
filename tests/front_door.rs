//! The front door: operands of either kind (`AsView`), op methods, the
//! crate-wide `Error`, generic float code on `Float`, owned reshape, and
//! `Debug` summaries that stay small.

use llm_from_scratch::prelude::*;

/// Layer norm over the last axis of `[T, C]`, generic over the precision:
/// `mean_axis`, `exp`-free variance, `sqrt` from `Float`.
fn layer_norm<F: Float>(x: &Tensor<2, F>, eps: F) -> Result<Tensor<2, F>, Error> {
    let mean = x.mean_axis(1, KeepDim)?; // [T, 1]
    let centered = x.map_binary(&mean, |v, m| v - m)?; // [T, C]
    let variance = centered.map_unary(|v| v * v)?.mean_axis(1, KeepDim)?;
    Ok(centered.map_binary(&variance, |c, var| c / (var + eps).sqrt())?)
}

/// A softmax over the last axis with `exp` from `Float`.
fn softmax_rows<F: Float>(x: &Tensor<2, F>) -> Result<Tensor<2, F>, Error> {
    let max = x.max_axis(1, KeepDim)?;
    let e = x.map_binary(&max, |v, m| (v - m).exp())?;
    let z = e.sum_axis(1, KeepDim)?;
    Ok(e.map_binary(&z, |e, z| e / z)?)
}

fn check_generic_float<F: Float>() -> Result<(), Error> {
    let values = [1.0, 2.0, 3.0, 4.0, 2.0, 2.0];
    let x: Tensor<2, F> = Tensor::from_vec(
        [2, 3],
        values.iter().map(|&v| F::from(v).unwrap()).collect(),
    )?;
    let normed = layer_norm(&x, F::from(1e-5).unwrap())?;
    // Row 0: mean 2, variance 2/3; row 1: mean 8/3, variance 8/9.
    let expected = [
        -1.0 / (2.0f64 / 3.0 + 1e-5).sqrt(),
        0.0,
        1.0 / (2.0f64 / 3.0 + 1e-5).sqrt(),
        (4.0 / 3.0) / (8.0f64 / 9.0 + 1e-5).sqrt(),
        (-2.0 / 3.0) / (8.0f64 / 9.0 + 1e-5).sqrt(),
        (-2.0 / 3.0) / (8.0f64 / 9.0 + 1e-5).sqrt(),
    ];
    let tolerance = if size_of::<F>() == 4 { 1e-6 } else { 1e-12 };
    for (got, want) in normed.as_slice().iter().zip(expected) {
        assert!(
            (got.to_f64().unwrap() - want).abs() < tolerance,
            "{got:?} vs {want}"
        );
    }
    let p = softmax_rows(&x)?;
    let e = [(-2.0f64).exp(), (-1.0f64).exp(), 1.0];
    let z: f64 = e.iter().sum();
    for (got, want) in p.as_slice()[..3].iter().zip(e.map(|v| v / z)) {
        assert!((got.to_f64().unwrap() - want).abs() < tolerance);
    }
    assert_eq!(F::infinity().exp(), F::infinity());
    assert_eq!(F::from_usize(4).sqrt(), F::from_usize(2));
    Ok(())
}

#[test]
fn generic_model_code_runs_in_f32_and_f64() -> Result<(), Error> {
    check_generic_float::<f32>()?;
    check_generic_float::<f64>()
}

/// One function `?`s a view error, an op error and a tensor error: the
/// score of query `position` against key `key`.
fn score(hidden: &Tensor<2>, keys: &Tensor<2>, position: usize, key: usize) -> Result<f64, Error> {
    let query = hidden.view().slice(0, position..position + 1)?; // TensorViewError
    let scores = matmul(&query, &keys.view().transpose(0, 1)?)?; // TensorOpError
    Ok(*scores.get([0, key])?) // TensorError
}

#[test]
fn one_error_type_takes_every_layer() -> Result<(), Error> {
    let hidden = Tensor::from_vec([2, 2], vec![1.0, 0.0, 0.0, 1.0])?;
    let keys = Tensor::from_vec([3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    assert_eq!(score(&hidden, &keys, 1, 2)?, 6.0);
    assert_eq!(
        score(&hidden, &keys, 1, 3),
        Err(Error::Tensor(TensorError::IndexOutOfBounds {
            axis: 1,
            index: 3,
            dimension: 3
        }))
    );
    let wide = Tensor::from_vec([2, 3], vec![0.0; 6])?;
    assert_eq!(
        score(&wide, &keys, 0, 0),
        Err(Error::Op(TensorOpError::MatmulInnerMismatch {
            left_k: 3,
            right_k: 2
        }))
    );
    assert_eq!(
        score(&hidden, &keys, 2, 0),
        Err(Error::View(TensorViewError::SliceEndOutOfBounds {
            axis: 0,
            end: 3,
            dimension: 2
        }))
    );
    // The messages are the layers' own.
    let error = Error::from(TensorOpError::EmptyMaxAxis { axis: 1 });
    assert_eq!(
        error.to_string(),
        TensorOpError::EmptyMaxAxis { axis: 1 }.to_string()
    );
    Ok(())
}

#[test]
fn ops_take_owners_views_and_references_alike() -> Result<(), Error> {
    let x = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let w = Tensor::from_vec([2, 3], vec![1.0, 0.0, 1.0, 0.0, 1.0, 0.0])?;
    let wt = w.view().transpose(0, 1)?;
    let by_owner = matmul(&x, &wt)?; // a tensor and a view
    let by_views = matmul(&x.view(), &wt)?;
    let by_method = x.matmul(&wt)?;
    let by_ref = matmul(&&x, &&wt)?;
    assert_eq!(by_owner.as_slice(), &[4.0, 2.0, 10.0, 5.0]);
    assert_eq!(by_owner, by_views);
    assert_eq!(by_owner, by_method);
    assert_eq!(by_owner, by_ref);

    let sums = x.sum_axis(1, KeepDim)?;
    assert_eq!((sums.shape(), sums.as_slice()), (&[2, 1], &[6.0, 15.0][..]));
    let column_max = x.view().transpose(0, 1)?.max_axis(1, RemoveDim)?;
    assert_eq!(column_max.as_slice(), &[4.0, 5.0, 6.0]);
    let shifted = map_binary(&x, &sums, |v, s| v - s)?;
    assert_eq!(shifted.as_slice(), &[-5.0, -4.0, -3.0, -11.0, -10.0, -9.0]);
    let mut out = Tensor::zeros([2, 3])?;
    map_unary_into(&x, |v| 2.0 * v, &mut out)?;
    assert_eq!(out.as_slice(), &[2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
    Ok(())
}

#[test]
fn into_shape_moves_the_storage() -> Result<(), Error> {
    let x = Tensor::from_vec([2, 6], (0..12).map(f64::from).collect())?;
    let address = x.as_slice().as_ptr();
    let heads = x.into_shape([2, 3, 2])?;
    assert_eq!(heads.as_slice().as_ptr(), address, "no copy");
    assert_eq!((heads.shape(), heads.strides()), (&[2, 3, 2], &[6, 2, 1]));
    assert_eq!(heads.get([1, 2, 1])?, &11.0);
    assert_eq!(
        heads.into_shape([5]).unwrap_err(),
        TensorError::ElementCountMismatch {
            expected: 5,
            actual: 12
        }
    );
    let d = DynTensor::from_vec(vec![4], vec![1.0, 2.0, 3.0, 4.0])?.into_shape(&[2, 1, 2])?;
    assert_eq!(d.strides(), &[2, 2, 1]);
    Ok(())
}

#[test]
fn debug_of_a_million_values_is_a_short_summary() -> Result<(), Error> {
    let big: Tensor<2> = Tensor::from_fn([1000, 1000], |[r, c]| (r + c) as f64)?;
    let text = format!("{big:?}");
    assert!(text.len() < 2000, "{} characters", text.len());
    assert!(
        text.starts_with(
            "Tensor { shape: [1000, 1000], strides: [1000, 1], len: 1000000, values: [0.0, 1.0, 2.0"
        ),
        "{text}"
    );
    let view_text = format!("{:?}", big.view().transpose(0, 1)?);
    assert!(
        view_text.len() < 2000 && view_text.contains("storage_len: 1000000"),
        "{view_text}"
    );
    let dynamic_text = format!("{:?}", big.into_dyn());
    assert!(
        dynamic_text.len() < 2000 && dynamic_text.starts_with("DynTensor { shape: [1000, 1000]")
    );
    Ok(())
}
