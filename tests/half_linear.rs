//! `half_linear` (`x · Wᵀ` from `bf16` / `f16` weights) against a scalar
//! model of its documented order bit for bit, on every SIMD level and
//! thread count and for strided operands; against `matmul` of the widened
//! weights within a bound; and its typed errors.

#[path = "common/tuning.rs"]
mod tuning;

#[path = "common/lane_model.rs"]
mod lane_model;

use lane_model::{Rng, tree};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::quant::{HalfFloat, half_linear};
use llm_from_scratch::tensor::{bf16, f16};
use tuning::{LEVELS, under};

/// The scalar model: each output in the documented order, the weights
/// widened by `widen`, rows padded with `+0.0` to a multiple of 16.
fn model(x: &[f32], w: &[f32], m: usize, n: usize, k: usize) -> Vec<f32> {
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = [0.0f32; 16];
            for at in 0..k.div_ceil(16) * 16 {
                let (wv, xv) = if at < k {
                    (w[j * k + at], x[i * k + at])
                } else {
                    (0.0, 0.0)
                };
                acc[at % 16] = wv.mul_add(xv, acc[at % 16]);
            }
            out[i * n + j] = tree(acc);
        }
    }
    out
}

fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// Random finite weights of type `H`: `f32` values spread over many
/// binades (subnormals of `H` included), rounded to `H`.
fn weights<H: HalfFloat>(rng: &mut Rng, len: usize, from: fn(f32) -> H) -> Vec<H> {
    (0..len)
        .map(|_| {
            let scale = 2f32.powi((rng.next() % 40) as i32 - 30);
            from(rng.unit() * scale)
        })
        .collect()
}

fn check<H: HalfFloat + llm_from_scratch::tensor::Element>(
    seed: u64,
    from: fn(f32) -> H,
    to: fn(H) -> f32,
) {
    let mut rng = Rng(seed);
    for &(m, n, k) in &[
        (1, 1, 16),
        (1, 40, 64),
        (1, 19, 7),
        (2, 33, 45),
        (3, 17, 96),
        (5, 33, 100),
        (9, 20, 128),
        (4, 9, 768),
        (0, 3, 32),
        (2, 0, 64),
        (3, 5, 0),
    ] {
        let w_values = weights(&mut rng, n * k, from);
        let w = Tensor::<2, H>::from_vec([n, k], w_values.clone()).unwrap();
        let x = Tensor::<2, f32>::from_fn([m, k], |_| rng.unit()).unwrap();
        let widened: Vec<f32> = w_values.iter().map(|&v| to(v)).collect();
        let want = bits(&model(x.as_slice(), &widened, m, n, k));
        // The same values stored transposed: strided operands.
        let xt = Tensor::<2, f32>::from_fn([k, m], |[c, r]| *x.get([r, c]).unwrap()).unwrap();
        let wt = Tensor::<2, H>::from_fn([k, n], |[c, r]| *w.get([r, c]).unwrap()).unwrap();
        for simd in LEVELS {
            for threads in [1, 2, 3] {
                let (y, yt) = under(simd, threads, || {
                    let xs = xt.view().transpose(0, 1).unwrap();
                    let ws = wt.view().transpose(0, 1).unwrap();
                    (half_linear(&x, &w).unwrap(), half_linear(&xs, &ws).unwrap())
                });
                let what = format!("{} m={m} n={n} k={k} {simd:?} {threads} threads", H::NAME);
                assert_eq!(y.shape(), &[m, n], "{what}");
                assert_eq!(bits(y.as_slice()), want, "{what}");
                assert_eq!(bits(yt.as_slice()), want, "{what}, strided");
            }
        }
    }
}

#[test]
fn bf16_equals_its_scalar_model_everywhere() {
    check::<bf16>(7, bf16::from_f32, bf16::to_f32);
}

#[test]
fn f16_equals_its_scalar_model_everywhere() {
    check::<f16>(11, f16::from_f32, f16::to_f32);
}

/// Special weights widen exactly: infinities and NaN give what the model
/// gives (±inf, NaN), signed zeros and subnormals their exact values.
#[test]
fn special_weights_widen_exactly() {
    let specials = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        6.0e-8,
        -1.0e-40,
        65504.0,
        3.0e38,
    ];
    for simd in LEVELS {
        for &value in &specials {
            let (b, h) = (bf16::from_f32(value), f16::from_f32(value));
            let wb = Tensor::<2, bf16>::full([3, 20], b).unwrap();
            let wh = Tensor::<2, f16>::full([3, 20], h).unwrap();
            let x = Tensor::<2, f32>::full([1, 20], 0.5).unwrap();
            let (yb, yh) = under(simd, 1, || {
                (half_linear(&x, &wb).unwrap(), half_linear(&x, &wh).unwrap())
            });
            let want = |w: f32| bits(&model(x.as_slice(), &[w; 60], 1, 3, 20));
            assert_eq!(
                bits(yb.as_slice()),
                want(b.to_f32()),
                "bf16 {value} {simd:?}"
            );
            assert_eq!(
                bits(yh.as_slice()),
                want(h.to_f32()),
                "f16 {value} {simd:?}"
            );
        }
    }
}

/// Against `matmul` of the widened weights (another summation order):
/// within a few units of rounding of the sum of magnitudes.
#[test]
fn half_linear_is_close_to_matmul_of_the_widened_weights() {
    let mut rng = Rng(5);
    let (m, n, k) = (3, 50, 300);
    let w = Tensor::<2, bf16>::from_fn([n, k], |_| bf16::from_f32(rng.unit())).unwrap();
    let x = Tensor::<2, f32>::from_fn([m, k], |_| rng.unit()).unwrap();
    let wide = Tensor::<2, f32>::from_fn([k, n], |[c, j]| w.get([j, c]).unwrap().to_f32()).unwrap();
    let want = matmul(&x, &wide).unwrap();
    let got = half_linear(&x, &w).unwrap();
    for i in 0..m {
        for j in 0..n {
            let magnitude: f32 = (0..k)
                .map(|c| (x.get([i, c]).unwrap() * wide.get([c, j]).unwrap()).abs())
                .sum();
            let (a, b) = (*got.get([i, j]).unwrap(), *want.get([i, j]).unwrap());
            assert!(
                (a - b).abs() <= 8.0 * f32::EPSILON * magnitude,
                "[{i}, {j}]: {a} vs {b}"
            );
        }
    }
}

#[test]
fn mismatched_inner_extents_are_typed_errors() {
    let w = Tensor::<2, f16>::zeros([4, 32]).unwrap();
    let x = Tensor::<2, f32>::zeros([2, 31]).unwrap();
    assert_eq!(
        half_linear(&x, &w).unwrap_err(),
        Error::LinearInnerMismatch {
            op: "half_linear",
            x_k: 31,
            w_k: 32
        }
    );
    let w = Tensor::<2, bf16>::zeros([4, 0]).unwrap();
    let x = Tensor::<2, f32>::zeros([2, 1]).unwrap();
    assert_eq!(
        half_linear(&x, &w).unwrap_err(),
        Error::LinearInnerMismatch {
            op: "half_linear",
            x_k: 1,
            w_k: 0
        }
    );
    // k = 0: every output is the empty sum, +0.0.
    let y = half_linear(&Tensor::<2, f32>::zeros([2, 0]).unwrap(), &w).unwrap();
    assert_eq!(bits(y.as_slice()), vec![0; 8]);
}
