//! Properties of views against a naive reference model.
//!
//! The model knows nothing about strides: a view is its logical shape plus,
//! in row-major order, the owner offset each coordinate reads. Permute and
//! slice rebuild that list coordinate by coordinate with plain arithmetic;
//! reshape keeps it; contiguity means "consecutive offsets". Random shapes
//! (rank 0–5, extents 0–5) go through random chains of transpose / permute /
//! slice / reshape on the ranked API and, in lockstep, on the dynamic API;
//! after every step `get`, `storage_offset`, `offsets`, `iter`,
//! `is_contiguous`, `materialize` and `materialize_into` must agree with the
//! model and the two APIs must agree with each other. Random bad requests
//! must return the error the specification names, from both APIs, and
//! never panic. Chains also start from arbitrary strided layouts over
//! borrowed data (`View::from_parts`), whose offsets the model computes as
//! `base + Σ index·stride`.

//!
//! Files: `model.rs` (the model and the specified results), `ranked.rs`
//! (the ranked API at a rank chosen at run time), `requests.rs` (requests
//! drawn from seeds); this file runs them and holds the properties.

mod common;
#[path = "common/layouts.rs"]
mod layouts;
#[path = "view_properties/model.rs"]
mod model;
#[path = "view_properties/ranked.rs"]
mod ranked;
#[path = "view_properties/requests.rs"]
mod requests;

use llm_from_scratch::tensor::dynamic::{DynTensor, DynView};
use model::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use ranked::{Owner, Ranked, Value};
use requests::{Request, Stream, valid_request, wild_request};

// ---- running a request on the model and on both APIs ----

/// The values every API must read for `model`.
fn model_values(model: &Model, data: &[Value]) -> Vec<Value> {
    model.offsets.iter().map(|&offset| data[offset]).collect()
}

/// Checks one view of each API against the model.
fn check(
    ranked: &Ranked<'_>,
    dynamic: &DynView<'_, Value>,
    model: &Model,
    data: &[Value],
) -> Result<(), TestCaseError> {
    let values = model_values(model, data);
    // Metadata: the two APIs agree exactly, and with the model's shape.
    prop_assert_eq!(ranked.shape(), model.shape.clone());
    prop_assert_eq!(ranked.rank(), model.rank());
    prop_assert_eq!(dynamic.shape(), model.shape.as_slice());
    prop_assert_eq!(ranked.strides(), dynamic.strides().to_vec());
    prop_assert_eq!(ranked.base_offset(), dynamic.base_offset());
    prop_assert_eq!(
        (ranked.len(), ranked.is_empty()),
        (model.len(), model.len() == 0)
    );
    prop_assert_eq!(dynamic.len(), model.len());
    if let Some(&first) = model.offsets.first() {
        prop_assert_eq!(ranked.base_offset(), first);
    }
    prop_assert_eq!(ranked.is_contiguous(), model.contiguous());
    prop_assert_eq!(dynamic.is_contiguous(), model.contiguous());
    // The offset cursor and the value iterator, with exact sizes.
    prop_assert_eq!(ranked.offsets(), (model.len(), model.offsets.clone()));
    prop_assert_eq!(dynamic.offsets().collect::<Vec<_>>(), model.offsets.clone());
    prop_assert_eq!(ranked.values(), (model.len(), values.clone()));
    prop_assert_eq!(dynamic.iter().copied().collect::<Vec<_>>(), values.clone());
    // Checked lookup at every coordinate.
    for (coordinate, &offset) in coordinates(&model.shape).iter().zip(&model.offsets) {
        prop_assert_eq!(ranked.storage_offset(coordinate), Ok(offset));
        prop_assert_eq!(ranked.get(coordinate), Ok(data[offset]));
        prop_assert_eq!(dynamic.storage_offset(coordinate), Ok(offset));
        prop_assert_eq!(dynamic.get(coordinate).copied(), Ok(data[offset]));
    }
    // One past the end of each axis (the first failing axis is named).
    for axis in 0..model.rank() {
        let mut probe = vec![0; model.rank()];
        probe[axis] = model.shape[axis];
        let expected = expected_offset(model, &probe, "storage_offset");
        prop_assert!(expected.is_err());
        prop_assert_eq!(ranked.storage_offset(&probe), expected.clone());
        prop_assert_eq!(dynamic.storage_offset(&probe), expected);
    }
    // The one copy: same shape, fresh row-major strides, logical values.
    match row_major_strides(&model.shape, "materialize") {
        Ok(strides) => {
            prop_assert_eq!(
                ranked.materialize(),
                Ok((model.shape.clone(), strides.clone(), values.clone()))
            );
            let copied = dynamic.materialize().expect("small views materialize");
            prop_assert_eq!(
                (copied.shape(), copied.strides()),
                (model.shape.as_slice(), strides.as_slice())
            );
            prop_assert_eq!(copied.as_slice(), values.as_slice());
            prop_assert_eq!(ranked.materialize_into(), Ok(values.clone()));
        }
        Err(error) => {
            // Only an empty view can get here: a permute moved a huge extent
            // to the left of the zero, so no owner of this shape can exist.
            prop_assert_eq!(model.len(), 0);
            prop_assert_eq!(ranked.materialize(), Err(error.clone()));
            prop_assert_eq!(dynamic.materialize().map(|_| ()), Err(error));
            // `materialize_into` needs an owner of that shape first: `full` refuses it.
            prop_assert_eq!(ranked.materialize_into(), Err(overflow("full")));
        }
    }
    prop_assert_eq!(
        ranked.contiguous_slice(),
        model.contiguous().then(|| values.clone())
    );
    // Forgetting the rank gives exactly the dynamic view.
    prop_assert_eq!(&ranked.into_dyn(), dynamic);
    Ok(())
}

