//! Operation sequences against a naive model (state-machine style).
//!
//! Each case draws a random owner (rank 0 to 5, extents 0 to 4, values with
//! NaN payloads, signed zeros and ties) and up to 12 operations: view
//! transforms (transpose, permute, slice, reshape), materialize, unary maps,
//! broadcast binary maps with a second (sometimes transposed) owner, and
//! sum / mean / max reductions. The crate runs them through the dynamic API
//! (ranks change along the way); [`Model`] runs them with plain coordinate
//! loops over values kept in logical order, tracking where each value lives
//! in the current owner's storage. After every operation the shape, the
//! storage offsets, the contiguity, the values (bit for bit) or the typed
//! error must agree. Operations are drawn as raw numbers and resolved
//! against the current shape, so about one in ten is invalid on purpose.
//!
//! Case count: 1024 by default (a few seconds in a debug build).
//! `LLM_PROPTEST_SCALE=100` multiplies it (100x for a long local run), and
//! `OP_SEQUENCE_CASES=n` sets the base count:
//! `LLM_PROPTEST_SCALE=100 cargo test --release --test op_sequence`.

#[path = "op_sequence/model.rs"]
mod model;

use llm_from_scratch::Error;
use llm_from_scratch::tensor::dynamic::{self, DynTensor, DynView};
use model::{Model, Reduce, same};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// The base count of sequences (`OP_SEQUENCE_CASES`, default 1024) times
/// `LLM_PROPTEST_SCALE` (default 1).
fn cases() -> u32 {
    let read = |name: &str, default: u32| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    read("OP_SEQUENCE_CASES", 1024).saturating_mul(read("LLM_PROPTEST_SCALE", 1))
}

/// An operation as drawn: raw numbers, resolved against the current shape.
#[derive(Debug, Clone)]
enum Raw {
    Transpose(u8, u8),
    Permute {
        keys: Vec<u8>,
        flaw: u8,
    },
    Slice {
        axis: u8,
        start: u8,
        end: u8,
        flaw: u8,
    },
    Reshape {
        rank: u8,
        slots: Vec<u8>,
        flaw: u8,
    },
    Materialize,
    Map(u8),
    Broadcast {
        axes: Vec<u8>,
        drop: u8,
        lead: Vec<u8>,
        current_left: bool,
        transposed: bool,
        values: Vec<f64>,
        op: u8,
    },
    Reduce {
        kind: u8,
        axis: u8,
        keep: bool,
    },
}

/// An axis for `rank`, out of range about one time in ten.
fn axis(raw: u8, rank: usize) -> usize {
    if raw >= 230 || rank == 0 {
        rank + usize::from(raw % 3)
    } else {
        usize::from(raw) % rank
    }
}

fn flawed(flaw: u8) -> Option<u8> {
    (flaw < 26).then_some(flaw % 3)
}

fn permutation(keys: &[u8], flaw: u8, rank: usize) -> Vec<usize> {
    let mut axes: Vec<usize> = (0..rank).collect();
    axes.sort_by_key(|&a| (keys[a], a));
    match flawed(flaw) {
        Some(0) if rank > 0 && flaw.is_multiple_of(2) => {
            axes.pop();
        }
        Some(0) => axes.push(rank),
        Some(1) if rank > 0 => axes[usize::from(flaw) % rank] = rank + usize::from(flaw % 2),
        Some(_) if rank > 1 => axes[1] = axes[0],
        _ => {}
    }
    axes
}

fn reshape_target(rank: u8, slots: &[u8], flaw: u8, len: usize) -> Vec<usize> {
    let rank = usize::from(rank % 5);
    if flawed(flaw).is_some() {
        return vec![len + 1 + usize::from(flaw % 2)];
    }
    if len == 0 {
        let rank = rank.max(1);
        let mut shape: Vec<usize> = slots[..rank].iter().map(|&s| usize::from(s % 4)).collect();
        shape[usize::from(slots[7]) % rank] = 0;
        return shape;
    }
    let mut shape = vec![1; if len > 1 { rank.max(1) } else { rank }];
    let (mut rest, mut prime, mut k) = (len, 2, 0);
    while rest > 1 {
        while rest % prime == 0 {
            let slot = usize::from(slots[k % slots.len()]) % shape.len();
            shape[slot] *= prime;
            rest /= prime;
            k += 1;
        }
        prime += 1;
    }
    shape
}

fn unary(kind: u8) -> fn(f64) -> f64 {
    [
        |x: f64| x * 2.0 - 1.0,
        |x: f64| -x,
        f64::abs,
        |x: f64| x * x,
    ][usize::from(kind % 4)]
}

