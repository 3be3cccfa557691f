//! `softmax_axis` is bit-identical to its four-call composition
//! (`max_axis` KeepDim -> `exp(x - m)` -> ascending `sum_axis` KeepDim ->
//! divide) and to a coordinate-by-coordinate model of it, on random shapes
//! and layouts (permuted, padded, stepped, stride-0), in f32 and f64, with
//! NaNs, ±inf, fully masked (-inf) groups and empty axes; through the
//! ranked and the dynamic API, methods and `_into` twins. Bad input is a
//! typed error. NaN results match any NaN (see `values::canonical`).

mod common;
#[path = "data_ops/layout.rs"]
mod layout;
#[path = "data_ops/values.rs"]
mod values;

use common::with_rank;
use layout::{Layout, coordinates};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::{self, DynTensor, DynView};
use llm_from_scratch::tensor::ops::tree_sum;
use proptest::prelude::*;
use values::{Elem, canonical};

/// The composition through the library's own ops (dynamic API).
fn composed<F: Elem>(x: &DynView<'_, F>, axis: usize) -> Result<DynTensor<F>, Error> {
    let m = dynamic::max_axis(x, axis, true)?;
    let e = sub(x, &m)?.exp()?;
    let z = dynamic::sum_axis(&e.view(), axis, true)?;
    div(&e, &z)
}

/// The composition by hand, coordinate by coordinate: the max policy's
/// fold (first NaN, else replace only by a strictly larger value), then per
/// position the crate's `exp(x - m)` (its scalar model), the tree sum of
/// the group's exponentials, the division.
fn model<F: Elem>(layout: &Layout, owner: &DynTensor<F>, axis: usize) -> Vec<F> {
    let at = |c: &[usize]| owner.as_slice()[layout.offset(c)];
    let extent = layout.shape[axis];
    let mut groups = std::collections::HashMap::new();
    coordinates(&layout.shape)
        .iter()
        .map(|c| {
            let mut group = c.clone();
            group[axis] = 0;
            let (m, z) = *groups.entry(group.clone()).or_insert_with(|| {
                let mut value = |i: usize| {
                    group[axis] = i;
                    at(&group)
                };
                let mut m = value(0);
                for i in 1..extent {
                    let v = value(i);
                    if !m.is_nan() && (v.is_nan() || v > m) {
                        m = v;
                    }
                }
                let e: Vec<F> = (0..extent)
                    .map(|i| Function::Exp.eval(value(i) - m))
                    .collect();
                (m, tree_sum(&e))
            });
            Function::Exp.eval(at(c) - m) / z
        })
        .collect()
}

/// Every form of the op: (what, whether it is the `_into` twin, shape and
/// values or the error).
type Run<F> = (String, bool, Result<(Vec<usize>, Vec<F>), Error>);

/// The free function, the method and the `_into` twin for a view of either
/// dimension (the same generic functions serve both).
fn forms<F: Elem, D: Dimension>(api: &str, view: ArrayBase<&[F], D>, axis: usize) -> Vec<Run<F>> {
    let pair = |t: ArrayBase<Vec<F>, D>| (t.shape().as_ref().to_vec(), t.into_vec());
    let mut out = view.materialize().expect("output");
    out.view_mut().fill(F::from_f64(7.0));
    let into = softmax_axis_into(&view, axis, &mut out);
    vec![
        (api.to_string(), false, softmax_axis(&view, axis).map(pair)),
        (
            format!("{api} method"),
            false,
            view.softmax_axis(axis).map(pair),
        ),
        (format!("{api} _into"), true, into.map(|()| pair(out))),
    ]
}

fn every_form<F: Elem>(view: &DynView<'_, F>, axis: usize) -> Vec<Run<F>> {
    let mut runs = forms("dynamic", *view, axis);
    with_rank!(view.rank(), [0 1 2 3 4], |R| {
        let ranked: View<'_, R, F> = view.into_ranked().expect("rank");
        runs.extend(forms("ranked", ranked, axis));
        let owned = ranked.materialize().expect("copy");
        let pair = |t: Tensor<R, F>| (t.shape().to_vec(), t.into_vec());
        runs.push(("Tensor method".to_string(), false, owned.softmax_axis(axis).map(pair)));
    });
    runs
}

