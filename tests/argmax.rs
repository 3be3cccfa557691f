//! `argmax_axis` points at the value `max_axis` keeps: the first NaN, else
//! the earliest of the largest values (`-0.0` and `+0.0` tie, the earlier
//! wins). Checked against a coordinate-by-coordinate model and against
//! `max_axis` itself (the value at the returned position has the exact bits
//! `max_axis` returns, NaN payloads included), on random shapes and layouts
//! in f32 and f64, `KeepDim` and `RemoveDim`, through the ranked and the
//! dynamic API, methods and `_into` twins; bad input as typed errors.

mod common;
#[path = "data_ops/layout.rs"]
mod layout;
#[path = "data_ops/values.rs"]
mod values;

use common::with_rank;
use layout::{Layout, coordinates};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::{self, DynTensor, DynView};
use proptest::prelude::*;
use values::{Elem, exact};

/// The model: the first NaN's position if the group has one, else the first
/// position whose value equals (`==`) the group's largest value.
fn model_group<F: Elem>(group: &[F]) -> usize {
    if let Some(first_nan) = group.iter().position(|x| x.is_nan()) {
        return first_nan;
    }
    let largest = group
        .iter()
        .copied()
        .fold(group[0], |a, b| if b > a { b } else { a });
    group.iter().position(|&x| x == largest).expect("non-empty")
}

/// The model over every group, in row-major order of the other axes.
fn model<F: Elem>(layout: &Layout, owner: &DynTensor<F>, axis: usize) -> Vec<usize> {
    if layout.shape[axis] == 0 {
        return Vec::new(); // EmptyMaxAxis
    }
    let mut reduced = layout.shape.clone();
    reduced[axis] = 1;
    coordinates(&reduced)
        .into_iter()
        .map(|mut c| {
            let group: Vec<F> = (0..layout.shape[axis])
                .map(|i| {
                    c[axis] = i;
                    owner.as_slice()[layout.offset(&c)]
                })
                .collect();
            model_group(&group)
        })
        .collect()
}

/// One form of the op: its name, whether it is the `_into` twin, its result.
type Run = (String, bool, Result<(Vec<usize>, Vec<usize>), Error>);

/// The free function, the method and the `_into` twin (into `out`) with the
/// marker `keep`, for a view of either dimension: the same generic functions
/// serve both.
fn forms<F: Elem, D: Dimension, E: Dimension, K: ReduceDim<D, Output = E>>(
    api: &str,
    view: ArrayBase<&[F], D>,
    axis: usize,
    keep: K,
    mut out: ArrayBase<Vec<usize>, E>,
) -> Vec<Run> {
    let pair = |t: ArrayBase<Vec<usize>, E>| (t.shape().as_ref().to_vec(), t.into_vec());
    let into = argmax_axis_into(&view, axis, keep, &mut out);
    vec![
        (
            api.to_string(),
            false,
            argmax_axis(&view, axis, keep).map(pair),
        ),
        (
            format!("{api} method"),
            false,
            view.argmax_axis(axis, keep).map(pair),
        ),
        (format!("{api} _into"), true, into.map(|()| pair(out))),
    ]
}

/// Every form of the op with `keep`, into outputs of `out_shape`: the
/// dynamic API, and the ranked API at the view's rank.
fn every_form<F: Elem>(
    view: &DynView<'_, F>,
    axis: usize,
    keep: bool,
    out_shape: &[usize],
) -> Vec<Run> {
    let out = DynTensor::full(out_shape.to_vec(), usize::MAX).expect("output");
    let mut runs = forms("dynamic", *view, axis, keep, out);
    with_rank!(view.rank(), [0 1 2 3 4], |R| {
        let ranked: View<'_, R, F> = view.into_ranked().expect("rank");
        if keep {
            runs.extend(forms("ranked", ranked, axis, KeepDim, full(out_shape)));
        } else {
            removed::<R, F>(ranked, axis, out_shape, &mut runs);
        }
    });
    runs
}