fn binary(kind: u8) -> fn(f64, f64) -> f64 {
    [
        |a: f64, b: f64| a - b,
        |a: f64, b: f64| a * b + 1.0,
        |a: f64, b: f64| if a > b { a } else { b },
    ][usize::from(kind % 3)]
}

/// The crate's view after replaying the transforms since the owner was made.
fn rebuild<'a>(owner: &'a DynTensor, transforms: &[Transform]) -> DynView<'a> {
    let mut view = owner.view();
    for transform in transforms {
        view = transform
            .apply(&view)
            .expect("a transform that succeeded before");
    }
    view
}

#[derive(Debug, Clone)]
enum Transform {
    Transpose(usize, usize),
    Permute(Vec<usize>),
    Slice(usize, usize, usize),
    Reshape(Vec<usize>),
}

impl Transform {
    fn apply<'a>(&self, view: &DynView<'a>) -> Result<DynView<'a>, Error> {
        match self {
            Transform::Transpose(a, b) => view.transpose(*a, *b),
            Transform::Permute(axes) => view.permute(axes),
            Transform::Slice(axis, start, end) => view.slice(*axis, *start..*end),
            Transform::Reshape(shape) => view.reshape(shape),
        }
    }

    fn model(&self, model: &Model) -> Result<Model, Error> {
        match self {
            Transform::Transpose(a, b) => model.transpose(*a, *b),
            Transform::Permute(axes) => model.permute(axes),
            Transform::Slice(axis, start, end) => model.slice(*axis, *start, *end),
            Transform::Reshape(shape) => model.reshape(shape),
        }
    }
}

/// Shape, offsets, contiguity and values of a crate view against the model.
fn agree(view: &DynView<'_>, model: &Model) -> Result<(), String> {
    let offsets: Vec<usize> = view.offsets().collect();
    let values: Vec<f64> = view.iter().copied().collect();
    if view.shape() != model.shape.as_slice() || offsets != model.offsets {
        return Err(format!(
            "layout: crate {:?} offsets {offsets:?}, model {:?} offsets {:?}",
            view.shape(),
            model.shape,
            model.offsets
        ));
    }
    if view.is_contiguous() != model.contiguous() {
        return Err(format!(
            "contiguity: crate {}, model {}",
            view.is_contiguous(),
            model.contiguous()
        ));
    }
    match (0..values.len()).find(|&i| !same(model.values[i], values[i])) {
        Some(i) => Err(format!(
            "value {i}: crate {:?}, model {:?}",
            values[i], model.values[i]
        )),
        None => Ok(()),
    }
}

fn outcome<T, E: PartialEq + std::fmt::Debug>(
    got: &Result<T, E>,
    want: &Result<Model, E>,
) -> Result<(), String> {
    match (got, want) {
        (Ok(_), Ok(_)) => Ok(()),
        (Err(e), Err(f)) if e == f => Ok(()),
        (got, want) => Err(format!(
            "crate {:?}, model {:?}",
            got.as_ref().err(),
            want.as_ref().err()
        )),
    }
}

/// What one operation leaves behind when both sides succeed.
enum Next {
    /// A new view of the same owner.
    View(Transform, Model),
    /// A new owner (materialize, map, broadcast, reduce).
    Owner(Box<DynTensor>, Model),
    /// Both sides returned the same error; nothing changes.
    Unchanged,
}

/// Runs the sequence on both sides; the message names the step that disagrees.
fn run(shape: Vec<usize>, values: Vec<f64>, ops: &[Raw]) -> Result<(), String> {
    let mut owner =
        DynTensor::from_vec(shape.clone(), values.clone()).map_err(|e| format!("{e:?}"))?;
    let mut model = Model::owner(shape, values);
    let mut transforms: Vec<Transform> = Vec::new();
    agree(&owner.view(), &model)?;
    for (step, raw) in ops.iter().enumerate() {
        let view = rebuild(&owner, &transforms);
        let next = step_once(&view, &model, raw)
            .map_err(|message| format!("step {step} {raw:?} on {:?}: {message}", view.shape()))?;
        match next {
            Next::View(transform, next_model) => {
                transforms.push(transform);
                model = next_model;
            }
            Next::Owner(next_owner, next_model) => {
                owner = *next_owner;
                model = next_model;
                transforms.clear();
            }
            Next::Unchanged => {}
        }
    }
    Ok(())
}

