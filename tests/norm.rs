//! `layer_norm` and `rms_norm` are bit-identical to their compositions of
//! the crate's ops (`mean_axis` -> `sub` -> `square` -> `mean_axis` ->
//! `sqrt(v + eps)` -> `div` -> `mul` -> `add`) and to a row-by-row scalar
//! model (the fixed tree of `tree_sum`, then the same IEEE operations), on
//! random shapes and layouts of the input and of `gamma` / `beta`
//! (permuted, padded, stepped, stride-0), in f32 and f64, through the
//! ranked and the dynamic API, methods and `_into` twins; the same bits
//! for every thread count and SIMD level (forced with the tuning hook);
//! half types computed in f32 and rounded once; bad input is a typed
//! error. NaN results match any NaN (see `values::canonical`).

mod common;
#[path = "data_ops/layout.rs"]
mod layout;
#[path = "common/tuning.rs"]
mod tuning;
#[path = "data_ops/values.rs"]
mod values;

use common::with_rank;
use layout::Layout;
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::{self, DynTensor, DynView};
use llm_from_scratch::tensor::ops::tree_sum;
use proptest::prelude::*;
use tuning::{LEVELS, under};
use values::{Elem, canonical};

/// LayerNorm (`beta` given) or RMSNorm (`beta` is `None`).
#[derive(Debug, Clone, Copy)]
enum Which {
    Layer,
    Rms,
}

/// The composition through the library's own ops (dynamic API).
fn composed<F: Elem>(
    x: &DynView<'_, F>,
    gamma: &DynView<'_, F>,
    beta: &DynView<'_, F>,
    eps: f64,
    which: Which,
) -> Result<DynTensor<F>, Error> {
    let axis = x.rank() - 1;
    let eps = <F as Elem>::from_f64(eps);
    match which {
        Which::Layer => {
            let mean = dynamic::mean_axis(x, axis, true)?;
            let c = sub(x, &mean)?;
            let var = dynamic::mean_axis(&c.square()?.view(), axis, true)?;
            let s = map_unary(&var, |v| (v + eps).sqrt())?;
            c.div(&s)?.mul(gamma)?.add(beta)
        }
        Which::Rms => {
            let ms = dynamic::mean_axis(&x.square()?.view(), axis, true)?;
            let r = map_unary(&ms, |m| (m + eps).sqrt())?;
            x.div(&r)?.mul(gamma)
        }
    }
}

/// The scalar model, row by row over the logical values: the tree sums of
/// the crate's reductions (`tree_sum`) and the composition's operations.
fn model<F: Elem>(x: &[F], c: usize, gamma: &[F], beta: &[F], eps: f64, which: Which) -> Vec<F> {
    let eps = <F as Elem>::from_f64(eps);
    let n = F::from_usize(c);
    let mut out = Vec::new();
    for row in x.chunks(c.max(1)).filter(|_| c > 0) {
        let squares = |v: &[F]| tree_sum(&v.iter().map(|&a| a * a).collect::<Vec<_>>());
        match which {
            Which::Layer => {
                let mean = tree_sum(row) / n;
                let centered: Vec<F> = row.iter().map(|&v| v - mean).collect();
                let s = (squares(&centered) / n + eps).sqrt();
                out.extend((0..c).map(|i| centered[i] / s * gamma[i] + beta[i]));
            }
            Which::Rms => {
                let r = (squares(row) / n + eps).sqrt();
                out.extend((0..c).map(|i| row[i] / r * gamma[i]));
            }
        }
    }
    out
}

/// Every form of the op: (what, whether it is the `_into` twin, shape and
/// values or the error).
type Run<F> = (String, bool, Result<(Vec<usize>, Vec<F>), Error>);

fn forms<F: Elem, D: Dimension>(
    api: &str,
    view: ArrayBase<&[F], D>,
    gamma: &DynView<'_, F>,
    beta: &DynView<'_, F>,
    eps: f64,
    which: Which,
) -> Vec<Run<F>> {
    let pair = |t: ArrayBase<Vec<F>, D>| (t.shape().as_ref().to_vec(), t.into_vec());
    let mut out = view.materialize().expect("output");
    out.view_mut().fill(<F as Elem>::from_f64(7.0));
    let (fresh, method, into) = match which {
        Which::Layer => (
            layer_norm(&view, gamma, beta, eps),
            view.layer_norm(gamma, beta, eps),
            layer_norm_into(&view, gamma, beta, eps, &mut out),
        ),
        Which::Rms => (
            rms_norm(&view, gamma, eps),
            view.rms_norm(gamma, eps),
            rms_norm_into(&view, gamma, eps, &mut out),
        ),
    };
    vec![
        (format!("{api} {which:?}"), false, fresh.map(pair)),
        (format!("{api} {which:?} method"), false, method.map(pair)),
        (
            format!("{api} {which:?} _into"),
            true,
            into.map(|()| pair(out)),
        ),
    ]
}