/// Runs `request` on the model and both APIs; on success the three advance together.
fn step<'a>(
    request: &Request,
    ranked: &mut Ranked<'a>,
    dynamic: &mut DynView<'a, Value>,
    model: &mut Model,
    data: &[Value],
) -> Result<(), TestCaseError> {
    let (expected, from_ranked, from_dynamic) = match request {
        Request::Transpose(first, second) => (
            expected_transpose(model, *first, *second),
            Some(ranked.transpose(*first, *second)),
            dynamic.transpose(*first, *second),
        ),
        Request::Permute(axes) => (
            expected_permute(model, axes),
            // A list of another length does not compile in the ranked API.
            (axes.len() == model.rank()).then(|| ranked.permute(axes)),
            dynamic.permute(axes),
        ),
        Request::Slice(axis, start, end) => (
            expected_slice(model, *axis, *start, *end),
            Some(ranked.slice(*axis, *start, *end)),
            dynamic.slice(*axis, *start..*end),
        ),
        Request::Reshape(shape) => (
            expected_reshape(model, shape),
            Some(ranked.reshape(shape)),
            dynamic.reshape(shape),
        ),
        Request::Get(index) => {
            let expected = expected_offset(model, index, "storage_offset");
            prop_assert_eq!(ranked.storage_offset(index), expected.clone());
            prop_assert_eq!(dynamic.storage_offset(index), expected);
            let expected = expected_offset(model, index, "get");
            prop_assert_eq!(
                ranked.get(index),
                expected.clone().map(|offset| data[offset])
            );
            prop_assert_eq!(
                dynamic.get(index).copied(),
                expected.map(|offset| data[offset])
            );
            return Ok(());
        }
    };
    match expected {
        Ok(next_model) => {
            let next_ranked = from_ranked.expect("valid requests have the view's rank");
            prop_assert!(
                next_ranked.is_ok(),
                "ranked {:?}: {:?}",
                request,
                next_ranked
            );
            prop_assert!(
                from_dynamic.is_ok(),
                "dynamic {:?}: {:?}",
                request,
                from_dynamic
            );
            *ranked = next_ranked.expect("checked");
            *dynamic = from_dynamic.expect("checked");
            *model = next_model;
            check(ranked, dynamic, model, data)?;
        }
        Err(error) => {
            if let Some(from_ranked) = from_ranked {
                prop_assert_eq!(
                    from_ranked.map(|_| ()),
                    Err(error.clone()),
                    "ranked {:?}",
                    request
                );
            }
            prop_assert_eq!(
                from_dynamic.map(|_| ()),
                Err(error),
                "dynamic {:?}",
                request
            );
        }
    }
    Ok(())
}

