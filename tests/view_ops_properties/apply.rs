//! One operation run in each world: the model ([`expected`]), a run-time
//! rank enum of the ranked API ([`ranked_apply!`], for `RankedView`,
//! `RankedMut` and `RankedCells` alike) and a dynamic view
//! ([`dynamic_apply!`], for `DynView`, `DynViewMut` and `DynCellView`), each
//! giving its pieces (one for a plain transform) or
//! its error. `Get` is not a transform: the callers check it themselves.
#![allow(unused_macros, unused_imports)] // each test uses a subset

use crate::model::*;
use crate::ops::Op;
use crate::ops_model::*;
use crate::requests::Request;

fn one<V>(view: V) -> Vec<V> {
    vec![view]
}

/// What the specification says `op` gives for `model`.
pub fn expected(op: &Op, model: &Model) -> Result<Vec<Model>, E> {
    match op {
        Op::Old(Request::Transpose(a, b)) => expected_transpose(model, *a, *b).map(one),
        Op::Old(Request::Permute(axes)) => expected_permute(model, axes).map(one),
        Op::Old(Request::Slice(axis, start, end)) => {
            expected_slice(model, *axis, *start, *end).map(one)
        }
        Op::Old(Request::Reshape(shape)) => expected_reshape(model, shape).map(one),
        Op::Old(Request::Get(_)) => unreachable!("callers check get themselves"),
        Op::SliceStep(axis, start, end, step) => {
            expected_slice_step(model, *axis, *start, *end, *step).map(one)
        }
        Op::ReshapeStrided(shape) => expected_reshape_strided(model, shape).map(one),
        Op::SplitAxis(axis, extents) => expected_split_axis(model, *axis, *extents).map(one),
        Op::MergeAxes(axis) => expected_merge_axes(model, *axis).map(one),
        Op::Unsqueeze(axis) => expected_unsqueeze(model, *axis).map(one),
        Op::Squeeze(axis) => expected_squeeze(model, *axis).map(one),
        Op::Select(axis, index) => expected_select(model, *axis, *index).map(one),
        Op::BroadcastTo(target) => expected_broadcast_to(model, target).map(one),
        Op::SplitAt(axis, index, _) => expected_split_at(model, *axis, *index).map(Vec::from),
        Op::Chunk(axis, parts, _) => expected_chunk(model, *axis, *parts),
        Op::AxisIter(axis, _) => expected_axis_iter(model, *axis),
        Op::AxisChunks(axis, size, _) => expected_axis_chunks(model, *axis, *size),
    }
}

/// The pieces of a split as the chain's piece type `T`.
pub fn into_all<V, T: From<V>>(pieces: Vec<V>) -> Vec<T> {
    pieces.into_iter().map(T::from).collect()
}

/// `op` on a run-time rank enum of `ranked_views.rs` (taken by value):
/// `None` where the ranked API cannot express it. Every piece becomes a
/// `$T` (the enum itself for views; a chain's state type for the mutable
/// views, whose splits give `CellView` pieces). `$broadcast` is
/// `|view, target| ..` (the mutable views have no `broadcast_to`).
macro_rules! ranked_apply {
    ($op:expr, $r:expr, $broadcast:expr, $T:ty) => {{
        use $crate::apply::into_all;
        use $crate::ops::Op;
        use $crate::requests::Request;
        let one = |view| vec![<$T>::from(view)];
        match $op {
            Op::Old(Request::Transpose(a, b)) => Some($r.transpose(*a, *b).map(one)),
            Op::Old(Request::Permute(axes)) => $r.permute(axes).map(|x| x.map(one)),
            Op::Old(Request::Slice(axis, start, end)) => {
                Some($r.slice(*axis, *start, *end).map(one))
            }
            Op::Old(Request::Reshape(shape)) => $r.reshape(shape).map(|x| x.map(one)),
            Op::Old(Request::Get(_)) => unreachable!("callers check get themselves"),
            Op::SliceStep(axis, start, end, step) => {
                Some($r.slice_step(*axis, *start, *end, *step).map(one))
            }
            Op::ReshapeStrided(shape) => $r.reshape_strided(shape).map(|x| x.map(one)),
            Op::SplitAxis(axis, extents) => $r.split_axis(*axis, *extents).map(|x| x.map(one)),
            Op::MergeAxes(axis) => $r.merge_axes(*axis).map(|x| x.map(one)),
            Op::Unsqueeze(axis) => $r.unsqueeze(*axis).map(|x| x.map(one)),
            Op::Squeeze(axis) => $r.squeeze(*axis).map(|x| x.map(one)),
            Op::Select(axis, index) => $r.select(*axis, *index).map(|x| x.map(one)),
            Op::BroadcastTo(target) => ($broadcast)($r, target).map(|x| x.map(one)),
            Op::SplitAt(axis, index, _) => Some(
                $r.split_at(*axis, *index)
                    .map(|(a, b)| into_all::<_, $T>(vec![a, b])),
            ),
            Op::Chunk(axis, parts, _) => $r.chunk(*axis, *parts).map(|x| x.map(into_all::<_, $T>)),
            Op::AxisIter(axis, _) => $r.axis_iter(*axis).map(|x| x.map(into_all::<_, $T>)),
            Op::AxisChunks(axis, size, _) => {
                Some($r.axis_chunks_iter(*axis, *size).map(into_all::<_, $T>))
            }
        }
    }};
}
pub(crate) use ranked_apply;

