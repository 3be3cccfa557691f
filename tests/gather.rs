//! `concat`, `stack` and `index_select` against a coordinate-by-coordinate
//! model, over random shapes (ranks 0..=4, extents 0..=4) and random input
//! layouts (permuted, padded, stepped, stride-0), through the ranked and
//! the dynamic API and their `_into` twins; and every bad input as a typed
//! error (checked before any copy, `_into` included), overflow and
//! allocation failure included.

mod common;
#[path = "data_ops/layout.rs"]
mod layout;

use common::with_rank;
use layout::{Layout, coordinates, mix};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::{self, DynTensor, DynView};
use proptest::prelude::*;

type Got = Result<(Vec<usize>, Vec<u64>), Error>;

/// The shape and values of a result, typed or dynamic.
fn got<D: Dimension>(result: Result<ArrayBase<Vec<u64>, D>, Error>) -> Got {
    result.map(|t| (t.shape().as_ref().to_vec(), t.into_vec()))
}

/// Inputs of one test: layouts and their owners (values tagged by input).
struct Inputs {
    layouts: Vec<Layout>,
    owners: Vec<DynTensor<u64>>,
}

impl Inputs {
    fn new(layouts: Vec<Layout>, seed: u64) -> Self {
        let owners = layouts
            .iter()
            .enumerate()
            .map(|(i, layout)| layout.owner(|k| mix(seed + i as u64, k) >> 8))
            .collect();
        Self { layouts, owners }
    }

    fn views(&self) -> Vec<DynView<'_, u64>> {
        self.layouts
            .iter()
            .zip(&self.owners)
            .map(|(layout, owner)| layout.view(owner))
            .collect()
    }

    /// The model: input `i`'s value at logical coordinate `c`.
    fn at(&self, i: usize, c: &[usize]) -> u64 {
        self.owners[i].as_slice()[self.layouts[i].offset(c)]
    }
}

/// `op` through the dynamic API, its `_into` twin (into a zeroed owner of
/// the expected shape), the ranked API and the ranked `_into`.
#[derive(Clone, Copy, Debug)]
enum Op<'i> {
    Concat(usize),
    Stack(usize),
    Select(usize, &'i [usize]),
}

impl Op<'_> {
    /// The public function called: `concat`, ..., or its `_into` twin.
    fn name(self, into: bool) -> &'static str {
        match (self, into) {
            (Op::Concat(_), false) => "concat",
            (Op::Concat(_), true) => "concat_into",
            (Op::Stack(_), false) => "stack",
            (Op::Stack(_), true) => "stack_into",
            (Op::Select(..), false) => "index_select",
            (Op::Select(..), true) => "index_select_into",
        }
    }
}

/// `op` fresh and `_into` an output made by `same` (concat, index_select:
/// the inputs' dimension) or `larger` (stack: one axis more), for views of
/// either dimension: the same generic functions serve both.
fn fresh_and_into<D, E>(
    op: Op<'_>,
    views: &[ArrayBase<&[u64], D>],
    same: impl FnOnce() -> ArrayBase<Vec<u64>, D>,
    larger: impl FnOnce() -> ArrayBase<Vec<u64>, E>,
) -> [Got; 2]
where
    D: Dimension + InsertAxis<Larger = E>,
    E: Dimension,
{
    match op {
        Op::Concat(axis) => {
            let mut out = same();
            let into = concat_into(views, axis, &mut out);
            [got(concat(views, axis)), into.and(got(Ok(out)))]
        }
        Op::Stack(axis) => {
            let mut out = larger();
            let into = stack_into(views, axis, &mut out);
            [got(stack(views, axis)), into.and(got(Ok(out)))]
        }
        Op::Select(axis, indices) => {
            let mut out = same();
            let into = index_select_into(&views[0], axis, indices, &mut out);
            [
                got(index_select(&views[0], axis, indices)),
                into.and(got(Ok(out))),
            ]
        }
    }
}

