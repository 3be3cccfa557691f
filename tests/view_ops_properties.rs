//! Every view operation, old and new, against a coordinate-by-coordinate
//! model, through the ranked API (a rank chosen at run time, 0 to 8) and
//! the dynamic API in lockstep.
//!
//! The model (`view_properties/model.rs` and `common/view_ops_model.rs`)
//! knows no strides: a view is its shape and the storage offset of each
//! coordinate in row-major order. Random chains mix transpose, permute,
//! slice, reshape, get, slice_step, reshape_strided, split_axis,
//! merge_axes, unsqueeze, squeeze, select, broadcast_to, split_at, chunk,
//! axis_iter and axis_chunks_iter (every piece checked, the chain going on
//! with one of them). After every step both APIs must give the model's
//! shape, offsets, values, contiguity and `get` at every coordinate, the
//! same strides and base offset as each other, or exactly the model's
//! typed error, and never panic. `reshape_strided` must succeed exactly
//! when some strides reproduce the view's offsets in the new shape (the
//! strides-independent meaning of PyTorch's `view` rule) and then read what
//! `materialize()` + `reshape` reads. Chains start from row-major owners,
//! from `from_parts` layouts with arbitrary strides (0, gaps, overlaps, a
//! base offset: `as_strided`), and from empty views whose strides and base
//! offset reach `usize::MAX`; wild requests use `usize::MAX` arguments.

#[path = "view_ops_properties/apply.rs"]
mod apply;
mod common;
#[path = "common/layouts.rs"]
mod layouts;
#[path = "view_properties/model.rs"]
mod model;
#[path = "view_ops_properties/ops.rs"]
mod ops;
#[path = "common/view_ops_model.rs"]
mod ops_model;
#[path = "view_ops_properties/outsized.rs"]
mod outsized;
#[path = "common/ranked_views.rs"]
mod ranked_views;
#[path = "view_properties/requests.rs"]
mod requests;

use apply::{dynamic_apply, expected, pick, ranked_apply};
use common::with_rank;
use llm_from_scratch::tensor::View;
use llm_from_scratch::tensor::dynamic::DynView;
use model::*;
use ops::{ENUMERABLE, Op, pieces, valid_op, wild_op};
use ops_model::*;
use outsized::{huge_broadcast, huge_iterator};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use ranked_views::{RankedView, array};
use requests::{Request, Stream};

type Value = i64;
type Ranked<'a> = RankedView<'a, Value>;
type Dynamic<'a> = DynView<'a, Value>;

/// Distinct values, so a value names the offset it was read from.
fn distinct_values(len: usize) -> Vec<Value> {
    (0..len).map(|offset| 3 * offset as Value + 1).collect()
}

/// Checks one view of each API against the model (`ranked` is `None` once
/// the chain left what the ranked API can express).
fn check(
    ranked: Option<&Ranked<'_>>,
    dynamic: &Dynamic<'_>,
    model: &Model,
    data: &[Value],
) -> Result<(), TestCaseError> {
    let values: Vec<Value> = model.offsets.iter().map(|&o| data[o]).collect();
    prop_assert_eq!(dynamic.shape(), model.shape.as_slice());
    prop_assert_eq!(
        (dynamic.len(), dynamic.is_empty()),
        (model.len(), model.len() == 0)
    );
    prop_assert_eq!(dynamic.offsets().collect::<Vec<_>>(), model.offsets.clone());
    prop_assert_eq!(dynamic.iter().copied().collect::<Vec<_>>(), values.clone());
    prop_assert_eq!(dynamic.is_contiguous(), model.contiguous());
    if let Some(&first) = model.offsets.first() {
        prop_assert_eq!(dynamic.base_offset(), first);
    }
    let all = coordinates(&model.shape);
    for (coordinate, value) in all.iter().zip(&values) {
        prop_assert_eq!(dynamic.get(coordinate).copied(), Ok(*value));
    }
    if let Some(ranked) = ranked {
        prop_assert_eq!(ranked.shape(), model.shape.clone());
        prop_assert_eq!(ranked.rank(), model.rank());
        prop_assert_eq!(ranked.strides(), dynamic.strides().to_vec());
        prop_assert_eq!(ranked.base_offset(), dynamic.base_offset());
        prop_assert_eq!(ranked.len(), model.len());
        prop_assert_eq!(ranked.offsets(), model.offsets.clone());
        prop_assert_eq!(ranked.values(), values.clone());
        prop_assert_eq!(ranked.is_contiguous(), model.contiguous());
        for (coordinate, value) in all.iter().zip(&values) {
            prop_assert_eq!(ranked.get(coordinate), Ok(*value));
        }
    }
    Ok(())
}

