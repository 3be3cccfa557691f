//! Every f32 bit pattern through every function: the max ulp error
//! against the f64 reference rounded to f32, and the same bits from the
//! one-lane scalar code (`pulp::Scalar`, the scalar model) and AVX2 as on
//! the dispatched level (AVX-512 here). Run in release:
//! `cargo test --release --lib math -- --ignored` (`MATH_FUNCTIONS=Exp,Ln`
//! runs only those).

use super::apply::{Function, map_slice};
use super::testing::{Case, run_on, ulp_f32};
use rayon::prelude::*;
use std::time::Instant;

/// The worst error, its input, and the count of lanes whose bits differ
/// between the levels.
#[derive(Clone, Copy, Default)]
struct Tally {
    worst: u64,
    at: u32,
    mismatches: u64,
}

fn block(case: Case, high: u32) -> Tally {
    let input: Vec<f32> = (0..1_u32 << 16)
        .map(|low| f32::from_bits(high << 16 | low))
        .collect();
    let mut ours = vec![0.0_f32; input.len()];
    map_slice(case.kind, &input, &mut ours);
    let differ = |other: &[f32]| {
        ours.iter()
            .zip(other)
            .filter(|(a, b)| a.to_bits() != b.to_bits() && !(a.is_nan() && b.is_nan()))
            .count() as u64
    };
    let mut tally = Tally {
        mismatches: differ(&run_on(pulp::Scalar::new(), case.kind, &input)),
        ..Tally::default()
    };
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    if let Some(simd) = pulp::x86::V3::try_new() {
        tally.mismatches += differ(&run_on(simd, case.kind, &input));
    }
    for (&x, &y) in input.iter().zip(&ours) {
        let err = ulp_f32(y, (case.reference)(f64::from(x)) as f32);
        if err > tally.worst {
            tally.worst = err;
            tally.at = x.to_bits();
        }
    }
    tally
}

#[test]
#[ignore = "exhaustive: about 20 minutes on 2 cores in release; run with --ignored"]
fn f32_every_input() {
    let only = std::env::var("MATH_FUNCTIONS").ok();
    let mut failures = Vec::new();
    for kind in Function::ALL {
        if let Some(only) = &only
            && !only.split(',').any(|name| name == format!("{kind:?}"))
        {
            continue;
        }
        let case = Case::of(kind);
        let start = Instant::now();
        let tally = (0..1_u32 << 16)
            .into_par_iter()
            .map(|high| block(case, high))
            .reduce(Tally::default, |a, b| Tally {
                worst: a.worst.max(b.worst),
                at: if b.worst > a.worst { b.at } else { a.at },
                mismatches: a.mismatches + b.mismatches,
            });
        eprintln!(
            "{kind:?}: max {} ulp at {:e} ({:#010x}), {} lanes differ between levels, {:.1} s",
            tally.worst,
            f32::from_bits(tally.at),
            tally.at,
            tally.mismatches,
            start.elapsed().as_secs_f64()
        );
        if tally.worst > case.f32_bound || tally.mismatches > 0 {
            failures.push(kind);
        }
    }
    assert!(
        failures.is_empty(),
        "out of bound or not bit-identical: {failures:?}"
    );
}
