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

use llm_from_scratch::tensor::dynamic::{DynTensor, DynView};
use llm_from_scratch::tensor::{Tensor, TensorError, TensorViewError, View};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

type Value = i64;
type E = TensorViewError;

const OVERFLOW: E = TensorViewError::Tensor(TensorError::ShapeOverflow);

// ---- the reference model ----

/// The element count of a valid shape (a zero extent anywhere gives 0).
fn count(shape: &[usize]) -> usize {
    if shape.contains(&0) {
        0
    } else {
        shape.iter().product()
    }
}

/// Every coordinate of `shape`, in row-major order, by counting.
fn coordinates(shape: &[usize]) -> Vec<Vec<usize>> {
    (0..count(shape))
        .map(|mut index| {
            let mut coordinate = vec![0; shape.len()];
            for axis in (0..shape.len()).rev() {
                coordinate[axis] = index % shape[axis];
                index /= shape[axis];
            }
            coordinate
        })
        .collect()
}

/// The row-major position of `coordinate` in `shape`.
fn position(shape: &[usize], coordinate: &[usize]) -> usize {
    coordinate
        .iter()
        .zip(shape)
        .fold(0, |acc, (&c, &n)| acc * n + c)
}

/// Row-major strides: plain suffix products, right to left; `ShapeOverflow`
/// when one of them (or the element count) does not fit in usize.
fn row_major_strides(shape: &[usize]) -> Result<Vec<usize>, E> {
    let mut strides = vec![0; shape.len()];
    let mut running: u128 = 1;
    for axis in (0..shape.len()).rev() {
        strides[axis] = running as usize;
        running *= shape[axis] as u128;
        if running > usize::MAX as u128 {
            return Err(OVERFLOW);
        }
    }
    Ok(strides)
}

#[derive(Clone, Debug)]
struct Model {
    shape: Vec<usize>,
    /// The owner offset of each coordinate, in row-major order.
    offsets: Vec<usize>,
}

impl Model {
    fn owner(shape: &[usize]) -> Self {
        Self {
            shape: shape.to_vec(),
            offsets: (0..count(shape)).collect(),
        }
    }

    fn rank(&self) -> usize {
        self.shape.len()
    }

    fn len(&self) -> usize {
        self.offsets.len()
    }

    fn at(&self, coordinate: &[usize]) -> usize {
        self.offsets[position(&self.shape, coordinate)]
    }

    /// Output axis k is source axis `axes[k]`.
    fn permute(&self, axes: &[usize]) -> Self {
        let shape: Vec<usize> = axes.iter().map(|&axis| self.shape[axis]).collect();
        let offsets = coordinates(&shape)
            .iter()
            .map(|coordinate| {
                let mut source = vec![0; coordinate.len()];
                for (k, &axis) in axes.iter().enumerate() {
                    source[axis] = coordinate[k];
                }
                self.at(&source)
            })
            .collect();
        Self { shape, offsets }
    }

    fn slice(&self, axis: usize, start: usize, end: usize) -> Self {
        let mut shape = self.shape.clone();
        shape[axis] = end - start;
        let offsets = coordinates(&shape)
            .iter()
            .map(|coordinate| {
                let mut source = coordinate.clone();
                source[axis] += start;
                self.at(&source)
            })
            .collect();
        Self { shape, offsets }
    }

    fn reshape(&self, shape: &[usize]) -> Self {
        Self {
            shape: shape.to_vec(),
            offsets: self.offsets.clone(),
        }
    }

    fn contiguous(&self) -> bool {
        self.offsets.windows(2).all(|pair| pair[1] == pair[0] + 1)
    }
}

// ---- what the specification says each request returns ----

fn expect_axis(axis: usize, rank: usize) -> Result<(), E> {
    if axis < rank {
        Ok(())
    } else {
        Err(E::AxisOutOfBounds { axis, rank })
    }
}

fn expected_transpose(model: &Model, first: usize, second: usize) -> Result<Model, E> {
    expect_axis(first, model.rank())?;
    expect_axis(second, model.rank())?;
    let mut axes: Vec<usize> = (0..model.rank()).collect();
    axes.swap(first, second);
    Ok(model.permute(&axes))
}

fn expected_permute(model: &Model, axes: &[usize]) -> Result<Model, E> {
    if axes.len() != model.rank() {
        return Err(E::PermutationLengthMismatch {
            expected: model.rank(),
            actual: axes.len(),
        });
    }
    for (k, &axis) in axes.iter().enumerate() {
        expect_axis(axis, model.rank())?;
        if axes[..k].contains(&axis) {
            return Err(E::DuplicateAxis { axis });
        }
    }
    Ok(model.permute(axes))
}

