//! Batched matrix products: hand-checked values, batch broadcasting (NumPy's
//! rule), the error order (inner extents, batch axes, overflow, allocation),
//! empty and `k = 0` shapes, strided operands read as they are, and a
//! property test against the naive triple loop (an ascending chain of
//! fused multiply-adds from +0.0), bit for bit.

mod common;
#[path = "common/matmul_reference.rs"]
mod reference;

use common::with_rank;
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::{Float, dynamic};
use proptest::prelude::*;
use reference::{Bits, Layout, bits, naive, operands, wiggle};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// `[[1, 2, 3], [4, 5, 6]] x [[7, 8], [9, 10], [11, 12]]`:
/// `1·7 + 2·9 + 3·11 = 58`, `1·8 + 2·10 + 3·12 = 64`,
/// `4·7 + 5·9 + 6·11 = 139`, `4·8 + 5·10 + 6·12 = 154`.
const PRODUCT: [f64; 4] = [58.0, 64.0, 139.0, 154.0];

#[test]
fn two_by_three_times_three_by_two() -> TestResult {
    let a = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let b = Tensor::from_vec([3, 2], vec![7.0, 8.0, 9.0, 10.0, 11.0, 12.0])?;
    let c = matmul(&a.view(), &b.view())?;
    let _: &[usize; 2] = c.shape();
    assert_eq!((c.shape(), c.as_slice()), (&[2, 2], &PRODUCT[..]));

    let a32 = Tensor::from_vec([2, 3], vec![1.0_f32, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let b32 = Tensor::from_vec([3, 2], vec![7.0_f32, 8.0, 9.0, 10.0, 11.0, 12.0])?;
    assert_eq!(
        matmul(&a32.view(), &b32.view())?.as_slice(),
        &[58.0, 64.0, 139.0, 154.0]
    );

    // The other order: [3, 2] x [2, 3] -> [3, 3]; row 0 is 7·[1, 2, 3] + 8·[4, 5, 6],
    // row 2 is 11·[1, 2, 3] + 12·[4, 5, 6].
    let d = matmul(&b.view(), &a.view())?;
    assert_eq!(d.shape(), &[3, 3]);
    assert_eq!(&d.as_slice()[..3], &[39.0, 54.0, 69.0]);
    assert_eq!(&d.as_slice()[6..], &[59.0, 82.0, 105.0]);
    Ok(())
}

/// Each step is one fused multiply-add: `[1, 1 + ε] · [-1, 1 - ε]` is
/// `fma(1 + ε, 1 - ε, -1) = -ε²` exactly, where a separate multiply and add
/// would round `(1 + ε)(1 - ε) = 1 - ε²` to 1 first and give 0. The order is
/// ascending `k`: the reversed operands give `fma(1, -1, 1) = 0` after
/// `(1 + ε)(1 - ε)` rounded to 1.
#[test]
fn every_step_is_one_fused_multiply_add_in_ascending_k() -> TestResult {
    let e32 = f32::EPSILON;
    let a = Tensor::from_vec([1, 2], vec![1.0, 1.0 + e32])?;
    let b = Tensor::from_vec([2, 1], vec![-1.0, 1.0 - e32])?;
    assert_eq!(matmul(&a, &b)?.as_slice(), &[-(e32 * e32)]);
    let a = Tensor::from_vec([1, 2], vec![1.0 + e32, 1.0])?;
    let b = Tensor::from_vec([2, 1], vec![1.0 - e32, -1.0])?;
    assert_eq!(bits(matmul(&a, &b)?.as_slice()), vec![0]);
    let e64 = f64::EPSILON;
    let a = Tensor::from_vec([1, 2], vec![1.0, 1.0 + e64])?;
    let b = Tensor::from_vec([2, 1], vec![-1.0, 1.0 - e64])?;
    assert_eq!(matmul(&a, &b)?.as_slice(), &[-(e64 * e64)]);
    // The same in every lane of a wide product (the vector kernels): 70
    // columns of 300 rows, each column's steps 0 and 1 as above and zeros
    // after (fma(0, x, c) = c).
    for m in [1, 9] {
        let a = Tensor::from_fn([m, 300], |[_, p]| match p {
            0 => 1.0_f32,
            1 => 1.0 + e32,
            _ => 0.0,
        })?;
        let b = Tensor::from_fn([300, 70], |[p, _]| match p {
            0 => -1.0_f32,
            1 => 1.0 - e32,
            _ => 3.0,
        })?;
        let out = matmul(&a, &b)?;
        assert!(out.as_slice().iter().all(|&v| v == -(e32 * e32)));
    }
    Ok(())
}

#[test]
fn transposed_and_sliced_operands_are_read_as_they_are() -> TestResult {
    // `a` stored column by column, read through the transposed view.
    let a_t = Tensor::from_vec([3, 2], vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0])?;
    let a = a_t.view().transpose(0, 1)?;
    assert!(!a.is_contiguous());
    // `b` as the transposed key: rows of `keys` are the columns of `b`.
    let keys = Tensor::from_vec([2, 3], vec![7.0, 9.0, 11.0, 8.0, 10.0, 12.0])?;
    let b = keys.view().transpose(0, 1)?;
    assert_eq!(matmul(&a, &b)?.as_slice(), &PRODUCT);

    // Both as slices of larger owners (a row and a column band cut away).
    let big_a = Tensor::from_vec(
        [3, 4],
        vec![0.0, 0.0, 0.0, 0.0, 9.0, 1.0, 2.0, 3.0, 9.0, 4.0, 5.0, 6.0],
    )?;
    let a = big_a.view().slice(0, 1..3)?.slice(1, 1..4)?;
    let big_b = Tensor::from_vec(
        [3, 3],
        vec![7.0, 8.0, -1.0, 9.0, 10.0, -1.0, 11.0, 12.0, -1.0],
    )?;
    let b = big_b.view().slice(1, 0..2)?;
    assert_eq!(matmul(&a, &b)?.as_slice(), &PRODUCT);

    // A stride-0 (repeated) operand: every row of `ones` is [1, 1, 1].
    let one = [1.0];
    let ones = View::from_parts(&one, [2, 3], [0, 0], 0)?;
    assert_eq!(matmul(&ones, &b)?.as_slice(), &[27.0, 30.0, 27.0, 30.0]);
    Ok(())
}

/// Left `[2, 1, 2, 3]`: `a[b, 0, i, j] = 6b + 3i + j + 1`; right `[4, 3, 5]`:
/// `c[h, j, n] = h - j + 2n`. Output `[2, 4, 2, 5]`.
#[test]
fn batch_axes_broadcast() -> TestResult {
    let a = Tensor::from_fn([2, 1, 2, 3], |[b, _, i, j]| (6 * b + 3 * i + j + 1) as f64)?;
    let c = Tensor::from_fn([4, 3, 5], |[h, j, n]| h as f64 - j as f64 + 2.0 * n as f64)?;
    let out = matmul(&a.view(), &c.view())?;
    let _: &[usize; 4] = out.shape();
    assert_eq!(out.shape(), &[2, 4, 2, 5]);
    // By hand: out[1, 2, 0, 3] = a[1,0,0,:]·c[2,:,3] = 7·8 + 8·7 + 9·6 = 166.
    assert_eq!(out.get([1, 2, 0, 3])?, &166.0);
    // out[0, 0, 1, 0] = [4, 5, 6]·[0, -1, -2] = -17.
    assert_eq!(out.get([0, 0, 1, 0])?, &-17.0);
    for b in 0..2 {
        for h in 0..4 {
            for i in 0..2 {
                for n in 0..5 {
                    let mut acc = 0.0;
                    for j in 0..3 {
                        acc = a.get([b, 0, i, j])?.mul_add(*c.get([h, j, n])?, acc);
                    }
                    assert_eq!(out.get([b, h, i, n])?.to_bits(), f64::to_bits(acc));
                }
            }
        }
    }
    let dyn_out = dynamic::matmul(&a.view().into_dyn(), &c.view().into_dyn())?;
    assert_eq!(
        (dyn_out.shape(), dyn_out.as_slice()),
        (&[2, 4, 2, 5][..], out.as_slice())
    );
    Ok(())
}

#[test]
fn rows_of_a_linear_layer_and_broadcast_left() -> TestResult {
    // [B, T, C] x [C, N]: the batch folds into the rows of one product.
    let x = Tensor::from_fn([3, 5, 4], |[b, t, c]| {
        (b * 20 + t * 4 + c) as f64 * 0.25 - 7.0
    })?;
    let w = Tensor::from_fn([4, 6], |[c, n]| (c * 6 + n) as f64 * 0.5 - 3.0)?;
    for x_view in [
        x.view(),
        x.view().permute([1, 0, 2])?,
        x.view().slice(1, 1..4)?,
    ] {
        let out = matmul(&x_view, &w.view())?;
        assert_eq!(
            bits(out.as_slice()),
            naive(&x_view.into_dyn(), &w.view().into_dyn()).1
        );
    }
    // A left operand repeated over the batch by stride 0, the right one batched.
    let one_row = [1.0, 2.0];
    let left = View::from_parts(&one_row, [3, 1, 2], [0, 0, 1], 0)?;
    let right = Tensor::from_fn([3, 2, 2], |[b, k, n]| (b * 4 + k * 2 + n) as f64)?;
    let out = matmul(&left, &right.view())?;
    assert_eq!(out.as_slice(), &[4.0, 7.0, 16.0, 19.0, 28.0, 31.0]);
    Ok(())
}

#[test]
fn k_zero_is_positive_zero_and_empty_shapes_are_empty() -> TestResult {
    let a = Tensor::from_vec([2, 0], Vec::<f64>::new())?;
    let b = Tensor::from_vec([0, 3], Vec::<f64>::new())?;
    let c = matmul(&a.view(), &b.view())?;
    assert_eq!((c.shape(), bits(c.as_slice())), (&[2, 3], vec![0; 6]));
    let mut out = Tensor::full([2, 3], f64::NAN)?;
    matmul_into(&a.view(), &b.view(), &mut out)?;
    assert_eq!(bits(out.as_slice()), vec![0; 6]);

    // Products that are all -0.0 still sum to +0.0: the chain starts at +0.0.
    let left = Tensor::from_vec([1, 2], vec![1.0_f32, -1.0])?;
    let right = Tensor::from_vec([2, 1], vec![-0.0_f32, 0.0])?;
    assert_eq!(
        bits(matmul(&left.view(), &right.view())?.as_slice()),
        vec![0]
    );

    let m0 = matmul(
        &Tensor::<2>::zeros([0, 3])?.view(),
        &Tensor::<2>::zeros([3, 2])?.view(),
    )?;
    assert_eq!((m0.shape(), m0.len()), (&[0, 2], 0));
    let n0 = matmul(
        &Tensor::<2>::zeros([2, 3])?.view(),
        &Tensor::<2>::zeros([3, 0])?.view(),
    )?;
    assert_eq!((n0.shape(), n0.len()), (&[2, 0], 0));
    let batch0 = matmul(
        &Tensor::<3>::zeros([0, 2, 3])?.view(),
        &Tensor::<2>::zeros([3, 4])?.view(),
    )?;
    assert_eq!((batch0.shape(), batch0.len()), (&[0, 2, 4], 0));
    // An empty batch axis of extent 0 paired with 1 broadcasts to 0.
    let b01 = matmul(
        &Tensor::<3>::zeros([1, 2, 3])?.view(),
        &Tensor::<3>::zeros([0, 3, 4])?.view(),
    )?;
    assert_eq!(b01.shape(), &[0, 2, 4]);
    Ok(())
}

#[test]
fn inner_extents_must_match_and_are_checked_first() -> TestResult {
    let a = Tensor::<2>::zeros([2, 3])?;
    let b = Tensor::<2>::zeros([2, 2])?;
    let inner = Err(Error::MatmulInnerMismatch {
        op: "matmul",
        left_k: 3,
        right_k: 2,
    });
    assert_eq!(matmul(&a.view(), &b.view()), inner);
    // No equal-or-one rule for the contracted extents.
    let one = Tensor::<2>::zeros([1, 2])?;
    assert_eq!(
        matmul(&a.view(), &one.view()),
        Err(Error::MatmulInnerMismatch {
            op: "matmul",
            left_k: 3,
            right_k: 1
        })
    );
    // Batch axes 3 and 2 are incompatible too, but the inner extents win (as in NumPy).
    let left = Tensor::<3>::zeros([3, 2, 3])?;
    let right = Tensor::<3>::zeros([2, 4, 4])?;
    let inner = Error::MatmulInnerMismatch {
        op: "matmul",
        left_k: 3,
        right_k: 4,
    };
    assert_eq!(matmul(&left.view(), &right.view()), Err(inner.clone()));
    assert_eq!(
        dynamic::matmul(&left.view().into_dyn(), &right.view().into_dyn()),
        Err(inner)
    );
    Ok(())
}

#[test]
fn batch_axes_that_do_not_broadcast_name_the_output_axis() -> TestResult {
    let left = Tensor::<3>::zeros([3, 2, 3])?;
    let right = Tensor::<3>::zeros([2, 3, 4])?;
    let error = Error::IncompatibleBroadcast {
        op: "matmul",
        axis: 0,
        left_dimension: 3,
        right_dimension: 2,
    };
    assert_eq!(matmul(&left.view(), &right.view()), Err(error.clone()));
    assert_eq!(
        dynamic::matmul(&left.view().into_dyn(), &right.view().into_dyn()),
        Err(error)
    );

    // Ranks differ: [2, 5 | 2, 3] x [4 | 3, 4] fails on output axis 1 (5 against 4).
    let left = Tensor::<4>::zeros([2, 5, 2, 3])?;
    let right = Tensor::<3>::zeros([4, 3, 4])?;
    assert_eq!(
        matmul(&left.view(), &right.view()),
        Err(Error::IncompatibleBroadcast {
            op: "matmul",
            axis: 1,
            left_dimension: 5,
            right_dimension: 4
        })
    );
    // The right operand has more batch axes; the left's missing one counts as 1.
    let left = Tensor::<3>::zeros([3, 2, 3])?;
    let right = Tensor::<4>::zeros([2, 2, 3, 4])?;
    assert_eq!(
        matmul(&left.view(), &right.view()),
        Err(Error::IncompatibleBroadcast {
            op: "matmul",
            axis: 1,
            left_dimension: 3,
            right_dimension: 2
        })
    );
    Ok(())
}

#[test]
fn overflow_then_allocation_then_output_shape() -> TestResult {
    let nothing: [f64; 0] = [];
    // [usize::MAX, 0] x [0, 2] -> [usize::MAX, 2]: the count overflows.
    let tall = View::from_parts(&nothing, [usize::MAX, 0], [0, 0], 0)?;
    let wide = View::from_parts(&nothing, [0, 2], [0, 0], 0)?;
    assert_eq!(
        matmul(&tall, &wide),
        Err(Error::ShapeOverflow { op: "matmul" })
    );
    // [2^61, 0] x [0, 1]: fits in usize, not in memory (2^64 bytes).
    let rows = 1_usize << 61;
    let tall = View::from_parts(&nothing, [rows, 0], [0, 0], 0)?;
    let column = View::from_parts(&nothing, [0, 1], [0, 0], 0)?;
    assert_eq!(
        matmul(&tall, &column),
        Err(Error::AllocationFailed {
            op: "matmul",
            elements: rows
        })
    );

    let a = Tensor::<3>::zeros([2, 2, 3])?;
    let b = Tensor::<2>::zeros([3, 4])?;
    let mut wrong = Tensor::<3>::zeros([2, 4, 2])?;
    assert_eq!(
        matmul_into(&a.view(), &b.view(), &mut wrong),
        Err(Error::OutputShapeMismatch {
            op: "matmul_into",
            expected: vec![2, 2, 4],
            actual: vec![2, 4, 2]
        })
    );
    // Shape errors come before the output check.
    let mut out = Tensor::<2>::zeros([2, 2])?;
    assert_eq!(
        matmul_into(&b.view(), &b.view(), &mut out),
        Err(Error::MatmulInnerMismatch {
            op: "matmul_into",
            left_k: 4,
            right_k: 3
        })
    );
    Ok(())
}

#[test]
fn dynamic_ranks_below_two_and_above_eight() -> TestResult {
    let v = DynTensor::from_vec(vec![3], vec![1.0, 2.0, 3.0])?;
    let s = DynTensor::from_vec(vec![], vec![2.0])?;
    let m = DynTensor::from_vec(vec![3, 3], vec![0.0; 9])?;
    let too_small = |rank| {
        Err(Error::RankTooSmall {
            op: "matmul",
            rank,
            minimum: 2,
        })
    };
    assert_eq!(dynamic::matmul(&v.view(), &m.view()), too_small(1));
    assert_eq!(dynamic::matmul(&m.view(), &s.view()), too_small(0));
    assert_eq!(dynamic::matmul(&s.view(), &v.view()), too_small(0));

    // Rank 9 (beyond the typed table): [1 x7, 2, 2] x [2, 1] -> [1 x7, 2, 1].
    let mut shape = vec![1; 7];
    shape.extend([2, 2]);
    let a = DynTensor::from_vec(shape, vec![1.0, 2.0, 3.0, 4.0])?;
    let b = DynTensor::from_vec(vec![2, 1], vec![10.0, 1.0])?;
    let c = dynamic::matmul(&a.view(), &b.view())?;
    assert_eq!(
        (&c.shape()[7..], c.as_slice()),
        (&[2, 1][..], &[12.0, 34.0][..])
    );
    assert_eq!(c.rank(), 9);
    Ok(())
}

#[test]
fn block_edges_match_the_naive_loop() -> TestResult {
    // Past the kernel's blocks: k > 256 (the chains continue across k slices),
    // m > 2·64 rows, n > 1024 columns; the right operand transposed.
    let cases = [(3, 600, 1030), (131, 300, 17), (9, 257, 5)];
    for (m, k, n) in cases {
        let a = Tensor::from_fn([m, k], |[i, j]| wiggle(i * 7919 + j * 104_729))?;
        let b_t = Tensor::from_fn([n, k], |[j, p]| wiggle(j * 31 + p * 1_000_003 + 5))?;
        let b = b_t.view().transpose(0, 1)?;
        let out = matmul(&a.view(), &b)?;
        assert_eq!(
            bits(out.as_slice()),
            naive(&a.view().into_dyn(), &b.into_dyn()).1
        );
    }
    Ok(())
}

/// The op fresh and `_into` a NaN-filled owner, for operands of either
/// dimension (the same generic functions serve both).
fn fresh_and_into<L, M, O, F: Float + Bits>(
    a: ArrayBase<&[F], L>,
    b: ArrayBase<&[F], M>,
    nan: F,
) -> Result<(Vec<usize>, Vec<u64>), Error>
where
    L: Dimension + MatrixRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    let fresh = matmul(&a, &b)?;
    let mut reused = fresh.clone();
    reused.view_mut().fill(nan);
    matmul_into(&a, &b, &mut reused)?;
    assert_eq!(bits(fresh.as_slice()), bits(reused.as_slice()));
    Ok((fresh.shape().as_ref().to_vec(), bits(fresh.as_slice())))
}

fn agree<F: Float + Bits>(
    left: &Layout,
    right: &Layout,
    convert: fn(f64) -> F,
    nan: F,
) -> TestResult {
    let (left_data, right_data) = (left.storage(convert), right.storage(convert));
    let (a, b) = (left.view(&left_data), right.view(&right_data));
    let expected = naive(&a, &b);
    // Every (L, M) in 2..=5 x 2..=5, the output rank inferred by the rank table.
    let typed = with_rank!(a.rank(), [2 3 4 5], |L| {
        with_rank!(b.rank(), [2 3 4 5], |M| {
            fresh_and_into(a.into_ranked::<L>()?, b.into_ranked::<M>()?, nan)
        })
    })?;
    assert_eq!(typed, expected);
    assert_eq!(fresh_and_into(a, b, nan)?, expected);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn bit_identical_to_the_naive_loop_f64((left, right) in operands()) {
        agree::<f64>(&left, &right, |x| x, f64::NAN).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }

    #[test]
    fn bit_identical_to_the_naive_loop_f32((left, right) in operands()) {
        agree::<f32>(&left, &right, |x| x as f32, f32::NAN).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
}