fn every_form<F: Elem>(
    view: &DynView<'_, F>,
    gamma: &DynView<'_, F>,
    beta: &DynView<'_, F>,
    eps: f64,
    which: Which,
) -> Vec<Run<F>> {
    let mut runs = forms("dynamic", *view, gamma, beta, eps, which);
    with_rank!(view.rank(), [0 1 2 3 4], |R| {
        let ranked: View<'_, R, F> = view.into_ranked().expect("rank");
        let g1: View<'_, 1, F> = gamma.into_ranked().expect("gamma is [C]");
        let b1: View<'_, 1, F> = beta.into_ranked().expect("beta is [C]");
        let gamma = g1.into_dyn();
        let beta = b1.into_dyn();
        runs.extend(forms("ranked", ranked, &gamma, &beta, eps, which));
        let owned = ranked.materialize().expect("copy");
        let pair = |t: Tensor<R, F>| (t.shape().to_vec(), t.into_vec());
        let method = match which {
            Which::Layer => owned.layer_norm(&g1, &b1, eps),
            Which::Rms => owned.rms_norm(&g1, eps),
        };
        runs.push((format!("Tensor method {which:?}"), false, method.map(pair)));
    });
    runs
}

/// A random input and parameters: the input's layout and the two `[C]`
/// parameter layouts.
fn case() -> impl Strategy<Value = (Layout, Layout, Layout, u64, bool)> {
    (
        layout::shape(4, 5).prop_filter("rank >= 1", |s| !s.is_empty()),
        any::<u64>(),
        any::<bool>(),
    )
        .prop_flat_map(|(shape, seed, nan_free)| {
            let c = shape[shape.len() - 1];
            (
                layout::layout(shape),
                layout::layout(vec![c]),
                layout::layout(vec![c]),
                Just(seed),
                Just(nan_free),
            )
        })
}

