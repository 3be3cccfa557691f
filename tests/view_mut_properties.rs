//! Writes through mutable views land exactly on the modelled storage
//! offsets, in logical row-major order, and nowhere else: the whole owner
//! buffer is compared with the model's after every case, for the ranked
//! views (a rank chosen at run time, 0 to 8) and the dynamic ones.
//!
//! A case starts from a non-overlapping `from_parts` layout over a buffer
//! (a permuted, padded owner from a base offset, with unused values around
//! it; a plain `DynTensor::view_mut` for the dynamic API when the layout is
//! one), as an exclusive `ViewMut` or (drawn per API) as its cells
//! (`into_cells()`), and runs a random chain of transforms on it (every view
//! operation but `broadcast_to`). The exclusive view stays a `ViewMut`
//! through the transforms; `split_at`, `chunk`, `axis_iter` and
//! `axis_chunks_iter` give `CellView` pieces, all alive together: those
//! other than the one the chain goes on with are each filled with their own
//! marker. Wild requests must give the model's typed errors. Transforms take
//! the view by value, and a `CellView` has no `reborrow`, so every step
//! rebuilds the chain's view from the owner by replaying the steps that
//! succeeded (the same layout, the same storage). Then it writes through the
//! view: `set`, `fill`, `map_inplace`, `assign` and `zip_map_inplace` with
//! sources broadcast from fewer axes and extent-1 axes (or incompatible
//! ones: an error, nothing written). The closures count their calls, so the
//! visiting order is checked too. After each write the view reads the
//! model's values (`materialize`), and an exclusive view is an operand that
//! reads them too: `map_unary` of it, and `map_binary` of it with the `View`
//! of the same layout over the model's buffer, give the model's values.

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
#[path = "view_mut_properties/state.rs"]
mod state;

use apply::{expected, pick};
use common::with_rank;
use llm_from_scratch::tensor::dynamic::{DynTensor, DynView, DynViewMut};
use llm_from_scratch::tensor::ops::{map_binary, map_unary};
use llm_from_scratch::tensor::{View, ViewMut};
use model::*;
use ops::{ENUMERABLE, Op, pieces, valid_op, wild_op};
use ops_model::{broadcast_compatible, broadcast_source};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use ranked_views::{RankedMut, RankedView, array};
use requests::{Request, Stream};
use state::{DynState, RankedState, both, dynamic_root, dynamic_state, ranked_root, ranked_state};

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
    let fits = row_major_strides(&shape, "from_slice").is_ok()
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
        Write::Set(index, value) => storage[expected_offset(model, index, "set")?] = *value,
        Write::Fill(value) => model.offsets.iter().for_each(|&o| storage[o] = *value),
        Write::Map => {
            for (k, &o) in model.offsets.iter().enumerate() {
                storage[o] = 3 * storage[o] + k as Value + 1;
            }
        }
        Write::Assign(shape) | Write::ZipMap(shape) => {
            let op = match write {
                Write::Assign(_) => "assign",
                _ => "zip_map_inplace",
            };
            broadcast_compatible(shape, &model.shape, op)?;
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
    view: &mut RankedState<'_>,
    values: &[Value],
) -> Option<Result<(), E>> {
    let mut calls = 0;
    match write {
        Write::Set(index, value) => {
            return Some(both!(RankedState, view, v => v.set(index, *value)));
        }
        Write::Fill(value) => view.fill(*value),
        Write::Map => both!(RankedState, view, v => v.map_inplace(|x| {
            calls += 1;
            3 * x + calls
        })),
        Write::Assign(shape) | Write::ZipMap(shape) => {
            let source = with_rank!(shape.len(), [0 1 2 3 4 5 6 7 8], |M| {
                RankedView::from(View::from_slice(values, array::<M>(shape)).expect("fits"))
            }, _ => return None);
            return match write {
                Write::Assign(_) => both!(RankedState, view, v => v.assign(&source)),
                _ => both!(RankedState, view, v => v.zip_map_inplace(&source, |x, s| {
                    calls += 1;
                    x + 5 * s + calls
                })),
            };
        }
    }
    Some(Ok(()))
}

