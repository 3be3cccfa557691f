//! The named arithmetic `add`, `sub`, `mul`, `div` (fresh, `_into`,
//! methods, in place) against their scalar model, the closure `a + b` run
//! by `map_binary`, bit for bit: on 1, 2 and 3 threads with the work
//! threshold lowered to 0 (every output split into blocks), under every
//! instruction set, for contiguous, broadcast, transposed and dynamic
//! operands; half types against the `f32` operation rounded once; and the
//! exact error of each misuse. (The unary functions are checked against
//! the scalar model of `math` inside the crate: `ops/unary/tests.rs`.)

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::{KernelTuning, SimdLevel, bf16, f16, with_kernel_tuning};

const ROWS: usize = 67;
const COLUMNS: usize = 131;

/// `name(left, right)` through the free function.
fn apply<L, M, O, T: Element>(
    name: &str,
    left: &impl AsArray<L, T>,
    right: &impl AsArray<M, T>,
) -> Result<ArrayBase<Vec<T>, O>, Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    match name {
        "add" => add(left, right),
        "sub" => sub(left, right),
        "mul" => mul(left, right),
        _ => div(left, right),
    }
}

fn model(name: &str) -> fn(f64, f64) -> f64 {
    match name {
        "add" => |a, b| a + b,
        "sub" => |a, b| a - b,
        "mul" => |a, b| a * b,
        _ => |a, b| a / b,
    }
}

fn model32(name: &str) -> fn(f32, f32) -> f32 {
    match name {
        "add" => |a, b| a + b,
        "sub" => |a, b| a - b,
        "mul" => |a, b| a * b,
        _ => |a, b| a / b,
    }
}

fn forced<R: Send>(simd: SimdLevel, threads: usize, body: impl FnOnce() -> R + Send) -> R {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build();
    let pool = pool.expect("a thread pool");
    let tuning = KernelTuning {
        simd,
        parallel_min_flops: 0,
    };
    pool.install(|| with_kernel_tuning(tuning, body))
}

fn values(len: usize, seed: f64) -> Vec<f64> {
    let specials = [
        0.0,
        -0.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e-310,
    ];
    (0..len)
        .map(|i| match specials.get(i) {
            Some(&x) => x,
            None => ((i as f64 + seed) * 0.754_877_666).sin() * 1e3,
        })
        .collect()
}

