//! One operation run in the three worlds (the model, the ranked API, the
//! dynamic API), each giving its pieces or its error.

use crate::model::*;
use crate::ops::Op;
use crate::ops_model::*;
use crate::ranked_views::both_ends;
use crate::requests::Request;
use crate::{Dynamic, Ranked};

/// What one operation gave in each world: its pieces (one for a plain
/// transform) or an error; `None` for the ranked API where the operation
/// does not compile at this rank.
pub struct Outcome<'a> {
    pub model: Result<Vec<Model>, E>,
    pub ranked: Option<Result<Vec<Ranked<'a>>, E>>,
    pub dynamic: Result<Vec<Dynamic<'a>>, E>,
}

fn one<V>(view: V) -> Vec<V> {
    vec![view]
}

fn dynamic_chunk<'a>(view: &Dynamic<'a>, axis: usize, parts: usize) -> Result<Vec<Dynamic<'a>>, E> {
    match parts {
        1 => view.chunk::<1>(axis).map(Vec::from),
        2 => view.chunk::<2>(axis).map(Vec::from),
        3 => view.chunk::<3>(axis).map(Vec::from),
        _ => view.chunk::<4>(axis).map(Vec::from),
    }
}

/// Runs `op` in the three worlds.
pub fn apply<'a>(
    op: &Op,
    model: &Model,
    ranked: Option<Ranked<'a>>,
    dynamic: &Dynamic<'a>,
) -> Outcome<'a> {
    let r = ranked;
    let d = dynamic;
    let (model, ranked, dynamic) = match op {
        Op::Old(Request::Transpose(a, b)) => (
            expected_transpose(model, *a, *b).map(one),
            r.map(|r| r.transpose(*a, *b).map(one)),
            d.transpose(*a, *b).map(one),
        ),
        Op::Old(Request::Permute(axes)) => (
            expected_permute(model, axes).map(one),
            r.and_then(|r| r.permute(axes)).map(|x| x.map(one)),
            d.permute(axes).map(one),
        ),
        Op::Old(Request::Slice(axis, start, end)) => (
            expected_slice(model, *axis, *start, *end).map(one),
            r.map(|r| r.slice(*axis, *start, *end).map(one)),
            d.slice(*axis, *start..*end).map(one),
        ),
        Op::Old(Request::Reshape(shape)) => (
            expected_reshape(model, shape).map(one),
            r.and_then(|r| r.reshape(shape)).map(|x| x.map(one)),
            d.reshape(shape).map(one),
        ),
        Op::Old(Request::Get(_)) => unreachable!("`step` checks get itself"),
        Op::SliceStep(axis, start, end, step) => (
            expected_slice_step(model, *axis, *start, *end, *step).map(one),
            r.map(|r| r.slice_step(*axis, *start, *end, *step).map(one)),
            d.slice_step(*axis, *start..*end, *step).map(one),
        ),
        Op::ReshapeStrided(shape) => (
            expected_reshape_strided(model, shape).map(one),
            r.and_then(|r| r.reshape_strided(shape)).map(|x| x.map(one)),
            d.reshape_strided(shape).map(one),
        ),
        Op::SplitAxis(axis, extents) => (
            expected_split_axis(model, *axis, *extents).map(one),
            r.and_then(|r| r.split_axis(*axis, *extents))
                .map(|x| x.map(one)),
            d.split_axis(*axis, *extents).map(one),
        ),
        Op::MergeAxes(axis) => (
            expected_merge_axes(model, *axis).map(one),
            r.and_then(|r| r.merge_axes(*axis)).map(|x| x.map(one)),
            d.merge_axes(*axis).map(one),
        ),
        Op::Unsqueeze(axis) => (
            expected_unsqueeze(model, *axis).map(one),
            r.and_then(|r| r.unsqueeze(*axis)).map(|x| x.map(one)),
            d.unsqueeze(*axis).map(one),
        ),
        Op::Squeeze(axis) => (
            expected_squeeze(model, *axis).map(one),
            r.and_then(|r| r.squeeze(*axis)).map(|x| x.map(one)),
            d.squeeze(*axis).map(one),
        ),
        Op::Select(axis, index) => (
            expected_select(model, *axis, *index).map(one),
            r.and_then(|r| r.select(*axis, *index)).map(|x| x.map(one)),
            d.select(*axis, *index).map(one),
        ),
        Op::BroadcastTo(target) => (
            expected_broadcast_to(model, target).map(one),
            r.and_then(|r| r.broadcast_to(target)).map(|x| x.map(one)),
            d.broadcast_to(target).map(one),
        ),
        Op::SplitAt(axis, index, _) => (
            expected_split_at(model, *axis, *index).map(Vec::from),
            r.map(|r| r.split_at(*axis, *index).map(|(a, b)| vec![a, b])),
            d.split_at(*axis, *index).map(|(a, b)| vec![a, b]),
        ),
        Op::Chunk(axis, parts, _) => (
            expected_chunk(model, *axis, *parts),
            r.and_then(|r| r.chunk(*axis, *parts)),
            dynamic_chunk(d, *axis, *parts),
        ),
        Op::AxisIter(axis, _) => (
            expected_axis_iter(model, *axis),
            r.and_then(|r| r.axis_iter(*axis)),
            d.axis_iter(*axis).map(both_ends),
        ),
        Op::AxisChunks(axis, size, _) => (
            expected_axis_chunks(model, *axis, *size),
            r.map(|r| r.axis_chunks_iter(*axis, *size)),
            d.axis_chunks_iter(*axis, *size).map(both_ends),
        ),
    };
    Outcome {
        model,
        ranked,
        dynamic,
    }
}

/// Which piece the chain goes on with.
pub fn pick(op: &Op, pieces: usize) -> usize {
    match op {
        Op::SplitAt(.., which)
        | Op::Chunk(.., which)
        | Op::AxisIter(_, which)
        | Op::AxisChunks(.., which) => which % pieces,
        _ => 0,
    }
}
