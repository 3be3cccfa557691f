//! The `_into` variants: the same values as the fresh ops, written into the
//! caller's buffer (no new allocation), and `OutputShapeMismatch` for an
//! output of the wrong shape, after the op's own checks.

use llm_from_scratch::prelude::*;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// Logical `[3, 4]` values stored transposed in a `[4, 3]` owner, so the
/// view is not contiguous; sums of these depend on the order of addition.
fn transposed_owner() -> Result<Tensor<2>, Error> {
    Tensor::from_fn([4, 3], |[j, i]| {
        let scale = [1e16, 0.1, -3.0, 1.0][(i + j) % 4];
        scale * (1 + i * 4 + j) as f64
    })
}

#[test]
fn map_unary_into_matches_and_reuses_the_buffer() -> TestResult {
    let owner = transposed_owner()?;
    let view = owner.view().transpose(0, 1)?.slice(1, 1..4)?; // [3, 3]
    let fresh = map_unary(&view, |x| x * 0.5 - 1.0)?;
    let mut out = Tensor::full([3, 3], f64::NAN)?;
    let buffer = out.as_slice().as_ptr();
    map_unary_into(&view, |x| x * 0.5 - 1.0, &mut out)?;
    assert_eq!(bits(out.as_slice()), bits(fresh.as_slice()));
    assert_eq!(
        out.as_slice().as_ptr(),
        buffer,
        "the output storage is reused"
    );

    // Reuse the same buffer for a second, different input.
    let other = Tensor::from_fn([3, 3], |[i, j]| (i * 3 + j) as f64)?;
    map_unary_into(&other.view(), |x| -x, &mut out)?;
    assert_eq!(
        out.as_slice(),
        &[-0.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0]
    );
    assert_eq!(out.as_slice().as_ptr(), buffer);

    // Other element types: an f64 -> bool mask into a reused mask buffer.
    let mut mask = Tensor::full([3, 3], false)?;
    map_unary_into(&other.view(), |x| x >= 4.0, &mut mask)?;
    assert_eq!(
        mask.as_slice(),
        map_unary(&other.view(), |x| x >= 4.0)?.as_slice()
    );
    Ok(())
}

#[test]
fn map_unary_into_rejects_a_wrong_shape_and_leaves_it_untouched() -> TestResult {
    let input = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let mut out = Tensor::full([3, 2], 9.0)?;
    let mut calls = 0;
    let error = map_unary_into(
        &input.view(),
        |x| {
            calls += 1;
            x
        },
        &mut out,
    )
    .unwrap_err();
    assert_eq!(
        error,
        Error::OutputShapeMismatch {
            op: "map_unary_into",
            expected: vec![2, 3],
            actual: vec![3, 2]
        }
    );
    assert_eq!(calls, 0);
    assert_eq!(out.as_slice(), &[9.0; 6]);
    Ok(())
}

#[test]
fn map_binary_into_matches_and_reuses_the_buffer() -> TestResult {
    let tokens = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
    let mut out = Tensor::zeros([2, 3])?;
    let buffer = out.as_slice().as_ptr();
    map_binary_into(&tokens.view(), &bias.view(), |x, b| x + b, &mut out)?;
    assert_eq!(out.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);

    // Strided operands: a transposed left and a sliced, broadcast right.
    let owner = transposed_owner()?;
    let left = owner.view().transpose(0, 1)?; // [3, 4]
    let rows = Tensor::from_vec([2, 4], vec![0.0, 0.0, 0.0, 0.0, 1.5, -2.0, 0.25, 8.0])?;
    let right = rows.view().slice(0, 1..2)?; // [1, 4]
    let fresh = map_binary(&left, &right, |a, b| a * b - a)?;
    let mut out = Tensor::full([3, 4], f64::NAN)?;
    let buffer_34 = out.as_slice().as_ptr();
    map_binary_into(&left, &right, |a, b| a * b - a, &mut out)?;
    assert_eq!(bits(out.as_slice()), bits(fresh.as_slice()));
    assert_eq!(out.as_slice().as_ptr(), buffer_34);
    assert_ne!(buffer, buffer_34);

    // The closure contract holds for `_into` too: logical order, left first.
    let mut calls = Vec::new();
    let mut sink = Tensor::zeros([2, 3])?;
    map_binary_into(
        &tokens.view(),
        &bias.view(),
        |x, b| {
            calls.push((x, b));
            x
        },
        &mut sink,
    )?;
    assert_eq!(
        calls[..4],
        [(1.0, 10.0), (2.0, 20.0), (3.0, 30.0), (4.0, 10.0)]
    );
    assert_eq!(calls.len(), 6);
    Ok(())
}

