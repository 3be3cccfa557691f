//! The threaded kernels give the same bits on every thread count: the
//! strided copy (`materialize`), `sum_axis`, `mean_axis`, `max_axis`,
//! `argmax_axis` and `softmax_axis`, fresh and `_into`, run on 1, 2 and 3
//! threads (local rayon pools, with the work threshold lowered to 0 so
//! that even tiny inputs are split into blocks) and under every instruction
//! set the kernels may use (the best, AVX2 only, the scalar baseline), equal
//! the one-thread default run bit for bit, and that run equals a naive
//! coordinate-by-coordinate model (the ascending fold from +0.0, the max
//! policy, the composed softmax). Random layouts (permuted, padded,
//! stepped, stride-0 axes), f32 and f64, odd, empty and scalar shapes, and
//! fixed cases for the tiled copy, the row-block reduction and the
//! softmax's interleaved groups. Maps stay on the calling thread: their
//! closures still run once per element in row-major order inside a pool.

#[path = "data_ops/layout.rs"]
mod layout;
#[path = "common/tuning.rs"]
mod tuning;
#[path = "data_ops/values.rs"]
mod values;

use layout::{Layout, coordinates};
use llm_from_scratch::Error;
use llm_from_scratch::tensor::dynamic::{self, DynTensor, DynView};
use llm_from_scratch::tensor::ops::{Function, tree_sum};
use proptest::prelude::*;
use tuning::{LEVELS, under};
use values::{Elem, canonical, exact};

const THREADS: [usize; 3] = [1, 2, 3];

/// One result of one op: its label and shape and bits, or the error.
type Outcome = (String, Result<(Vec<usize>, Vec<u64>), String>);

/// Every threaded op on `view`, every axis, fresh and `_into`.
fn outcomes<'v, F: Elem>(view: &DynView<'v, F>) -> Vec<Outcome> {
    let bits = |t: DynTensor<F>| (t.shape().to_vec(), exact(t.as_slice()));
    let mut all = Vec::new();
    let mut push = |label: String, result: Result<(Vec<usize>, Vec<u64>), String>| {
        all.push((label, result));
    };
    push(
        "materialize".into(),
        Ok(bits(view.materialize().expect("copy"))),
    );
    let mut out = DynTensor::full(view.shape().to_vec(), F::from_f64(7.0)).expect("out");
    view.materialize_into(&mut out).expect("same shape");
    push("materialize_into".into(), Ok(bits(out)));
    for axis in 0..view.rank() {
        // The generic ops at one operand type (a `DynView` of this lifetime).
        type Reduce<'v, F> = fn(&DynView<'v, F>, usize, bool) -> Result<DynTensor<F>, Error>;
        type ReduceInto<'v, F> =
            fn(&DynView<'v, F>, usize, bool, &mut DynTensor<F>) -> Result<(), Error>;
        let reductions: [(&str, Reduce<'v, F>, ReduceInto<'v, F>); 3] = [
            ("sum", dynamic::sum_axis, dynamic::sum_axis_into),
            ("mean", dynamic::mean_axis, dynamic::mean_axis_into),
            ("max", dynamic::max_axis, dynamic::max_axis_into),
        ];
        for (name, fresh, into) in reductions {
            let result = fresh(view, axis, false);
            push(
                format!("{name} axis {axis}"),
                result.map(bits).map_err(|e| e.to_string()),
            );
            let mut kept = view.shape().to_vec();
            kept[axis] = 1;
            let mut out = DynTensor::full(kept, F::from_f64(7.0)).expect("out");
            let result = into(view, axis, true, &mut out).map(|()| bits(out));
            push(
                format!("{name}_into axis {axis}"),
                result.map_err(|e| e.to_string()),
            );
        }
        let positions = |t: DynTensor<usize>| {
            (
                t.shape().to_vec(),
                t.as_slice().iter().map(|&i| i as u64).collect(),
            )
        };
        let result = dynamic::argmax_axis(view, axis, false);
        push(
            format!("argmax axis {axis}"),
            result.map(positions).map_err(|e| e.to_string()),
        );
        let mut kept = view.shape().to_vec();
        kept[axis] = 1;
        let mut out = DynTensor::full(kept, usize::MAX).expect("out");
        let result = dynamic::argmax_axis_into(view, axis, true, &mut out).map(|()| positions(out));
        push(
            format!("argmax_into axis {axis}"),
            result.map_err(|e| e.to_string()),
        );
        let result = dynamic::softmax_axis(view, axis);
        push(
            format!("softmax axis {axis}"),
            result.map(bits).map_err(|e| e.to_string()),
        );
        let mut out = DynTensor::full(view.shape().to_vec(), F::from_f64(7.0)).expect("out");
        let result = dynamic::softmax_axis_into(view, axis, &mut out).map(|()| bits(out));
        push(
            format!("softmax_into axis {axis}"),
            result.map_err(|e| e.to_string()),
        );
    }
    all
}