/// Fused = composition = model, bit for bit (NaN matching NaN), in every form.
fn check<F: Elem>(x: &Layout, g: &Layout, b: &Layout, seed: u64, nan_free: bool) {
    let owner = values::owner::<F>(x, seed, nan_free, None);
    let gamma_owner = values::owner::<F>(g, seed ^ 1, nan_free, None);
    let beta_owner = values::owner::<F>(b, seed ^ 2, nan_free, None);
    let (view, gamma, beta) = (x.view(&owner), g.view(&gamma_owner), b.view(&beta_owner));
    let c = x.shape[x.shape.len() - 1];
    let logical = x.logical(&owner);
    let (gl, bl) = (g.logical(&gamma_owner), b.logical(&beta_owner));
    for (which, eps) in [(Which::Layer, 1e-5), (Which::Rms, 1e-6)] {
        let want = model(&logical, c, &gl, &bl, eps, which);
        if c > 0 {
            let composition = composed(&view, &gamma, &beta, eps, which).expect("composition");
            assert_eq!(
                canonical(composition.as_slice()),
                canonical(&want),
                "composition vs model {which:?}"
            );
        }
        for (what, _, run) in every_form(&view, &gamma, &beta, eps, which) {
            let (shape, values) = run.unwrap_or_else(|e| panic!("{what} {}: {e}", F::NAME));
            assert_eq!(shape, x.shape, "{what}");
            assert_eq!(canonical(&values), canonical(&want), "{what} {}", F::NAME);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn norms_f64_equal_the_composition_on_random_layouts(
        (x, g, b, seed, nan_free) in case()
    ) {
        check::<f64>(&x, &g, &b, seed, nan_free);
    }

    #[test]
    fn norms_f32_equal_the_composition_on_random_layouts(
        (x, g, b, seed, nan_free) in case()
    ) {
        check::<f32>(&x, &g, &b, seed, nan_free);
    }

    /// Long rows (several tree leaves), dense or transposed.
    #[test]
    fn long_rows_equal_the_model(
        rows in 1_usize..=3,
        c in 0_usize..=700,
        seed in any::<u64>(),
        transposed in any::<bool>(),
    ) {
        let x = if transposed {
            Layout::permuted(&[rows, c], &[1, 0])
        } else {
            Layout::dense(&[rows, c])
        };
        let g = Layout::dense(&[c]);
        check::<f32>(&x, &g, &g, seed, true);
        check::<f64>(&x, &g, &g, seed, true);
    }

    /// The same bits on 1, 2 and 3 threads and every SIMD level.
    #[test]
    fn threads_and_simd_levels_give_the_same_bits(
        (x, g, b, seed, nan_free) in case(),
        threads in 1_usize..=3,
        level in 0_usize..3,
    ) {
        let owner = values::owner::<f32>(&x, seed, nan_free, None);
        let gamma_owner = values::owner::<f32>(&g, seed ^ 1, nan_free, None);
        let beta_owner = values::owner::<f32>(&b, seed ^ 2, nan_free, None);
        let (view, gamma, beta) = (x.view(&owner), g.view(&gamma_owner), b.view(&beta_owner));
        let run = || {
            let layer = layer_norm(&view, &gamma, &beta, 1e-5).expect("layer");
            let rms = rms_norm(&view, &gamma, 1e-5).expect("rms");
            let mut into = view.materialize().expect("out");
            layer_norm_into(&view, &gamma, &beta, 1e-5, &mut into).expect("into");
            (canonical(layer.as_slice()), canonical(rms.as_slice()), canonical(into.as_slice()))
        };
        let reference = run();
        prop_assert_eq!(&reference.0, &reference.2);
        prop_assert_eq!(under(LEVELS[level], threads, run), reference);
    }
}

#[test]
fn many_rows_split_over_threads_equal_one_thread() {
    // Rows of GPT-2's width, a non-contiguous view (every other row), f32.
    let x = Tensor::from_fn([64, 768], |[i, j]| {
        ((i * 31 + j * 17) % 1000) as f32 * 0.01 - 5.0
    })
    .unwrap();
    let x = x.view().slice_step(0, 0..64, 2).unwrap();
    let gamma = Tensor::from_fn([768], |[j]| 1.0 + j as f32 * 1e-3).unwrap();
    let beta = Tensor::from_fn([768], |[j]| j as f32 * -1e-3).unwrap();
    let one = layer_norm(&x, &gamma, &beta, 1e-5).unwrap();
    for level in LEVELS {
        for threads in [1, 2, 3] {
            let split = under(level, threads, || {
                layer_norm(&x, &gamma, &beta, 1e-5).unwrap()
            });
            assert_eq!(split, one, "{level:?} x {threads}");
            let rms = under(level, threads, || rms_norm(&x, &gamma, 1e-5).unwrap());
            assert_eq!(rms, rms_norm(&x, &gamma, 1e-5).unwrap());
        }
    }
}

#[test]
fn known_values_and_properties() {
    // LayerNorm of [1, 2, 3, 4]: mean 2.5, biased var 1.25.
    let x = Tensor::from_vec([1, 4], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    let ones = Tensor::full([4], 1.0).unwrap();
    let zeros = Tensor::<1>::zeros([4]).unwrap();
    let y = layer_norm(&x, &ones, &zeros, 0.0).unwrap();
    let s = 1.25_f64.sqrt();
    assert_eq!(y.as_slice(), &[-1.5 / s, -0.5 / s, 0.5 / s, 1.5 / s]);
    // A constant row: centered to zero, so beta alone (eps keeps it finite).
    let flat = Tensor::from_vec([1, 3], vec![2.0, 2.0, 2.0]).unwrap();
    let beta = Tensor::from_vec([3], vec![0.5, -1.0, 0.0]).unwrap();
    let y = layer_norm(&flat, &Tensor::full([3], 3.0).unwrap(), &beta, 1e-5).unwrap();
    assert_eq!(y.as_slice(), &[0.5, -1.0, 0.0]);
    // RMSNorm of [3, 4]: rms = sqrt(12.5).
    let x = Tensor::from_vec([2], vec![3.0, 4.0]).unwrap();
    let y = rms_norm(&x, &Tensor::full([2], 2.0).unwrap(), 0.0).unwrap();
    let r = 12.5_f64.sqrt();
    assert_eq!(y.as_slice(), &[3.0 / r * 2.0, 4.0 / r * 2.0]);
    // An empty last axis: an empty result (the parameters are [0]).
    let empty = Tensor::<2>::zeros([3, 0]).unwrap();
    let none = Tensor::<1>::zeros([0]).unwrap();
    assert_eq!(
        layer_norm(&empty, &none, &none, 1e-5).unwrap().shape(),
        &[3, 0]
    );
    assert_eq!(rms_norm(&empty, &none, 1e-5).unwrap().len(), 0);
}

#[test]
fn half_types_are_computed_in_f32_and_rounded_once() {
    use half::{bf16, f16};
    let x32 = Tensor::from_fn([3, 50], |[i, j]| (i as f32 - 1.0) * 0.37 + j as f32 * 0.11).unwrap();
    let g32 = Tensor::from_fn([50], |[j]| 1.0 + j as f32 * 0.01).unwrap();
    let b32 = Tensor::from_fn([50], |[j]| -(j as f32) * 0.02).unwrap();
    // The half inputs, and the same values exactly in f32.
    let (x, g, b) = (
        x32.cast::<f16>().unwrap(),
        g32.cast::<f16>().unwrap(),
        b32.cast::<f16>().unwrap(),
    );
    let (xw, gw, bw) = (
        x.cast::<f32>().unwrap(),
        g.cast::<f32>().unwrap(),
        b.cast::<f32>().unwrap(),
    );
    let want = layer_norm(&xw, &gw, &bw, 1e-5)
        .unwrap()
        .cast::<f16>()
        .unwrap();
    assert_eq!(layer_norm(&x, &g, &b, 1e-5).unwrap(), want);
    let (x, g) = (x32.cast::<bf16>().unwrap(), g32.cast::<bf16>().unwrap());
    let (xw, gw) = (x.cast::<f32>().unwrap(), g.cast::<f32>().unwrap());
    let want = rms_norm(&xw, &gw, 1e-6).unwrap().cast::<bf16>().unwrap();
    assert_eq!(rms_norm(&x, &g, 1e-6).unwrap(), want);
    let mut out = Tensor::<2, bf16>::zeros([3, 50]).unwrap();
    rms_norm_into(&x, &g, 1e-6, &mut out).unwrap();
    assert_eq!(out, want);
}

#[test]
fn bad_parameters_rank_output_and_allocation_are_typed_errors() {
    let x = Tensor::<2>::zeros([2, 3]).unwrap();
    let good = Tensor::<1>::zeros([3]).unwrap();
    let short = Tensor::<1>::zeros([2]).unwrap();
    let matrix = Tensor::<2>::zeros([1, 3]).unwrap();
    let mismatch = |op, param, actual: Vec<usize>| {
        Err(Error::NormParamMismatch {
            op,
            param,
            axis: 1,
            extent: 3,
            actual,
        })
    };
    assert_eq!(
        layer_norm(&x, &short, &good, 1e-5).map(|t| t.len()),
        mismatch("layer_norm", "gamma", vec![2])
    );
    assert_eq!(
        layer_norm(&x, &good, &matrix, 1e-5).map(|t| t.len()),
        mismatch("layer_norm", "beta", vec![1, 3])
    );
    assert_eq!(
        rms_norm(&x, &matrix, 1e-5).map(|t| t.len()),
        mismatch("rms_norm", "gamma", vec![1, 3])
    );
    assert_eq!(
        rms_norm(&x, &short, 1e-5).unwrap_err().to_string(),
        "rms_norm: gamma has shape [2], but the normalized axis 1 has extent 3, so it must have shape [3]"
    );
    // `_into`: the parameters first, then the output's shape; nothing written.
    let mut wrong = Tensor::<2>::full([3, 2], 9.0).unwrap();
    assert_eq!(
        layer_norm_into(&x, &short, &good, 1e-5, &mut wrong).map(|()| 0),
        mismatch("layer_norm_into", "gamma", vec![2])
    );
    assert_eq!(
        rms_norm_into(&x, &good, 1e-5, &mut wrong),
        Err(Error::OutputShapeMismatch {
            op: "rms_norm_into",
            expected: vec![2, 3],
            actual: vec![3, 2]
        })
    );
    assert!(wrong.as_slice().iter().all(|&v| v == 9.0));
    // Rank 0 has no last axis.
    let scalar = Tensor::<0>::full([], 1.0).unwrap();
    let unit = Tensor::<1>::zeros([1]).unwrap();
    assert_eq!(
        rms_norm(&scalar, &unit, 1e-5),
        Err(Error::RankTooSmall {
            op: "rms_norm",
            rank: 0,
            minimum: 1
        })
    );
    // One stored value read 2^62 times: the output cannot be reserved.
    let data = [0.5_f64];
    let broadcast = View::from_parts(&data, [1 << 61, 2], [0, 0], 0).unwrap();
    let two = Tensor::<1>::zeros([2]).unwrap();
    assert_eq!(
        layer_norm(&broadcast, &two, &two, 1e-5).map(|t| t.len()),
        Err(Error::AllocationFailed {
            op: "layer_norm",
            elements: 1 << 62
        })
    );
    // A valid empty view whose shape has no row-major strides.
    let tall = View::<3, f64>::from_parts(&[], [usize::MAX / 2, 3, 0], [0, 0, 0], 0)
        .unwrap()
        .permute([2, 1, 0])
        .unwrap();
    let wide = View::<1, f64>::from_parts(&data, [usize::MAX / 2], [0], 0).unwrap();
    assert_eq!(
        rms_norm(&tall, &wide, 1e-5).map(|t| t.len()),
        Err(Error::ShapeOverflow { op: "rms_norm" })
    );
}

/// PyTorch's `F.layer_norm` / `F.rms_norm` on seeded inputs
/// (`scripts/norm_fixture.py`): PyTorch sums in its own order and scales
/// by `rsqrt`, so within a few units of rounding, not bit for bit.
#[test]
fn pytorch_layer_norm_and_rms_norm_agree() {
    let text = std::fs::read_to_string("tests/fixtures/norm/reference.json").expect("fixture");
    let fixture: serde_json::Value = serde_json::from_str(&text).expect("json");
    let floats = |case: &serde_json::Value, key: &str| -> Vec<f64> {
        case[key]
            .as_array()
            .expect("array")
            .iter()
            .map(|v| v.as_f64().expect("number"))
            .collect()
    };
    for case in fixture["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().expect("name");
        let shape: Vec<usize> = case["shape"]
            .as_array()
            .expect("shape")
            .iter()
            .map(|v| v.as_u64().expect("extent") as usize)
            .collect();
        let eps = case["eps"].as_f64().expect("eps");
        let [rows, c] = [shape[0], shape[1]];
        let (x, g, b) = (
            floats(case, "x"),
            floats(case, "gamma"),
            floats(case, "beta"),
        );
        let (want_layer, want_rms) = (floats(case, "layer_norm"), floats(case, "rms_norm"));
        let (layer, rms, tolerance): (Vec<f64>, Vec<f64>, f64) = if case["dtype"] == "f32" {
            let narrow = |v: &[f64]| v.iter().map(|&v| v as f32).collect::<Vec<_>>();
            let x = Tensor::from_vec([rows, c], narrow(&x)).unwrap();
            let g = Tensor::from_vec([c], narrow(&g)).unwrap();
            let b = Tensor::from_vec([c], narrow(&b)).unwrap();
            let widen = |t: Tensor<2, f32>| t.as_slice().iter().map(|&v| f64::from(v)).collect();
            (
                widen(layer_norm(&x, &g, &b, eps).unwrap()),
                widen(rms_norm(&x, &g, eps).unwrap()),
                4.0 * f64::from(f32::EPSILON),
            )
        } else {
            let x = Tensor::from_vec([rows, c], x).unwrap();
            let g = Tensor::from_vec([c], g).unwrap();
            let b = Tensor::from_vec([c], b).unwrap();
            (
                layer_norm(&x, &g, &b, eps).unwrap().into_vec(),
                rms_norm(&x, &g, eps).unwrap().into_vec(),
                4.0 * f64::EPSILON,
            )
        };
        for (what, ours, theirs) in [
            ("layer_norm", &layer, &want_layer),
            ("rms_norm", &rms, &want_rms),
        ] {
            let worst = ours
                .iter()
                .zip(theirs.iter())
                .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
                .fold(0.0, f64::max);
            assert!(
                worst <= tolerance,
                "{name} {what}: {worst:e} > {tolerance:e}"
            );
            eprintln!("{name} {what}: worst relative difference {worst:e}");
        }
    }
}