#[test]
fn map_binary_into_checks_broadcasting_before_the_output_shape() -> TestResult {
    let tokens = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let wrong = Tensor::from_vec([2], vec![1.0, 2.0])?;
    let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
    let mut calls = 0;
    let mut count = |x: f64, y: f64| {
        calls += 1;
        x + y
    };
    // Incompatible operands and a wrong output: the broadcast error comes first.
    let mut square = Tensor::full([2, 2], -1.0)?;
    assert_eq!(
        map_binary_into(&tokens.view(), &wrong.view(), &mut count, &mut square).unwrap_err(),
        Error::IncompatibleBroadcast {
            op: "map_binary_into",
            axis: 1,
            left_dimension: 3,
            right_dimension: 2
        }
    );
    // Compatible operands, wrong output extents (a wrong rank does not compile).
    let mut transposed = Tensor::full([3, 2], -1.0)?;
    assert_eq!(
        map_binary_into(&tokens.view(), &bias.view(), &mut count, &mut transposed).unwrap_err(),
        Error::OutputShapeMismatch {
            op: "map_binary_into",
            expected: vec![2, 3],
            actual: vec![3, 2]
        }
    );
    // An empty broadcast needs an empty output: `[0, 3]`, not `[1, 3]`.
    let empty = Tensor::from_vec([0, 3], Vec::<f64>::new())?;
    let mut row = Tensor::full([1, 3], -1.0)?;
    assert_eq!(
        map_binary_into(&empty.view(), &bias.view(), &mut count, &mut row).unwrap_err(),
        Error::OutputShapeMismatch {
            op: "map_binary_into",
            expected: vec![0, 3],
            actual: vec![1, 3]
        }
    );
    let mut nothing = Tensor::zeros([0, 3])?;
    map_binary_into(&empty.view(), &bias.view(), &mut count, &mut nothing)?;
    assert_eq!(calls, 0);
    assert_eq!(
        (square.as_slice(), transposed.as_slice(), row.as_slice()),
        (&[-1.0; 4][..], &[-1.0; 6][..], &[-1.0; 3][..])
    );
    Ok(())
}

/// Runs one reduction fresh and `_into` a NaN-filled buffer, for both markers.
fn check_reduction_into(view: &View<'_, 3>, axis: usize) -> TestResult {
    let fresh = [
        sum_axis(view, axis, KeepDim)?,
        mean_axis(view, axis, KeepDim)?,
        max_axis(view, axis, KeepDim)?,
    ];
    let mut kept = Tensor::full(*fresh[0].shape(), f64::NAN)?;
    let buffer = kept.as_slice().as_ptr();
    sum_axis_into(view, axis, KeepDim, &mut kept)?;
    assert_eq!(
        bits(kept.as_slice()),
        bits(fresh[0].as_slice()),
        "sum axis {axis}"
    );
    mean_axis_into(view, axis, KeepDim, &mut kept)?;
    assert_eq!(
        bits(kept.as_slice()),
        bits(fresh[1].as_slice()),
        "mean axis {axis}"
    );
    max_axis_into(view, axis, KeepDim, &mut kept)?;
    assert_eq!(
        bits(kept.as_slice()),
        bits(fresh[2].as_slice()),
        "max axis {axis}"
    );
    assert_eq!(kept.as_slice().as_ptr(), buffer);

    let removed_shape = *sum_axis(view, axis, RemoveDim)?.shape();
    let mut removed = Tensor::full(removed_shape, f64::NAN)?;
    sum_axis_into(view, axis, RemoveDim, &mut removed)?;
    assert_eq!(
        bits(removed.as_slice()),
        bits(fresh[0].as_slice()),
        "sum removed axis {axis}"
    );
    mean_axis_into(view, axis, RemoveDim, &mut removed)?;
    assert_eq!(
        bits(removed.as_slice()),
        bits(fresh[1].as_slice()),
        "mean removed axis {axis}"
    );
    max_axis_into(view, axis, RemoveDim, &mut removed)?;
    assert_eq!(
        bits(removed.as_slice()),
        bits(fresh[2].as_slice()),
        "max removed axis {axis}"
    );
    Ok(())
}

#[test]
fn reductions_into_match_the_fresh_results_in_every_layout() -> TestResult {
    let values = |i: usize| [1e16, 0.1, -3.5, 1.0, -0.0, 7.0][i % 6] * (1 + i % 5) as f64;
    let contiguous = Tensor::from_fn([3, 4, 5], |[i, j, k]| values(i * 20 + j * 5 + k))?;
    let stored = Tensor::from_fn([5, 3, 4], |[k, i, j]| values(i * 20 + j * 5 + k))?;
    let wide = Tensor::from_fn([3, 6, 5], |[i, j, k]| {
        if j < 4 {
            values(i * 20 + j * 5 + k)
        } else {
            f64::NAN
        }
    })?;
    let layouts = [
        contiguous.view(),
        stored.view().permute([1, 2, 0])?,
        wide.view().slice(1, 0..4)?,
    ];
    for view in &layouts {
        for axis in 0..3 {
            check_reduction_into(view, axis)?;
        }
    }
    Ok(())
}

