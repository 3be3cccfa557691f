//! Writes through mutable views land exactly on the modelled storage
//! offsets, in logical row-major order, and nowhere else: the whole owner
//! buffer is compared with the model's after every case, for the ranked
//! `ViewMut` (a rank chosen at run time, 0 to 8) and `DynViewMut`.
//!
//! A case starts from a non-overlapping `from_parts` layout over a buffer
//! (a permuted, padded owner from a base offset, with unused values around
//! it; a plain `DynTensor::view_mut` for the dynamic API when the layout is
//! one), runs a random chain of transforms on the mutable view (every view
//! operation but `broadcast_to`; `split_at_mut`, `chunk`, `axis_iter_mut`
//! and `axis_chunks_iter_mut` pieces other than the one the chain goes on
//! with are each filled with their own marker), with wild requests whose
//! typed errors must match the model's (tried on a `reborrow()`, so the
//! view survives), then writes through it: `set`, `fill`, `map_inplace`,
//! `assign` and `zip_map_inplace` with sources broadcast from fewer axes and
//! extent-1 axes (or incompatible ones: an error, nothing written). The
//! closures count their calls, so the visiting order is checked too.

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
#[path = "common/ranked_views.rs"]
mod ranked_views;
#[path = "view_properties/requests.rs"]
mod requests;

use apply::{dynamic_apply, expected, pick, ranked_apply};
use common::with_rank;
use llm_from_scratch::tensor::dynamic::{DynTensor, DynView, DynViewMut};
use llm_from_scratch::tensor::{View, ViewMut};
use model::*;
use ops::{ENUMERABLE, Op, pieces, valid_op, wild_op};
use ops_model::{broadcast_compatible, broadcast_source};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use ranked_views::{RankedMut, RankedView, array};
use requests::{Request, Stream};

type Value = i64;

/// A write through the final view of a chain.
#[derive(Clone, Debug)]
enum Write {
    Set(Vec<usize>, Value),
    Fill(Value),
    /// `x <- 3x + k` for the k-th call.
    Map,
    /// From a source of this shape holding `-1000 - i`.
    Assign(Vec<usize>),
    /// `x <- x + 5s + k` for the k-th call, `s` from a source of this shape.
    ZipMap(Vec<usize>),
}

/// A source shape for `target`: leading axes dropped, some extents 1, and
/// now and then an incompatible extent or (dynamic API only) an extra axis.
fn source_shape(target: &[usize], stream: &mut Stream) -> Vec<usize> {
    let mut shape: Vec<usize> = target[stream.below(target.len() + 1)..].to_vec();
    for extent in &mut shape {
        if stream.below(3) == 0 {
            *extent = 1;
        }
    }
    match stream.below(8) {
        0 if !shape.is_empty() => {
            let axis = stream.below(shape.len());
            shape[axis] = shape[axis].saturating_add(1 + stream.below(2));
        }
        1 => shape.insert(0, 1 + stream.below(2)),
        _ => {}
    }
    // A huge extent (of an empty target) is read from one stored value.
    let fits = row_major_strides(&shape).is_ok()
        && shape
            .iter()
            .try_fold(1_usize, |n, &e| n.checked_mul(e))
            .is_some_and(|n| n <= 4096);
    if !fits {
        shape.iter_mut().for_each(|e| *e = (*e).min(1));
    }
    shape
}

fn write_for(model: &Model, stream: &mut Stream) -> Write {
    let value = 100_000 + stream.below(1000) as Value;
    match stream.below(5) {
        0 => {
            let index = model
                .shape
                .iter()
                .map(|&e| stream.below(e.saturating_add(1)))
                .collect();
            Write::Set(index, value)
        }
        1 => Write::Fill(value),
        2 => Write::Map,
        3 => Write::Assign(source_shape(&model.shape, stream)),
        _ => Write::ZipMap(source_shape(&model.shape, stream)),
    }
}

