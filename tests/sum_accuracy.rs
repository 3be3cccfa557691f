//! How accurate `sum_axis` and `mean_axis` are, against references of
//! higher precision. The sums add each group by a fixed pairwise tree
//! (leaves of 128 values, then pairs of subtrees), so every value passes
//! through at most `12 + ⌈log2(leaves)⌉` roundings, and the error is
//! bounded by `(12 + ⌈log2(leaves)⌉) · eps · Σ|x_i|` (the bound the crate's
//! tree documents, after N. J. Higham, "The accuracy of floating point
//! summation", SIAM J. Sci. Comput. 14, 1993). A sequential sum's bound
//! grows with `n` instead: it fails these tests on long all-positive axes.
//!
//! References: an `f32` group is summed in `f64` (exact for these lengths:
//! at most 51 significant bits); an `f64` group by cascaded TwoSum (Ogita,
//! Rump and Oishi's Sum2). Every result is also the scalar model
//! [`tree_sum`]'s, bit for bit, along an inner and an outer axis.
//!
//! Mixed signs keep a sequential sum within the bound too, so the tests
//! that tell the tree from a sequential order are the long all-positive
//! ones: 2^25 ones, 2^20 copies of one value (exact only when the leaves
//! combine pairwise) and 2^20 uniform values.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::Float;
use llm_from_scratch::tensor::ops::tree_sum;
use proptest::prelude::*;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The tree's error bound for `n` values whose magnitudes sum to `abs_sum`.
fn bound(n: usize, eps: f64, abs_sum: f64) -> f64 {
    let leaves = n.div_ceil(128).max(1) as f64;
    (12.0 + leaves.log2().ceil()) * eps * abs_sum
}

/// `Σ x` by cascaded TwoSum (Sum2: Knuth's TwoSum for every addition,
/// the rounding errors summed apart and added last): within about one
/// `f64` rounding of the exact sum for the lengths here.
fn compensated(values: &[f64]) -> f64 {
    let (mut sum, mut error) = (0.0_f64, 0.0_f64);
    for &x in values {
        let t = sum + x;
        let z = t - sum;
        error += (sum - (t - z)) + (x - z);
        sum = t;
    }
    sum + error
}

/// Sums `values` along an inner axis (`[1, n]`, axis 1) and an outer one
/// (`[n, 1]`, axis 0): each must be the scalar model's bits.
fn sums_both_ways<F: Float + Into<f64>>(values: &[F]) -> Result<F, Error> {
    let n = values.len();
    let row = Tensor::from_vec([1, n], values.to_vec())?;
    let column = Tensor::from_vec([n, 1], values.to_vec())?;
    let inner = row.sum_axis(1, RemoveDim)?.as_slice()[0];
    let outer = column.sum_axis(0, RemoveDim)?.as_slice()[0];
    // Widening to f64 is exact, so equal widened bits are equal bits.
    let bits = |x: F| Into::<f64>::into(x).to_bits();
    let model = tree_sum(values);
    assert_eq!(bits(inner), bits(model), "inner axis, n = {n}");
    assert_eq!(bits(outer), bits(model), "outer axis, n = {n}");
    Ok(inner)
}

/// `values`' sum through the crate (checked by [`sums_both_ways`]): its
/// distance to `exact` and the tree's bound for it (machine epsilon `eps`).
fn error_and_bound<F: Float + Into<f64>>(
    values: &[F],
    eps: f64,
    exact: f64,
) -> Result<(f64, f64), Error> {
    let sum: f64 = sums_both_ways(values)?.into();
    let abs_sum: f64 = values.iter().map(|&x| Into::<f64>::into(x).abs()).sum();
    Ok(((sum - exact).abs(), bound(values.len(), eps, abs_sum)))
}

/// A 64-bit LCG's states from a seed (Knuth's MMIX constants).
fn states(seed: u64) -> impl Iterator<Item = u64> {
    std::iter::successors(Some(seed), |state| {
        Some(
            state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407),
        )
    })
    .skip(1)
}

/// `n` values uniform in `[0, 1)`.
fn uniform(n: usize, seed: u64) -> Vec<f32> {
    states(seed)
        .take(n)
        .map(|state| (state >> 40) as f32 / (1_u64 << 24) as f32)
        .collect()
}

/// `n` values of both signs over sixteen binades.
fn spread(n: usize, seed: u64) -> Vec<f32> {
    states(seed)
        .take(n)
        .map(|state| {
            let unit = (state >> 40) as f32 / (1_u64 << 24) as f32;
            let scale = 2.0_f32.powi((state >> 20 & 0xf) as i32 - 6);
            if state >> 63 == 1 {
                -unit * scale
            } else {
                unit * scale
            }
        })
        .collect()
}