#[test]
fn reductions_into_an_empty_axis_write_positive_zero() -> TestResult {
    let empty = Tensor::from_vec([2, 0, 3], Vec::<f64>::new())?;
    let mut out = Tensor::full([2, 3], -0.0)?;
    sum_axis_into(&empty.view(), 1, RemoveDim, &mut out)?;
    assert_eq!(bits(out.as_slice()), vec![0_u64; 6]);
    let mut out32 = Tensor::<3, f32>::full([2, 1, 3], f32::NAN)?;
    let empty32 = Tensor::<3, f32>::from_vec([2, 0, 3], vec![])?;
    sum_axis_into(&empty32.view(), 1, KeepDim, &mut out32)?;
    assert!(out32.as_slice().iter().all(|v| v.to_bits() == 0));
    Ok(())
}

#[test]
fn reductions_into_check_axis_then_empty_axis_then_the_output_shape() -> TestResult {
    let biased = Tensor::from_vec([2, 3], vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0])?;
    let mut wrong = Tensor::full([3], 5.0)?;
    assert_eq!(
        sum_axis_into(&biased.view(), 1, RemoveDim, &mut wrong).unwrap_err(),
        Error::OutputShapeMismatch {
            op: "sum_axis_into",
            expected: vec![2],
            actual: vec![3]
        }
    );
    assert_eq!(
        max_axis_into(&biased.view(), 2, RemoveDim, &mut wrong).unwrap_err(),
        Error::AxisOutOfBounds {
            op: "max_axis_into",
            axis: 2,
            rank: 2
        }
    );
    assert_eq!(
        wrong.as_slice(),
        &[5.0; 3],
        "a failed call leaves the output untouched"
    );
    let mut wrong_kept = Tensor::zeros([1, 2])?;
    assert_eq!(
        mean_axis_into(&biased.view(), 1, KeepDim, &mut wrong_kept).unwrap_err(),
        Error::OutputShapeMismatch {
            op: "mean_axis_into",
            expected: vec![2, 1],
            actual: vec![1, 2]
        }
    );

    let empty = Tensor::from_vec([2, 0], Vec::<f64>::new())?;
    let mut out = Tensor::zeros([4])?;
    assert_eq!(
        mean_axis_into(&empty.view(), 1, RemoveDim, &mut out).unwrap_err(),
        Error::EmptyMeanAxis {
            op: "mean_axis_into",
            axis: 1
        }
    );
    assert_eq!(
        max_axis_into(&empty.view(), 1, RemoveDim, &mut out).unwrap_err(),
        Error::EmptyMaxAxis {
            op: "max_axis_into",
            axis: 1
        }
    );
    assert_eq!(
        sum_axis_into(&empty.view(), 1, RemoveDim, &mut out).unwrap_err(),
        Error::OutputShapeMismatch {
            op: "sum_axis_into",
            expected: vec![2],
            actual: vec![4]
        }
    );

    let scalar = Tensor::from_vec([], vec![1.0])?;
    let mut scalar_out = Tensor::from_vec([], vec![0.0])?;
    assert_eq!(
        sum_axis_into(&scalar.view(), 0, KeepDim, &mut scalar_out).unwrap_err(),
        Error::AxisOutOfBounds {
            op: "sum_axis_into",
            axis: 0,
            rank: 0
        }
    );
    Ok(())
}

#[test]
fn a_softmax_loop_reuses_every_buffer() -> TestResult {
    // The hot-loop use: four buffers allocated once, reused for every batch.
    let mut max = Tensor::zeros([2, 1])?;
    let mut exp = Tensor::zeros([2, 3])?;
    let mut total = Tensor::zeros([2, 1])?;
    let mut probabilities = Tensor::zeros([2, 3])?;
    let pointers = [
        max.as_slice().as_ptr(),
        exp.as_slice().as_ptr(),
        probabilities.as_slice().as_ptr(),
    ];
    for step in 0..3 {
        let shift = step as f64;
        let scores = Tensor::from_vec([2, 3], vec![1.0 + shift, 2.0, 3.0, 0.0, 0.0, 0.0])?;
        max_axis_into(&scores.view(), 1, KeepDim, &mut max)?;
        map_binary_into(&scores.view(), &max.view(), |s, m| (s - m).exp(), &mut exp)?;
        sum_axis_into(&exp.view(), 1, KeepDim, &mut total)?;
        map_binary_into(&exp.view(), &total.view(), |e, z| e / z, &mut probabilities)?;

        // Same bits as the allocating path.
        let fresh_max = max_axis(&scores.view(), 1, KeepDim)?;
        let fresh_exp = map_binary(&scores.view(), &fresh_max.view(), |s, m| (s - m).exp())?;
        let fresh_total = sum_axis(&fresh_exp.view(), 1, KeepDim)?;
        let fresh = map_binary(&fresh_exp.view(), &fresh_total.view(), |e, z| e / z)?;
        assert_eq!(
            bits(probabilities.as_slice()),
            bits(fresh.as_slice()),
            "step {step}"
        );
        assert_eq!(&probabilities.as_slice()[3..], &[1.0 / 3.0; 3]);
    }
    assert_eq!(
        pointers,
        [
            max.as_slice().as_ptr(),
            exp.as_slice().as_ptr(),
            probabilities.as_slice().as_ptr()
        ]
    );
    Ok(())
}
