//! One view operation, old or new, turned into concrete arguments from a
//! seed: valid ones for the current view (mostly), and wild ones drawn past
//! every bound (axes past the rank, `usize::MAX` extents, indices and
//! steps, products that overflow, targets of the wrong rank).

use crate::model::Model;
use crate::requests::{Request, Stream, factorisation, valid_request, wild_request};

/// Numbers a wild request draws from besides small ones.
const HUGE: [usize; 5] = [usize::MAX, usize::MAX - 1, usize::MAX / 2, 1 << 32, 1 << 33];

/// The largest rank a chain may reach (the ranked API's `MAX_RANK`).
pub const MAX_RANK: usize = 8;
/// The largest view a valid broadcast may produce.
const MAX_LEN: usize = 400;
/// The largest view (or number of pieces) the model enumerates.
pub const ENUMERABLE: usize = 1 << 12;

#[derive(Clone, Debug)]
pub enum Op {
    Old(Request),
    SliceStep(usize, usize, usize, usize),
    ReshapeStrided(Vec<usize>),
    SplitAxis(usize, [usize; 2]),
    MergeAxes(usize),
    Unsqueeze(usize),
    Squeeze(usize),
    Select(usize, usize),
    BroadcastTo(Vec<usize>),
    /// `split_at(axis, index)`, the chain continuing with part `which % 2`.
    SplitAt(usize, usize, usize),
    /// `chunk::<N>(axis)` with `N` in 1..=4, continuing with part `which % N`.
    Chunk(usize, usize, usize),
    /// `axis_iter(axis)`, continuing with item `which % len` (if any).
    AxisIter(usize, usize),
    /// `axis_chunks_iter(axis, size)`, continuing with item `which % len`.
    AxisChunks(usize, usize, usize),
}

fn small_or_huge(stream: &mut Stream, small: usize) -> usize {
    if stream.below(5) == 0 {
        HUGE[stream.below(HUGE.len())]
    } else {
        stream.below(small.saturating_add(1))
    }
}

/// A divisor of `n` (any small number for 0; 1 or `n` for a huge `n`).
fn divisor(n: usize, stream: &mut Stream) -> usize {
    if n == 0 {
        return stream.below(4);
    }
    let candidates = if n > 64 {
        vec![1, n]
    } else {
        (1..=n).collect()
    };
    let divisors: Vec<usize> = candidates
        .into_iter()
        .filter(|d| n.is_multiple_of(*d))
        .collect();
    divisors[stream.below(divisors.len())]
}

/// A shape with the view's elements that regroups its axes (split, merge,
/// unit axes in and out): the reshapes the strides most often allow.
fn regrouped(model: &Model, stream: &mut Stream) -> Vec<usize> {
    let mut shape = model.shape.clone();
    for _ in 0..1 + stream.below(3) {
        let rank = shape.len();
        match stream.below(4) {
            0 if rank >= 2 => {
                let axis = stream.below(rank - 1);
                if let Some(merged) = shape[axis].checked_mul(shape[axis + 1]) {
                    shape.splice(axis..=axis + 1, [merged]);
                }
            }
            1 if (1..MAX_RANK).contains(&rank) => {
                let axis = stream.below(rank);
                let outer = divisor(shape[axis], stream);
                let inner = shape[axis].checked_div(outer).unwrap_or(0);
                shape.splice(axis..=axis, [outer, inner]);
            }
            2 if rank < MAX_RANK => shape.insert(stream.below(rank + 1), 1),
            _ => {
                if let Some(unit) = shape.iter().position(|&e| e == 1) {
                    shape.remove(unit);
                }
            }
        }
    }
    shape
}