/// The groups along `axis`: per position of the other axes (row-major),
/// the coordinates of its values in ascending order along `axis`.
fn groups(shape: &[usize], axis: usize) -> Vec<Vec<Vec<usize>>> {
    let mut others = shape.to_vec();
    others[axis] = 1;
    coordinates(&others)
        .into_iter()
        .map(|c| {
            (0..shape[axis])
                .map(|i| {
                    let mut at = c.clone();
                    at[axis] = i;
                    at
                })
                .collect()
        })
        .collect()
}

/// The max policy: the first NaN stays, else only a larger value replaces.
fn replaces<F: Elem>(kept: F, value: F) -> bool {
    !kept.is_nan() && (value.is_nan() || value > kept)
}

/// One step of the max policy's fold.
fn max_step<F: Elem>(kept: F, value: F) -> F {
    if replaces(kept, value) { value } else { kept }
}

/// The naive model's results for the ops of [`outcomes`] (fresh forms;
/// `None` where the op is an error), NaNs canonical.
fn model<F: Elem>(layout: &Layout, owner: &DynTensor<F>) -> Vec<(String, Option<Vec<u64>>)> {
    let at = |c: &[usize]| owner.as_slice()[layout.offset(c)];
    let mut all = vec![(
        "materialize".to_string(),
        Some(exact(&layout.logical(owner))),
    )];
    for axis in 0..layout.shape.len() {
        let groups = groups(&layout.shape, axis);
        let values: Vec<Vec<F>> = groups
            .iter()
            .map(|g| g.iter().map(|c| at(c)).collect())
            .collect();
        let sums: Vec<F> = values.iter().map(|g| tree_sum(g)).collect();
        let extent = layout.shape[axis];
        let nonempty = extent > 0;
        let means: Vec<F> = sums
            .iter()
            .map(|&s| s / F::from_f64(extent as f64))
            .collect();
        let maxima: Vec<F> = values
            .iter()
            .filter(|g| !g.is_empty())
            .map(|g| g[1..].iter().fold(g[0], |m, &x| max_step(m, x)))
            .collect();
        let argmax: Vec<u64> = values
            .iter()
            .filter(|g| !g.is_empty())
            .map(|g| (1..g.len()).fold(0, |k, i| if replaces(g[k], g[i]) { i } else { k }) as u64)
            .collect();
        let mut softmax = vec![F::ZERO; layout.shape.iter().product()];
        let linear = |c: &[usize]| c.iter().zip(&layout.shape).fold(0, |l, (&i, &e)| l * e + i);
        for (g, coords) in values.iter().zip(&groups) {
            let Some(&first) = g.first() else { continue };
            let m = g[1..].iter().fold(first, |m, &x| max_step(m, x));
            let e: Vec<F> = g.iter().map(|&x| Function::Exp.eval(x - m)).collect();
            let z = tree_sum(&e);
            for (&e, c) in e.iter().zip(coords) {
                softmax[linear(c)] = e / z;
            }
        }
        all.push((format!("sum axis {axis}"), Some(canonical(&sums))));
        all.push((
            format!("mean axis {axis}"),
            nonempty.then(|| canonical(&means)),
        ));
        all.push((
            format!("max axis {axis}"),
            nonempty.then(|| canonical(&maxima)),
        ));
        all.push((format!("argmax axis {axis}"), nonempty.then_some(argmax)));
        all.push((format!("softmax axis {axis}"), Some(canonical(&softmax))));
    }
    all
}