/// The model's storage after `write` through `model`, or the error.
fn model_write(write: &Write, model: &Model, storage: &mut [Value]) -> Result<(), E> {
    match write {
        Write::Set(index, value) => storage[expected_offset(model, index)?] = *value,
        Write::Fill(value) => model.offsets.iter().for_each(|&o| storage[o] = *value),
        Write::Map => {
            for (k, &o) in model.offsets.iter().enumerate() {
                storage[o] = 3 * storage[o] + k as Value + 1;
            }
        }
        Write::Assign(shape) | Write::ZipMap(shape) => {
            broadcast_compatible(shape, &model.shape)?;
            let source = Model::owner(shape);
            for (k, (c, &o)) in coordinates(&model.shape)
                .iter()
                .zip(&model.offsets)
                .enumerate()
            {
                let s = -1000 - source.at(&broadcast_source(&source, c)) as Value;
                storage[o] = match write {
                    Write::Assign(_) => s,
                    _ => storage[o] + 5 * s + k as Value + 1,
                };
            }
        }
    }
    Ok(())
}

fn source_values(shape: &[usize]) -> Vec<Value> {
    (0..count(shape)).map(|i| -1000 - i as Value).collect()
}

/// `write` through a ranked view: `None` where it does not compile (a
/// source of larger rank); the source is built over `values`.
fn ranked_write(
    write: &Write,
    view: &mut RankedMut<'_, Value>,
    values: &[Value],
) -> Option<Result<(), E>> {
    let mut calls = 0;
    match write {
        Write::Set(index, value) => return Some(view.set(index, *value)),
        Write::Fill(value) => view.fill(*value),
        Write::Map => view.map_inplace(|x| {
            calls += 1;
            3 * x + calls
        }),
        Write::Assign(shape) | Write::ZipMap(shape) => {
            let source = with_rank!(shape.len(), [0 1 2 3 4 5 6 7 8], |M| {
                RankedView::from(View::from_slice(values, array::<M>(shape)).expect("fits"))
            }, _ => return None);
            return match write {
                Write::Assign(_) => view.assign(&source),
                _ => view.zip_map_inplace(&source, |x, s| {
                    calls += 1;
                    x + 5 * s + calls
                }),
            };
        }
    }
    Some(Ok(()))
}

fn dynamic_write(
    write: &Write,
    view: &mut DynViewMut<'_, Value>,
    values: &[Value],
) -> Result<(), E> {
    let mut calls = 0;
    match write {
        Write::Set(index, value) => return view.set(index, *value),
        Write::Fill(value) => view.fill(*value),
        Write::Map => view.map_inplace(|x| {
            calls += 1;
            3 * x + calls
        }),
        Write::Assign(shape) | Write::ZipMap(shape) => {
            let source = DynView::from_slice(values, shape).expect("fits");
            return match write {
                Write::Assign(_) => view.assign(&source),
                _ => view.zip_map_inplace(&source, |x, s| {
                    calls += 1;
                    x + 5 * s + calls
                }),
            };
        }
    }
    Ok(())
}

/// A non-overlapping layout: the view `[0..shape)` of a row-major owner of
/// `padded` extents, permuted by `perm`, from `base`.
#[derive(Clone, Debug)]
struct Start {
    shape: Vec<usize>,
    pad: Vec<usize>,
    perm: Vec<usize>,
    base: usize,
    slack: usize,
}

impl Start {
    /// Shape, strides, base offset and buffer length of the view.
    fn layout(&self) -> (Vec<usize>, Vec<usize>, usize, usize) {
        let padded: Vec<usize> = self
            .shape
            .iter()
            .zip(&self.pad)
            .map(|(e, p)| e + p)
            .collect();
        let owner = row_major_strides(&padded).expect("small");
        let shape = self.perm.iter().map(|&a| self.shape[a]).collect();
        let strides = self.perm.iter().map(|&a| owner[a]).collect();
        (
            shape,
            strides,
            self.base,
            self.base + count(&padded) + self.slack,
        )
    }
}

/// `broadcast_to` is not a method of the mutable views: the chains skip it.
fn not_a_method<V>(_: V, _: &Vec<usize>) -> Result<V, E> {
    unreachable!("the chains skip broadcast_to")
}

/// `broadcast_to` of a ranked mutable view: it does not compile.
fn no_broadcast<V>(_: V, _: &Vec<usize>) -> Option<Result<V, E>> {
    None
}

/// A marker for piece `k` of step `s` (never a value the data holds).
fn marker(step: usize, k: usize) -> Value {
    -1_000_000 - (100 * step + k) as Value
}

