//! `unary` against the scalar model of each function, bit for bit, on
//! every SIMD level and thread count (forced through the kernel tuning
//! hook) and for contiguous, strided, transposed, broadcast and dynamic
//! layouts; half types against the `f32` result rounded once.

use super::kernel::UnaryStrategy;
use super::*;
use crate::tensor::array::base::Tensor;
use crate::tensor::element::{bf16, f16};
use crate::tensor::float::Float;
use crate::tensor::math::scalar;
use crate::tensor::traverse::plan::Plan;
use crate::tensor::traverse::simd::{KernelTuning, SimdLevel, with_kernel_tuning};

/// Rows and columns of the test matrix: more than two tasks' minimum of
/// values, odd extents so runs end in partial vectors.
const ROWS: usize = 61;
const COLUMNS: usize = 157;

/// Inputs over every function's interesting ranges: specials first, then
/// values from -40 to 40 and tiny and huge magnitudes.
fn inputs(len: usize) -> Vec<f64> {
    let specials = [
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e-310,
        -1e-310,
        1e-40,
        f64::MAX,
        -f64::MAX,
        0.5,
        -0.5,
        1.0,
        -1.0,
    ];
    (0..len)
        .map(|i| match specials.get(i) {
            Some(&x) => x,
            None if i % 7 == 0 => (i as f64).exp2() * 1e-300,
            None => (i as f64 * 0.618_033_988_75).sin() * 40.0,
        })
        .collect()
}

/// `body` on `threads` threads with `simd`, splitting every output.
fn forced<R: Send>(simd: SimdLevel, threads: usize, body: impl FnOnce() -> R + Send) -> R {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    let pool = pool.expect("a thread pool");
    let tuning = KernelTuning {
        simd,
        parallel_min_flops: 0,
    };
    pool.install(|| with_kernel_tuning(tuning, body))
}

/// The bits of a result, for exact comparison (NaN included).
fn bits<F: Float + Element>(values: &[F]) -> Vec<u64> {
    values.iter().map(|&x| x.to_f64().to_bits()).collect()
}

/// Every layout of the same logical `[ROWS, COLUMNS]` values: the
/// contiguous owner, a transposed copy read back transposed, a strided
/// slice of a wider owner, a broadcast row, and the dynamic owner.
fn check_layouts<F: Float + Element<Acc = F> + crate::tensor::math::Math>(
    values: &[F],
    function: Function,
) {
    let owner = Tensor::from_vec([ROWS, COLUMNS], values.to_vec()).expect("an owner");
    let model: Vec<F> = values.iter().map(|&x| scalar::eval(function, x)).collect();
    let want = bits(&model);
    // The transpose of the transposed copy: logically the same values.
    let transposed = owner.view().transpose(0, 1).expect("a transpose");
    let copy = transposed.materialize().expect("a copy");
    let back = copy.view().transpose(0, 1).expect("a transpose");
    // Every other column of a [ROWS, 2 * COLUMNS] owner holding the values.
    let wide = Tensor::from_fn([ROWS, 2 * COLUMNS], |[i, j]| {
        if j % 2 == 0 {
            values[i * COLUMNS + j / 2]
        } else {
            F::nan()
        }
    })
    .expect("a wide owner");
    let strided = wide
        .view()
        .slice_step(1, 0..2 * COLUMNS, 2)
        .expect("a slice");
    let row = Tensor::from_vec([COLUMNS], values[..COLUMNS].to_vec()).expect("a row");
    let broadcast = row
        .view()
        .broadcast_to([ROWS, COLUMNS])
        .expect("a broadcast");
    let row_model = bits(&model[..COLUMNS].repeat(ROWS));
    let dynamic = owner.clone().into_dyn();
    for simd in [SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Best] {
        for threads in [1, 2, 3] {
            let label = format!("{function:?} {simd:?} on {threads}");
            forced(simd, threads, || {
                let got = |y: Result<Tensor<2, F>, Error>| bits(y.expect("a result").as_slice());
                assert_eq!(got(unary(&owner, function)), want, "contiguous {label}");
                assert_eq!(got(unary(&back, function)), want, "transposed {label}");
                assert_eq!(got(unary(&strided, function)), want, "strided {label}");
                assert_eq!(
                    got(unary(&broadcast, function)),
                    row_model,
                    "broadcast {label}"
                );
                let dynamic = unary(&dynamic, function).expect("a dynamic result");
                assert_eq!(dynamic.shape(), &[ROWS, COLUMNS]);
                assert_eq!(bits(dynamic.as_slice()), want, "dynamic {label}");
                let mut out = Tensor::<2, F>::zeros([ROWS, COLUMNS]).expect("an output");
                unary_into(&back, function, &mut out).expect("into");
                assert_eq!(bits(out.as_slice()), want, "into {label}");
            });
        }
    }
}