/// One operation on the crate's view and on the model; they must agree.
fn step_once(view: &DynView<'_>, model: &Model, raw: &Raw) -> Result<Next, String> {
    let rank = view.rank();
    let transform = match raw {
        Raw::Transpose(a, b) => Some(Transform::Transpose(axis(*a, rank), axis(*b, rank))),
        Raw::Permute { keys, flaw } => Some(Transform::Permute(permutation(keys, *flaw, rank))),
        Raw::Slice {
            axis: raw_axis,
            start,
            end,
            flaw,
        } => {
            let axis = axis(*raw_axis, rank);
            let extent = view.shape().get(axis).copied().unwrap_or(0);
            let end = usize::from(*end) % (extent + 1);
            let start = usize::from(*start) % (end + 1);
            Some(match flawed(*flaw) {
                Some(0) => Transform::Slice(axis, end + 1, end),
                Some(_) => Transform::Slice(axis, start, extent + 1),
                None => Transform::Slice(axis, start, end),
            })
        }
        Raw::Reshape { rank, slots, flaw } => Some(Transform::Reshape(reshape_target(
            *rank,
            slots,
            *flaw,
            view.len(),
        ))),
        _ => None,
    };
    if let Some(transform) = transform {
        let got = transform.apply(view);
        let want = transform.model(model);
        outcome(&got, &want)?;
        return match (got, want) {
            (Ok(next), Ok(next_model)) => {
                agree(&next, &next_model)?;
                Ok(Next::View(transform, next_model))
            }
            _ => Ok(Next::Unchanged),
        };
    }
    let (got, want) = match raw {
        Raw::Materialize => (
            view.materialize(),
            Ok(Model::owner(model.shape.clone(), model.values.clone())),
        ),
        Raw::Map(kind) => (
            dynamic::map_unary(view, unary(*kind)),
            Ok(model.map(unary(*kind))),
        ),
        Raw::Reduce {
            kind,
            axis: raw_axis,
            keep,
        } => {
            let kind = [Reduce::Sum, Reduce::Mean, Reduce::Max][usize::from(kind % 3)];
            let axis = axis(*raw_axis, rank);
            let got = match kind {
                Reduce::Sum => dynamic::sum_axis(view, axis, *keep),
                Reduce::Mean => dynamic::mean_axis(view, axis, *keep),
                Reduce::Max => dynamic::max_axis(view, axis, *keep),
            };
            (got, model.reduce(kind, axis, *keep))
        }
        Raw::Broadcast {
            axes,
            drop,
            lead,
            current_left,
            transposed,
            values,
            op,
        } => {
            let drop = usize::from(*drop) % (rank + 1);
            let mut other_shape: Vec<usize> = if drop == 0 && rank < 6 && view.len() <= 128 {
                lead.iter().map(|&e| usize::from(e % 3) + 1).collect()
            } else {
                Vec::new()
            };
            for (k, &extent) in view.shape().iter().enumerate().skip(drop) {
                other_shape.push(match axes[k] {
                    0..150 => extent,
                    150..230 => 1,
                    byte => extent + 1 + usize::from(byte % 2),
                });
            }
            // A transposed operand is stored reversed and viewed through `permute`.
            let mut storage = other_shape.clone();
            if *transposed {
                storage.reverse();
            }
            let count: usize = storage.iter().product();
            let data: Vec<f64> = (0..count).map(|i| values[i % values.len()]).collect();
            let other_owner =
                DynTensor::from_vec(storage.clone(), data.clone()).map_err(|e| format!("{e:?}"))?;
            let mut other = other_owner.view();
            let mut other_model = Model::owner(storage, data);
            if *transposed {
                let reverse: Vec<usize> = (0..other_shape.len()).rev().collect();
                other = other.permute(&reverse).map_err(|e| format!("{e:?}"))?;
                other_model = other_model
                    .permute(&reverse)
                    .map_err(|e| format!("{e:?}"))?;
            }
            let f = binary(*op);
            if *current_left {
                (
                    dynamic::map_binary(view, &other, f),
                    Model::broadcast(model, &other_model, f),
                )
            } else {
                (
                    dynamic::map_binary(&other, view, f),
                    Model::broadcast(&other_model, model, f),
                )
            }
        }
        _ => unreachable!("transforms are handled above"),
    };
    outcome(&got, &want)?;
    match (got, want) {
        (Ok(next), Ok(next_model)) => {
            agree(&next.view(), &next_model)?;
            Ok(Next::Owner(Box::new(next), next_model))
        }
        _ => Ok(Next::Unchanged),
    }
}

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        2 => Just(-0.0),
        2 => Just(0.0),
        2 => prop::sample::select(vec![0x7ff8_0000_0000_0001_u64, 0x7ff8_0000_0000_0abc, 0xfff8_0000_0000_0007]).prop_map(f64::from_bits),
        1 => prop::sample::select(vec![f64::INFINITY, f64::NEG_INFINITY, 1e16, 0.1]),
        6 => (-3i8..=3).prop_map(f64::from),
        6 => (-1000i32..1000).prop_map(|n| f64::from(n) / 100.0),
    ]
}