/// Runs one case: the chain of `seeds`, then `writes`, on both APIs; then
/// compares both whole buffers with the model's.
fn run(start: &Start, seeds: &[(u8, bool, u64)], writes: &[u64]) -> Result<(), TestCaseError> {
    let (shape, strides, base, len) = start.layout();
    let data: Vec<Value> = (0..len as Value).map(|o| 3 * o + 1).collect();
    let (mut ranked_storage, mut model_storage) = (data.clone(), data.clone());
    let plain = start.pad.iter().all(|&p| p == 0) && start.base == 0 && start.slack == 0;
    let mut owner =
        DynTensor::from_vec(shape.clone(), data[..count(&shape)].to_vec()).expect("fits");
    let mut dynamic_storage = data.clone();
    let mut model = Model {
        offsets: layouts::strided_offsets(&shape, &strides, base),
        shape: shape.clone(),
    };
    let identity = start.perm.iter().enumerate().all(|(k, &a)| k == a);
    let mut ranked = Some(with_rank!(shape.len(), [0 1 2 3 4 5 6 7 8], |R| {
        RankedMut::from(ViewMut::from_parts(&mut ranked_storage, array::<R>(&shape), array(&strides), base).expect("disjoint"))
    }));
    let mut dynamic = if plain && identity {
        owner.view_mut()
    } else {
        DynViewMut::from_parts(&mut dynamic_storage, shape.clone(), strides.clone(), base)
            .expect("disjoint")
    };
    for (s, &(kind, wild, seed)) in seeds.iter().enumerate() {
        let stream = &mut Stream(seed);
        let op = if wild {
            wild_op(&model, kind, stream)
        } else {
            valid_op(&model, kind, stream)
        };
        if let Op::BroadcastTo(_) = op {
            continue; // not a method of the mutable views
        }
        if pieces(&op, &model) > ENUMERABLE {
            continue; // too many (empty) pieces to model; see view_ops_properties
        }
        if let Op::Old(Request::Get(index)) = &op {
            let want = expected_offset(&model, index).map(|o| model_storage[o]);
            prop_assert_eq!(dynamic.get(index), want.clone());
            if let Some(ranked) = &ranked {
                prop_assert_eq!(ranked.get(index), want);
            }
            continue;
        }
        match expected(&op, &model) {
            Err(error) => {
                let got = dynamic_apply!(
                    &op,
                    dynamic.reborrow(),
                    split_at_mut,
                    axis_iter_mut,
                    axis_chunks_iter_mut,
                    not_a_method
                );
                prop_assert_eq!(got.err(), Some(error.clone()), "dynamic {:?}", op);
                if let Some(view) = &mut ranked
                    && let Some(got) = ranked_apply!(&op, view.reborrow(), no_broadcast)
                {
                    prop_assert_eq!(got.err(), Some(error), "ranked {:?}", op);
                }
            }
            Ok(models) if models.is_empty() => {}
            Ok(models) => {
                let k = pick(&op, models.len());
                let mut pieces = dynamic_apply!(
                    &op,
                    dynamic,
                    split_at_mut,
                    axis_iter_mut,
                    axis_chunks_iter_mut,
                    not_a_method
                )
                .map_err(|e| TestCaseError::fail(format!("dynamic {op:?}: {e:?}")))?;
                let mut ranked_pieces = match ranked
                    .take()
                    .and_then(|r| ranked_apply!(&op, r, no_broadcast))
                {
                    Some(Ok(pieces)) => Some(pieces),
                    Some(Err(e)) => {
                        return Err(TestCaseError::fail(format!("ranked {op:?}: {e:?}")));
                    }
                    None => None,
                };
                prop_assert_eq!(pieces.len(), models.len());
                for (j, piece_model) in models.iter().enumerate().filter(|&(j, _)| j != k) {
                    piece_model
                        .offsets
                        .iter()
                        .for_each(|&o| model_storage[o] = marker(s, j));
                    pieces[j].fill(marker(s, j));
                    if let Some(ranked) = &mut ranked_pieces {
                        ranked[j].fill(marker(s, j));
                    }
                }
                dynamic = pieces.swap_remove(k);
                ranked = ranked_pieces.map(|mut pieces| pieces.swap_remove(k));
                model = models[k].clone();
                prop_assert_eq!(dynamic.shape(), model.shape.as_slice());
                prop_assert_eq!(dynamic.offsets().collect::<Vec<_>>(), model.offsets.clone());
                if let Some(ranked) = &ranked {
                    prop_assert_eq!(ranked.offsets(), model.offsets.clone());
                    prop_assert_eq!(ranked.strides(), dynamic.strides().to_vec());
                }
            }
        }
    }
    for &seed in writes {
        let write = write_for(&model, &mut Stream(seed));
        let values = source_values(match &write {
            Write::Assign(shape) | Write::ZipMap(shape) => shape,
            _ => &[],
        });
        let want = model_write(&write, &model, &mut model_storage);
        prop_assert_eq!(
            dynamic_write(&write, &mut dynamic.reborrow(), &values),
            want.clone(),
            "dynamic {:?}",
            write
        );
        if let Some(view) = &mut ranked
            && let Some(got) = ranked_write(&write, &mut view.reborrow(), &values)
        {
            prop_assert_eq!(got, want, "ranked {:?}", write);
        }
        // Reads through the views see the model's values (an empty view
        // whose shape has no row-major layout has no owner: ShapeOverflow).
        let values: Vec<Value> = model.offsets.iter().map(|&o| model_storage[o]).collect();
        let values = row_major_strides(&model.shape).map(|_| values);
        prop_assert_eq!(dynamic.materialize().map(|t| t.into_vec()), values.clone());
        if let Some(view) = &ranked {
            prop_assert_eq!(view.values(), values);
        }
    }
    let ranked_alive = ranked.is_some();
    drop((ranked, dynamic));
    let dynamic_storage = if plain && identity {
        owner.as_slice()
    } else {
        &dynamic_storage[..]
    };
    prop_assert_eq!(
        dynamic_storage,
        model_storage.as_slice(),
        "the dynamic owner's whole buffer"
    );
    if ranked_alive || seeds.is_empty() {
        prop_assert_eq!(
            &ranked_storage,
            &model_storage,
            "the ranked owner's whole buffer"
        );
    }
    Ok(())
}

