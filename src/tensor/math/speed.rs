//! A speed sanity check, not a timed test: prints `map_slice` against a
//! plain loop of the std functions over 2^22 f32 (run in release:
//! `cargo test --release --lib math::speed -- --ignored --nocapture`).

use super::apply::{Function, map_slice};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// The best of a few runs of `f`.
fn best(mut f: impl FnMut()) -> Duration {
    (0..7)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap()
}

fn std_loop(kind: Function, input: &[f32], output: &mut [f32]) {
    let f: fn(f32) -> f32 = match kind {
        Function::Exp => f32::exp,
        Function::Ln => f32::ln,
        Function::Tanh => f32::tanh,
        Function::Silu => |x| x / (1.0 + (-x).exp()),
        Function::Sigmoid => |x| 1.0 / (1.0 + (-x).exp()),
        Function::GeluTanh => {
            |x| 0.5 * x * (1.0 + (0.797_884_6 * (x + 0.044_715 * x * x * x)).tanh())
        }
        Function::GeluErf => |x| 0.5 * x * (1.0 + libm::erff(x * std::f32::consts::FRAC_1_SQRT_2)),
        _ => unreachable!(),
    };
    for (y, &x) in output.iter_mut().zip(input) {
        *y = f(x);
    }
}

#[test]
#[ignore = "speed sanity: prints timings; run in release with --ignored --nocapture"]
fn map_slice_against_std_loops() {
    let n = 1 << 22;
    let input: Vec<f32> = (0..n)
        .map(|i| (i as f32 / n as f32) * 20.0 - 10.0)
        .collect();
    let positive: Vec<f32> = input.iter().map(|x| x.abs() + 1e-3).collect();
    let mut output = vec![0.0_f32; n];
    for kind in [
        Function::Exp,
        Function::Tanh,
        Function::GeluTanh,
        Function::Silu,
        Function::Ln,
        Function::Sigmoid,
        Function::GeluErf,
    ] {
        let x = if kind == Function::Ln {
            &positive
        } else {
            &input
        };
        let ours = best(|| map_slice(kind, black_box(x), black_box(&mut output)));
        let plain = best(|| std_loop(kind, black_box(x), black_box(&mut output)));
        eprintln!(
            "{kind:?}: map_slice {:.2} ms, std loop {:.2} ms, ratio {:.3}",
            ours.as_secs_f64() * 1e3,
            plain.as_secs_f64() * 1e3,
            ours.as_secs_f64() / plain.as_secs_f64()
        );
    }
    // in cache: 2^14 values, 256 times (compute, not memory, bound)
    let small: Vec<f32> = input.iter().step_by(256).copied().collect();
    let mut out_small = vec![0.0_f32; small.len()];
    for kind in [
        Function::Exp,
        Function::Tanh,
        Function::GeluTanh,
        Function::Silu,
    ] {
        let ours = best(|| {
            for _ in 0..256 {
                map_slice(kind, black_box(&small), black_box(&mut out_small));
            }
        });
        let plain = best(|| {
            for _ in 0..256 {
                std_loop(kind, black_box(&small), black_box(&mut out_small));
            }
        });
        eprintln!(
            "{kind:?} in cache: map_slice {:.3} ns/value, std loop {:.3} ns/value, ratio {:.3}",
            ours.as_secs_f64() * 1e9 / n as f64,
            plain.as_secs_f64() * 1e9 / n as f64,
            ours.as_secs_f64() / plain.as_secs_f64()
        );
    }
    // f64: the 64-bit shifts are a lane loop (pulp has none); it must
    // still compile to vector shifts
    let input: Vec<f64> = input.iter().map(|&x| f64::from(x)).collect();
    let positive: Vec<f64> = positive.iter().map(|&x| f64::from(x)).collect();
    let mut output = vec![0.0_f64; n];
    for (kind, x, f) in [
        (Function::Exp, &input, f64::exp as fn(f64) -> f64),
        (Function::Ln, &positive, f64::ln),
    ] {
        let ours = best(|| map_slice(kind, black_box(x), black_box(&mut output)));
        let plain = best(|| {
            for (y, &x) in black_box(&mut output).iter_mut().zip(black_box(x)) {
                *y = f(x);
            }
        });
        eprintln!(
            "{kind:?} f64: map_slice {:.2} ms, std loop {:.2} ms, ratio {:.3}",
            ours.as_secs_f64() * 1e3,
            plain.as_secs_f64() * 1e3,
            ours.as_secs_f64() / plain.as_secs_f64()
        );
    }
}