fn owner() -> impl Strategy<Value = (Vec<usize>, Vec<f64>)> {
    prop::collection::vec(0usize..5, 0..=5).prop_flat_map(|shape| {
        let count: usize = shape.iter().product();
        (Just(shape), prop::collection::vec(value(), count))
    })
}

fn raw_op() -> impl Strategy<Value = Raw> {
    let bytes = || prop::collection::vec(any::<u8>(), 8);
    prop_oneof![
        (any::<u8>(), any::<u8>()).prop_map(|(a, b)| Raw::Transpose(a, b)),
        (bytes(), any::<u8>()).prop_map(|(keys, flaw)| Raw::Permute { keys, flaw }),
        (any::<u8>(), any::<u8>(), any::<u8>(), any::<u8>()).prop_map(
            |(axis, start, end, flaw)| Raw::Slice {
                axis,
                start,
                end,
                flaw
            }
        ),
        (any::<u8>(), bytes(), any::<u8>()).prop_map(|(rank, slots, flaw)| Raw::Reshape {
            rank,
            slots,
            flaw
        }),
        Just(Raw::Materialize),
        any::<u8>().prop_map(Raw::Map),
        (
            bytes(),
            any::<u8>(),
            prop::collection::vec(any::<u8>(), 0..3),
            any::<bool>(),
            any::<bool>(),
            prop::collection::vec(value(), 1..8),
            any::<u8>()
        )
            .prop_map(|(axes, drop, lead, current_left, transposed, values, op)| {
                Raw::Broadcast {
                    axes,
                    drop,
                    lead,
                    current_left,
                    transposed,
                    values,
                    op,
                }
            }),
        (any::<u8>(), any::<u8>(), any::<bool>()).prop_map(|(kind, axis, keep)| Raw::Reduce {
            kind,
            axis,
            keep
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Every intermediate shape, offset, value and error agrees with the model.
    #[test]
    fn crate_and_model_agree_on_every_step((shape, values) in owner(), ops in prop::collection::vec(raw_op(), 0..=12)) {
        run(shape, values, &ops).map_err(TestCaseError::fail)?;
    }
}

/// The model itself on the `[2, 3]` owner's transposes, slices, broadcasts
/// and reductions, with values worked out by hand, so it cannot agree with
/// the crate by being wrong in the same way unnoticed.
#[test]
fn model_reproduces_the_hand_worked_examples() {
    let owner = Model::owner(vec![2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0]);
    let t = owner.transpose(0, 1).unwrap();
    assert_eq!(
        (t.shape.as_slice(), t.offsets.as_slice()),
        (&[3, 2][..], &[0, 3, 1, 4, 2, 5][..])
    );
    assert_eq!(t.reshape(&[6]).unwrap_err(), Error::NonContiguousReshape);
    let s = owner.slice(1, 1, 3).unwrap();
    assert_eq!(s.values, [11.0, 12.0, 21.0, 22.0]);
    let bias = Model::owner(vec![3], vec![10.0, 20.0, 30.0]);
    let tokens = Model::owner(vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    assert_eq!(
        Model::broadcast(&tokens, &bias, |x, b| x + b)
            .unwrap()
            .values,
        [11.0, 22.0, 33.0, 14.0, 25.0, 36.0]
    );
    let wrong = Model::owner(vec![2], vec![0.0, 0.0]);
    assert_eq!(
        Model::broadcast(&tokens, &wrong, |x, b| x + b).unwrap_err(),
        Error::IncompatibleBroadcast {
            op: "map_binary",
            axis: 1,
            left_dimension: 3,
            right_dimension: 2
        }
    );
    let zeros = Model::owner(vec![2], vec![-0.0, 0.0]);
    assert_eq!(
        zeros.reduce(Reduce::Max, 0, false).unwrap().values[0].to_bits(),
        (-0.0f64).to_bits()
    );
    assert_eq!(
        zeros.reduce(Reduce::Sum, 0, false).unwrap().values[0].to_bits(),
        0.0f64.to_bits()
    );
    let nans = Model::owner(
        vec![3],
        vec![
            1.0,
            f64::from_bits(0x7ff8_0000_0000_0001),
            f64::from_bits(0x7ff8_0000_0000_0002),
        ],
    );
    assert_eq!(
        nans.reduce(Reduce::Max, 0, true).unwrap().values[0].to_bits(),
        0x7ff8_0000_0000_0001
    );
    let empty = Model::owner(vec![2, 0], vec![]);
    assert_eq!(
        empty.reduce(Reduce::Mean, 1, false).unwrap_err(),
        Error::EmptyMeanAxis {
            op: "mean_axis",
            axis: 1
        }
    );
    assert_eq!(
        empty.reduce(Reduce::Sum, 1, false).unwrap().values,
        [0.0, 0.0]
    );
}