fn bits(values: &[f64]) -> Vec<u64> {
    values.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn every_layout_thread_count_and_level_gives_the_scalar_bits() -> Result<(), Error> {
    let x = Tensor::from_vec([ROWS, COLUMNS], values(ROWS * COLUMNS, 0.0))?;
    let y = Tensor::from_vec([ROWS, COLUMNS], values(ROWS * COLUMNS, 0.5))?;
    let row = Tensor::from_vec([COLUMNS], values(COLUMNS, 0.25))?;
    let column = Tensor::from_vec([ROWS, 1], values(ROWS, 0.75))?;
    let y_t = y.view().transpose(0, 1)?.materialize()?;
    let y_back = y_t.view().transpose(0, 1)?; // y's values, transposed layout
    for name in ["add", "sub", "mul", "div"] {
        let f = model(name);
        let want = bits(map_binary(&x, &y, f)?.as_slice());
        let want_row = bits(map_binary(&x, &row, f)?.as_slice());
        let want_column = bits(map_binary(&column, &x, f)?.as_slice());
        for simd in [SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Best] {
            for threads in [1, 2, 3] {
                let label = format!("{name} {simd:?} on {threads}");
                forced(simd, threads, || -> Result<(), Error> {
                    let got: Tensor<2> = apply(name, &x, &y)?;
                    assert_eq!(bits(got.as_slice()), want, "dense {label}");
                    let got: Tensor<2> = apply(name, &x, &y_back)?;
                    assert_eq!(bits(got.as_slice()), want, "transposed {label}");
                    let got: Tensor<2> = apply(name, &x, &row)?;
                    assert_eq!(bits(got.as_slice()), want_row, "row {label}");
                    let got: Tensor<2> = apply(name, &column, &x)?;
                    assert_eq!(bits(got.as_slice()), want_column, "column {label}");
                    let dynamic: DynTensor =
                        apply(name, &x.view().into_dyn(), &row.view().into_dyn())?;
                    assert_eq!(dynamic.shape(), &[ROWS, COLUMNS]);
                    assert_eq!(bits(dynamic.as_slice()), want_row, "dynamic {label}");
                    // `_into`, the method and the in-place form agree.
                    let mut out = Tensor::zeros([ROWS, COLUMNS])?;
                    let mut inplace = x.clone();
                    match name {
                        "add" => {
                            add_into(&x, &row, &mut out)?;
                            assert_eq!(bits(x.add(&row)?.as_slice()), bits(out.as_slice()));
                            inplace.view_mut().add_assign(&row)?;
                        }
                        "sub" => {
                            sub_into(&x, &row, &mut out)?;
                            assert_eq!(bits(x.sub(&row)?.as_slice()), bits(out.as_slice()));
                            inplace.view_mut().sub_assign(&row)?;
                        }
                        "mul" => {
                            mul_into(&x, &row, &mut out)?;
                            assert_eq!(bits(x.mul(&row)?.as_slice()), bits(out.as_slice()));
                            inplace.view_mut().mul_assign(&row)?;
                        }
                        _ => {
                            div_into(&x, &row, &mut out)?;
                            assert_eq!(bits(x.div(&row)?.as_slice()), bits(out.as_slice()));
                            inplace.view_mut().div_assign(&row)?;
                        }
                    }
                    assert_eq!(bits(out.as_slice()), want_row, "into {label}");
                    assert_eq!(bits(inplace.as_slice()), want_row, "in place {label}");
                    Ok(())
                })?;
            }
        }
    }
    Ok(())
}

/// In place on a strided piece: only the viewed positions change.
#[test]
fn in_place_forms_write_only_the_view() -> Result<(), Error> {
    let mut x = Tensor::from_fn([3, 4], |[i, j]| (10 * i + j) as f32)?;
    let bias = Tensor::from_vec([2], vec![100.0_f32, 200.0])?;
    x.view_mut().slice_step(1, 0..4, 2)?.add_assign(&bias)?; // columns 0 and 2
    assert_eq!(
        x.as_slice(),
        &[
            100.0, 1.0, 202.0, 3.0, 110.0, 11.0, 212.0, 13.0, 120.0, 21.0, 222.0, 23.0
        ]
    );
    let mut d = Tensor::from_vec([2, 2], vec![1.0_f64, 2.0, 3.0, 4.0])?.into_dyn();
    let two = Tensor::from_vec([1], vec![2.0])?;
    d.view_mut().div_assign(&two.into_dyn())?;
    assert_eq!(d.as_slice(), &[0.5, 1.0, 1.5, 2.0]);
    Ok(())
}

/// f16 / bf16: the f32 operation on the widened values, rounded once.
#[test]
fn half_types_round_the_f32_operation_once() -> Result<(), Error> {
    let a = values(ROWS * COLUMNS, 0.0);
    let b = values(COLUMNS, 0.3);
    for threads in [1, 2] {
        for name in ["add", "sub", "mul", "div"] {
            let f = model32(name);
            forced(SimdLevel::Best, threads, || -> Result<(), Error> {
                let x: Vec<f16> = a.iter().map(|&v| f16::from_f64(v)).collect();
                let r: Vec<f16> = b.iter().map(|&v| f16::from_f64(v)).collect();
                let got: Tensor<2, f16> = apply(
                    name,
                    &Tensor::from_vec([ROWS, COLUMNS], x.clone())?,
                    &Tensor::from_vec([COLUMNS], r.clone())?,
                )?;
                for (k, &g) in got.as_slice().iter().enumerate() {
                    let want = f16::from_f32(f(x[k].to_f32(), r[k % COLUMNS].to_f32()));
                    assert_eq!(g.to_bits(), want.to_bits(), "{name} f16 at {k}");
                }
                let x: Vec<bf16> = a.iter().map(|&v| bf16::from_f64(v)).collect();
                let r: Vec<bf16> = b.iter().map(|&v| bf16::from_f64(v)).collect();
                let mut t = Tensor::from_vec([ROWS, COLUMNS], x.clone())?;
                let got: Tensor<2, bf16> =
                    apply(name, &t, &Tensor::from_vec([COLUMNS], r.clone())?)?;
                for (k, &g) in got.as_slice().iter().enumerate() {
                    let want = bf16::from_f32(f(x[k].to_f32(), r[k % COLUMNS].to_f32()));
                    assert_eq!(g.to_bits(), want.to_bits(), "{name} bf16 at {k}");
                }
                if name == "add" {
                    t.view_mut().add_assign(&Tensor::from_vec([COLUMNS], r)?)?;
                    let same = t.as_slice().iter().zip(got.as_slice());
                    assert!(same.into_iter().all(|(p, q)| p.to_bits() == q.to_bits()));
                }
                Ok(())
            })?;
        }
    }
    Ok(())
}

#[test]
fn misuse_gives_the_exact_error_of_the_op_called() -> Result<(), Error> {
    let x = Tensor::<2>::zeros([2, 3])?;
    let y = Tensor::<1>::zeros([2])?;
    let broadcast = |op| Error::IncompatibleBroadcast {
        op,
        axis: 1,
        left_dimension: 3,
        right_dimension: 2,
    };
    assert_eq!(add(&x, &y), Err(broadcast("add")));
    assert_eq!(sub(&x, &y), Err(broadcast("sub")));
    assert_eq!(x.mul(&y), Err(broadcast("mul")));
    assert_eq!(div(&x.view(), &y.view()), Err(broadcast("div")));
    let mut out = Tensor::<2>::zeros([2, 3])?;
    assert_eq!(add_into(&x, &y, &mut out), Err(broadcast("add_into")));
    let mut wrong = Tensor::<2>::zeros([3, 2])?;
    let row = Tensor::<1>::zeros([3])?;
    assert_eq!(
        mul_into(&x, &row, &mut wrong),
        Err(Error::OutputShapeMismatch {
            op: "mul_into",
            expected: vec![2, 3],
            actual: vec![3, 2],
        })
    );
    let mut target = Tensor::<2>::zeros([2, 3])?;
    assert_eq!(
        target.view_mut().sub_assign(&y),
        Err(Error::IncompatibleBroadcast {
            op: "sub_assign",
            axis: 1,
            left_dimension: 2,
            right_dimension: 3,
        })
    );
    let wider = Tensor::<3>::zeros([1, 2, 3])?.into_dyn();
    let mut dynamic = Tensor::<2>::zeros([2, 3])?.into_dyn();
    assert!(matches!(
        dynamic.view_mut().add_assign(&wider),
        Err(Error::BroadcastRankTooSmall {
            op: "add_assign",
            ..
        })
    ));
    assert_eq!(target.as_slice(), &[0.0; 6], "nothing written on error");
    Ok(())
}