fn dynamic_write(write: &Write, view: &mut DynState<'_>, values: &[Value]) -> Result<(), E> {
    let mut calls = 0;
    match write {
        Write::Set(index, value) => return both!(DynState, view, v => v.set(index, *value)),
        Write::Fill(value) => view.fill(*value),
        Write::Map => both!(DynState, view, v => v.map_inplace(|x| {
            calls += 1;
            3 * x + calls
        })),
        Write::Assign(shape) | Write::ZipMap(shape) => {
            let source = DynView::from_slice(values, shape).expect("fits");
            return match write {
                Write::Assign(_) => both!(DynState, view, v => v.assign(&source)),
                _ => both!(DynState, view, v => v.zip_map_inplace(&source, |x, s| {
                    calls += 1;
                    x + 5 * s + calls
                })),
            };
        }
    }
    Ok(())
}

/// An exclusive mutable view is an operand: `map_unary` of it reads
/// `values` (the model's, or the model's error for an empty view whose shape
/// has no row-major layout), and `map_binary` of it with the `View` of the
/// same layout over `storage` (the model's buffer) pairs equal values.
fn check_operand(
    view: &DynViewMut<'_, Value>,
    storage: &[Value],
    values: &[Value],
) -> Result<(), TestCaseError> {
    let shape = view.shape();
    let want = row_major_strides(shape, "map_unary").map(|_| values.to_vec());
    prop_assert_eq!(map_unary(view, |x| x).map(|t| t.into_vec()), want);
    match DynView::from_parts(storage, shape, view.strides(), view.base_offset()) {
        Ok(same) => {
            let pairs = map_binary(view, &same, |a, b| (a, b)).map(|t| t.into_vec());
            let want: Vec<_> = values.iter().map(|&v| (v, v)).collect();
            prop_assert_eq!(pairs, Ok(want));
            prop_assert!(view.view().iter().eq(same.iter()));
        }
        Err(error) => {
            prop_assert_eq!(error, overflow("View::from_parts"));
            prop_assert!(row_major_strides(shape, "from_parts").is_err());
        }
    }
    Ok(())
}

/// [`check_operand`] for a ranked exclusive view.
fn check_ranked_operand(
    view: &RankedMut<'_, Value>,
    storage: &[Value],
    values: &[Value],
) -> Result<(), TestCaseError> {
    let shape = view.shape();
    let want = row_major_strides(&shape, "map_unary").map(|_| values.to_vec());
    prop_assert_eq!(view.map_unary_values(), want);
    let (strides, base) = (view.strides(), view.base_offset());
    let same = with_rank!(shape.len(), [0 1 2 3 4 5 6 7 8], |R| {
        View::from_parts(storage, array::<R>(&shape), array(&strides), base).map(RankedView::from)
    });
    match same {
        Ok(same) => {
            let want: Vec<_> = values.iter().map(|&v| (v, v)).collect();
            prop_assert_eq!(view.map_binary_values(&same, |a, b| (a, b)), Some(Ok(want)));
            prop_assert_eq!(view.view().values(), same.values());
        }
        Err(error) => prop_assert_eq!(error, overflow("View::from_parts")),
    }
    Ok(())
}