#[test]
fn the_f32_mean_of_two_to_the_25_ones_is_one() -> TestResult {
    // The sequential f32 sum stops growing at 2^24 (2^24 + 1 rounds back),
    // so its mean of 2^25 ones is 0.5.
    let ones = Tensor::<1, f32>::full([1 << 25], 1.0)?;
    assert_eq!(ones.sum_axis(0, RemoveDim)?.as_slice()[0], 33_554_432.0);
    assert_eq!(ones.mean_axis(0, RemoveDim)?.as_slice()[0], 1.0);
    Ok(())
}

#[test]
fn two_to_the_20_copies_of_a_value_sum_exactly() -> TestResult {
    // c = 1 + 3/8192. A leaf's lane adds eight copies exactly (8c needs 14
    // bits), and every pairwise level adds two equal partial sums, which is
    // exact, so the tree gives 2^20 c exactly. A running sum of copies (or
    // of 8c) in [2^15, 2^16) has spacing 2^-8 and rounds every addition the
    // same way, thousands of times over: a single f32 accumulator of 2^16
    // copies ends at 65539.75 instead of 65560, and the leaves added one
    // after another (not pairwise) give 1049055.75 instead of 1048960.
    let c = 1.0_f32 + 3.0 / 8192.0;
    let copies = Tensor::<1, f32>::full([1 << 20], c)?;
    let sum = copies.sum_axis(0, RemoveDim)?.as_slice()[0];
    assert_eq!(sum, 1_048_960.0);
    assert_eq!(copies.mean_axis(0, RemoveDim)?.as_slice()[0], c);
    let running = (0..1 << 16).fold(0.0_f32, |acc, _| acc + c);
    assert_eq!(running, 65_539.75);
    Ok(())
}

#[test]
fn two_to_the_20_uniform_f32_values_sum_within_the_tree_bound() -> TestResult {
    // All positive, so Σ|x| is the sum itself and the bound a relative one:
    // (12 + 13) eps = 3.0e-6, where a sequential f32 sum is off by 1.8e-5.
    let values = uniform(1 << 20, 7);
    let exact: f64 = values.iter().map(|&x| f64::from(x)).sum();
    let (error, allowed) = error_and_bound(&values, f64::from(f32::EPSILON), exact)?;
    assert!(error <= allowed, "error {error:e} over {allowed:e}");
    let sequential = values.iter().fold(0.0_f32, |acc, &x| acc + x);
    assert!(
        (f64::from(sequential) - exact).abs() > allowed,
        "the sequential sum should miss the bound this test holds the tree to"
    );
    let mean = Tensor::from_vec([values.len()], values.clone())?.mean_axis(0, RemoveDim)?;
    let exact_mean = exact / values.len() as f64;
    let mean_error = (f64::from(mean.as_slice()[0]) - exact_mean).abs();
    assert!(mean_error <= allowed / values.len() as f64 + exact_mean * f64::from(f32::EPSILON));
    Ok(())
}

#[test]
fn long_f64_sums_are_within_the_tree_bound_of_a_compensated_sum() -> TestResult {
    for (n, seed) in [(1 << 17, 3), (1 << 16 | 129, 5), (100_003, 9)] {
        let values: Vec<f64> = spread(n, seed)
            .iter()
            .map(|&x| f64::from(x) / 3.0)
            .collect();
        let (error, allowed) = error_and_bound(&values, f64::EPSILON, compensated(&values))?;
        assert!(
            error <= allowed,
            "n = {n}: error {error:e} over {allowed:e}"
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Any length (across the 128-value leaves and the pairing of
    /// subtrees), any signs: within the bound of the f64 sum, and the
    /// scalar model's bits along either axis.
    #[test]
    fn f32_sums_are_within_the_tree_bound(n in 1_usize..4_000, seed in any::<u64>()) {
        let values = spread(n, seed);
        let exact: f64 = values.iter().map(|&x| f64::from(x)).sum();
        let (error, allowed) = error_and_bound(&values, f64::from(f32::EPSILON), exact).unwrap();
        prop_assert!(error <= allowed);
    }

    /// The same for `f64`, against the compensated sum.
    #[test]
    fn f64_sums_are_within_the_tree_bound(n in 1_usize..4_000, seed in any::<u64>()) {
        let values: Vec<f64> = spread(n, seed).iter().map(|&x| f64::from(x) * 0.1).collect();
        let (error, allowed) = error_and_bound(&values, f64::EPSILON, compensated(&values)).unwrap();
        prop_assert!(error <= allowed);
    }
}