/// Fused = composition = model, bit for bit (NaN matching NaN), in every form.
fn check<F: Elem>(layout: &Layout, seed: u64, axis: usize, masked: bool) {
    let owner = values::owner::<F>(layout, seed, false, masked.then_some(axis));
    let view = layout.view(&owner);
    let want = model(layout, &owner, axis);
    if layout.shape[axis] > 0 {
        let composition = composed(&view, axis).expect("composition");
        assert_eq!(
            canonical(composition.as_slice()),
            canonical(&want),
            "composition vs model"
        );
    } else {
        // The composition stops at max_axis; the softmax of nothing is empty.
        assert!(want.is_empty());
    }
    for (what, _, run) in every_form(&view, axis) {
        let (shape, values) = run.unwrap_or_else(|e| panic!("{what} {}: {e}", F::NAME));
        assert_eq!(shape, layout.shape, "{what}");
        assert_eq!(
            canonical(&values),
            canonical(&want),
            "{what} {} axis {axis}",
            F::NAME
        );
    }
}

fn case() -> impl Strategy<Value = (Layout, usize, u64, bool)> {
    (
        layout::shape(4, 5).prop_filter("rank >= 1", |s| !s.is_empty()),
        any::<u64>(),
        any::<bool>(),
    )
        .prop_flat_map(|(shape, seed, masked)| {
            let axis = 0..shape.len();
            (layout::layout(shape), axis, Just(seed), Just(masked))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(320))]

    #[test]
    fn softmax_f64_equals_the_composition_on_random_layouts((layout, axis, seed, masked) in case()) {
        check::<f64>(&layout, seed, axis, masked);
    }

    #[test]
    fn softmax_f32_equals_the_composition_on_random_layouts((layout, axis, seed, masked) in case()) {
        check::<f32>(&layout, seed, axis, masked);
    }

    /// Long groups take the dense kernel (stride 1 in and out) or, transposed, the strided one.
    #[test]
    fn long_groups_equal_the_composition(
        rows in 1_usize..=3,
        extent in 0_usize..=300,
        seed in any::<u64>(),
        transposed in any::<bool>(),
    ) {
        let layout = Layout::dense(&[rows, extent]);
        check::<f32>(&layout, seed, 1, true);
        check::<f64>(&layout, seed, 1, false);
        if transposed {
            let owner = values::owner::<f64>(&Layout::dense(&[extent, rows]), seed, false, None);
            let view = owner.view().permute(&[1, 0]).expect("transpose");
            let fused = dynamic::softmax_axis(&view, 1).expect("softmax");
            if extent > 0 {
                prop_assert_eq!(
                    canonical(fused.as_slice()),
                    canonical(composed(&view, 1).expect("composition").as_slice())
                );
            }
        }
    }

    /// A bad axis is `AxisOutOfBounds`, checked before the output shape of `_into`.
    #[test]
    fn an_axis_past_the_rank_is_an_error(shape in layout::shape(4, 3), extra in 0_usize..3) {
        let rank = shape.len();
        let axis = rank + extra;
        let owner = Layout::dense(&shape).owner(|k| k as f64);
        let want = |op| Err(Error::AxisOutOfBounds { op, axis, rank });
        let view = owner.view();
        for (what, into, run) in every_form(&view, axis) {
            let op = if into { "softmax_axis_into" } else { "softmax_axis" };
            prop_assert_eq!(run.map(|(s, _)| s), want(op), "{}", what);
        }
    }
}