/// A zeroed typed owner of `shape` (its rank inferred from the use).
fn zeros<const N: usize>(shape: &[usize]) -> Tensor<N, u64> {
    let shape: [usize; N] = shape.try_into().expect("rank");
    Tensor::zeros(shape).expect("output")
}

/// The four runs, each named, with whether it is an `_into` run.
fn run_all(
    op: Op<'_>,
    views: &[DynView<'_, u64>],
    out_shape: &[usize],
) -> Vec<(&'static str, bool, Got)> {
    let rank = views.first().map_or(0, DynView::rank);
    let dyn_zeros = || DynTensor::<u64>::zeros(out_shape.to_vec()).expect("output");
    let [dynamic, dynamic_into] = fresh_and_into(op, views, dyn_zeros, dyn_zeros);
    let [ranked, ranked_into] = with_rank!(rank, [0 1 2 3 4], |R| {
        let views: Vec<View<'_, R, u64>> = views
            .iter()
            .map(|v| v.into_ranked::<R>().expect("rank"))
            .collect();
        // The stacked rank R + 1 is inferred from the rank table.
        fresh_and_into(op, &views, || zeros(out_shape), || zeros(out_shape))
    });
    vec![
        ("dynamic", false, dynamic),
        ("dynamic _into", true, dynamic_into),
        ("ranked", false, ranked),
        ("ranked _into", true, ranked_into),
    ]
}

/// Every run equals `want`.
fn check_all(op: Op<'_>, views: &[DynView<'_, u64>], out_shape: &[usize], want: &Got) {
    for (what, _, got) in run_all(op, views, out_shape) {
        assert_eq!(&got, want, "{what} {op:?}");
    }
}

// ------------------------------------------------------------------ models

fn concat_model(inputs: &Inputs, axis: usize) -> (Vec<usize>, Vec<u64>) {
    let mut shape = inputs.layouts[0].shape.clone();
    shape[axis] = inputs.layouts.iter().map(|l| l.shape[axis]).sum();
    let values = coordinates(&shape)
        .into_iter()
        .map(|mut c| {
            let mut i = 0;
            while c[axis] >= inputs.layouts[i].shape[axis] {
                c[axis] -= inputs.layouts[i].shape[axis];
                i += 1;
            }
            inputs.at(i, &c)
        })
        .collect();
    (shape, values)
}

fn stack_model(inputs: &Inputs, axis: usize) -> (Vec<usize>, Vec<u64>) {
    let mut shape = inputs.layouts[0].shape.clone();
    shape.insert(axis, inputs.layouts.len());
    let values = coordinates(&shape)
        .into_iter()
        .map(|mut c| {
            let i = c.remove(axis);
            inputs.at(i, &c)
        })
        .collect();
    (shape, values)
}

fn select_model(inputs: &Inputs, axis: usize, indices: &[usize]) -> (Vec<usize>, Vec<u64>) {
    let mut shape = inputs.layouts[0].shape.clone();
    shape[axis] = indices.len();
    let values = coordinates(&shape)
        .into_iter()
        .map(|mut c| {
            c[axis] = indices[c[axis]];
            inputs.at(0, &c)
        })
        .collect();
    (shape, values)
}

// -------------------------------------------------------------- strategies

/// 1..=4 inputs of rank 1..=4 that agree except along `axis`, with layouts.
fn concat_case() -> impl Strategy<Value = (Vec<Layout>, usize, u64)> {
    (
        layout::shape(4, 4).prop_filter("rank >= 1", |s| !s.is_empty()),
        any::<u64>(),
    )
        .prop_flat_map(|(shape, seed)| {
            let axis = 0..shape.len();
            (
                Just(shape),
                axis,
                prop::collection::vec(0_usize..=4, 1..=4),
                Just(seed),
            )
        })
        .prop_flat_map(|(shape, axis, extents, seed)| {
            let layouts: Vec<_> = extents
                .into_iter()
                .map(|n| {
                    let mut s = shape.clone();
                    s[axis] = n;
                    layout::layout(s)
                })
                .collect();
            (layouts, Just(axis), Just(seed))
        })
}

