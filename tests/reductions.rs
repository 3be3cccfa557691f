//! Single-axis reductions `sum_axis` / `mean_axis` / `max_axis` (NumPy's
//! `sum` / `mean` / `max` with one `axis`; `KeepDim` is `keepdims=True`):
//! values on a `[2, 3]` example, empty axes (an empty sum is +0.0, an empty
//! mean or max is an error), the error order (axis bound, empty axis,
//! allocation), the fixed pairwise tree's order and its bits in every
//! layout (its accuracy against higher precision: `sum_accuracy.rs`). The max
//! policy has its own file, `max_policy.rs`.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic;
use llm_from_scratch::tensor::ops::tree_sum;
use llm_from_scratch::tensor::{Float, Rank, ReduceDim, RemoveAxis};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Token rows plus a feature bias: `[[11, 22, 33], [14, 25, 36]]`.
fn biased() -> Result<Tensor<2>, Error> {
    Tensor::from_vec([2, 3], vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0])
}

fn bits64(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn sum_mean_max_of_the_biased_tokens() -> TestResult {
    let biased = biased()?;
    let sums = sum_axis(&biased.view(), 0, RemoveDim)?;
    let _: &[usize; 1] = sums.shape();
    assert_eq!(
        (sums.shape(), sums.as_slice()),
        (&[3], &[25.0, 47.0, 69.0][..])
    );

    let means = mean_axis(&biased.view(), 1, KeepDim)?;
    let _: &[usize; 2] = means.shape();
    assert_eq!(
        (means.shape(), means.as_slice()),
        (&[2, 1], &[22.0, 25.0][..])
    );

    let maxima = max_axis(&biased.view(), 1, RemoveDim)?;
    assert_eq!(
        (maxima.shape(), maxima.as_slice()),
        (&[2], &[33.0, 36.0][..])
    );

    // The other marker of each, and the dynamic API with the seed's `keep_dim: bool`.
    let kept = sum_axis(&biased.view(), 0, KeepDim)?;
    assert_eq!(
        (kept.shape(), kept.as_slice()),
        (&[1, 3], &[25.0, 47.0, 69.0][..])
    );
    let dyn_biased = biased.view().into_dyn();
    let dyn_sums = dynamic::sum_axis(&dyn_biased, 0, false)?;
    assert_eq!(
        (dyn_sums.shape(), dyn_sums.as_slice()),
        (&[3][..], sums.as_slice())
    );
    let dyn_means = dynamic::mean_axis(&dyn_biased, 1, true)?;
    assert_eq!(
        (dyn_means.shape(), dyn_means.as_slice()),
        (&[2, 1][..], means.as_slice())
    );
    let dyn_max = dynamic::max_axis(&dyn_biased, 1, false)?;
    assert_eq!(
        (dyn_max.shape(), dyn_max.as_slice()),
        (&[2][..], maxima.as_slice())
    );
    Ok(())
}

#[test]
fn output_rank_follows_the_marker() -> TestResult {
    let cube = Tensor::from_fn([2, 3, 4], |[i, j, k]| (i * 12 + j * 4 + k) as f64)?;
    let removed = sum_axis(&cube.view(), 1, RemoveDim)?;
    let _: &[usize; 2] = removed.shape();
    assert_eq!(removed.shape(), &[2, 4]);
    // Group [0, :, 0] is 0 + 4 + 8; group [1, :, 3] is 15 + 19 + 23.
    assert_eq!(
        removed.as_slice(),
        &[12.0, 15.0, 18.0, 21.0, 48.0, 51.0, 54.0, 57.0]
    );
    let kept = max_axis(&cube.view(), 1, KeepDim)?;
    let _: &[usize; 3] = kept.shape();
    assert_eq!(kept.shape(), &[2, 1, 4]);
    assert_eq!(
        kept.as_slice(),
        &[8.0, 9.0, 10.0, 11.0, 20.0, 21.0, 22.0, 23.0]
    );
    Ok(())
}

#[test]
fn an_empty_selected_axis() -> TestResult {
    let empty = Tensor::from_vec([2, 0, 3], Vec::<f64>::new())?;
    let sums = sum_axis(&empty.view(), 1, RemoveDim)?;
    assert_eq!(sums.shape(), &[2, 3]);
    // +0.0 exactly: the bit pattern of -0.0 would be 0x8000_0000_0000_0000.
    assert_eq!(bits64(sums.as_slice()), vec![0_u64; 6]);
    let kept = sum_axis(&empty.view(), 1, KeepDim)?;
    assert_eq!(
        (kept.shape(), bits64(kept.as_slice())),
        (&[2, 1, 3], vec![0_u64; 6])
    );
    assert_eq!(
        mean_axis(&empty.view(), 1, RemoveDim),
        Err(Error::EmptyMeanAxis {
            op: "mean_axis",
            axis: 1
        })
    );
    assert_eq!(
        mean_axis(&empty.view(), 1, KeepDim),
        Err(Error::EmptyMeanAxis {
            op: "mean_axis",
            axis: 1
        })
    );
    assert_eq!(
        max_axis(&empty.view(), 1, RemoveDim),
        Err(Error::EmptyMaxAxis {
            op: "max_axis",
            axis: 1
        })
    );
    assert_eq!(
        max_axis(&empty.view(), 1, KeepDim),
        Err(Error::EmptyMaxAxis {
            op: "max_axis",
            axis: 1
        })
    );

    let dyn_empty = empty.view().into_dyn();
    assert_eq!(
        bits64(dynamic::sum_axis(&dyn_empty, 1, false)?.as_slice()),
        vec![0_u64; 6]
    );
    assert_eq!(
        dynamic::mean_axis(&dyn_empty, 1, false),
        Err(Error::EmptyMeanAxis {
            op: "mean_axis",
            axis: 1
        })
    );
    assert_eq!(
        dynamic::max_axis(&dyn_empty, 1, true),
        Err(Error::EmptyMaxAxis {
            op: "max_axis",
            axis: 1
        })
    );

    // f32 follows the same rule.
    let empty32 = Tensor::<3, f32>::from_vec([2, 0, 3], vec![])?;
    let sums32 = sum_axis(&empty32.view(), 1, RemoveDim)?;
    assert!(sums32.as_slice().iter().all(|v| v.to_bits() == 0));
    assert_eq!(
        max_axis(&empty32.view(), 1, RemoveDim),
        Err(Error::EmptyMaxAxis {
            op: "max_axis",
            axis: 1
        })
    );
    Ok(())
}

#[test]
fn an_empty_other_axis_gives_an_empty_output() -> TestResult {
    let empty = Tensor::from_vec([2, 0, 3], Vec::<f64>::new())?;
    let view = empty.view();
    assert_eq!(sum_axis(&view, 0, RemoveDim)?.shape(), &[0, 3]);
    assert_eq!(mean_axis(&view, 0, RemoveDim)?.shape(), &[0, 3]);
    assert_eq!(max_axis(&view, 0, KeepDim)?.shape(), &[1, 0, 3]);
    assert_eq!(sum_axis(&view, 2, KeepDim)?.shape(), &[2, 0, 1]);
    assert_eq!(mean_axis(&view, 2, RemoveDim)?.shape(), &[2, 0]);
    assert_eq!(max_axis(&view, 2, RemoveDim)?.shape(), &[2, 0]);
    assert!(max_axis(&view, 2, RemoveDim)?.is_empty());
    assert_eq!(
        dynamic::max_axis(&view.into_dyn(), 0, false)?.shape(),
        &[0, 3]
    );
    Ok(())
}

#[test]
fn the_mean_follows_the_fixed_tree_not_the_ascending_fold() -> TestResult {
    // Three values sit in lanes 0, 1 and 2 of one leaf, and the lanes fold
    // by halving, so the sum is (x0 + x2) + x1. Near 1e16 the spacing of
    // f64 is 2, so the order shows: an ascending fold loses the 1.0 in
    // 1e16 + 1.0, the tree cancels the large values first and keeps it.
    let values = vec![1e16, 1.0, -1e16];
    let three: Tensor<1> = Tensor::from_vec([3], values.clone())?;
    let mean = mean_axis(&three.view(), 0, RemoveDim)?;
    let _: &[usize; 0] = mean.shape();
    assert_eq!(mean.as_slice(), &[1.0 / 3.0]);
    assert_eq!(
        mean.as_slice()[0].to_bits(),
        (tree_sum(&values) / 3.0).to_bits()
    );
    let ascending = values.iter().fold(0.0, |acc, x| acc + x);
    assert_eq!(ascending, 0.0);
    // The tenths: 0.1 and 0.3 first, then 0.2, within an ulp of 0.2.
    let tenths = [0.1_f64, 0.2, 0.3];
    let mean = mean_axis(&Tensor::from_vec([3], tenths.to_vec())?, 0, RemoveDim)?;
    assert_eq!(
        mean.as_slice()[0].to_bits(),
        (((0.1 + 0.3) + 0.2) / 3.0_f64).to_bits()
    );
    assert!((mean.as_slice()[0] - 0.2).abs() <= f64::EPSILON * 0.2);
    Ok(())
}

#[test]
fn error_order_axis_then_empty_axis_then_allocation() -> TestResult {
    let empty = Tensor::from_vec([2, 0, 3], Vec::<f64>::new())?;
    let out_of_bounds = |op| Error::AxisOutOfBounds {
        op,
        axis: 3,
        rank: 3,
    };
    assert_eq!(
        mean_axis(&empty.view(), 3, RemoveDim).unwrap_err(),
        out_of_bounds("mean_axis")
    );
    assert_eq!(
        max_axis(&empty.view(), 3, KeepDim).unwrap_err(),
        out_of_bounds("max_axis")
    );
    assert_eq!(
        sum_axis(&empty.view(), 3, RemoveDim).unwrap_err(),
        out_of_bounds("sum_axis")
    );

    // `[usize::MAX, 0]` is a valid empty layout; reducing its empty axis asks
    // for an output of usize::MAX values.
    let nothing: [f64; 0] = [];
    let huge = View::from_parts(&nothing, [usize::MAX, 0], [0, 1], 0)?;
    let too_big = Error::AllocationFailed {
        op: "sum_axis",
        elements: usize::MAX,
    };
    assert_eq!(sum_axis(&huge, 1, RemoveDim).unwrap_err(), too_big);
    assert_eq!(sum_axis(&huge, 1, KeepDim).unwrap_err(), too_big);
    assert_eq!(
        mean_axis(&huge, 1, RemoveDim),
        Err(Error::EmptyMeanAxis {
            op: "mean_axis",
            axis: 1
        })
    );
    assert_eq!(
        max_axis(&huge, 1, KeepDim),
        Err(Error::EmptyMaxAxis {
            op: "max_axis",
            axis: 1
        })
    );
    assert_eq!(
        sum_axis(&huge, 2, RemoveDim),
        Err(Error::AxisOutOfBounds {
            op: "sum_axis",
            axis: 2,
            rank: 2
        })
    );
    // Over axis 0 the output `[0]` is empty: no allocation problem.
    assert_eq!(sum_axis(&huge, 0, RemoveDim)?.shape(), &[0]);
    assert_eq!(mean_axis(&huge, 0, RemoveDim)?.shape(), &[0]);

    let dyn_huge = huge.into_dyn();
    assert_eq!(dynamic::sum_axis(&dyn_huge, 1, false).unwrap_err(), too_big);
    assert_eq!(
        dynamic::mean_axis(&dyn_huge, 1, true),
        Err(Error::EmptyMeanAxis {
            op: "mean_axis",
            axis: 1
        })
    );
    assert_eq!(
        dynamic::max_axis(&dyn_huge, 5, false),
        Err(Error::AxisOutOfBounds {
            op: "max_axis",
            axis: 5,
            rank: 2
        })
    );
    Ok(())
}

#[test]
fn a_scalar_has_no_axis_to_reduce() -> TestResult {
    let scalar = Tensor::from_vec([], vec![0.5])?;
    let expected = |op| Error::AxisOutOfBounds {
        op,
        axis: 0,
        rank: 0,
    };
    assert_eq!(
        sum_axis(&scalar.view(), 0, KeepDim).unwrap_err(),
        expected("sum_axis")
    );
    assert_eq!(
        mean_axis(&scalar.view(), 0, KeepDim).unwrap_err(),
        expected("mean_axis")
    );
    assert_eq!(
        max_axis(&scalar.view(), 0, KeepDim).unwrap_err(),
        expected("max_axis")
    );
    let dyn_scalar = scalar.view().into_dyn();
    for keep_dim in [false, true] {
        assert_eq!(
            dynamic::sum_axis(&dyn_scalar, 0, keep_dim).unwrap_err(),
            expected("sum_axis")
        );
        assert_eq!(
            dynamic::mean_axis(&dyn_scalar, 0, keep_dim).unwrap_err(),
            expected("mean_axis")
        );
        assert_eq!(
            dynamic::max_axis(&dyn_scalar, 0, keep_dim).unwrap_err(),
            expected("max_axis")
        );
    }
    Ok(())
}

/// Deterministic values whose sums depend on the order of addition:
/// magnitudes from 1e-3 to 1e16, both signs, and one signed zero.
fn awkward(n: usize) -> f64 {
    let scale = [1e16, 1.0, 1e-3, 3.0e8, 0.1][n % 5];
    let sign = if (n * 7).is_multiple_of(3) { -1.0 } else { 1.0 };
    if n == 17 {
        -0.0
    } else {
        sign * scale * (1.0 + (n % 11) as f64 / 7.0)
    }
}

/// The naive reference: coordinates of the logical `[4, 5, 6]` tensor
/// folded in ascending order along `axis`.
fn reference(axis: usize, fold: &dyn Fn(&mut dyn Iterator<Item = f64>) -> f64) -> Vec<f64> {
    let shape = [4, 5, 6];
    let logical = |c: [usize; 3]| awkward(c[0] * 30 + c[1] * 6 + c[2]);
    let mut out = Vec::new();
    let mut others = (0..3).filter(|&a| a != axis);
    let (first, second) = (others.next().unwrap(), others.next().unwrap());
    for p in 0..shape[first] {
        for q in 0..shape[second] {
            let mut values = (0..shape[axis]).map(|r| {
                let mut c = [0; 3];
                (c[first], c[second], c[axis]) = (p, q, r);
                logical(c)
            });
            out.push(fold(&mut values));
        }
    }
    out
}

#[test]
fn results_are_bit_identical_in_every_layout() -> TestResult {
    let logical = |[i, j, k]: [usize; 3]| awkward(i * 30 + j * 6 + k);
    let contiguous = Tensor::from_fn([4, 5, 6], logical)?;
    // Stored as [6, 4, 5] and permuted back.
    let permuted_owner = Tensor::from_fn([6, 4, 5], |[k, i, j]| logical([i, j, k]))?;
    // Stored as [6, 5, 4] and transposed back.
    let transposed_owner = Tensor::from_fn([6, 5, 4], |[k, j, i]| logical([i, j, k]))?;
    // Embedded in a larger owner full of NaN, and sliced out.
    let padded_owner = Tensor::from_fn([6, 7, 9], |[i, j, k]| {
        if (1..5).contains(&i) && (2..7).contains(&j) && (3..9).contains(&k) {
            logical([i - 1, j - 2, k - 3])
        } else {
            f64::NAN
        }
    })?;
    let layouts = [
        contiguous.view(),
        permuted_owner.view().permute([1, 2, 0])?,
        transposed_owner.view().transpose(0, 2)?,
        padded_owner
            .view()
            .slice(0, 1..5)?
            .slice(1, 2..7)?
            .slice(2, 3..9)?,
    ];
    assert!(
        !layouts[1].is_contiguous() && !layouts[2].is_contiguous() && !layouts[3].is_contiguous()
    );

    let ascending_sum =
        |values: &mut dyn Iterator<Item = f64>| tree_sum(&values.collect::<Vec<f64>>());
    for axis in 0..3 {
        let sums = reference(axis, &ascending_sum);
        // The order matters for these values: a sequential fold differs somewhere.
        let sequential = reference(axis, &|values| values.fold(0.0, |acc, v| acc + v));
        assert_ne!(
            bits64(&sums),
            bits64(&sequential),
            "axis {axis}: values do not test the order"
        );
        let means: Vec<f64> = sums.iter().map(|s| s / [4.0, 5.0, 6.0][axis]).collect();
        let maxima = reference(axis, &|values| {
            values.reduce(|m, v| if v > m { v } else { m }).unwrap()
        });
        for (index, view) in layouts.iter().enumerate() {
            let what = format!("axis {axis}, layout {index}");
            assert_eq!(
                bits64(sum_axis(view, axis, RemoveDim)?.as_slice()),
                bits64(&sums),
                "sum {what}"
            );
            assert_eq!(
                bits64(sum_axis(view, axis, KeepDim)?.as_slice()),
                bits64(&sums),
                "sum kept {what}"
            );
            assert_eq!(
                bits64(mean_axis(view, axis, RemoveDim)?.as_slice()),
                bits64(&means),
                "mean {what}"
            );
            assert_eq!(
                bits64(max_axis(view, axis, KeepDim)?.as_slice()),
                bits64(&maxima),
                "max {what}"
            );
            let dyn_view = view.into_dyn();
            assert_eq!(
                bits64(dynamic::sum_axis(&dyn_view, axis, false)?.as_slice()),
                bits64(&sums),
                "dyn {what}"
            );
        }
    }
    Ok(())
}

#[test]
fn signed_zero_sums_start_from_positive_zero() -> TestResult {
    // The accumulator starts at +0.0 and IEEE 754 gives +0.0 + -0.0 = +0.0
    // (round to nearest), so even a sum of negative zeros is +0.0. NumPy,
    // which starts from the first value, would return -0.0 here; we start from
    // the additive identity so that an empty sum and a sum of -0.0 agree.
    let negative: Tensor<1> = Tensor::from_vec([1], vec![-0.0])?;
    assert_eq!(
        sum_axis(&negative.view(), 0, RemoveDim)?.as_slice()[0].to_bits(),
        0
    );
    let negatives = Tensor::from_vec([2, 3], vec![-0.0; 6])?;
    assert_eq!(
        bits64(sum_axis(&negatives.view(), 1, RemoveDim)?.as_slice()),
        [0, 0]
    );
    assert_eq!(
        bits64(sum_axis(&negatives.view(), 0, RemoveDim)?.as_slice()),
        [0, 0, 0]
    );
    assert_eq!(
        bits64(mean_axis(&negatives.view(), 0, RemoveDim)?.as_slice()),
        [0, 0, 0]
    );
    let negatives32 = Tensor::<2, f32>::from_vec([3, 2], vec![-0.0; 6])?;
    assert!(
        sum_axis(&negatives32.view(), 1, RemoveDim)?
            .as_slice()
            .iter()
            .all(|v| v.to_bits() == 0)
    );
    // An empty axis gives the identity itself.
    let empty = Tensor::from_vec([3, 0], Vec::<f64>::new())?;
    assert_eq!(
        bits64(sum_axis(&empty.view(), 1, RemoveDim)?.as_slice()),
        [0, 0, 0]
    );
    Ok(())
}

#[test]
fn a_stride_zero_reduced_axis_counts_every_repeat() -> TestResult {
    // from_parts allows stride 0: one stored value seen `n` times along the axis.
    let stored = [2.0, 3.0];
    for groups in [1, 2] {
        let repeated = View::from_parts(&stored, [groups, 3], [1, 0], 0)?;
        let sums = sum_axis(&repeated, 1, RemoveDim)?;
        assert_eq!(sums.as_slice(), &[6.0, 9.0][..groups], "{groups} group(s)");
        let means = mean_axis(&repeated, 1, RemoveDim)?;
        assert_eq!(means.as_slice(), &[2.0, 3.0][..groups]);
        let dyn_sums = dynamic::sum_axis(&repeated.into_dyn(), 1, false)?;
        assert_eq!(dyn_sums.as_slice(), &[6.0, 9.0][..groups]);
    }
    // Nine groups (one full kernel chunk of eight plus one).
    let nine: Vec<f64> = (1..=9).map(f64::from).collect();
    let repeated = View::from_parts(&nine, [9, 4], [1, 0], 0)?;
    let expected: Vec<f64> = nine.iter().map(|v| 4.0 * v).collect();
    assert_eq!(sum_axis(&repeated, 1, RemoveDim)?.as_slice(), &expected[..]);
    Ok(())
}

fn sum_last<const R: usize, const S: usize, F: Float>(
    view: &View<'_, R, F>,
) -> Result<Tensor<S, F>, Error>
where
    Rank<R>: RemoveAxis<Smaller = Rank<S>>,
{
    sum_axis(view, R - 1, RemoveDim)
}

/// Softmax over the last axis, generic over the rank and the float type.
fn softmax_last<const R: usize>(view: &View<'_, R>) -> Result<Tensor<R>, Error>
where
    Rank<R>: llm_from_scratch::tensor::BroadcastRank<Rank<R>, Output = Rank<R>>,
    KeepDim: ReduceDim<Rank<R>, Output = Rank<R>>,
{
    let max = max_axis(view, R - 1, KeepDim)?;
    let exp = map_binary(view, &max.view(), |x, m| (x - m).exp())?;
    let total = sum_axis(&exp.view(), R - 1, KeepDim)?;
    map_binary(&exp.view(), &total.view(), |e, z| e / z)
}

#[test]
fn generic_user_code_names_the_remove_axis_bound() -> TestResult {
    let biased = biased()?;
    let rows = sum_last(&biased.view())?;
    let _: &[usize; 1] = rows.shape();
    assert_eq!(rows.as_slice(), &[66.0, 75.0]);
    let cube = Tensor::<3, f32>::from_fn([2, 2, 2], |[i, j, k]| (4 * i + 2 * j + k) as f32)?;
    let planes = sum_last(&cube.view())?;
    let _: &[usize; 2] = planes.shape();
    assert_eq!(planes.as_slice(), &[1.0_f32, 5.0, 9.0, 13.0]);

    let uniform = Tensor::from_vec([2, 4], vec![3.0; 8])?;
    let p = softmax_last(&uniform.view())?;
    assert_eq!(p.as_slice(), &[0.25; 8]);
    Ok(())
}