/// NaN-canonical form of an outcome's bits for element type `F`.
fn canonical_bits<F: Elem>(label: &str, bits: &[u64]) -> Vec<u64> {
    if label.starts_with("argmax") || label.starts_with("materialize") {
        return bits.to_vec();
    }
    let nan = |b: u64| {
        if F::NAME == "f32" {
            f32::from_bits(b as u32).is_nan()
        } else {
            f64::from_bits(b).is_nan()
        }
    };
    bits.iter()
        .map(|&b| if nan(b) { u64::MAX } else { b })
        .collect()
}

/// An outcome as compared across SIMD levels and thread counts: exact bits,
/// except that a NaN computed by arithmetic (sum, mean, softmax) is any NaN,
/// because Rust leaves such payloads unspecified (LLVM may commute an add).
/// Copies, max (a selection) and argmax keep their exact bits.
fn comparable<F: Elem>(
    label: &str,
    outcome: &Result<(Vec<usize>, Vec<u64>), String>,
) -> Result<(Vec<usize>, Vec<u64>), String> {
    let arithmetic = ["sum", "mean", "softmax"]
        .iter()
        .any(|op| label.starts_with(op));
    outcome.clone().map(|(shape, bits)| {
        let bits = if arithmetic {
            canonical_bits::<F>(label, &bits)
        } else {
            bits
        };
        (shape, bits)
    })
}

/// Every path equals the one-thread default run bit for bit (NaN payloads
/// of arithmetic aside), and that run equals the model.
fn check<F: Elem>(layout: &Layout, seed: u64) {
    check_owner(layout, &values::owner::<F>(layout, seed, false, None));
}

/// [`check`] on the values of `owner`.
fn check_owner<F: Elem>(layout: &Layout, owner: &DynTensor<F>) {
    let view = layout.view(owner);
    let reference = outcomes(&view);
    for (label, want) in model(layout, owner) {
        let (_, got) = reference
            .iter()
            .find(|(l, _)| *l == label)
            .expect("a modelled op");
        match (want, got) {
            (Some(want), Ok((_, bits))) => {
                assert_eq!(
                    canonical_bits::<F>(&label, bits),
                    want,
                    "{label} {} {:?}",
                    F::NAME,
                    layout.shape
                );
            }
            (None, Err(_)) => {}
            (want, got) => panic!("{label}: model {want:?}, library {got:?}"),
        }
    }
    for simd in LEVELS {
        for threads in THREADS {
            let got = under(simd, threads, || outcomes(&view));
            for ((label, want), (_, got)) in reference.iter().zip(&got) {
                assert_eq!(
                    comparable::<F>(label, got),
                    comparable::<F>(label, want),
                    "{label} {} {:?} on {threads} threads, {simd:?}",
                    F::NAME,
                    layout.shape
                );
            }
        }
    }
}

/// Shapes of rank 0 to 4 with small extents (0 included), or rank 1 to 3
/// with one long axis (dense maxima, argmax and softmax lanes need 16+).
fn shapes() -> impl Strategy<Value = Vec<usize>> {
    let long = (
        prop::collection::vec(1_usize..=4, 1..=3),
        any::<prop::sample::Index>(),
        16_usize..=40,
    )
        .prop_map(|(mut shape, at, extent)| {
            let axis = at.index(shape.len());
            shape[axis] = extent;
            shape
        });
    prop_oneof![2 => layout::shape(4, 6), 1 => long]
}