fn expected_slice(model: &Model, axis: usize, start: usize, end: usize) -> Result<Model, E> {
    expect_axis(axis, model.rank())?;
    if start > end {
        return Err(E::SliceStartAfterEnd { axis, start, end });
    }
    let dimension = model.shape[axis];
    if end > dimension {
        return Err(E::SliceEndOutOfBounds {
            axis,
            end,
            dimension,
        });
    }
    Ok(model.slice(axis, start, end))
}

fn expected_reshape(model: &Model, shape: &[usize]) -> Result<Model, E> {
    // Every suffix product (each stride and the count) must fit in usize.
    let mut running: u128 = 1;
    for &extent in shape.iter().rev() {
        running *= extent as u128;
        if running > usize::MAX as u128 {
            return Err(OVERFLOW);
        }
    }
    let requested = running as usize;
    if requested != model.len() {
        return Err(E::ReshapeElementCountMismatch {
            current: model.len(),
            requested,
        });
    }
    if !model.contiguous() {
        return Err(E::NonContiguousReshape);
    }
    Ok(model.reshape(shape))
}

fn expected_offset(model: &Model, coordinate: &[usize]) -> Result<usize, E> {
    for (axis, (&index, &dimension)) in coordinate.iter().zip(&model.shape).enumerate() {
        if index >= dimension {
            return Err(TensorError::IndexOutOfBounds {
                axis,
                index,
                dimension,
            }
            .into());
        }
    }
    Ok(model.at(coordinate))
}

// ---- the ranked API with the rank chosen at run time ----