/// A request picker: the model, the seed's kind and wildness, its number stream.
type Pick = fn(&Model, u8, bool, &mut Stream) -> Request;

fn pick_valid(model: &Model, kind: u8, _wild: bool, stream: &mut Stream) -> Request {
    valid_request(model, kind, stream)
}

fn pick_any(model: &Model, kind: u8, wild: bool, stream: &mut Stream) -> Request {
    if wild {
        wild_request(model, kind, stream)
    } else {
        valid_request(model, kind, stream)
    }
}

/// Checks the starting views, then runs the requests drawn from `seeds`.
fn run_chain<'a>(
    mut ranked: Ranked<'a>,
    mut dynamic: DynView<'a, Value>,
    mut model: Model,
    data: &[Value],
    seeds: &[(u8, bool, u64)],
    pick: Pick,
) -> Result<(), TestCaseError> {
    check(&ranked, &dynamic, &model, data)?;
    for &(kind, wild, seed) in seeds {
        let request = pick(&model, kind, wild, &mut Stream(seed));
        step(&request, &mut ranked, &mut dynamic, &mut model, data)?;
    }
    Ok(())
}

/// Distinct values, so a value identifies the offset it was read from.
fn distinct_values(len: usize) -> Vec<Value> {
    (0..len).map(|offset| 3 * offset as Value + 1).collect()
}

/// Starts from an owner of `shape`.
fn run(shape: &[usize], seeds: &[(u8, bool, u64)], pick: Pick) -> Result<(), TestCaseError> {
    let data = distinct_values(count(shape));
    let owner = Owner::new(shape, data.clone()).expect("the shape fits its values");
    let dynamic_owner = DynTensor::from_vec(shape.to_vec(), data.clone()).expect("the same");
    run_chain(
        owner.view(),
        dynamic_owner.view(),
        Model::owner(shape),
        &data,
        seeds,
        pick,
    )
}

/// Starts from `View::from_parts` over borrowed data with arbitrary strides
/// (0 repeats a value, large ones leave gaps) and a base offset; `slack`
/// extra values sit unused after the last reachable one.
fn run_strided(
    layout: &(Vec<usize>, Vec<usize>, usize),
    slack: usize,
    seeds: &[(u8, bool, u64)],
) -> Result<(), TestCaseError> {
    let (shape, strides, base) = layout;
    // The model: each coordinate's offset by plain arithmetic.
    let offsets = layouts::strided_offsets(shape, strides, *base);
    let needed = offsets.iter().max().map_or(0, |last| last + 1);
    let data = distinct_values(needed + slack);
    if needed > 0 {
        // One value short: every constructor names the size it needed.
        let short = &data[..needed - 1];
        let expected = E::ViewOutOfBounds {
            op: "View::from_parts",
            required_len: needed,
            available: needed - 1,
        };
        prop_assert_eq!(
            Ranked::from_parts(short, shape, strides, *base).map(|_| ()),
            Err(expected.clone())
        );
        prop_assert_eq!(
            DynView::from_parts(short, shape.clone(), strides.clone(), *base).map(|_| ()),
            Err(expected)
        );
    }
    let ranked = Ranked::from_parts(&data, shape, strides, *base).expect("in bounds");
    let dynamic =
        DynView::from_parts(&data, shape.clone(), strides.clone(), *base).expect("in bounds");
    let model = Model {
        shape: shape.clone(),
        offsets,
    };
    run_chain(ranked, dynamic, model, &data, seeds, pick_any)
}