/// A valid operation for `model`, of kind `kind` (mostly succeeding).
pub fn valid_op(model: &Model, kind: u8, stream: &mut Stream) -> Op {
    let rank = model.rank();
    let len = model.len();
    let axis = |stream: &mut Stream| stream.below(rank.max(1));
    let extent = |axis: usize| model.shape.get(axis).copied().unwrap_or(0);
    match kind % 16 {
        // The old transforms (their reshapes have rank 5 at most).
        k @ 0..=3 => Op::Old(valid_request(model, k, stream)),
        4 if rank > 0 => {
            let a = axis(stream);
            let end = stream.below(extent(a).saturating_add(1));
            let start = stream.below(end + 1);
            Op::SliceStep(a, start, end, 1 + stream.below(4))
        }
        5 | 6 => {
            if kind % 16 == 5 || len == 0 {
                Op::ReshapeStrided(regrouped(model, stream))
            } else {
                let shape = factorisation(len, stream);
                Op::ReshapeStrided(shape)
            }
        }
        7 if rank > 0 && rank < MAX_RANK => {
            let a = axis(stream);
            let outer = divisor(extent(a), stream);
            let inner = match (extent(a), outer) {
                (0, 0) => stream.below(4),
                (0, _) => 0,
                (n, d) => n / d,
            };
            Op::SplitAxis(a, [outer, inner])
        }
        8 if rank >= 2 => Op::MergeAxes(stream.below(rank - 1)),
        9 if rank < MAX_RANK => Op::Unsqueeze(stream.below(rank + 1)),
        10 if rank > 0 => {
            let units: Vec<usize> = (0..rank).filter(|&a| model.shape[a] == 1).collect();
            Op::Squeeze(match units.len() {
                0 => axis(stream),
                n => units[stream.below(n)],
            })
        }
        11 if rank > 0 => {
            let a = axis(stream);
            Op::Select(a, stream.below(extent(a).max(1)))
        }
        12 => {
            let lead = stream.below(MAX_RANK.saturating_sub(rank) + 1).min(2);
            let mut target: Vec<usize> = (0..lead).map(|_| stream.below(4)).collect();
            target.extend(
                model
                    .shape
                    .iter()
                    .map(|&e| if e == 1 { stream.below(4) } else { e }),
            );
            let count = target.iter().try_fold(1_usize, |n, &e| n.checked_mul(e));
            if count.is_none_or(|n| n > MAX_LEN) {
                target = model.shape.clone();
            }
            Op::BroadcastTo(target)
        }
        13 if rank > 0 => {
            let a = axis(stream);
            Op::SplitAt(
                a,
                stream.below(extent(a).saturating_add(1)),
                stream.below(2),
            )
        }
        14 if rank > 0 => {
            let a = axis(stream);
            let fits: Vec<usize> = (1..=4).filter(|n| extent(a) % n == 0).collect();
            Op::Chunk(a, fits[stream.below(fits.len())], stream.below(4))
        }
        15 if rank > 0 => {
            let a = axis(stream);
            if stream.below(2) == 0 {
                Op::AxisIter(a, stream.below(8))
            } else {
                let size = 1 + stream.below(extent(a).saturating_add(1));
                Op::AxisChunks(a, size, stream.below(8))
            }
        }
        // A kind that does not fit this rank: an old transform instead.
        _ => Op::Old(valid_request(model, kind, stream)),
    }
}

/// An operation with arguments drawn past every bound, valid only by chance.
pub fn wild_op(model: &Model, kind: u8, stream: &mut Stream) -> Op {
    let rank = model.rank();
    let axis = |stream: &mut Stream| small_or_huge(stream, rank + 1);
    let extent = |axis: usize| model.shape.get(axis).copied().unwrap_or(3);
    match kind % 14 {
        k @ 0..=4 => Op::Old(wild_request(model, k, stream)),
        5 => {
            let a = axis(stream);
            let bound = extent(a).saturating_add(2);
            let (start, end) = (small_or_huge(stream, bound), small_or_huge(stream, bound));
            Op::SliceStep(a, start, end, small_or_huge(stream, 3))
        }
        6 => {
            let rank = stream.below(MAX_RANK + 1);
            Op::ReshapeStrided((0..rank).map(|_| small_or_huge(stream, 6)).collect())
        }
        7 => {
            let a = axis(stream);
            Op::SplitAxis(a, [small_or_huge(stream, 6), small_or_huge(stream, 6)])
        }
        8 => Op::MergeAxes(axis(stream)),
        9 => Op::Unsqueeze(axis(stream)),
        10 => Op::Squeeze(axis(stream)),
        11 => {
            let a = axis(stream);
            Op::Select(a, small_or_huge(stream, extent(a).saturating_add(1)))
        }
        12 => {
            let target_rank = stream.below(MAX_RANK + 1);
            Op::BroadcastTo((0..target_rank).map(|_| small_or_huge(stream, 5)).collect())
        }
        _ => {
            let a = axis(stream);
            match stream.below(4) {
                0 => Op::SplitAt(
                    a,
                    small_or_huge(stream, extent(a).saturating_add(2)),
                    stream.below(2),
                ),
                1 => Op::Chunk(a, 1 + stream.below(4), stream.below(4)),
                2 => Op::AxisIter(a, stream.below(8)),
                _ => Op::AxisChunks(a, small_or_huge(stream, 3), stream.below(8)),
            }
        }
    }
}

/// How many pieces an axis iterator over a valid axis yields (0 otherwise).
pub fn pieces(op: &Op, model: &Model) -> usize {
    match *op {
        Op::AxisIter(axis, _) => model.shape.get(axis).copied().unwrap_or(0),
        Op::AxisChunks(axis, size, _) if size > 0 => {
            model.shape.get(axis).map_or(0, |e| e.div_ceil(size))
        }
        _ => 0,
    }
}