/// A ranked view of rank 0 to 5; each arm calls the statically ranked API.
#[derive(Clone, Copy, Debug)]
enum Ranked<'a> {
    R0(View<'a, 0, Value>),
    R1(View<'a, 1, Value>),
    R2(View<'a, 2, Value>),
    R3(View<'a, 3, Value>),
    R4(View<'a, 4, Value>),
    R5(View<'a, 5, Value>),
}

/// An owner of rank 0 to 5.
enum Owner {
    R0(Tensor<0, Value>),
    R1(Tensor<1, Value>),
    R2(Tensor<2, Value>),
    R3(Tensor<3, Value>),
    R4(Tensor<4, Value>),
    R5(Tensor<5, Value>),
}

macro_rules! each_rank {
    ($enum:ident, $value:expr, $v:ident => $body:expr) => {
        match $value {
            $enum::R0($v) => $body,
            $enum::R1($v) => $body,
            $enum::R2($v) => $body,
            $enum::R3($v) => $body,
            $enum::R4($v) => $body,
            $enum::R5($v) => $body,
        }
    };
}

macro_rules! ranked_from {
    ($($rank:literal => $variant:ident),*) => {$(
        impl<'a> From<View<'a, $rank, Value>> for Ranked<'a> {
            fn from(view: View<'a, $rank, Value>) -> Self {
                Ranked::$variant(view)
            }
        }
    )*};
}
ranked_from!(0 => R0, 1 => R1, 2 => R2, 3 => R3, 4 => R4, 5 => R5);

/// A slice of the right length as an array; lengths are matched by the callers.
fn array<const N: usize>(values: &[usize]) -> [usize; N] {
    values.try_into().expect("the caller matched the rank")
}

fn reshape_ranked<'a, const R: usize>(
    view: View<'a, R, Value>,
    shape: &[usize],
) -> Result<Ranked<'a>, E> {
    Ok(match shape.len() {
        0 => view.reshape(array::<0>(shape))?.into(),
        1 => view.reshape(array::<1>(shape))?.into(),
        2 => view.reshape(array::<2>(shape))?.into(),
        3 => view.reshape(array::<3>(shape))?.into(),
        4 => view.reshape(array::<4>(shape))?.into(),
        5 => view.reshape(array::<5>(shape))?.into(),
        rank => unreachable!("tested ranks stop at 5, got {rank}"),
    })
}

/// What a materialized tensor holds: shape, strides, values.
type Owned = (Vec<usize>, Vec<usize>, Vec<Value>);

impl Owner {
    fn new(shape: &[usize], values: Vec<Value>) -> Result<Self, TensorError> {
        Ok(match shape.len() {
            0 => Owner::R0(Tensor::from_vec(array(shape), values)?),
            1 => Owner::R1(Tensor::from_vec(array(shape), values)?),
            2 => Owner::R2(Tensor::from_vec(array(shape), values)?),
            3 => Owner::R3(Tensor::from_vec(array(shape), values)?),
            4 => Owner::R4(Tensor::from_vec(array(shape), values)?),
            5 => Owner::R5(Tensor::from_vec(array(shape), values)?),
            rank => unreachable!("tested ranks stop at 5, got {rank}"),
        })
    }

    fn view(&self) -> Ranked<'_> {
        each_rank!(Owner, self, t => t.view().into())
    }
}

impl<'a> Ranked<'a> {
    fn shape(&self) -> Vec<usize> {
        each_rank!(Ranked, self, v => v.shape().to_vec())
    }
    fn strides(&self) -> Vec<usize> {
        each_rank!(Ranked, self, v => v.strides().to_vec())
    }
    fn base_offset(&self) -> usize {
        each_rank!(Ranked, self, v => v.base_offset())
    }
    fn len(&self) -> usize {
        each_rank!(Ranked, self, v => v.len())
    }
    fn is_empty(&self) -> bool {
        each_rank!(Ranked, self, v => v.is_empty())
    }
    fn rank(&self) -> usize {
        each_rank!(Ranked, self, v => v.rank())
    }
    fn is_contiguous(&self) -> bool {
        each_rank!(Ranked, self, v => v.is_contiguous())
    }
    fn offsets(&self) -> (usize, Vec<usize>) {
        each_rank!(Ranked, self, v => (v.offsets().len(), v.offsets().collect()))
    }
    fn values(&self) -> (usize, Vec<Value>) {
        each_rank!(Ranked, self, v => (v.iter().len(), v.iter().copied().collect()))
    }
    fn contiguous_slice(&self) -> Option<Vec<Value>> {
        each_rank!(Ranked, self, v => v.as_contiguous_slice().map(<[Value]>::to_vec))
    }
    fn get(&self, index: &[usize]) -> Result<Value, E> {
        each_rank!(Ranked, self, v => v.get(index.try_into().expect("rank")).copied())
    }
    fn storage_offset(&self, index: &[usize]) -> Result<usize, E> {
        each_rank!(Ranked, self, v => v.storage_offset(index.try_into().expect("rank")))
    }
    fn materialize(&self) -> Result<Owned, E> {
        each_rank!(Ranked, self, v => v.materialize().map(|t| {
            (t.shape().to_vec(), t.strides().to_vec(), t.into_vec())
        }))
    }
    fn materialize_into(&self) -> Result<Vec<Value>, E> {
        each_rank!(Ranked, self, v => {
            let mut out = Tensor::full(*v.shape(), -1)?;
            v.materialize_into(&mut out)?;
            Ok(out.into_vec())
        })
    }
    fn from_parts(
        data: &'a [Value],
        shape: &[usize],
        strides: &[usize],
        base: usize,
    ) -> Result<Self, E> {
        Ok(match shape.len() {
            0 => View::from_parts(data, array::<0>(shape), array(strides), base)?.into(),
            1 => View::from_parts(data, array::<1>(shape), array(strides), base)?.into(),
            2 => View::from_parts(data, array::<2>(shape), array(strides), base)?.into(),
            3 => View::from_parts(data, array::<3>(shape), array(strides), base)?.into(),
            4 => View::from_parts(data, array::<4>(shape), array(strides), base)?.into(),
            5 => View::from_parts(data, array::<5>(shape), array(strides), base)?.into(),
            rank => unreachable!("tested ranks stop at 5, got {rank}"),
        })
    }
    fn into_dyn(self) -> DynView<'a, Value> {
        each_rank!(Ranked, self, v => v.into_dyn())
    }
    fn transpose(&self, first: usize, second: usize) -> Result<Self, E> {
        each_rank!(Ranked, self, v => v.transpose(first, second).map(Ranked::from))
    }
    fn permute(&self, axes: &[usize]) -> Result<Self, E> {
        each_rank!(Ranked, self, v => v.permute(axes.try_into().expect("rank")).map(Ranked::from))
    }
    fn slice(&self, axis: usize, start: usize, end: usize) -> Result<Self, E> {
        each_rank!(Ranked, self, v => v.slice(axis, start..end).map(Ranked::from))
    }
    fn reshape(&self, shape: &[usize]) -> Result<Self, E> {
        each_rank!(Ranked, *self, v => reshape_ranked(v, shape))
    }
}

// ---- one request, turned into concrete arguments from a seed ----

/// splitmix64: a tiny deterministic stream of numbers from one seed.
struct Stream(u64);