thread_local! {
    /// Outcomes per operation on this thread: `[successes, errors]`.
    static TALLY: std::cell::RefCell<std::collections::BTreeMap<String, [usize; 2]>> =
        std::cell::RefCell::default();
}

fn tally(op: &Op, ok: bool) {
    let name = format!("{op:?}");
    let name = name
        .split(['(', ' '])
        .next()
        .unwrap_or_default()
        .to_string();
    let name = match op {
        Op::Old(request) => format!("{request:?}")
            .split('(')
            .next()
            .unwrap_or_default()
            .to_string(),
        _ => name,
    };
    TALLY.with(|t| t.borrow_mut().entry(name).or_default()[usize::from(!ok)] += 1);
}

/// What one operation gave in each world: its pieces (one for a plain
/// transform) or an error; `None` for the ranked API where the operation
/// does not compile at this rank.
struct Outcome<'a> {
    model: Result<Vec<Model>, E>,
    ranked: Option<Result<Vec<Ranked<'a>>, E>>,
    dynamic: Result<Vec<Dynamic<'a>>, E>,
}

/// The chain's state: the ranked view while expressible, the dynamic view, the model.
struct Chain<'a> {
    ranked: Option<Ranked<'a>>,
    dynamic: Dynamic<'a>,
    model: Model,
}

/// Runs `op` on the three worlds; on success they move to the picked piece.
fn step<'a>(op: &Op, chain: &mut Chain<'a>, data: &[Value]) -> Result<(), TestCaseError> {
    if let Op::Old(Request::Get(index)) = op {
        let expected = expected_offset(&chain.model, index, "get").map(|offset| data[offset]);
        prop_assert_eq!(chain.dynamic.get(index).copied(), expected.clone());
        if let Some(ranked) = &chain.ranked {
            prop_assert_eq!(ranked.get(index), expected);
        }
        return Ok(());
    }
    match op {
        Op::BroadcastTo(target)
            if broadcast_checks(&chain.model, target).is_ok() && count(target) > ENUMERABLE =>
        {
            return huge_broadcast(chain, target, data);
        }
        Op::AxisIter(axis, _) | Op::AxisChunks(axis, ..)
            if pieces(op, &chain.model) > ENUMERABLE =>
        {
            return huge_iterator(op, *axis, chain);
        }
        _ => {}
    }
    let broadcast = |r: Ranked<'a>, target: &Vec<usize>| r.broadcast_to(target);
    let ranked = chain
        .ranked
        .and_then(|r| ranked_apply!(op, r, broadcast, Ranked<'a>));
    let broadcast = |d: Dynamic<'a>, target: &Vec<usize>| d.broadcast_to(target);
    let dynamic = dynamic_apply!(op, chain.dynamic, broadcast, Dynamic<'a>);
    let outcome = Outcome {
        model: expected(op, &chain.model),
        ranked,
        dynamic,
    };
    tally(op, outcome.model.is_ok());
    match outcome.model {
        Err(expected) => {
            prop_assert_eq!(
                outcome.dynamic.err(),
                Some(expected.clone()),
                "dynamic {:?}",
                op
            );
            if let Some(ranked) = outcome.ranked {
                prop_assert_eq!(ranked.err(), Some(expected), "ranked {:?}", op);
            }
        }
        Ok(models) => {
            let dynamic = match outcome.dynamic {
                Ok(pieces) => pieces,
                Err(error) => {
                    return Err(TestCaseError::fail(format!("dynamic {op:?}: {error:?}")));
                }
            };
            let ranked = match outcome.ranked {
                Some(Ok(pieces)) => Some(pieces),
                Some(Err(error)) => {
                    return Err(TestCaseError::fail(format!("ranked {op:?}: {error:?}")));
                }
                None => None,
            };
            prop_assert_eq!(dynamic.len(), models.len(), "pieces of {:?}", op);
            for (k, (piece, model)) in dynamic.iter().zip(&models).enumerate() {
                check(ranked.as_ref().map(|r| &r[k]), piece, model, data)?;
            }
            if let Op::ReshapeStrided(shape) = op {
                // The same values as the copy reshaped (the strict reshape).
                let copied = dynamic[0].materialize().expect("small");
                let strict = copied.view().reshape(shape).expect("a copy is contiguous");
                prop_assert!(strict.iter().eq(dynamic[0].iter()));
            }
            if models.is_empty() {
                return Ok(()); // an empty axis has no piece: stay on the view
            }
            let k = pick(op, models.len());
            chain.ranked = ranked.map(|mut pieces| pieces.swap_remove(k));
            chain.dynamic = dynamic[k];
            chain.model = models[k].clone();
        }
    }
    Ok(())
}

/// Runs the operations drawn from `seeds` (kind, wild, seed) from a start.
fn run(
    mut chain: Chain<'_>,
    data: &[Value],
    seeds: &[(u8, bool, u64)],
) -> Result<(), TestCaseError> {
    check(chain.ranked.as_ref(), &chain.dynamic, &chain.model, data)?;
    for &(kind, wild, seed) in seeds {
        let stream = &mut Stream(seed);
        let op = if wild {
            wild_op(&chain.model, kind, stream)
        } else {
            valid_op(&chain.model, kind, stream)
        };
        step(&op, &mut chain, data)?;
    }
    Ok(())
}

/// A chain starting at a `from_parts` layout over `data` (both APIs).
fn start<'a>(data: &'a [Value], shape: &[usize], strides: &[usize], base: usize) -> Chain<'a> {
    let ranked = with_rank!(shape.len(), [0 1 2 3 4 5 6 7 8], |R| {
        RankedView::from(View::from_parts(data, array::<R>(shape), array(strides), base).expect("in bounds"))
    });
    let dynamic =
        DynView::from_parts(data, shape.to_vec(), strides.to_vec(), base).expect("in bounds");
    let model = Model {
        shape: shape.to_vec(),
        offsets: layouts::strided_offsets(shape, strides, base),
    };
    Chain {
        ranked: Some(ranked),
        dynamic,
        model,
    }
}

fn shapes() -> impl Strategy<Value = Vec<usize>> {
    layouts::shapes(4, 4)
}

fn strided_layouts() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, usize)> {
    layouts::strided_layouts(4, 4)
}

