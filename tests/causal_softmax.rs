//! `causal_softmax` is bit-identical to its composition: the scores with
//! `-inf` written where `j > i + offset`, then `softmax_axis` over the last
//! axis (itself checked against a scalar model in `tests/softmax.rs`), on
//! random shapes, layouts (permuted, padded, stepped, stride-0), offsets
//! and tricky values (NaN, ±inf, ties), in f32 and f64, through every form
//! (ranked, dynamic, method, `_into`), for every thread count and SIMD
//! level. Bad input is a typed error. NaN results match any NaN.

mod common;
#[path = "data_ops/layout.rs"]
mod layout;
#[path = "common/tuning.rs"]
mod tuning;
#[path = "data_ops/values.rs"]
mod values;

use common::with_rank;
use layout::{Layout, coordinates};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::{self, DynTensor, DynView};
use proptest::prelude::*;
use tuning::{LEVELS, under};
use values::{Elem, canonical};

/// The composition: a copy with the masked scores set to `-inf`, then
/// `softmax_axis` over the last axis.
fn composed<F: Elem>(x: &DynView<'_, F>, offset: usize) -> Result<DynTensor<F>, Error> {
    let rank = x.rank();
    let mut masked = x.materialize()?;
    for c in coordinates(x.shape()) {
        if c[rank - 1] > c[rank - 2] + offset {
            masked.view_mut().set(&c, F::neg_infinity())?;
        }
    }
    dynamic::softmax_axis(&masked.view(), rank - 1)
}

type Run<F> = (String, Result<(Vec<usize>, Vec<F>), Error>);

fn forms<F: Elem, D: Dimension>(api: &str, view: ArrayBase<&[F], D>, offset: usize) -> Vec<Run<F>> {
    let pair = |t: ArrayBase<Vec<F>, D>| (t.shape().as_ref().to_vec(), t.into_vec());
    let mut out = view.materialize().expect("output");
    out.view_mut().fill(<F as Elem>::from_f64(7.0));
    let into = causal_softmax_into(&view, offset, &mut out);
    vec![
        (api.to_string(), causal_softmax(&view, offset).map(pair)),
        (
            format!("{api} method"),
            view.causal_softmax(offset).map(pair),
        ),
        (format!("{api} _into"), into.map(|()| pair(out))),
    ]
}

fn every_form<F: Elem>(view: &DynView<'_, F>, offset: usize) -> Vec<Run<F>> {
    let mut runs = forms("dynamic", *view, offset);
    with_rank!(view.rank(), [0 1 2 3 4], |R| {
        let ranked: View<'_, R, F> = view.into_ranked().expect("rank");
        runs.extend(forms("ranked", ranked, offset));
    });
    runs
}

fn check<F: Elem>(layout: &Layout, seed: u64, offset: usize, nan_free: bool) {
    let owner = values::owner::<F>(layout, seed, nan_free, None);
    let view = layout.view(&owner);
    let want = composed(&view, offset).expect("composition");
    for (what, run) in every_form(&view, offset) {
        let (shape, values) = run.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(shape, layout.shape, "{what}");
        assert_eq!(
            canonical(&values),
            canonical(want.as_slice()),
            "{what} {} offset {offset}",
            F::NAME
        );
    }
}

