//! Broadcasting and elementwise maps: NumPy's trailing-axis rule,
//! its error and overflow policy, and the closure contract of `map_unary` /
//! `map_binary` (once per output element, logical row-major order, left
//! value first, never for an empty output).

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic;
use llm_from_scratch::tensor::{BroadcastRank, Rank};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Token rows `[2, 3]` and a feature bias `[3]`.
fn tokens_and_bias() -> Result<(Tensor<2>, Tensor<1>), Error> {
    let tokens = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
    Ok((tokens, bias))
}

#[test]
fn tokens_plus_bias() -> TestResult {
    let (tokens, bias) = tokens_and_bias()?;
    let biased = map_binary(&tokens.view(), &bias.view(), |x, b| x + b)?;
    assert_eq!(biased.shape(), &[2, 3]);
    assert_eq!(biased.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);

    // The dynamic fallback gives the same result through the seed's signatures.
    let dyn_tokens = DynTensor::from_vec(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let dyn_bias = DynTensor::from_vec(vec![3], vec![10.0, 20.0, 30.0])?;
    let dyn_biased = dynamic::map_binary(&dyn_tokens.view(), &dyn_bias.view(), |x, b| x + b)?;
    assert_eq!(dyn_biased.shape(), &[2, 3]);
    assert_eq!(dyn_biased.as_slice(), biased.as_slice());
    Ok(())
}

#[test]
fn squares_with_map_unary() -> TestResult {
    let (tokens, _) = tokens_and_bias()?;
    let squared = map_unary(&tokens.view(), |x| x * x)?;
    assert_eq!(squared.shape(), &[2, 3]);
    assert_eq!(squared.as_slice(), &[1.0, 4.0, 9.0, 16.0, 25.0, 36.0]);
    Ok(())
}

#[test]
fn the_output_shape_and_each_source_coordinate() -> TestResult {
    assert_eq!(broadcast_shape(&[2, 1, 3], &[4, 3])?, [2, 4, 3]);
    // Shapes as a dynamic array returns them (`&[usize]`) give a `Vec`.
    let (left, right): (&[usize], &[usize]) = (&[2, 1, 3], &[4, 3]);
    assert_eq!(dynamic::broadcast_shape(left, right)?, vec![2, 4, 3]);

    // Each value is its own coordinate, so the output records where it read from.
    let left = Tensor::from_fn([2, 1, 3], |index| index)?;
    let right = Tensor::from_fn([4, 3], |index| index)?;
    let sources = map_binary(&left.view(), &right.view(), |a, b| (a, b))?;
    assert_eq!(sources.shape(), &[2, 4, 3]);
    // Output [1, 2, 0]: the left operand's size-1 axis selects 0, the right
    // operand lacks the leading axis.
    assert_eq!(sources.get([1, 2, 0])?, &([1, 0, 0], [2, 0]));
    for i in 0..2 {
        for j in 0..4 {
            for k in 0..3 {
                assert_eq!(sources.get([i, j, k])?, &([i, 0, k], [j, k]));
            }
        }
    }
    Ok(())
}

#[test]
fn incompatible_extents_name_axis_and_sizes() -> TestResult {
    // Each error names the function called.
    let expected = |op| Error::IncompatibleBroadcast {
        op,
        axis: 1,
        left_dimension: 3,
        right_dimension: 2,
    };
    assert_eq!(
        broadcast_shape(&[2, 3], &[2]),
        Err(expected("broadcast_shape"))
    );
    let (left, right): (&[usize], &[usize]) = (&[2, 3], &[2]);
    assert_eq!(
        dynamic::broadcast_shape(left, right),
        Err(expected("broadcast_shape"))
    );

    let (tokens, _) = tokens_and_bias()?;
    let wrong = Tensor::from_vec([2], vec![1.0, 2.0])?;
    let mut calls = 0;
    let error = map_binary(&tokens.view(), &wrong.view(), |x, y| {
        calls += 1;
        x + y
    })
    .unwrap_err();
    assert_eq!(error, expected("map_binary"));
    assert_eq!(calls, 0);
    assert_eq!(
        error.to_string(),
        "map_binary: output axis 1 pairs extent 3 with 2; broadcasting needs them equal or one of them 1"
    );
    Ok(())
}

#[test]
fn an_empty_broadcast_never_calls_the_closure() -> TestResult {
    assert_eq!(broadcast_shape(&[0, 3], &[1, 3])?, [0, 3]);
    let empty = Tensor::from_vec([0, 3], Vec::<f64>::new())?;
    let row = Tensor::from_vec([1, 3], vec![10.0, 20.0, 30.0])?;
    let mut calls = 0;
    let out = map_binary(&empty.view(), &row.view(), |x, y| {
        calls += 1;
        x + y
    })?;
    assert_eq!((out.shape(), out.len()), (&[0, 3], 0));
    let out = map_binary(&row.view(), &empty.view(), |x, y| {
        calls += 1;
        x + y
    })?;
    assert_eq!(out.shape(), &[0, 3]);
    let out = map_unary(&empty.view(), |x| {
        calls += 1;
        x
    })?;
    assert_eq!(out.shape(), &[0, 3]);
    let out = dynamic::map_binary(&empty.view().into_dyn(), &row.view().into_dyn(), |x, y| {
        calls += 1;
        x + y
    })?;
    assert_eq!(out.shape(), &[0, 3]);
    assert_eq!(calls, 0);
    Ok(())
}

#[test]
fn zero_with_one_gives_zero_and_zero_with_two_is_rejected() -> TestResult {
    assert_eq!(broadcast_shape(&[0], &[1])?, [0]);
    assert_eq!(broadcast_shape(&[1], &[0])?, [0]);
    assert_eq!(broadcast_shape(&[0], &[0])?, [0]);
    assert_eq!(broadcast_shape(&[1, 0], &[5, 1])?, [5, 0]);
    assert_eq!(broadcast_shape(&[0], &[])?, [0]);
    assert_eq!(
        broadcast_shape(&[0], &[2]),
        Err(Error::IncompatibleBroadcast {
            op: "broadcast_shape",
            axis: 0,
            left_dimension: 0,
            right_dimension: 2
        })
    );
    assert_eq!(
        broadcast_shape(&[3], &[0]),
        Err(Error::IncompatibleBroadcast {
            op: "broadcast_shape",
            axis: 0,
            left_dimension: 3,
            right_dimension: 0
        })
    );
    Ok(())
}

/// Left shape, right shape, and the expected `(axis, left_dimension, right_dimension)`.
type FailingCase = (&'static [usize], &'static [usize], (usize, usize, usize));

#[test]
fn the_leftmost_failing_output_axis_is_reported() {
    let cases: [FailingCase; 5] = [
        // Two failing axes: the leftmost one (output axis 0) wins.
        (&[2, 3, 4], &[5, 6, 4], (0, 2, 5)),
        (&[3, 4, 5], &[3, 2, 6], (1, 4, 2)),
        // Right alignment: the output axis counts the padded leading axes.
        (&[7, 2, 3], &[4, 3], (1, 2, 4)),
        (&[3], &[2, 4], (1, 3, 4)),
        (&[1, 9, 2], &[4, 5, 8, 1], (2, 9, 8)),
    ];
    for (left, right, (axis, left_dimension, right_dimension)) in cases {
        let expected = Error::IncompatibleBroadcast {
            op: "broadcast_shape",
            axis,
            left_dimension,
            right_dimension,
        };
        assert_eq!(
            dynamic::broadcast_shape(left, right),
            Err(expected),
            "{left:?} with {right:?}"
        );
    }
    assert_eq!(
        broadcast_shape(&[2, 3, 4], &[5, 6, 4]),
        Err(Error::IncompatibleBroadcast {
            op: "broadcast_shape",
            axis: 0,
            left_dimension: 2,
            right_dimension: 5
        })
    );
}

#[test]
fn incompatibility_is_checked_before_overflow() {
    // The output would overflow at axis 0 already, but axis 2 is incompatible.
    assert_eq!(
        broadcast_shape(&[usize::MAX, usize::MAX, 3], &[2]),
        Err(Error::IncompatibleBroadcast {
            op: "broadcast_shape",
            axis: 2,
            left_dimension: 3,
            right_dimension: 2
        })
    );
    assert_eq!(
        broadcast_shape(&[0, usize::MAX, 3], &[1, 2, 2]),
        Err(Error::IncompatibleBroadcast {
            op: "broadcast_shape",
            axis: 1,
            left_dimension: usize::MAX,
            right_dimension: 2
        })
    );
}

#[test]
fn a_compatible_plan_that_overflows_is_shape_overflow() -> TestResult {
    let overflow = Err(Error::ShapeOverflow {
        op: "broadcast_shape",
    });
    assert_eq!(broadcast_shape(&[0, usize::MAX, 1], &[1, 1, 2]), overflow);
    assert_eq!(broadcast_shape(&[1, 1, 2], &[0, usize::MAX, 1]), overflow);
    let (left, right): (&[usize], &[usize]) = (&[0, usize::MAX, 1], &[1, 1, 2]);
    assert_eq!(
        dynamic::broadcast_shape(left, right),
        overflow.map(|a: [usize; 3]| a.to_vec())
    );

    // The same through map_binary: `[0, usize::MAX, 1]` is a valid empty view.
    let nothing: [f64; 0] = [];
    let empty = View::from_parts(&nothing, [0, usize::MAX, 1], [0, 0, 0], 0)?;
    assert!(empty.is_empty());
    let pair = Tensor::from_vec([1, 1, 2], vec![1.0, 2.0])?;
    let mut calls = 0;
    let error = map_binary(&empty, &pair.view(), |x, y| {
        calls += 1;
        x + y
    })
    .unwrap_err();
    assert_eq!(error, Error::ShapeOverflow { op: "map_binary" });
    let error = dynamic::map_binary(&empty.into_dyn(), &pair.view().into_dyn(), |x, y| {
        calls += 1;
        x + y
    })
    .unwrap_err();
    assert_eq!(error, Error::ShapeOverflow { op: "map_binary" });
    assert_eq!(calls, 0);
    Ok(())
}

#[test]
fn a_scalar_broadcasts_to_any_rank_on_either_side() -> TestResult {
    let half = Tensor::from_vec([], vec![0.5])?;
    let (tokens, bias) = tokens_and_bias()?;

    let right = map_binary(&tokens.view(), &half.view(), |x, s| x + s)?;
    let _: &[usize; 2] = right.shape();
    assert_eq!(right.as_slice(), &[1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);

    let left = map_binary(&half.view(), &bias.view(), |s, b| s - b)?;
    let _: &[usize; 1] = left.shape();
    assert_eq!(left.as_slice(), &[-9.5, -19.5, -29.5]);

    let both = map_binary(&half.view(), &half.view(), |a, b| a * b)?;
    let _: &[usize; 0] = both.shape();
    assert_eq!(both.as_slice(), &[0.25]);

    let four = Tensor::from_fn([2, 1, 2, 3], |[a, b, c, d]| {
        (1000 * a + 100 * b + 10 * c + d) as f64
    })?;
    let shifted = map_binary(&half.view(), &four.view(), |s, x| x + s)?;
    assert_eq!(shifted.shape(), &[2, 1, 2, 3]);
    let expected: Vec<f64> = four.as_slice().iter().map(|x| x + 0.5).collect();
    assert_eq!(shifted.as_slice(), &expected[..]);

    // A scalar with an empty operand stays empty.
    let empty = Tensor::from_vec([3, 0], Vec::<f64>::new())?;
    assert_eq!(
        map_binary(&half.view(), &empty.view(), |a, b| a + b)?.shape(),
        &[3, 0]
    );

    assert_eq!(
        broadcast_shape(&[], &[4, 5, 6, 7, 8, 9, 10, 11])?,
        [4, 5, 6, 7, 8, 9, 10, 11]
    );
    assert_eq!(broadcast_shape(&[], &[])?, [0_usize; 0]);
    Ok(())
}

/// The value `100 * i + 10 * j + k` at owner coordinate `[i, j, k]`.
fn code3([i, j, k]: [usize; 3]) -> i64 {
    (100 * i + 10 * j + k) as i64
}

#[test]
fn closures_run_once_per_element_in_logical_order_left_first() -> TestResult {
    // Left: an owner [3, 1, 2] permuted to a [2, 1, 3] view (strides [1, 2, 2]).
    let left_owner = Tensor::from_fn([3, 1, 2], code3)?;
    let left = left_owner.view().permute([2, 1, 0])?;
    assert_eq!(left.shape(), &[2, 1, 3]);
    // Right: columns 1..4 of an owner [4, 5], negated so it cannot pass for the left.
    let right_owner = Tensor::from_fn([4, 5], |[i, j]| -((10 * i + j) as i64))?;
    let right = right_owner.view().slice(1, 1..4)?;
    assert_eq!(right.shape(), &[4, 3]);

    let mut calls = Vec::new();
    let out = map_binary(&left, &right, |a, b| {
        calls.push((a, b));
        a + b
    })?;
    let mut expected = Vec::new();
    for i in 0..2 {
        for j in 0..4 {
            for k in 0..3 {
                // left view [i, 0, k] is owner [k, 0, i]; right view [j, k] is owner [j, k + 1].
                expected.push((code3([k, 0, i]), -((10 * j + k + 1) as i64)));
            }
        }
    }
    assert_eq!(calls, expected);
    let sums: Vec<i64> = expected.iter().map(|(a, b)| a + b).collect();
    assert_eq!(out.as_slice(), &sums[..]);

    // The dynamic API calls the closure in the same order.
    let mut dyn_calls = Vec::new();
    dynamic::map_binary(&left.into_dyn(), &right.into_dyn(), |a, b| {
        dyn_calls.push((a, b))
    })?;
    assert_eq!(dyn_calls, expected);
    Ok(())
}

#[test]
fn map_unary_follows_logical_order_on_transposed_and_sliced_views() -> TestResult {
    let owner = Tensor::from_fn([3, 4, 2], code3)?;
    let view = owner.view().transpose(0, 2)?.slice(1, 1..3)?; // [2, 2, 3], owner [k, j + 1, i]
    let mut calls = Vec::new();
    let out = map_unary(&view, |x| {
        calls.push(x);
        x * 2
    })?;
    let mut expected = Vec::new();
    for i in 0..2 {
        for j in 0..2 {
            for k in 0..3 {
                expected.push(code3([k, j + 1, i]));
            }
        }
    }
    assert_eq!(calls, expected);
    assert_eq!(out.shape(), &[2, 2, 3]);
    let doubled: Vec<i64> = expected.iter().map(|x| x * 2).collect();
    assert_eq!(out.as_slice(), &doubled[..]);

    // A scalar view runs the closure exactly once.
    let scalar = Tensor::from_vec([], vec![7_i64])?;
    let mut count = 0;
    assert_eq!(
        map_unary(&scalar.view(), |x| {
            count += 1;
            x + 1
        })?
        .as_slice(),
        &[8]
    );
    assert_eq!(count, 1);
    Ok(())
}

#[test]
fn both_operands_broadcast_at_once() -> TestResult {
    // [3, 1] (a transposed row) with [1, 4] (a sliced row): an outer product.
    let column_owner = Tensor::from_vec([1, 3], vec![1, 2, 3])?;
    let column = column_owner.view().transpose(0, 1)?;
    let row_owner = Tensor::from_vec([2, 5], vec![0, 0, 0, 0, 0, 10, 20, 30, 40, 50])?;
    let row = row_owner.view().slice(0, 1..2)?.slice(1, 1..5)?;
    let mut calls = Vec::new();
    let product = map_binary(&column, &row, |a: i32, b: i32| {
        calls.push((a, b));
        a * b
    })?;
    assert_eq!(product.shape(), &[3, 4]);
    assert_eq!(
        product.as_slice(),
        &[20, 30, 40, 50, 40, 60, 80, 100, 60, 90, 120, 150]
    );
    assert_eq!(&calls[..5], &[(1, 20), (1, 30), (1, 40), (1, 50), (2, 20)]);
    assert_eq!(calls.len(), 12);
    Ok(())
}

#[test]
fn element_types_beyond_f64() -> TestResult {
    // f64 -> bool: a mask against a per-feature threshold.
    let (tokens, _) = tokens_and_bias()?;
    let threshold = Tensor::from_vec([3], vec![1.5, 5.0, 2.5])?;
    let mask: Tensor<2, bool> = map_binary(&tokens.view(), &threshold.view(), |x, t| x > t)?;
    assert_eq!(mask.as_slice(), &[false, false, true, true, false, true]);
    let odd = map_unary(&tokens.view(), |x| x % 2.0 == 1.0)?;
    assert_eq!(odd.as_slice(), &[true, false, true, false, true, false]);

    // i64 token ids: shift each sequence by a per-row offset, then wrap into the vocabulary.
    let ids = Tensor::<2, i64>::from_vec([2, 4], vec![5, 17, 49_999, 0, 50_256, 3, 11, 7])?;
    let offsets = Tensor::<2, i64>::from_vec([2, 1], vec![1, 50_000])?;
    let shifted = map_binary(&ids.view(), &offsets.view(), |id, o| (id + o) % 50_257)?;
    assert_eq!(
        shifted.as_slice(),
        &[6, 18, 50_000, 1, 49_999, 50_003, 50_011, 50_007]
    );

    // f32 end to end, and mixed operand types (f32 values, i64 counts).
    let halves = Tensor::<2, f32>::from_vec([2, 2], vec![0.5, 1.5, 2.5, 3.5])?;
    let bias32 = Tensor::<1, f32>::from_vec([2], vec![0.25, -0.5])?;
    let out32 = map_binary(&halves.view(), &bias32.view(), |x, b| x + b)?;
    assert_eq!(out32.as_slice(), &[0.75_f32, 1.0, 2.75, 3.0]);
    let counts = Tensor::<1, i64>::from_vec([2], vec![2, 3])?;
    let scaled: Tensor<2, f64> =
        map_binary(&halves.view().transpose(0, 1)?, &counts.view(), |x, n| {
            f64::from(x) * n as f64
        })?;
    assert_eq!(scaled.as_slice(), &[1.0, 7.5, 3.0, 10.5]);
    Ok(())
}

#[test]
fn output_ranks_are_inferred_without_annotations() -> TestResult {
    let (tokens, bias) = tokens_and_bias()?;
    let out = map_binary(&tokens.view(), &bias.view(), |x, b| x * b)?;
    let _: &[usize; 2] = out.shape();
    let column = Tensor::from_vec([2, 1, 1], vec![1.0, 2.0])?;
    let out = map_binary(&bias.view(), &column.view(), |b, c| b * c)?;
    let _: &[usize; 3] = out.shape();
    assert_eq!(out.shape(), &[2, 1, 3]);
    assert_eq!(out.as_slice(), &[10.0, 20.0, 30.0, 20.0, 40.0, 60.0]);
    let shape = broadcast_shape(&[2, 1, 3], &[4, 3])?;
    let _: [usize; 3] = shape;
    let squared = map_unary(&tokens.view(), |x| x * x)?;
    let _: &[usize; 2] = squared.shape();
    Ok(())
}

/// User code generic over the ranks names the bound `map_binary` needs.
fn add<const L: usize, const M: usize, const O: usize>(
    left: &View<'_, L>,
    right: &View<'_, M>,
) -> Result<Tensor<O>, Error>
where
    Rank<L>: BroadcastRank<Rank<M>, Output = Rank<O>>,
{
    map_binary(left, right, |a, b| a + b)
}

#[test]
fn generic_user_code_can_name_the_broadcast_bound() -> TestResult {
    let (tokens, bias) = tokens_and_bias()?;
    let out = add(&tokens.view(), &bias.view())?;
    let _: &[usize; 2] = out.shape();
    assert_eq!(out.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    let out = add(&bias.view(), &tokens.view())?;
    assert_eq!(out.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    Ok(())
}