#[test]
fn every_function_level_thread_count_and_layout_gives_the_scalar_model_bits() {
    let values = inputs(ROWS * COLUMNS);
    let values32: Vec<f32> = values.iter().map(|&x| x as f32).collect();
    for function in Function::ALL {
        check_layouts(&values, function);
        check_layouts(&values32, function);
    }
}

#[test]
fn the_layouts_take_both_strategies() {
    let plan = |shape: &[usize], strides: &[usize]| Plan::new(shape, [strides], [0]);
    let dense = plan(&[ROWS, COLUMNS], &[COLUMNS, 1]);
    assert_eq!(UnaryStrategy::of::<f32>(&dense), UnaryStrategy::Slices);
    assert_eq!(UnaryStrategy::of::<bf16>(&dense), UnaryStrategy::Staged);
    let transposed = plan(&[COLUMNS, ROWS], &[1, COLUMNS]);
    assert_eq!(UnaryStrategy::of::<f64>(&transposed), UnaryStrategy::Staged);
    let short_runs = plan(&[ROWS, 3], &[COLUMNS, 1]);
    assert_eq!(UnaryStrategy::of::<f64>(&short_runs), UnaryStrategy::Staged);
}

/// Half types: the `f32` result of the widened value, rounded once.
#[test]
fn half_types_round_the_f32_result_once() {
    let values = inputs(ROWS * COLUMNS);
    let halves: Vec<f16> = values.iter().map(|&x| f16::from_f64(x)).collect();
    let brains: Vec<bf16> = values.iter().map(|&x| bf16::from_f64(x)).collect();
    let h = Tensor::from_vec([ROWS, COLUMNS], halves.clone()).expect("f16");
    let b = Tensor::from_vec([ROWS, COLUMNS], brains.clone()).expect("bf16");
    let ht = h.view().transpose(0, 1).expect("a transpose");
    for function in Function::ALL {
        for threads in [1, 2] {
            forced(SimdLevel::Best, threads, || {
                let y = unary(&h, function).expect("f16 result");
                for (&x, &y) in halves.iter().zip(y.as_slice()) {
                    let want = f16::from_f32(scalar::eval(function, x.to_f32()));
                    assert_eq!(y.to_bits(), want.to_bits(), "{function:?} f16 {x}");
                }
                let y = unary(&b, function).expect("bf16 result");
                for (&x, &y) in brains.iter().zip(y.as_slice()) {
                    let want = bf16::from_f32(scalar::eval(function, x.to_f32()));
                    assert_eq!(y.to_bits(), want.to_bits(), "{function:?} bf16 {x}");
                }
                let yt = unary(&ht, function).expect("transposed f16");
                let direct = unary(&h, function).expect("f16 result");
                let direct_t = direct.view().transpose(0, 1).expect("a transpose");
                let direct_t = direct_t.materialize().expect("a copy");
                assert_eq!(bits16(yt.as_slice()), bits16(direct_t.as_slice()));
            });
        }
    }
}

fn bits16(values: &[f16]) -> Vec<u16> {
    values.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn errors_name_the_function_called() {
    let x = Tensor::from_vec([2, 3], vec![1.0_f32; 6]).expect("x");
    let mut wrong = Tensor::<2, f32>::zeros([3, 2]).expect("out");
    assert_eq!(
        unary_into(&x, Function::Exp, &mut wrong),
        Err(Error::OutputShapeMismatch {
            op: "unary_into",
            expected: vec![2, 3],
            actual: vec![3, 2],
        })
    );
    assert_eq!(wrong.as_slice(), &[0.0; 6], "nothing is written");
    let empty = Tensor::<3, f32>::zeros([2, 0, 4]).expect("empty");
    assert_eq!(empty.silu().expect("empty").shape(), &[2, 0, 4]);
    let dynamic = x.clone().into_dyn();
    let mut wrong = Tensor::<1, f32>::zeros([6]).expect("out").into_dyn();
    assert!(matches!(
        unary_into(&dynamic, Function::Ln, &mut wrong),
        Err(Error::OutputShapeMismatch {
            op: "unary_into",
            ..
        })
    ));
}
