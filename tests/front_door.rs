//! The front door: operands of every kind (`AsArray`: owners, views and
//! exclusive mutable views, and `reborrow()`s of those), op methods, the
//! crate-wide `Error` whose messages name the function called, generic
//! float code on `Float`, owned reshape, `Debug` summaries that stay small,
//! a kernel's scratch allocation failing as an error, and the deprecated
//! paths of the earlier API still working (one test each, the only ones
//! allowed to use them).

use llm_from_scratch::prelude::*;

/// Layer norm over the last axis of `[T, C]`, generic over the precision:
/// `mean_axis`, `exp`-free variance, `sqrt` from `Float`.
fn layer_norm<F: Float>(x: &Tensor<2, F>, eps: F) -> Result<Tensor<2, F>, Error> {
    let mean = x.mean_axis(1, KeepDim)?; // [T, 1]
    let centered = x.map_binary(&mean, |v, m| v - m)?; // [T, C]
    let variance = centered.map_unary(|v| v * v)?.mean_axis(1, KeepDim)?;
    centered.map_binary(&variance, |c, var| c / (var + eps).sqrt())
}

/// A softmax over the last axis with `exp` from `Float`.
fn softmax_rows<F: Float>(x: &Tensor<2, F>) -> Result<Tensor<2, F>, Error> {
    let max = x.max_axis(1, KeepDim)?;
    let e = x.map_binary(&max, |v, m| (v - m).exp())?;
    let z = e.sum_axis(1, KeepDim)?;
    e.map_binary(&z, |e, z| e / z)
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
    let query = hidden.view().slice(0, position..position + 1)?; // a view error
    let scores = matmul(&query, &keys.view().transpose(0, 1)?)?; // an op error
    Ok(*scores.get([0, key])?) // an owner's error
}