impl Stream {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..bound` (`bound > 0`).
    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

#[derive(Clone, Debug)]
enum Request {
    Transpose(usize, usize),
    Permute(Vec<usize>),
    Slice(usize, usize, usize),
    Reshape(Vec<usize>),
    Get(Vec<usize>),
}

/// A shape with `len` elements: a random factorisation (extents 0–5 around a zero when empty).
fn factorisation(len: usize, stream: &mut Stream) -> Vec<usize> {
    let mut rank = stream.below(6);
    if len != 1 && rank == 0 {
        rank = 1;
    }
    let mut shape = vec![1; rank];
    if len == 0 {
        for extent in &mut shape {
            *extent = stream.below(6);
        }
        let zero = stream.below(rank);
        shape[zero] = 0;
    } else {
        let (mut rest, mut prime) = (len, 2);
        while rest > 1 {
            while rest % prime == 0 {
                shape[stream.below(rank)] *= prime;
                rest /= prime;
            }
            prime += 1;
        }
    }
    shape
}

/// A valid request for `model` (a reshape is valid when the view is contiguous).
fn valid_request(model: &Model, kind: u8, stream: &mut Stream) -> Request {
    let rank = model.rank();
    match kind % 4 {
        0 if rank > 0 => Request::Transpose(stream.below(rank), stream.below(rank)),
        1 => {
            let mut axes: Vec<usize> = (0..rank).collect();
            for i in (1..rank).rev() {
                axes.swap(i, stream.below(i + 1));
            }
            Request::Permute(axes)
        }
        2 if rank > 0 => {
            let axis = stream.below(rank);
            let extent = model.shape[axis];
            // Saturating: a wild reshape may leave an empty view with a usize::MAX extent.
            let start = stream.below(extent.saturating_add(1));
            let end = start + stream.below((extent - start).saturating_add(1));
            Request::Slice(axis, start, end)
        }
        _ => Request::Reshape(factorisation(model.len(), stream)),
    }
}

/// A request with arguments drawn past every bound, valid only by chance.
fn wild_request(model: &Model, kind: u8, stream: &mut Stream) -> Request {
    let rank = model.rank();
    let extent_of = |axis: usize| model.shape.get(axis).copied().unwrap_or(5);
    match kind % 5 {
        0 => Request::Transpose(stream.below(rank + 3), stream.below(rank + 3)),
        1 => {
            // Mostly the right length (the ranked API needs it), sometimes not.
            let len = if stream.below(4) == 0 {
                stream.below(7)
            } else {
                rank
            };
            Request::Permute((0..len).map(|_| stream.below(rank + 2)).collect())
        }
        2 => {
            let axis = stream.below(rank + 2);
            let bound = extent_of(axis).saturating_add(4);
            Request::Slice(axis, stream.below(bound), stream.below(bound))
        }
        3 => {
            const HUGE: [usize; 4] = [usize::MAX, 1 << 32, 1 << 33, usize::MAX / 3];
            let shape = (0..stream.below(6))
                .map(|_| {
                    if stream.below(4) == 0 {
                        HUGE[stream.below(HUGE.len())]
                    } else {
                        stream.below(8)
                    }
                })
                .collect();
            Request::Reshape(shape)
        }
        _ => Request::Get(
            (0..rank)
                .map(|axis| stream.below(extent_of(axis).saturating_add(2)))
                .collect(),
        ),
    }
}

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
        let expected = expected_offset(model, &probe);
        prop_assert!(expected.is_err());
        prop_assert_eq!(ranked.storage_offset(&probe), expected.clone());
        prop_assert_eq!(dynamic.storage_offset(&probe), expected);
    }
    // The one copy: same shape, fresh row-major strides, logical values.
    match row_major_strides(&model.shape) {
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
            prop_assert_eq!(dynamic.materialize().map(|_| ()), Err(error.clone()));
            prop_assert_eq!(ranked.materialize_into(), Err(error));
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
            let expected = expected_offset(model, index);
            prop_assert_eq!(ranked.storage_offset(index), expected.clone());
            prop_assert_eq!(dynamic.storage_offset(index), expected.clone());
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
    let offsets: Vec<usize> = coordinates(shape)
        .iter()
        .map(|c| base + c.iter().zip(strides).map(|(i, s)| i * s).sum::<usize>())
        .collect();
    let needed = offsets.iter().max().map_or(0, |last| last + 1);
    let data = distinct_values(needed + slack);
    if needed > 0 {
        // One value short: every constructor names the size it needed.
        let short = &data[..needed - 1];
        let expected = E::ViewOutOfBounds {
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
    prop::collection::vec(0_usize..=5, 0..=5)
}

/// Shape, strides (0–7 each) and base offset (0–5) of a borrowed layout.
fn strided_layouts() -> impl Strategy<Value = (Vec<usize>, Vec<usize>, usize)> {
    shapes().prop_flat_map(|shape| {
        let rank = shape.len();
        (
            Just(shape),
            prop::collection::vec(0_usize..=7, rank),
            0_usize..=5,
        )
    })
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
        layout in strided_layouts(),
        slack in 0_usize..3,
        seeds in prop::collection::vec((any::<u8>(), any::<bool>(), any::<u64>()), 0..8),
    ) {
        run_strided(&layout, slack, &seeds)?;
    }
}

// ---- the model itself, on the chapter's numbers ----

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
    assert_eq!(row_major_strides(&[2, 0, 3]), Ok(vec![0, 3, 1]));
    assert_eq!(row_major_strides(&[0, 2, usize::MAX]), Err(OVERFLOW));
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