/// `op` on a `DynView`, `DynViewMut` or `DynCellView` (taken by value),
/// every piece as a `$T` (see [`ranked_apply!`]); `$broadcast` as for
/// [`ranked_apply!`], returning a `Result`.
macro_rules! dynamic_apply {
    ($op:expr, $d:expr, $broadcast:expr, $T:ty) => {{
        use $crate::apply::into_all;
        use $crate::ops::Op;
        use $crate::ranked_views::both_ends;
        use $crate::requests::Request;
        let one = |view| vec![<$T>::from(view)];
        match $op {
            Op::Old(Request::Transpose(a, b)) => $d.transpose(*a, *b).map(one),
            Op::Old(Request::Permute(axes)) => $d.permute(axes).map(one),
            Op::Old(Request::Slice(axis, start, end)) => $d.slice(*axis, *start..*end).map(one),
            Op::Old(Request::Reshape(shape)) => $d.reshape(shape).map(one),
            Op::Old(Request::Get(_)) => unreachable!("callers check get themselves"),
            Op::SliceStep(axis, start, end, step) => {
                $d.slice_step(*axis, *start..*end, *step).map(one)
            }
            Op::ReshapeStrided(shape) => $d.reshape_strided(shape).map(one),
            Op::SplitAxis(axis, extents) => $d.split_axis(*axis, *extents).map(one),
            Op::MergeAxes(axis) => $d.merge_axes(*axis).map(one),
            Op::Unsqueeze(axis) => $d.unsqueeze(*axis).map(one),
            Op::Squeeze(axis) => $d.squeeze(*axis).map(one),
            Op::Select(axis, index) => $d.select(*axis, *index).map(one),
            Op::BroadcastTo(target) => ($broadcast)($d, target).map(one),
            Op::SplitAt(axis, index, _) => $d
                .split_at(*axis, *index)
                .map(|(a, b)| into_all::<_, $T>(vec![a, b])),
            Op::Chunk(axis, parts, _) => match parts {
                1 => $d
                    .chunk::<1>(*axis)
                    .map(|p| into_all::<_, $T>(Vec::from(p))),
                2 => $d
                    .chunk::<2>(*axis)
                    .map(|p| into_all::<_, $T>(Vec::from(p))),
                3 => $d
                    .chunk::<3>(*axis)
                    .map(|p| into_all::<_, $T>(Vec::from(p))),
                _ => $d
                    .chunk::<4>(*axis)
                    .map(|p| into_all::<_, $T>(Vec::from(p))),
            },
            Op::AxisIter(axis, _) => $d
                .axis_iter(*axis)
                .map(|items| into_all::<_, $T>(both_ends(items))),
            Op::AxisChunks(axis, size, _) => $d
                .axis_chunks_iter(*axis, *size)
                .map(|items| into_all::<_, $T>(both_ends(items))),
        }
    }};
}
pub(crate) use dynamic_apply;

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