fn seeds(wild: bool, max: usize) -> impl Strategy<Value = Vec<(u8, bool, u64)>> {
    let wildness = if wild {
        any::<bool>().boxed()
    } else {
        Just(false).boxed()
    };
    prop::collection::vec((any::<u8>(), wildness, any::<u64>()), 1..max)
}

/// 384 cases per property, times `LLM_PROPTEST_SCALE` (default 1) for a
/// long local run: `LLM_PROPTEST_SCALE=50 cargo test --release --test view_ops_properties`.
fn cases() -> u32 {
    let scale = std::env::var("LLM_PROPTEST_SCALE")
        .ok()
        .and_then(|v| v.parse().ok());
    384_u32.saturating_mul(scale.unwrap_or(1))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Valid chains over row-major owners agree with the model, in both APIs.
    #[test]
    fn valid_chains_of_every_operation_agree_with_the_model(shape in shapes(), seeds in seeds(false, 10)) {
        let data = distinct_values(count(&shape));
        let strides = row_major_strides(&shape, "from_vec").expect("small");
        run(start(&data, &shape, &strides, 0), &data, &seeds)?;
    }

    /// Valid and wild requests interleaved: each returns the model's view or
    /// exactly its typed error (axis and extents), never a panic.
    #[test]
    fn wild_requests_return_the_specified_error(shape in shapes(), seeds in seeds(true, 12)) {
        let data = distinct_values(count(&shape));
        let strides = row_major_strides(&shape, "from_vec").expect("small");
        run(start(&data, &shape, &strides, 0), &data, &seeds)?;
    }

    /// `as_strided` layouts (stride 0, gaps, overlaps, a base offset) under every operation.
    #[test]
    fn strided_layouts_agree_with_the_model(
        layout in strided_layouts(),
        slack in 0_usize..3,
        seeds in seeds(true, 10),
    ) {
        let (shape, strides, base) = &layout;
        let data = distinct_values(layouts::reach(shape, strides, *base) + slack);
        run(start(&data, shape, strides, *base), &data, &seeds)?;
    }

    /// Empty views whose strides and base offset reach `usize::MAX` (valid:
    /// they read nothing) take every operation without an overflow.
    #[test]
    fn empty_views_with_huge_strides_and_base_take_every_operation(
        shape in shapes().prop_filter("non-scalar", |s| !s.is_empty()),
        zero in any::<prop::sample::Index>(),
        strides in prop::collection::vec(prop_oneof![0_usize..=7, Just(usize::MAX), Just(usize::MAX / 3)], 4),
        base in prop_oneof![0_usize..=5, Just(usize::MAX)],
        seeds in seeds(true, 12),
    ) {
        let mut shape = shape;
        let axis = zero.index(shape.len());
        shape[axis] = 0;
        run(start(&[], &shape, &strides[..shape.len()], base), &[], &seeds)?;
    }

    /// reshape_strided succeeds exactly when some strides reproduce the
    /// view's offsets in the new shape, then reads what materialize() +
    /// reshape reads; a refusal names the model's run.
    #[test]
    fn reshape_strided_succeeds_exactly_when_strides_allow(
        layout in strided_layouts(),
        targets in prop::collection::vec(any::<u64>(), 1..6),
    ) {
        let (shape, strides, base) = &layout;
        let data = distinct_values(layouts::reach(shape, strides, *base));
        for seed in targets {
            let mut chain = start(&data, shape, strides, *base);
            let op = valid_op(&chain.model, 5 + (seed % 2) as u8, &mut Stream(seed));
            step(&op, &mut chain, &data)?;
        }
    }
}

