//! `broadcast.txt`: pairs of strided operands, `left - right` or the error.
//!
//! Left owners hold 0.0, 1.0, ... and right owners (j + 1) / 1024, so every
//! output value names the pair of storage offsets it came from.

use super::fixture::{self, Case, Got, Report, Want};
use crate::common::with_rank;
use llm_from_scratch::Error;
use llm_from_scratch::tensor::ops::{self, ShapeRef};
use llm_from_scratch::tensor::{
    ArrayBase, BroadcastRank, Dimension, DynTensor, DynView, Tensor, View,
};

/// An owner shape, a permutation and an optional `(axis, start, end)` slice.
pub struct Operand {
    pub owner: Vec<usize>,
    pub perm: Vec<usize>,
    pub cut: Option<(usize, usize, usize)>,
}

impl Operand {
    /// `<owner shape> perm=<axes> slice=<axis>:<start>:<end>|-`.
    pub fn parse(text: &str) -> Self {
        let words: Vec<&str> = text.split_whitespace().collect();
        let perm = words[1].strip_prefix("perm=").expect("perm=");
        let cut = words[2].strip_prefix("slice=").expect("slice=");
        let cut = (cut != "-").then(|| {
            let n: Vec<usize> = cut.split(':').map(|p| p.parse().expect("slice")).collect();
            (n[0], n[1], n[2])
        });
        Operand {
            owner: fixture::shape(words[0]),
            perm: fixture::shape(perm),
            cut,
        }
    }

    /// The operand's shape after the permutation and the slice.
    pub fn view_shape(&self) -> Vec<usize> {
        let mut shape: Vec<usize> = self.perm.iter().map(|&a| self.owner[a]).collect();
        if let Some((axis, start, end)) = self.cut {
            shape[axis] = end - start;
        }
        shape
    }

    /// The dynamic view of `owner` (whose shape is `self.owner`).
    pub fn dyn_view<'a>(&self, owner: &'a DynTensor) -> DynView<'a> {
        let view = owner
            .view()
            .permute(&self.perm)
            .expect("fixture permutation");
        match self.cut {
            Some((axis, start, end)) => view.slice(axis, start..end).expect("fixture slice"),
            None => view,
        }
    }

    /// The ranked owner holding `values`.
    pub fn ranked_owner<const R: usize>(&self, values: Vec<f64>) -> Tensor<R> {
        let shape: [usize; R] = self.owner.as_slice().try_into().expect("rank");
        Tensor::from_vec(shape, values).expect("owner")
    }

    /// The ranked view of `owner`, built with ranked `permute` and `slice`.
    pub fn ranked_view<'a, const R: usize>(&self, owner: &'a Tensor<R>) -> View<'a, R> {
        let perm: [usize; R] = self.perm.as_slice().try_into().expect("rank");
        let view = owner.view().permute(perm).expect("fixture permutation");
        match self.cut {
            Some((axis, start, end)) => view.slice(axis, start..end).expect("fixture slice"),
            None => view,
        }
    }
}

fn left_values(owner: &[usize]) -> Vec<f64> {
    (0..owner.iter().product::<usize>())
        .map(|i| i as f64)
        .collect()
}

fn right_values(owner: &[usize]) -> Vec<f64> {
    (0..owner.iter().product::<usize>())
        .map(|j| (j + 1) as f64 / 1024.0)
        .collect()
}

struct Pair {
    left: Operand,
    right: Operand,
    want: Want,
    numpy: Option<String>,
}

fn parse(case: &Case) -> Pair {
    let mut want = None;
    let mut numpy = None;
    for (keyword, rest) in &case.lines {
        match keyword.as_str() {
            "ok" | "err" => want = Some(Want::ours(&format!("{keyword} {rest}"), "map_binary")),
            "np" => numpy = Some(rest.clone()),
            "left" | "right" => {}
            _ => panic!("{}: unexpected line {keyword}", case.id),
        }
    }
    Pair {
        left: Operand::parse(case.first("left")),
        right: Operand::parse(case.first("right")),
        want: want.expect("outcome"),
        numpy,
    }
}

/// `broadcast_shape`'s error as `map_binary` reports the same failure: the
/// two differ only in the function named.
fn as_map_binary(error: Error) -> Error {
    match error {
        Error::IncompatibleBroadcast {
            op: "broadcast_shape",
            axis,
            left_dimension,
            right_dimension,
        } => Error::IncompatibleBroadcast {
            op: "map_binary",
            axis,
            left_dimension,
            right_dimension,
        },
        Error::ShapeOverflow {
            op: "broadcast_shape",
        } => Error::ShapeOverflow { op: "map_binary" },
        other => other,
    }
}

/// One run, typed or dynamic (the same generic functions): `left - right`,
/// checked against `broadcast_shape` of the two shapes.
fn run<L, M, O>(left: ArrayBase<&[f64], L>, right: ArrayBase<&[f64], M>) -> Got
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
    L::Shape: ShapeRef<Dim = L>,
    M::Shape: ShapeRef<Dim = M>,
{
    let shape = ops::broadcast_shape(left.shape(), right.shape());
    let result = ops::map_binary(&left, &right, |a, b| a - b);
    match (shape, result) {
        (Ok(shape), Ok(out)) if shape.as_ref() == out.shape().as_ref() => {
            Ok((shape.as_ref().to_vec(), out.into_vec()))
        }
        (Err(e), Err(f)) if as_map_binary(e.clone()) == f => Err(format!("{f:?}")),
        (shape, result) => Err(format!(
            "broadcast_shape {shape:?} disagrees with map_binary {result:?}"
        )),
    }
}

fn dynamic_run(pair: &Pair) -> Got {
    let left =
        DynTensor::from_vec(pair.left.owner.clone(), left_values(&pair.left.owner)).expect("left");
    let right = DynTensor::from_vec(pair.right.owner.clone(), right_values(&pair.right.owner))
        .expect("right");
    run(pair.left.dyn_view(&left), pair.right.dyn_view(&right))
}

/// The ranked run at the pair's runtime ranks: every (L, M) in 0..=6 x
/// 0..=6, 49 concrete instantiations of the generic ops at typed ranks.
fn ranked_run(pair: &Pair) -> Got {
    let (left, right) = (&pair.left, &pair.right);
    with_rank!(left.owner.len(), [0 1 2 3 4 5 6], |L| {
        let left_owner = left.ranked_owner::<L>(left_values(&left.owner));
        with_rank!(right.owner.len(), [0 1 2 3 4 5 6], |M| {
            let right_owner = right.ranked_owner::<M>(right_values(&right.owner));
            run(left.ranked_view(&left_owner), right.ranked_view(&right_owner))
        })
    })
}

/// Replays one pair through both APIs and checks its NumPy line.
pub fn replay(case: &Case, report: &mut Report) {
    let pair = parse(case);
    match (&pair.want, &pair.numpy) {
        (Want::Ok(..), None) => report.count("broadcast ok"),
        (Want::Err(_), Some(numpy))
            if numpy.starts_with("err ValueError: operands could not be broadcast") =>
        {
            report.count("broadcast error");
            report.count("numpy raises too");
        }
        _ => report.fail(
            &case.id,
            format!("undocumented NumPy difference: {:?}", pair.numpy),
        ),
    }
    report.check(&case.id, "dynamic", &pair.want, &dynamic_run(&pair));
    report.check(&case.id, "ranked", &pair.want, &ranked_run(&pair));
    report.count("ranked replays");
    let rank = pair
        .left
        .view_shape()
        .len()
        .max(pair.right.view_shape().len());
    report.count(&format!("output rank {rank}"));
}