#[test]
fn masked_and_non_finite_rows_follow_the_composition() {
    let inf = f64::INFINITY;
    let rows = [
        [0.0, -inf, -inf, 1.0],    // masked scores get exactly 0
        [-inf, -inf, -inf, -inf],  // fully masked: -inf - -inf = NaN everywhere (as PyTorch)
        [inf, 1.0, 2.0, 3.0],      // +inf - +inf = NaN, so z is NaN: all NaN
        [1.0, f64::NAN, 2.0, 3.0], // a NaN poisons its row
        [-0.0, 0.0, -0.0, 0.0],    // uniform
        [1e3, -1e3, 0.0, 1e3],     // exp(-2000) underflows to 0
    ];
    let scores = Tensor::from_vec([6, 4], rows.concat()).unwrap();
    let p = scores.softmax_axis(1).unwrap();
    let e = |x: f64| Function::Exp.eval(x);
    assert_eq!(
        &p.as_slice()[..4],
        &[1.0 / (1.0 + e(1.0)), 0.0, 0.0, e(1.0) / (1.0 + e(1.0))]
    );
    assert!(p.as_slice()[4..12].iter().all(|x| x.is_nan()));
    assert!(p.as_slice()[12..16].iter().all(|x| x.is_nan()));
    assert_eq!(&p.as_slice()[16..20], &[0.25; 4]);
    assert_eq!(&p.as_slice()[20..], &[0.5, 0.0, 0.0, 0.5]);
    let composition = composed(&scores.view().into_dyn(), 1).unwrap();
    assert_eq!(canonical(p.as_slice()), canonical(composition.as_slice()));
}

#[test]
fn an_empty_axis_gives_an_empty_result_and_an_empty_group_list_too() {
    let empty_axis = Tensor::<3>::zeros([2, 0, 3]).unwrap();
    let p = softmax_axis(&empty_axis, 1).unwrap();
    assert_eq!((p.shape(), p.len()), (&[2, 0, 3], 0));
    assert_eq!(softmax_axis(&empty_axis, 2).unwrap().len(), 0);
    // Huge extents beside the zero: nothing is walked.
    let wide = View::<2, f32>::from_parts(&[], [usize::MAX, 0], [0, 0], 0).unwrap();
    assert_eq!(softmax_axis(&wide, 0).unwrap().shape(), &[usize::MAX, 0]);
    assert_eq!(softmax_axis(&wide, 1).unwrap().shape(), &[usize::MAX, 0]);
    let scalar = Tensor::<0>::full([], 1.0).unwrap();
    assert_eq!(
        softmax_axis(&scalar, 0),
        Err(Error::AxisOutOfBounds {
            op: "softmax_axis",
            axis: 0,
            rank: 0
        })
    );
}

#[test]
fn overflow_allocation_and_output_shape_are_typed_errors() {
    // A valid empty view whose shape has no row-major strides.
    let tall = View::<3, f64>::from_parts(&[], [usize::MAX / 2, 3, 0], [0, 0, 0], 0)
        .unwrap()
        .permute([2, 1, 0])
        .unwrap();
    assert_eq!(
        softmax_axis(&tall, 0).map(|t| t.len()),
        Err(Error::ShapeOverflow { op: "softmax_axis" })
    );
    // One stored value read 2^62 times (stride 0): the output cannot be reserved.
    let data = [0.5_f64];
    let broadcast = View::from_parts(&data, [1 << 62], [0], 0).unwrap();
    assert_eq!(
        softmax_axis(&broadcast, 0).map(|t| t.len()),
        Err(Error::AllocationFailed {
            op: "softmax_axis",
            elements: 1 << 62
        })
    );
    let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    let mut wrong = Tensor::<2>::zeros([2, 1]).unwrap();
    assert_eq!(
        softmax_axis_into(&x, 1, &mut wrong),
        Err(Error::OutputShapeMismatch {
            op: "softmax_axis_into",
            expected: vec![2, 2],
            actual: vec![2, 1]
        })
    );
    assert_eq!(
        softmax_axis_into(&x, 2, &mut wrong),
        Err(Error::AxisOutOfBounds {
            op: "softmax_axis_into",
            axis: 2,
            rank: 2
        })
    );
}

#[test]
fn attention_scores_over_the_last_axis_sum_to_one() {
    // A causal mask on [H = 2, T = 3, T = 3] scores, then softmax over the last axis.
    let scores = Tensor::from_fn([2, 3, 3], |[h, i, j]| {
        if j <= i {
            (h + i * j) as f32 * 0.5
        } else {
            f32::NEG_INFINITY
        }
    })
    .unwrap();
    let p = softmax_axis(&scores, 2).unwrap();
    let sums = p.sum_axis(2, RemoveDim).unwrap();
    assert!(sums.as_slice().iter().all(|s| (s - 1.0).abs() < 1e-6));
    assert_eq!(p.get([0, 0, 0]).unwrap(), &1.0);
    assert_eq!(p.get([1, 1, 2]).unwrap(), &0.0);
}