fn starts() -> impl Strategy<Value = Start> {
    prop::collection::vec((0_usize..=4, 0_usize..=2), 0..=4).prop_flat_map(|axes| {
        let rank = axes.len();
        let perm = Just((0..rank).collect::<Vec<usize>>()).prop_shuffle();
        (Just(axes), perm, 0_usize..=3, 0_usize..=2).prop_map(|(axes, perm, base, slack)| Start {
            shape: axes.iter().map(|a| a.0).collect(),
            pad: axes.iter().map(|a| a.1).collect(),
            perm,
            base,
            slack,
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Chains of transforms and pieces, then writes: every value lands on
    /// its modelled offset, in row-major order, and no other value changes.
    #[test]
    fn writes_land_exactly_on_the_modelled_offsets(
        start in starts(),
        seeds in prop::collection::vec((any::<u8>(), any::<bool>(), any::<u64>()), 0..8),
        writes in prop::collection::vec(any::<u64>(), 1..4),
    ) {
        run(&start, &seeds, &writes)?;
    }

    /// `from_parts` never accepts a layout that reaches one stored value
    /// twice (the overlap test is sufficient), and accepts every permuted,
    /// padded owner layout.
    #[test]
    fn mutable_views_never_overlap(
        shape in prop::collection::vec(0_usize..=3, 0..=4),
        strides in prop::collection::vec(0_usize..=6, 4),
        start in starts(),
    ) {
        let strides = &strides[..shape.len()];
        let offsets = layouts::strided_offsets(&shape, strides, 0);
        let mut data = vec![0_i64; layouts::reach(&shape, strides, 0)];
        let mut distinct = offsets.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let accepted = DynViewMut::from_parts(&mut data, shape.clone(), strides.to_vec(), 0).is_ok();
        prop_assert!(!accepted || distinct.len() == offsets.len(), "overlapping {:?} {:?} accepted", shape, strides);
        let ranked = with_rank!(shape.len(), [0 1 2 3 4], |R| {
            ViewMut::from_parts(&mut data, array::<R>(&shape), array(strides), 0).is_ok()
        });
        prop_assert_eq!(ranked, accepted);
        let (shape, strides, base, len) = start.layout();
        let mut data = vec![0_i64; len];
        prop_assert!(DynViewMut::from_parts(&mut data, shape, strides, base).is_ok());
    }
}