/// A typed owner of `shape` full of `usize::MAX` (its rank inferred from the use).
fn full<const N: usize>(shape: &[usize]) -> Tensor<N, usize> {
    let shape: [usize; N] = shape.try_into().expect("rank");
    Tensor::full(shape, usize::MAX).expect("output")
}

/// The `RemoveDim` forms where they compile (rank >= 1), and the method of
/// an owner.
fn removed<const R: usize, F: Elem>(
    view: View<'_, R, F>,
    axis: usize,
    out_shape: &[usize],
    runs: &mut Vec<Run>,
) {
    with_rank!(R, [1 2 3 4], |Q| {
        let view: View<'_, Q, F> = view.into_dyn().into_ranked().expect("rank");
        runs.extend(forms("ranked", view, axis, RemoveDim, full::<{ Q - 1 }>(out_shape)));
        let owned = view.materialize().expect("copy");
        let pair = |t: Tensor<{ Q - 1 }, usize>| (t.shape().to_vec(), t.into_vec());
        let result = owned.argmax_axis(axis, RemoveDim).map(pair);
        runs.push(("Tensor method".to_string(), false, result));
    }, _ => {})
}

fn check<F: Elem>(layout: &Layout, seed: u64, axis: usize, nan_free: bool) {
    let owner = values::owner::<F>(layout, seed, nan_free, None);
    let view = layout.view(&owner);
    let positions = model(layout, &owner, axis);
    for keep in [true, false] {
        let mut shape = layout.shape.clone();
        if keep {
            shape[axis] = 1;
        } else {
            shape.remove(axis);
        }
        let max = dynamic::max_axis(&view, axis, keep);
        if layout.shape[axis] == 0 {
            // Each error names the function called.
            let want = |op| Err(Error::EmptyMaxAxis { op, axis });
            assert_eq!(max.map(|_| ()), want("max_axis"));
            for (what, into, run) in every_form(&view, axis, keep, &shape) {
                let op = if into {
                    "argmax_axis_into"
                } else {
                    "argmax_axis"
                };
                assert_eq!(run.map(|_| ()), want(op), "{what}");
            }
            continue;
        }
        for (what, _, run) in every_form(&view, axis, keep, &shape) {
            let (got_shape, got) = run.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(
                (&got_shape, &got),
                (&shape, &positions),
                "{what} {} keep {keep}",
                F::NAME
            );
        }
        // The value at each position is the one max_axis keeps, to the bit.
        let mut reduced = layout.shape.clone();
        reduced[axis] = 1;
        let kept: Vec<F> = coordinates(&reduced)
            .into_iter()
            .zip(&positions)
            .map(|(mut c, &i)| {
                c[axis] = i;
                owner.as_slice()[layout.offset(&c)]
            })
            .collect();
        assert_eq!(
            exact(&kept),
            exact(max.expect("max").as_slice()),
            "{} keep {keep}",
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
        .prop_flat_map(|(shape, seed, nan_free)| {
            let axis = 0..shape.len();
            (layout::layout(shape), axis, Just(seed), Just(nan_free))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(320))]

    #[test]
    fn argmax_f64_follows_the_max_policy((layout, axis, seed, nan_free) in case()) {
        check::<f64>(&layout, seed, axis, nan_free);
    }

    #[test]
    fn argmax_f32_follows_the_max_policy((layout, axis, seed, nan_free) in case()) {
        check::<f32>(&layout, seed, axis, nan_free);
    }

    /// Long dense groups (the two-pass search) and their transposes (one pass).
    #[test]
    fn long_groups_follow_the_max_policy(
        rows in 1_usize..=3,
        extent in 1_usize..=200,
        seed in any::<u64>(),
        nan_free in any::<bool>(),
    ) {
        check::<f32>(&Layout::dense(&[rows, extent]), seed, 1, nan_free);
        check::<f64>(&Layout::dense(&[extent, rows]), seed, 0, nan_free);
    }

    /// A bad axis, then an empty axis, come before the output shape of `_into`.
    #[test]
    fn bad_axes_are_typed_errors(shape in layout::shape(4, 3), extra in 0_usize..3) {
        let rank = shape.len();
        let axis = rank + extra;
        let owner = Layout::dense(&shape).owner(|k| k as f64);
        let want = |op| Err(Error::AxisOutOfBounds { op, axis, rank });
        for (what, into, run) in every_form(&owner.view(), axis, true, &vec![7; rank]) {
            let op = if into { "argmax_axis_into" } else { "argmax_axis" };
            prop_assert_eq!(run.map(|_| ()), want(op), "{}", what);
        }
    }
}

#[test]
fn ties_of_zeros_keep_the_earlier_one_in_every_kernel() {
    // Short (one pass), long dense (two passes) and strided groups.
    for extent in [2, 5, 16, 40] {
        for (first, second) in [(-0.0, 0.0), (0.0, -0.0)] {
            let mut row = vec![-1.0_f64; extent];
            row[extent / 2] = first;
            row[extent - 1] = second;
            let t = Tensor::from_vec([1, extent], row.clone()).unwrap();
            assert_eq!(
                t.argmax_axis(1, RemoveDim).unwrap().as_slice(),
                &[extent / 2]
            );
            let column = Tensor::from_vec([extent, 1], row).unwrap();
            assert_eq!(
                column.argmax_axis(0, RemoveDim).unwrap().as_slice(),
                &[extent / 2]
            );
            let transposed = column.view().transpose(0, 1).unwrap();
            assert_eq!(
                argmax_axis(&transposed, 1, KeepDim).unwrap().as_slice(),
                &[extent / 2]
            );
        }
    }
    // The first NaN wins over a later larger value and a later NaN.
    let row = [1.0, f32::NAN, f32::INFINITY, -f32::NAN];
    let t = Tensor::from_vec([4], row.to_vec()).unwrap();
    assert_eq!(t.argmax_axis(0, RemoveDim).unwrap().as_slice(), &[1]);
}

#[test]
fn greedy_decoding_picks_the_top_logit_of_the_last_position() {
    // Logits [T = 2, V = 5]; the next token is argmax over the vocabulary.
    let logits = Tensor::from_vec(
        [2, 5],
        vec![0.1, 0.2, 0.3, 0.4, 0.5, 2.0, 9.5, -1.0, 9.5, 3.0],
    )
    .unwrap();
    let last = logits.view().slice(0, 1..2).unwrap();
    assert_eq!(argmax_axis(&last, 1, RemoveDim).unwrap().as_slice(), &[1]);
    assert_eq!(argmax_axis(&logits, 1, KeepDim).unwrap().shape(), &[2, 1]);
}

#[test]
fn empty_axes_allocation_and_output_shape_are_typed_errors() {
    let empty = Tensor::<2>::zeros([3, 0]).unwrap();
    assert_eq!(
        empty.argmax_axis(1, KeepDim),
        Err(Error::EmptyMaxAxis {
            op: "argmax_axis",
            axis: 1
        })
    );
    // No groups at all: an empty output, not an error.
    assert_eq!(empty.argmax_axis(0, RemoveDim).unwrap().shape(), &[0]);
    assert_eq!(
        empty.argmax_axis(1, KeepDim).unwrap_err().to_string(),
        "argmax_axis: axis 1 has extent 0, the maximum of no values is undefined"
    );
    let data = [0.5_f64, 1.5];
    let broadcast = View::from_parts(&data, [1 << 62, 2], [0, 1], 0).unwrap();
    assert_eq!(
        argmax_axis(&broadcast, 1, RemoveDim).map(|t| t.len()),
        Err(Error::AllocationFailed {
            op: "argmax_axis",
            elements: 1 << 62
        })
    );
    let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    let mut wrong = Tensor::<1, usize>::zeros([3]).unwrap();
    assert_eq!(
        argmax_axis_into(&x, 1, RemoveDim, &mut wrong),
        Err(Error::OutputShapeMismatch {
            op: "argmax_axis_into",
            expected: vec![2],
            actual: vec![3]
        })
    );
}