fn case() -> impl Strategy<Value = (Layout, u64)> {
    (shapes(), any::<u64>()).prop_flat_map(|(shape, seed)| (layout::layout(shape), Just(seed)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_thread_count_and_instruction_set_gives_the_same_bits_f64((layout, seed) in case()) {
        check::<f64>(&layout, seed);
    }

    #[test]
    fn every_thread_count_and_instruction_set_gives_the_same_bits_f32((layout, seed) in case()) {
        check::<f32>(&layout, seed);
    }
}

/// Fixed layouts for the kernels' block edges: tiled transposes (the tiled
/// axis last or not), reductions with more than one 2048-value block of
/// outputs and with one long run, softmax over a non-last axis.
#[test]
fn large_layouts_cross_every_block_edge() {
    let layout = |shape: &[usize], order: &[usize]| Layout::permuted(shape, order);
    let cases = [
        layout(&[300, 70], &[1, 0]),
        layout(&[3, 80, 90], &[0, 2, 1]),
        layout(&[40, 3, 300], &[1, 2, 0]),
        layout(&[3, 2500], &[0, 1]),
        layout(&[2500, 3], &[1, 0]),
        layout(&[5, 7, 33], &[0, 1, 2]),
    ];
    for (k, layout) in cases.iter().enumerate() {
        check::<f64>(layout, k as u64);
        check::<f32>(layout, k as u64 + 100);
    }
}

/// Sums over a long outer axis split its leaves over the threads where the
/// tree splits them: 14 leaves of 128 rows (8 + 6, a power of two and the
/// rest), 11 over 4 columns. A short last leaf (under 16 rows) lands in a
/// pending slot that earlier leaves or an earlier column block filled:
/// 1541 rows (12 leaves and 5 rows), 129 rows over 4100 columns (two column
/// blocks). The values are finite (a long sum of the tricky values would be
/// NaN or infinite whatever the tree).
#[test]
fn long_outer_sums_split_their_leaves_with_the_same_bits() {
    fn finite<F: Elem>(layout: &Layout, seed: u64) -> DynTensor<F> {
        layout.owner(|k| {
            let x: F = values::tricky(seed, k, true);
            // `x - x` is NaN exactly for the infinities.
            if x - x == x - x { x } else { F::from_f64(0.75) }
        })
    }
    let layouts = [
        Layout::permuted(&[1700, 5], &[0, 1]),
        Layout::permuted(&[2, 1300, 4], &[1, 0, 2]),
        Layout::permuted(&[1541, 3], &[0, 1]),
        Layout::permuted(&[129, 4100], &[0, 1]),
    ];
    for (k, layout) in layouts.iter().enumerate() {
        check_owner(layout, &finite::<f64>(layout, k as u64));
        check_owner(layout, &finite::<f32>(layout, k as u64 + 100));
    }
}

/// Large enough for the real thresholds: one default run on a pool of two
/// equals the one-thread run (fresh outputs filled in parallel first).
#[test]
fn default_thresholds_split_large_inputs_with_the_same_bits() {
    let layout = Layout::permuted(&[384, 700], &[1, 0]);
    let owner = values::owner::<f64>(&layout, 9, false, None);
    let view = layout.view(&owner);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool");
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool");
    assert_eq!(
        two.install(|| outcomes(&view)),
        one.install(|| outcomes(&view))
    );
}

/// Maps are not split: the closure is `FnMut` and runs once per output
/// element in logical row-major order, also inside a pool of three.
#[test]
fn map_closures_keep_their_order_inside_a_pool() {
    let layout = Layout::permuted(&[6, 5, 4], &[2, 0, 1]);
    let owner = layout.owner(|k| k as f64);
    let view = layout.view(&owner);
    let bias = DynTensor::from_vec(vec![4], vec![0.5, 1.5, 2.5, 3.5]).expect("bias");
    let mut seen = Vec::new();
    let sum = under(LEVELS[0], 3, || {
        dynamic::map_binary(&view, &bias.view(), |x, b| {
            seen.push(x);
            x + b
        })
    })
    .expect("broadcast");
    assert_eq!(seen, layout.logical(&owner));
    let want: Vec<f64> = seen
        .iter()
        .enumerate()
        .map(|(k, x)| x + bias.as_slice()[k % 4])
        .collect();
    assert_eq!(sum.as_slice(), want.as_slice());
}
