//! The max policy of `max_axis`: a NaN wins, as in NumPy's `np.max` and
//! PyTorch's `torch.max`, and which one is fixed: the first NaN with its
//! exact payload; on equal values the earlier one (so -0.0 before +0.0
//! stays -0.0). Checked for every length and group count (the kernels fold
//! 8 groups side by side), in f32 and f64.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::Float;
use llm_from_scratch::tensor::dynamic;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// Bit access for both float types, so one test body covers f32 and f64.
trait Bits: Float {
    fn bits(self) -> u64;
    /// A quiet NaN carrying `payload` in its low mantissa bits.
    fn nan_with(payload: u32) -> Self;
    fn neg_zero() -> Self;
    fn small(n: usize) -> Self;
}

impl Bits for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn nan_with(payload: u32) -> Self {
        f64::from_bits(0x7ff8_0000_0000_0000 | u64::from(payload))
    }
    fn neg_zero() -> Self {
        -0.0
    }
    fn small(n: usize) -> Self {
        n as f64 - 50.0
    }
}

impl Bits for f32 {
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn nan_with(payload: u32) -> Self {
        f32::from_bits(0x7fc0_0000 | payload)
    }
    fn neg_zero() -> Self {
        -0.0
    }
    fn small(n: usize) -> Self {
        n as f32 - 50.0
    }
}

/// Group `g` of length `n`: negative finite values, with (depending on `g`)
/// two NaNs of distinct payloads or a run of signed zeros whose first sign
/// alternates. Returns the values and the bits `max` must return.
fn max_group<F: Bits>(g: usize, n: usize) -> (Vec<F>, u64) {
    let mut values: Vec<F> = (0..n).map(|i| F::small((i * 13 + g * 7) % 40)).collect();
    let at = (g * 5 + 3) % n;
    match g % 3 {
        0 => {
            let first = F::nan_with(1000 + g as u32);
            values[at] = first;
            if at + 1 < n {
                values[at + 1] = F::nan_with(2000 + g as u32);
            }
            if at > 0 {
                values[0] = F::small(99); // a large finite value before the NaN
            }
            (values, first.bits())
        }
        1 => {
            // The maximum is zero; its first occurrence decides the sign.
            let zeros = [<F as Bits>::neg_zero(), F::ZERO];
            for (i, value) in values.iter_mut().enumerate().skip(at) {
                *value = zeros[(i + g / 3) % 2];
            }
            let first = zeros[(at + g / 3) % 2];
            (values, first.bits())
        }
        _ => {
            let expected = values
                .iter()
                .copied()
                .fold(F::small(0), |m, v| if v > m { v } else { m });
            (values, expected.bits())
        }
    }
}

fn check_max_policy<F: Bits>() -> TestResult {
    for n in 1..=40 {
        for groups in [1, 3, 7, 8, 9, 15, 16, 17, 23] {
            let cases: Vec<(Vec<F>, u64)> = (0..groups).map(|g| max_group::<F>(g, n)).collect();
            let expected: Vec<u64> = cases.iter().map(|(_, bits)| *bits).collect();
            let row_major: Vec<F> = cases
                .iter()
                .flat_map(|(values, _)| values.iter().copied())
                .collect();
            let what = format!("n = {n}, groups = {groups}");

            // Reduced axis innermost and dense.
            let rows = Tensor::from_vec([groups, n], row_major.clone())?;
            let got = max_axis(&rows.view(), 1, RemoveDim)?;
            assert_eq!(
                got.as_slice().iter().map(|v| v.bits()).collect::<Vec<_>>(),
                expected,
                "rows {what}"
            );

            // Reduced axis outermost in memory: a transposed owner.
            let columns = Tensor::from_fn([n, groups], |[i, g]| row_major[g * n + i])?;
            let got = max_axis(&columns.view(), 0, KeepDim)?;
            assert_eq!(
                got.as_slice().iter().map(|v| v.bits()).collect::<Vec<_>>(),
                expected,
                "columns {what}"
            );
            let got = max_axis(&columns.view().transpose(0, 1)?, 1, RemoveDim)?;
            assert_eq!(
                got.as_slice().iter().map(|v| v.bits()).collect::<Vec<_>>(),
                expected,
                "transposed {what}"
            );

            // Reduced axis innermost with stride 2: every other element of a wider owner.
            let mut spread = vec![F::small(0); groups * 2 * n];
            for (slot, &value) in spread.iter_mut().step_by(2).zip(&row_major) {
                *slot = value;
            }
            let strided = View::from_parts(&spread, [groups, n], [2 * n, 2], 0)?;
            let got = max_axis(&strided, 1, RemoveDim)?;
            assert_eq!(
                got.as_slice().iter().map(|v| v.bits()).collect::<Vec<_>>(),
                expected,
                "strided {what}"
            );
            let got = dynamic::max_axis(&strided.into_dyn(), 1, false)?;
            assert_eq!(
                got.as_slice().iter().map(|v| v.bits()).collect::<Vec<_>>(),
                expected,
                "dyn {what}"
            );
        }
    }
    Ok(())
}

#[test]
fn max_keeps_the_first_nan_and_the_earlier_tie_for_every_length_f64() -> TestResult {
    check_max_policy::<f64>()
}

#[test]
fn max_keeps_the_first_nan_and_the_earlier_tie_for_every_length_f32() -> TestResult {
    check_max_policy::<f32>()
}

#[test]
fn max_policy_on_small_cases() -> TestResult {
    let nan_a = f64::from_bits(0x7ff8_0000_0000_00aa);
    let nan_b = f64::from_bits(0xfff8_0000_0000_00bb);
    let values = Tensor::from_vec([3], vec![1.0, nan_a, nan_b])?;
    let max = max_axis(&values.view(), 0, RemoveDim)?;
    assert_eq!(max.as_slice()[0].to_bits(), nan_a.to_bits());

    let zeros: Tensor<1> = Tensor::from_vec([3], vec![-0.0, 0.0, -1.0])?;
    assert_eq!(
        max_axis(&zeros.view(), 0, RemoveDim)?.as_slice()[0].to_bits(),
        (-0.0_f64).to_bits()
    );
    let zeros: Tensor<1> = Tensor::from_vec([3], vec![0.0, -0.0, -1.0])?;
    assert_eq!(
        max_axis(&zeros.view(), 0, RemoveDim)?.as_slice()[0].to_bits(),
        0.0_f64.to_bits()
    );
    // Not f64::max, which may return either zero and ignores NaN.
    assert_eq!(f64::max(1.0, nan_a), 1.0);
    Ok(())
}