/// The model's reshape_strided rule on the cases PyTorch's documentation
/// and ATen's tests use: a transposed matrix cannot be flattened but each
/// axis can be split; a column slice keeps its rows.
#[test]
fn the_model_follows_pytorch_view_on_known_layouts() {
    let t = Model::owner(&[4, 3]).permute(&[1, 0]); // [3, 4], strides [1, 3]
    assert_eq!(
        expected_reshape_strided(&t, &[12]).unwrap_err(),
        E::NonStrideCompatibleReshape {
            axes: [1, 1],
            elements: 4
        }
    );
    assert!(expected_reshape_strided(&t, &[3, 1, 2, 2]).is_ok());
    let rows = Model::owner(&[2, 8]).slice(1, 1, 7); // [2, 6], strides [8, 1]
    assert!(expected_reshape_strided(&rows, &[2, 2, 3]).is_ok());
    assert_eq!(
        expected_reshape_strided(&rows, &[12]).unwrap_err(),
        E::NonStrideCompatibleReshape {
            axes: [1, 1],
            elements: 6
        }
    );
}

/// The generators reach every operation, both its successes and its errors,
/// many times: 600 seeded chains (valid, wild, strided, empty) with the
/// counts printed (`--nocapture`).
#[test]
fn every_operation_succeeds_and_fails_many_times() -> Result<(), TestCaseError> {
    let mut seeds = Stream(20_240_606);
    for case in 0..600 {
        let wild = case % 2 == 1;
        let shape: Vec<usize> = (0..seeds.below(5)).map(|_| seeds.below(5)).collect();
        let strides: Vec<usize> = if case % 3 == 0 {
            shape.iter().map(|_| seeds.below(8)).collect()
        } else {
            row_major_strides(&shape, "from_vec").expect("small")
        };
        let base = seeds.below(4);
        let data = distinct_values(layouts::reach(&shape, &strides, base));
        let ops: Vec<(u8, bool, u64)> = (0..12)
            .map(|_| {
                (
                    seeds.next() as u8,
                    wild && seeds.below(2) == 0,
                    seeds.next(),
                )
            })
            .collect();
        run(start(&data, &shape, &strides, base), &data, &ops)?;
    }
    let tally = TALLY.with(|t| t.borrow().clone());
    println!("operation: successes, errors");
    for (name, [ok, failed]) in &tally {
        println!("  {name:<16} {ok:>6} {failed:>6}");
    }
    for name in [
        "Transpose",
        "Permute",
        "Slice",
        "Reshape",
        "SliceStep",
        "ReshapeStrided",
        "SplitAxis",
        "MergeAxes",
        "Unsqueeze",
        "Squeeze",
        "Select",
        "BroadcastTo",
        "SplitAt",
        "Chunk",
        "AxisIter",
        "AxisChunks",
    ] {
        let [ok, failed] = tally.get(name).copied().unwrap_or_default();
        prop_assert!(
            ok >= 50 && failed >= 20,
            "{} only {} successes, {} errors",
            name,
            ok,
            failed
        );
    }
    Ok(())
}