fn shapes() -> impl Strategy<Value = Vec<usize>> {
    layouts::shapes(5, 5)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Valid chains of transpose / permute / slice / reshape agree with the model, in both APIs.
    #[test]
    fn valid_chains_agree_with_the_model(
        shape in shapes(),
        seeds in prop::collection::vec((any::<u8>(), Just(false), any::<u64>()), 0..8),
    ) {
        run(&shape, &seeds, pick_valid)?;
    }

    /// Random requests, mostly invalid, interleaved with valid ones: each
    /// returns the specified error (or the model's view) and never panics.
    #[test]
    fn random_requests_return_the_specified_error(
        shape in shapes(),
        seeds in prop::collection::vec((any::<u8>(), any::<bool>(), any::<u64>()), 1..10),
    ) {
        run(&shape, &seeds, pick_any)?;
    }

    /// Arbitrary strided layouts over borrowed data (stride 0, gaps, a base
    /// offset): construction is checked against the data's length, and every
    /// request on them behaves as on the model.
    #[test]
    fn strided_views_over_borrowed_data_agree_with_the_model(
        layout in layouts::strided_layouts(5, 5),
        slack in 0_usize..3,
        seeds in prop::collection::vec((any::<u8>(), any::<bool>(), any::<u64>()), 0..8),
    ) {
        run_strided(&layout, slack, &seeds)?;
    }
}

// ---- the model itself, on the [2, 3] owner of values 10, 11, 12, 20, 21, 22 ----

#[test]
fn the_model_reproduces_the_frozen_example() {
    let owner = Model::owner(&[2, 3]);
    assert_eq!(owner.permute(&[1, 0]).offsets, [0, 3, 1, 4, 2, 5]);
    assert_eq!(owner.reshape(&[3, 2]).offsets, [0, 1, 2, 3, 4, 5]);
    let slice = owner.slice(1, 1, 3);
    assert_eq!(slice.offsets, [1, 2, 4, 5]);
    assert!(!slice.contiguous() && owner.contiguous());
    assert_eq!(
        expected_reshape(&slice, &[4]).unwrap_err(),
        E::NonContiguousReshape
    );
    assert_eq!(row_major_strides(&[2, 0, 3], "zeros"), Ok(vec![0, 3, 1]));
    assert_eq!(
        row_major_strides(&[0, 2, usize::MAX], "zeros"),
        Err(E::ShapeOverflow { op: "zeros" })
    );
    assert_eq!(coordinates(&[]), [Vec::<usize>::new()]);
    assert!(coordinates(&[2, 0]).is_empty());
}

#[test]
fn a_usize_max_extent_of_an_empty_view_slices_and_permutes() -> Result<(), TestCaseError> {
    // Found by the property above: an empty view reshaped to [usize::MAX, 0].
    let data: Vec<Value> = Vec::new();
    let owner = Owner::new(&[0], data.clone()).expect("an empty owner");
    let dynamic_owner = DynTensor::from_vec(vec![0], data.clone()).expect("the same");
    let (mut ranked, mut dynamic, mut model) =
        (owner.view(), dynamic_owner.view(), Model::owner(&[0]));
    let requests = [
        Request::Reshape(vec![usize::MAX, 0]),
        Request::Slice(0, 1, usize::MAX),
        Request::Transpose(0, 1),
        Request::Get(vec![0, usize::MAX - 1]),
        Request::Slice(1, usize::MAX, usize::MAX),
        Request::Reshape(vec![0, usize::MAX, 2]),
        Request::Reshape(vec![usize::MAX, 1, 0]),
    ];
    for request in &requests {
        step(request, &mut ranked, &mut dynamic, &mut model, &data)?;
    }
    prop_assert_eq!(model.shape, vec![usize::MAX, 1, 0]);
    Ok(())
}