#[test]
fn one_error_type_takes_every_layer() -> Result<(), Error> {
    let hidden = Tensor::from_vec([2, 2], vec![1.0, 0.0, 0.0, 1.0])?;
    let keys = Tensor::from_vec([3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    assert_eq!(score(&hidden, &keys, 1, 2)?, 6.0);
    assert_eq!(
        score(&hidden, &keys, 1, 3),
        Err(Error::IndexOutOfBounds {
            op: "get",
            axis: 1,
            index: 3,
            dimension: 3
        })
    );
    let wide = Tensor::from_vec([2, 3], vec![0.0; 6])?;
    assert_eq!(
        score(&wide, &keys, 0, 0),
        Err(Error::MatmulInnerMismatch {
            op: "matmul",
            left_k: 3,
            right_k: 2
        })
    );
    assert_eq!(
        score(&hidden, &keys, 2, 0),
        Err(Error::SliceEndOutOfBounds {
            op: "slice",
            axis: 0,
            end: 3,
            dimension: 2
        })
    );
    // The earlier layers' names are aliases of the one type.
    let layers: [TensorOpError; 3] = [
        TensorError::ShapeOverflow { op: "reshape" },
        TensorViewError::NonContiguousReshape,
        TensorOpError::EmptyMaxAxis {
            op: "max_axis",
            axis: 1,
        },
    ];
    let messages = layers.map(|error: Error| error.to_string());
    assert_eq!(
        messages,
        [
            "reshape: shape overflow: an element count, stride or offset does not fit in usize",
            "reshape: the view is not row-major contiguous; reshape never copies, call materialize() first",
            "max_axis: axis 1 has extent 0, the maximum of no values is undefined",
        ]
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
        Error::ElementCountMismatch {
            op: "into_shape",
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

// ------------------------------------------------- mutable views as operands

/// `[[10, 20, 30], [40, 50, 60]]`, written through the mutable view.
fn written(x: &mut Tensor<2>) -> ViewMut<'_, 2> {
    let mut x_mut = x.view_mut();
    x_mut.map_inplace(|v| 10.0 * v);
    x_mut
}

#[test]
fn a_mutable_view_and_its_reborrow_are_operands_of_every_op() -> Result<(), Error> {
    let mut x = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let same = Tensor::from_vec([2, 3], vec![10.0, 20.0, 30.0, 40.0, 50.0, 60.0])?;
    let w = Tensor::from_vec([3, 2], vec![1.0, 0.0, 0.0, 1.0, 1.0, 1.0])?;
    let bias = Tensor::from_vec([3], vec![1.0, 2.0, 3.0])?;
    let mut x_mut = written(&mut x);

    // matmul: what was written is read without a copy.
    let product = [40.0, 50.0, 100.0, 110.0];
    assert_eq!(matmul(&x_mut, &w)?.as_slice(), &product);
    assert_eq!(matmul(&x_mut.reborrow(), &w)?.as_slice(), &product);
    assert_eq!(x_mut.matmul(&w)?.as_slice(), &product);
    // A mutable view on the right, transposed (strided).
    let mut w_owner = w.clone();
    let w_t = w_owner.view_mut().transpose(0, 1)?; // [2, 3]
    assert_eq!(
        matmul(&same, &w_t.view().transpose(0, 1)?)?.as_slice(),
        &product
    );

    // sum_axis, both markers, and as a method.
    let sums = sum_axis(&x_mut, 1, RemoveDim)?;
    assert_eq!(sums.as_slice(), &[60.0, 150.0]);
    assert_eq!(sum_axis(&x_mut.reborrow(), 1, RemoveDim)?, sums);
    let kept = x_mut.sum_axis(0, KeepDim)?;
    assert_eq!(
        (kept.shape(), kept.as_slice()),
        (&[1, 3], &[50.0, 70.0, 90.0][..])
    );

    // softmax_axis: bit for bit the softmax of an owner of the same values.
    let p = softmax_axis(&x_mut, 1)?;
    assert_eq!(p, softmax_axis(&same, 1)?);
    assert_eq!(softmax_axis(&x_mut.reborrow(), 1)?, p);
    assert_eq!(x_mut.softmax_axis(1)?, p);

    // map_binary with a mutable view on either side.
    let biased = [11.0, 22.0, 33.0, 41.0, 52.0, 63.0];
    assert_eq!(map_binary(&x_mut, &bias, |a, b| a + b)?.as_slice(), &biased);
    assert_eq!(
        map_binary(&bias, &x_mut.reborrow(), |b, a| a + b)?.as_slice(),
        &biased
    );

    // index_select: the embedding lookup from a table being written.
    let rows = [40.0, 50.0, 60.0, 40.0, 50.0, 60.0, 10.0, 20.0, 30.0];
    assert_eq!(index_select(&x_mut, 0, &[1, 1, 0])?.as_slice(), &rows);
    assert_eq!(
        index_select(&x_mut.reborrow(), 0, &[1, 1, 0])?.as_slice(),
        &rows
    );
    assert_eq!(x_mut.index_select(0, &[1, 1, 0])?.as_slice(), &rows);

    // concat takes views: a mutable view joins through `.view()`.
    let grown = concat(&[x_mut.view(), w_t.view()], 0)?;
    assert_eq!(grown.shape(), &[4, 3]);
    assert_eq!(
        grown.as_slice(),
        &[
            10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0
        ]
    );
    assert_eq!(
        concat(&[x_mut.reborrow().view(), same.view()], 1)?.shape(),
        &[2, 6]
    );

    // The reborrows ended: the view is still writable, and the owner sees it all.
    x_mut.reborrow().slice(1, 0..1)?.fill(0.0);
    assert_eq!(
        sum_axis(&x_mut, 0, RemoveDim)?.as_slice(),
        &[0.0, 70.0, 90.0]
    );
    assert_eq!(x.as_slice(), &[0.0, 20.0, 30.0, 0.0, 50.0, 60.0]);
    Ok(())
}

#[test]
fn a_strided_or_dynamic_mutable_view_is_an_operand_too() -> Result<(), Error> {
    let mut x = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let column_sums = sum_axis(&x.view_mut().transpose(0, 1)?, 1, RemoveDim)?;
    assert_eq!(column_sums.as_slice(), &[5.0, 7.0, 9.0]);
    let mut d = x.view_mut().into_dyn();
    d.set(&[0, 0], -1.0)?;
    let e = Tensor::<2>::full([3, 1], 1.0)?.into_dyn();
    let rows = llm_from_scratch::tensor::dynamic::matmul(&d, &e)?;
    assert_eq!(
        (rows.shape(), rows.as_slice()),
        (&[2, 1][..], &[4.0, 15.0][..])
    );
    assert_eq!(d.softmax_axis(0)?.shape(), &[2, 3]);
    Ok(())
}

// ------------------------------------------- every message names its op

#[test]
fn every_error_message_names_the_function_called() -> Result<(), Error> {
    let x = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let four = Tensor::from_vec([4], vec![1.0, 2.0, 3.0, 4.0])?;
    let two = Tensor::from_vec([2], vec![1.0, 2.0])?;
    let empty = Tensor::<2>::zeros([2, 0])?;
    let mut target = Tensor::<2>::zeros([2, 3])?;
    let mut wrong_1 = Tensor::<1>::zeros([3])?;
    let mut wrong_2 = Tensor::<2>::zeros([2, 3])?;
    let vector = DynTensor::from_vec(vec![3], vec![1.0, 2.0, 3.0])?;
    let cases: Vec<(Result<(), Error>, &str)> = vec![
        (
            x.view().softmax_axis(2).map(drop),
            "softmax_axis: axis 2 is out of bounds for rank 2",
        ),
        (
            argmax_axis(&x, 5, KeepDim).map(drop),
            "argmax_axis: axis 5 is out of bounds for rank 2",
        ),
        (
            argmax_axis(&empty, 1, RemoveDim).map(drop),
            "argmax_axis: axis 1 has extent 0, the maximum of no values is undefined",
        ),
        (
            target.view_mut().assign(&four),
            "assign: output axis 1 pairs extent 4 with 3; broadcasting needs them equal or one of them 1",
        ),
        (
            target.view_mut().zip_map_inplace(&two, |t, s| t + s),
            "zip_map_inplace: output axis 1 pairs extent 2 with 3; broadcasting needs them equal or one of them 1",
        ),
        (
            sum_axis_into(&x, 0, RemoveDim, &mut Tensor::<1>::zeros([2])?),
            "sum_axis_into: the result has shape [3], the output has shape [2]",
        ),
        (
            max_axis_into(&empty, 1, RemoveDim, &mut wrong_1),
            "max_axis_into: axis 1 has extent 0, the maximum of no values is undefined",
        ),
        (
            matmul_into(&x, &x.view().transpose(0, 1)?, &mut wrong_2),
            "matmul_into: the result has shape [2, 2], the output has shape [2, 3]",
        ),
        (
            x.view().broadcast_to([2, 4]).map(drop),
            "broadcast_to: output axis 1 pairs extent 3 with 4; broadcasting needs them equal or one of them 1",
        ),
        (
            map_binary(&x, &two, |a, b| a + b).map(drop),
            "map_binary: output axis 1 pairs extent 3 with 2; broadcasting needs them equal or one of them 1",
        ),
        (
            mean_axis(&empty, 1, KeepDim).map(drop),
            "mean_axis: axis 1 has extent 0, the mean of no values is undefined",
        ),
        (
            llm_from_scratch::tensor::dynamic::matmul(&vector, &x.view().into_dyn()).map(drop),
            "matmul: an operand of rank 1 was given, at least rank 2 is needed; reshape a unit axis in first",
        ),
        (
            concat::<f64, Rank<2>>(&[], 0).map(drop),
            "concat: the input list is empty, so there is no shape to take the output's from",
        ),
        (
            index_select_into(&x, 1, &[0], &mut wrong_2),
            "index_select_into: the result has shape [2, 1], the output has shape [2, 3]",
        ),
        (
            x.view().reshape([4]).map(drop),
            "reshape: the view holds 6 elements, the requested shape holds 4",
        ),
        (
            x.get([1, 3]).map(drop),
            "get: index 3 on axis 1 of extent 3 is out of bounds",
        ),
        (
            target.view_mut().set([2, 0], 1.0),
            "set: index 2 on axis 0 of extent 2 is out of bounds",
        ),
        (
            x.view().slice(0, 1..3).map(drop),
            "slice: on axis 0 the end 3 is past the extent 2",
        ),
        (
            Tensor::from_vec([2, 3], vec![0.0; 5]).map(drop),
            "from_vec: the shape needs 6 values, 5 were given",
        ),
        (
            View::from_parts(&[1.0, 2.0, 3.0], [2, 2], [2, 1], 0).map(drop),
            "View::from_parts: the layout needs 4 elements of storage, the data holds 3",
        ),
        (
            x.clone().into_dyn().into_ranked::<3>().map(drop),
            "into_ranked: expected rank 3, got rank 2",
        ),
    ];
    for (result, message) in cases {
        assert_eq!(result.unwrap_err().to_string(), message);
    }
    // A failed write leaves the target untouched.
    assert_eq!(target.as_slice(), &[0.0; 6]);
    Ok(())
}

// ------------------------------------------ a kernel's scratch is fallible

#[test]
fn a_matmul_whose_scratch_cannot_be_reserved_is_an_error() -> Result<(), Error> {
    // [1, 2^40] x [2^40, 1] of one stored value (stride 0 everywhere): the
    // output is one value, but the small-m kernel's copy of the left rows
    // would take 2^40 values (8 TiB). It must fail, not abort.
    let one = Tensor::<2>::full([1, 1], 1.0)?;
    let k = 1_usize << 40;
    let row = one.view().broadcast_to([1, k])?;
    let column = one.view().broadcast_to([k, 1])?;
    assert_eq!((row.strides()[1], column.strides()[0]), (0, 0)); // the stretched axes
    // The left rows copied step-major: m * k = 2^40 values.
    assert_eq!(
        matmul(&row, &column),
        Err(Error::AllocationFailed {
            op: "matmul",
            elements: k
        })
    );
    let mut out = Tensor::<2>::zeros([1, 1])?;
    assert_eq!(
        matmul_into(&row, &column, &mut out),
        Err(Error::AllocationFailed {
            op: "matmul_into",
            elements: k
        })
    );
    Ok(())
}

// ------------------------------- the deprecated paths still work (one each)

#[test]
#[allow(deprecated)]
fn deprecated_split_at_mut_still_gives_two_writable_parts() -> Result<(), Error> {
    let mut t = Tensor::<2>::zeros([2, 2])?;
    let (mut left, mut right) = t.view_mut().split_at_mut(1, 1)?; // two columns, interleaved
    left.fill(1.0);
    right.fill(2.0);
    assert_eq!(right.get([1, 0])?, 2.0);
    assert_eq!(t.as_slice(), &[1.0, 2.0, 1.0, 2.0]);
    Ok(())
}

#[test]
#[allow(deprecated)]
fn deprecated_axis_iter_mut_still_gives_writable_pieces() -> Result<(), Error> {
    let mut t = Tensor::<2>::zeros([2, 3])?;
    for (j, mut column) in t.view_mut().axis_iter_mut(1)?.enumerate() {
        column.fill(j as f64);
    }
    assert_eq!(t.as_slice(), &[0.0, 1.0, 2.0, 0.0, 1.0, 2.0]);
    Ok(())
}

#[test]
#[allow(deprecated)]
fn deprecated_outer_iter_mut_still_gives_writable_rows() -> Result<(), Error> {
    let mut t = Tensor::<2>::zeros([2, 3])?;
    for (i, mut row) in t.view_mut().outer_iter_mut()?.enumerate() {
        row.set([2], 10.0 * (i + 1) as f64)?;
    }
    assert_eq!(t.as_slice(), &[0.0, 0.0, 10.0, 0.0, 0.0, 20.0]);
    Ok(())
}

#[test]
#[allow(deprecated)]
fn deprecated_axis_chunks_iter_mut_still_gives_writable_chunks() -> Result<(), Error> {
    let mut t = Tensor::<2>::zeros([2, 5])?;
    let mut widths = Vec::new();
    for (c, mut chunk) in t.view_mut().axis_chunks_iter_mut(1, 2)?.enumerate() {
        widths.push(chunk.shape()[1]);
        chunk.fill(c as f64);
    }
    assert_eq!(widths, [2, 2, 1]);
    assert_eq!(
        t.as_slice(),
        &[0.0, 0.0, 1.0, 1.0, 2.0, 0.0, 0.0, 1.0, 1.0, 2.0]
    );
    Ok(())
}

#[test]
#[allow(deprecated)]
fn deprecated_layout_trace_dyn_view_and_dyn_owner_still_record_rows() -> Result<(), Error> {
    let owner = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    let mut trace = LayoutTrace::new();
    trace
        .dyn_owner("base", &owner)
        .dyn_view("permute", &owner.view().permute(&[1, 0])?);
    let rows = trace.rows();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        (rows[0].shape.as_slice(), rows[0].storage.as_str()),
        (&[2, 2][..], "new owner base")
    );
    assert_eq!(
        (rows[1].strides.as_slice(), rows[1].contiguous),
        (&[1, 2][..], false)
    );
    assert_eq!(rows[1].storage, "shares base");
    Ok(())
}

#[cfg(feature = "safetensors")]
#[test]
#[allow(deprecated)]
fn deprecated_weights_error_is_still_the_error_of_weights() {
    use llm_from_scratch::tensor::weights::{Weights, WeightsError};
    // A safetensors file with no tensors: an 8-byte header length, then `{}`.
    let mut bytes = 2_u64.to_le_bytes().to_vec();
    bytes.extend(b"{}");
    let weights = Weights::parse(&bytes).expect("an empty file");
    let missing: Result<_, WeightsError> = weights.get::<2, f32>("wte.weight");
    assert_eq!(
        missing.map(|_| ()),
        Err(Error::MissingTensor {
            name: "wte.weight".to_string()
        })
    );
    let truncated: WeightsError = Weights::parse(&bytes[..4]).unwrap_err();
    assert!(matches!(
        truncated,
        Error::InvalidFile {
            format: "safetensors",
            ..
        }
    ));
}

#[test]
#[allow(deprecated)]
fn deprecated_module_paths_still_name_the_same_items() -> Result<(), Error> {
    use llm_from_scratch::tensor::{axes, display, storage, view};
    let t: storage::Tensor<2> = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let copied = storage::copying_transpose(&t)?;
    assert_eq!(
        (copied.shape(), copied.as_slice()),
        (&[3, 2], &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0][..])
    );
    let v: view::View<'_, 2> = t.view().permute_axes::<axes::Axes2<1, 0>>();
    assert_eq!(v.strides(), &[1, 3]);
    assert_eq!(<axes::Axes3<2, 0, 1> as axes::AxisList<3>>::AXES, [2, 0, 1]);
    let mut trace = display::LayoutTrace::new();
    trace.owner("t", &t).view("t^T", &v);
    let row: &display::TraceRow = &trace.rows()[1];
    assert_eq!(row.storage, "shares t");
    Ok(())
}