/// A non-overlapping layout: the view `[0..shape)` of a row-major owner of
/// `padded` extents, permuted by `perm`, from `base`; each API's chain
/// starts from the exclusive view or (`cells`: ranked, dynamic) its cells.
#[derive(Clone, Debug)]
struct Start {
    shape: Vec<usize>,
    pad: Vec<usize>,
    perm: Vec<usize>,
    base: usize,
    slack: usize,
    cells: (bool, bool),
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
        let owner = row_major_strides(&padded, "zeros").expect("small");
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

/// A marker for piece `k` of step `s` (never a value the data holds).
fn marker(step: usize, k: usize) -> Value {
    -1_000_000 - (100 * step + k) as Value
}

/// Runs one case: the chain of `seeds`, then `writes`, on both APIs; then
/// compares both whole buffers with the model's.
fn run(start: &Start, seeds: &[(u8, bool, u64)], writes: &[u64]) -> Result<(), TestCaseError> {
    let (shape, strides, base, len) = start.layout();
    let (ranked_cells, dynamic_cells) = start.cells;
    let data: Vec<Value> = (0..len as Value).map(|o| 3 * o + 1).collect();
    let (mut ranked_storage, mut model_storage) = (data.clone(), data.clone());
    let identity = start.perm.iter().enumerate().all(|(k, &a)| k == a);
    let plain =
        start.pad.iter().all(|&p| p == 0) && start.base == 0 && start.slack == 0 && identity;
    let mut owner =
        DynTensor::from_vec(shape.clone(), data[..count(&shape)].to_vec()).expect("fits");
    let mut dynamic_storage = data.clone();
    let mut model = Model {
        offsets: layouts::strided_offsets(&shape, &strides, base),
        shape: shape.clone(),
    };
    let root = (&shape[..], &strides[..], base);
    // The steps that succeeded; the ranked API follows while it can express them.
    let mut path: Vec<(Op, usize)> = Vec::new();
    let mut ranked_alive = true;
    macro_rules! dynamic {
        () => {
            dynamic_state(
                dynamic_root(&mut owner, &mut dynamic_storage, plain, root),
                dynamic_cells,
                &path,
            )
        };
    }
    macro_rules! ranked {
        () => {
            ranked_alive.then(|| {
                ranked_state(
                    ranked_root(&mut ranked_storage, &shape, &strides, base),
                    ranked_cells,
                    &path,
                )
            })
        };
    }
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
            let want = expected_offset(&model, index, "get").map(|o| model_storage[o]);
            prop_assert_eq!(dynamic!().get(index), want.clone());
            if let Some(ranked) = ranked!() {
                prop_assert_eq!(ranked.get(index), want);
            }
            continue;
        }
        match expected(&op, &model) {
            Err(error) => {
                let got = dynamic!().apply(&op);
                prop_assert_eq!(got.err(), Some(error.clone()), "dynamic {:?}", op);
                if let Some(got) = ranked!().and_then(|r| r.apply(&op)) {
                    prop_assert_eq!(got.err(), Some(error), "ranked {:?}", op);
                }
            }
            Ok(models) if models.is_empty() => {}
            Ok(models) => {
                let k = pick(&op, models.len());
                let mut pieces = dynamic!()
                    .apply(&op)
                    .map_err(|e| TestCaseError::fail(format!("dynamic {op:?}: {e:?}")))?;
                let mut ranked_pieces = match ranked!().and_then(|r| r.apply(&op)) {
                    Some(Ok(pieces)) => Some(pieces),
                    Some(Err(e)) => {
                        return Err(TestCaseError::fail(format!("ranked {op:?}: {e:?}")));
                    }
                    None => None,
                };
                prop_assert_eq!(pieces.len(), models.len());
                // Every piece is alive while the others are written.
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
                let dynamic = pieces.swap_remove(k);
                model = models[k].clone();
                prop_assert_eq!(dynamic.shape(), model.shape.clone());
                prop_assert_eq!(dynamic.offsets(), model.offsets.clone());
                if let Some(mut ranked_pieces) = ranked_pieces {
                    let ranked = ranked_pieces.swap_remove(k);
                    prop_assert_eq!(ranked.offsets(), model.offsets.clone());
                    prop_assert_eq!(ranked.strides(), dynamic.strides());
                } else {
                    ranked_alive = false;
                }
                path.push((op, k));
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
        // Reads through the views see the model's values (an empty view
        // whose shape has no row-major layout has no owner: ShapeOverflow).
        let read: Vec<Value> = model.offsets.iter().map(|&o| model_storage[o]).collect();
        let materialized = row_major_strides(&model.shape, "materialize").map(|_| read.clone());
        let mut dynamic = dynamic!();
        prop_assert_eq!(
            dynamic_write(&write, &mut dynamic, &values),
            want.clone(),
            "dynamic {:?}",
            write
        );
        prop_assert_eq!(dynamic.values(), materialized.clone());
        if let DynState::Mut(view) = &dynamic {
            check_operand(view, &model_storage, &read)?;
        }
        if let Some(mut ranked) = ranked!() {
            if let Some(got) = ranked_write(&write, &mut ranked, &values) {
                prop_assert_eq!(got, want, "ranked {:?}", write);
            }
            prop_assert_eq!(ranked.values(), materialized);
            if let RankedState::Mut(view) = &ranked {
                check_ranked_operand(view, &model_storage, &read)?;
            }
        }
    }
    let dynamic_storage = if plain {
        owner.as_slice()
    } else {
        &dynamic_storage[..]
    };
    prop_assert_eq!(
        dynamic_storage,
        model_storage.as_slice(),
        "the dynamic owner's whole buffer"
    );
    if ranked_alive {
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
        let cells = (any::<bool>(), any::<bool>());
        (Just(axes), perm, 0_usize..=3, 0_usize..=2, cells).prop_map(
            |(axes, perm, base, slack, cells)| Start {
                shape: axes.iter().map(|a| a.0).collect(),
                pad: axes.iter().map(|a| a.1).collect(),
                perm,
                base,
                slack,
                cells,
            },
        )
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