fn case() -> impl Strategy<Value = (Layout, u64, usize, bool)> {
    (
        prop::collection::vec(0_usize..=5, 2..=4),
        any::<u64>(),
        0_usize..=6,
        any::<bool>(),
    )
        .prop_flat_map(|(shape, seed, offset, nan_free)| {
            (
                layout::layout(shape),
                Just(seed),
                Just(offset),
                Just(nan_free),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn f64_equals_the_masked_composition((layout, seed, offset, nan_free) in case()) {
        check::<f64>(&layout, seed, offset, nan_free);
    }

    #[test]
    fn f32_equals_the_masked_composition((layout, seed, offset, nan_free) in case()) {
        check::<f32>(&layout, seed, offset, nan_free);
    }

    /// Long rows (several tree leaves, the mask boundary inside a leaf).
    #[test]
    fn long_rows_equal_the_composition(
        queries in 1_usize..=3,
        keys in 1_usize..=400,
        seed in any::<u64>(),
        transposed in any::<bool>(),
    ) {
        let layout = if transposed {
            Layout::permuted(&[queries, keys], &[1, 0])
        } else {
            Layout::dense(&[queries, keys])
        };
        let offset = keys.saturating_sub(queries + seed as usize % 200);
        check::<f32>(&layout, seed, offset, true);
        check::<f64>(&layout, seed, offset, false);
    }

    #[test]
    fn threads_and_simd_levels_give_the_same_bits(
        (layout, seed, offset, nan_free) in case(),
        threads in 1_usize..=3,
        level in 0_usize..3,
    ) {
        let owner = values::owner::<f32>(&layout, seed, nan_free, None);
        let view = layout.view(&owner);
        let run = || canonical(causal_softmax(&view, offset).expect("softmax").as_slice());
        let reference = run();
        prop_assert_eq!(under(LEVELS[level], threads, run), reference);
    }
}

#[test]
fn a_prompt_and_a_kv_cache_step() {
    // A [H = 2, T = 3, T = 3] prompt: row i sees keys 0..=i.
    let scores = Tensor::from_fn([2, 3, 3], |[h, i, j]| (h + i * j) as f32 * 0.5).unwrap();
    let p = causal_softmax(&scores, 0).unwrap();
    for h in 0..2 {
        for i in 0..3 {
            for j in i + 1..3 {
                assert_eq!(p.get([h, i, j]).unwrap(), &0.0);
            }
        }
    }
    assert_eq!(p.get([0, 0, 0]).unwrap(), &1.0);
    // A cache of 5 keys and 2 new queries: offset 3, the last row sees all.
    let scores = Tensor::from_fn([2, 5], |[i, j]| (i + j) as f64).unwrap();
    let p = causal_softmax(&scores, 3).unwrap();
    assert_eq!(p.get([0, 4]).unwrap(), &0.0);
    let last = softmax_axis(&scores.view().slice(0, 1..2).unwrap(), 1).unwrap();
    assert_eq!(&p.as_slice()[5..], last.as_slice());
    // A fully masked live part: every live score -inf gives NaN, as the composition.
    let inf = f64::NEG_INFINITY;
    let scores = Tensor::from_vec([1, 2], vec![inf, 1.0]).unwrap();
    assert!(
        causal_softmax(&scores, 0)
            .unwrap()
            .as_slice()
            .iter()
            .all(|v| v.is_nan())
    );
}

#[test]
fn rank_overflow_allocation_and_output_shape_are_typed_errors() {
    let vector = Tensor::<1>::zeros([3]).unwrap();
    assert_eq!(
        causal_softmax(&vector, 0),
        Err(Error::RankTooSmall {
            op: "causal_softmax",
            rank: 1,
            minimum: 2
        })
    );
    let tall = View::<3, f64>::from_parts(&[], [usize::MAX / 2, 3, 0], [0, 0, 0], 0)
        .unwrap()
        .permute([2, 1, 0])
        .unwrap();
    assert_eq!(
        causal_softmax(&tall, 0).map(|t| t.len()),
        Err(Error::ShapeOverflow {
            op: "causal_softmax"
        })
    );
    let data = [0.5_f64];
    let broadcast = View::from_parts(&data, [1 << 61, 2], [0, 0], 0).unwrap();
    assert_eq!(
        causal_softmax(&broadcast, 0).map(|t| t.len()),
        Err(Error::AllocationFailed {
            op: "causal_softmax",
            elements: 1 << 62
        })
    );
    let x = Tensor::<2>::zeros([2, 2]).unwrap();
    let mut wrong = Tensor::<2>::full([2, 1], 9.0).unwrap();
    assert_eq!(
        causal_softmax_into(&x, 0, &mut wrong),
        Err(Error::OutputShapeMismatch {
            op: "causal_softmax_into",
            expected: vec![2, 2],
            actual: vec![2, 1]
        })
    );
    assert_eq!(wrong.as_slice(), &[9.0, 9.0]);
}