/// 1..=4 inputs of one shape (rank 0..=4) with layouts, and an axis in 0..=rank.
fn stack_case() -> impl Strategy<Value = (Vec<Layout>, usize, u64)> {
    (layout::shape(4, 3), 1_usize..=4, any::<u64>()).prop_flat_map(|(shape, n, seed)| {
        let rank = shape.len();
        let layouts = vec![layout::layout(shape); n];
        (layouts, 0..=rank, Just(seed))
    })
}

/// An input of rank 1..=4, an axis, and 0..=6 indices below its extent.
fn select_case() -> impl Strategy<Value = (Layout, usize, Vec<usize>, u64)> {
    (
        layout::shape(4, 4).prop_filter("rank >= 1", |s| !s.is_empty()),
        any::<u64>(),
    )
        .prop_flat_map(|(shape, seed)| (Just(shape.clone()), 0..shape.len(), Just(seed)))
        .prop_flat_map(|(shape, axis, seed)| {
            let extent = shape[axis];
            let indices = if extent == 0 {
                Just(Vec::new()).boxed()
            } else {
                prop::collection::vec(0..extent, 0..=6).boxed()
            };
            (layout::layout(shape), Just(axis), indices, Just(seed))
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    #[test]
    fn concat_matches_the_model((layouts, axis, seed) in concat_case()) {
        let inputs = Inputs::new(layouts, seed);
        let want = concat_model(&inputs, axis);
        check_all(Op::Concat(axis), &inputs.views(), &want.0, &Ok(want.clone()));
    }

    #[test]
    fn stack_matches_the_model((layouts, axis, seed) in stack_case()) {
        let inputs = Inputs::new(layouts, seed);
        let want = stack_model(&inputs, axis);
        check_all(Op::Stack(axis), &inputs.views(), &want.0, &Ok(want.clone()));
    }

    #[test]
    fn index_select_matches_the_model((layout, axis, indices, seed) in select_case()) {
        let inputs = Inputs::new(vec![layout], seed);
        let want = select_model(&inputs, axis, &indices);
        check_all(Op::Select(axis, &indices), &inputs.views(), &want.0, &Ok(want.clone()));
    }

    /// Concat / stack inputs that disagree: the error names the first input
    /// (from the second) and its first disagreeing axis, before any copy;
    /// an axis past the output's rank is checked first.
    #[test]
    fn mismatched_inputs_are_typed_errors(
        shapes in prop::collection::vec(prop::collection::vec(0_usize..=3, 3), 2..=4),
        axis in 0_usize..=4,
        join_stack in any::<bool>(),
    ) {
        let inputs = Inputs::new(shapes.iter().map(|s| Layout::dense(s)).collect(), 1);
        let out_rank = if join_stack { 4 } else { 3 };
        let mismatch = shapes.iter().enumerate().skip(1).find_map(|(input, shape)| {
            (0..3)
                .find(|&a| shape[a] != shapes[0][a] && (join_stack || a != axis))
                .map(|a| (input, a))
        });
        let op = if join_stack { Op::Stack(axis) } else { Op::Concat(axis) };
        // The error names the function called, `_into` or not.
        let want = |into| {
            let op = op.name(into);
            if axis >= out_rank {
                Some(Error::AxisOutOfBounds { op, axis, rank: out_rank })
            } else {
                mismatch.map(|(input, a)| Error::ConcatShapeMismatch {
                    op,
                    input,
                    axis: a,
                    expected: shapes[0][a],
                    actual: shapes[input][a],
                })
            }
        };
        prop_assume!(want(false).is_some());
        // A wrong output shape too: the input error must come first.
        for (what, into, got) in run_all(op, &inputs.views(), &vec![1; out_rank]) {
            prop_assert_eq!(got, Err(want(into).unwrap()), "{}", what);
        }
    }

    /// Indices past the extent: the first one in list order, with its position.
    #[test]
    fn out_of_range_indices_name_their_position(
        shape in prop::collection::vec(0_usize..=3, 1..=3),
        axis in 0_usize..=3,
        indices in prop::collection::vec(0_usize..=5, 0..=6),
    ) {
        let inputs = Inputs::new(vec![Layout::dense(&shape)], 2);
        let rank = shape.len();
        let op = Op::Select(axis, &indices);
        let want = |into| if axis >= rank {
            Some(Error::AxisOutOfBounds { op: op.name(into), axis, rank })
        } else {
            indices.iter().position(|&i| i >= shape[axis]).map(|position| {
                Error::IndexSelectOutOfBounds {
                    op: if into { "index_select_into" } else { "index_select" },
                    axis,
                    position,
                    index: indices[position],
                    extent: shape[axis],
                }
            })
        };
        prop_assume!(want(false).is_some());
        for (what, into, got) in run_all(op, &inputs.views(), &vec![1; rank]) {
            prop_assert_eq!(got, Err(want(into).unwrap()), "{}", what);
        }
    }
}

#[test]
fn an_empty_input_list_is_an_error_in_both_apis() {
    let empty = |op| Error::EmptyInputList { op };
    let none: [View<'_, 2>; 0] = [];
    assert_eq!(concat(&none, 0).unwrap_err(), empty("concat"));
    assert_eq!(stack(&none, 0).unwrap_err(), empty("stack"));
    let mut out = Tensor::<2>::zeros([0, 0]).unwrap();
    assert_eq!(
        concat_into(&none, 0, &mut out).unwrap_err(),
        empty("concat_into")
    );
    let dynamic_none: [DynView<'_>; 0] = [];
    assert_eq!(
        dynamic::concat(&dynamic_none, 0).unwrap_err(),
        empty("concat")
    );
    assert_eq!(
        dynamic::stack(&dynamic_none, 0).unwrap_err(),
        empty("stack")
    );
}

#[test]
fn dynamic_inputs_of_another_rank_are_named() {
    let a = DynTensor::from_vec(vec![2, 1], vec![1.0, 2.0]).unwrap();
    let b = DynTensor::from_vec(vec![2], vec![3.0, 4.0]).unwrap();
    let want = |op| {
        Err(Error::ConcatRankMismatch {
            op,
            input: 1,
            expected: 2,
            actual: 1,
        })
    };
    assert_eq!(dynamic::concat(&[a.view(), b.view()], 1), want("concat"));
    assert_eq!(dynamic::stack(&[a.view(), b.view()], 0), want("stack"));
    // Beyond the typed ranks: nine axes stacked into ten.
    let high = DynTensor::from_vec(vec![1; 9], vec![5.0]).unwrap();
    let stacked = dynamic::stack(&[high.view(), high.view()], 9).unwrap();
    assert_eq!((stacked.rank(), stacked.as_slice()), (10, &[5.0, 5.0][..]));
}

#[test]
fn overflowing_outputs_are_shape_overflow_before_any_allocation() {
    let overflow = |op| -> Result<usize, _> { Err(Error::ShapeOverflow { op }) };
    // Two empty [usize::MAX, 0] views: the joined extent overflows.
    let empty = View::<2, f64>::from_parts(&[], [usize::MAX, 0], [0, 0], 0).unwrap();
    assert_eq!(
        concat(&[empty, empty], 0).map(|t| t.len()),
        overflow("concat")
    );
    // Joined along axis 1 it stays empty, and nothing is walked.
    assert_eq!(
        concat(&[empty, empty], 1).unwrap().shape(),
        &[usize::MAX, 0]
    );
    // A valid empty view whose stacked shape has no row-major strides.
    let wide = View::<2, f64>::from_parts(&[], [0, usize::MAX / 2], [0, 0], 0).unwrap();
    assert_eq!(
        stack(&[wide, wide, wide], 2).map(|t| t.len()),
        overflow("stack")
    );
    let dynamic_wide = wide.into_dyn();
    assert_eq!(
        dynamic::index_select(&dynamic_wide, 0, &[]).map(|t| t.len()),
        Ok(0)
    );
    // [usize::MAX / 2, 3, 0] permuted to [0, 3, usize::MAX / 2]: a valid view, no row-major strides.
    let tall = View::<3, f64>::from_parts(&[], [usize::MAX / 2, 3, 0], [0, 0, 0], 0)
        .unwrap()
        .permute([2, 1, 0])
        .unwrap();
    assert_eq!(
        index_select(&tall, 0, &[0; 0]).map(|t| t.len()),
        overflow("index_select")
    );
}

#[test]
fn an_output_that_cannot_be_reserved_is_an_error() {
    // One stored value read as 2^62 rows (stride 0): every output is 2^62+ values.
    let data = [1.5_f64];
    let rows = View::from_parts(&data, [1 << 62, 1], [0, 0], 0).unwrap();
    let too_big = |op, elements| Err(Error::AllocationFailed { op, elements });
    assert_eq!(
        index_select(&rows, 1, &[0]).map(|t| t.len()),
        too_big("index_select", 1 << 62)
    );
    assert_eq!(
        concat(&[rows, rows], 1).map(|t| t.len()),
        too_big("concat", 1 << 63)
    );
    assert_eq!(
        stack(&[rows, rows], 0).map(|t| t.len()),
        too_big("stack", 1 << 63)
    );
}

#[test]
fn into_checks_the_output_shape_after_the_inputs() {
    let a = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
    let mut wrong = Tensor::<2>::zeros([2, 2]).unwrap();
    assert_eq!(
        concat_into(&[a.view(), a.view()], 0, &mut wrong),
        Err(Error::OutputShapeMismatch {
            op: "concat_into",
            expected: vec![4, 2],
            actual: vec![2, 2]
        })
    );
    assert_eq!(
        index_select_into(&a, 1, &[1, 1, 0], &mut wrong),
        Err(Error::OutputShapeMismatch {
            op: "index_select_into",
            expected: vec![2, 3],
            actual: vec![2, 2]
        })
    );
    let mut wrong3 = Tensor::<3>::zeros([2, 2, 1]).unwrap();
    assert_eq!(
        stack_into(&[a.view()], 0, &mut wrong3),
        Err(Error::OutputShapeMismatch {
            op: "stack_into",
            expected: vec![1, 2, 2],
            actual: vec![2, 2, 1]
        })
    );
    // A right shape is overwritten completely.
    let mut out = Tensor::<2>::full([2, 3], f64::NAN).unwrap();
    index_select_into(&a, 1, &[1, 1, 0], &mut out).unwrap();
    assert_eq!(out.as_slice(), &[2.0, 2.0, 1.0, 4.0, 4.0, 3.0]);
}

#[test]
fn the_kv_cache_grows_by_concat_and_the_embedding_is_index_select() {
    // GPT-2's cache: past keys [B, H, T, D] plus one new position [B, H, 1, D].
    let past = Tensor::from_fn([1, 2, 3, 2], |[_, h, t, d]| (100 * h + 10 * t + d) as f64).unwrap();
    let new = Tensor::from_fn([1, 2, 1, 2], |[_, h, _, d]| (100 * h + 90 + d) as f64).unwrap();
    let grown = concat(&[past.view(), new.view()], 2).unwrap();
    assert_eq!(grown.shape(), &[1, 2, 4, 2]);
    assert_eq!(grown.get([0, 1, 3, 1]).unwrap(), &191.0);
    assert_eq!(grown.get([0, 1, 2, 0]).unwrap(), &120.0);
    // Token ids [2, 0, 2] into a [V = 3, C = 2] table; a token past the vocabulary is named.
    let wte = Tensor::from_fn([3, 2], |[v, c]| (10 * v + c) as f32).unwrap();
    let x = index_select(&wte, 0, &[2, 0, 2]).unwrap();
    assert_eq!(x.as_slice(), &[20.0, 21.0, 0.0, 1.0, 20.0, 21.0]);
    let error = index_select(&wte, 0, &[2, 50_000]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "index_select: indices[1] = 50000 is out of bounds for axis 0 of extent 3"
    );
}
