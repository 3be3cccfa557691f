//! `broadcast.txt`: pairs of strided operands, `left - right` or the error.
//!
//! Left owners hold 0.0, 1.0, ... and right owners (j + 1) / 1024, so every
//! output value names the pair of storage offsets it came from.

use super::fixture::{self, Case, Got, Report, Want};
use crate::common::with_rank;
use llm_from_scratch::tensor::dynamic::{self, DynTensor, DynView};
use llm_from_scratch::tensor::ops;
use llm_from_scratch::tensor::{BroadcastRank, Rank, Tensor, View};

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
            "ok" | "err" => want = Some(Want::parse(&format!("{keyword} {rest}"))),
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

fn dynamic_run(pair: &Pair, id: &str, report: &mut Report) -> Got {
    let left =
        DynTensor::from_vec(pair.left.owner.clone(), left_values(&pair.left.owner)).expect("left");
    let right = DynTensor::from_vec(pair.right.owner.clone(), right_values(&pair.right.owner))
        .expect("right");
    let (left, right) = (pair.left.dyn_view(&left), pair.right.dyn_view(&right));
    let shape = dynamic::broadcast_shape(left.shape(), right.shape());
    let result = dynamic::map_binary(&left, &right, |a, b| a - b);
    let got = result
        .map(|t| (t.shape().to_vec(), t.into_vec()))
        .map_err(|e| format!("{e:?}"));
    let same = match (&shape, &got) {
        (Ok(shape), Ok((out, _))) => shape == out,
        (Err(e), Err(got)) => format!("{e:?}") == *got,
        _ => false,
    };
    if !same {
        report.fail(
            id,
            format!("dynamic broadcast_shape {shape:?} disagrees with map_binary {got:?}"),
        );
    }
    got
}

/// The ranked run for one pair of concrete ranks; `O` is inferred.
fn ranked_pair<const L: usize, const M: usize, const O: usize>(
    left: View<'_, L>,
    right: View<'_, M>,
) -> Got
where
    Rank<L>: BroadcastRank<Rank<M>, Output = Rank<O>>,
{
    let shape = ops::broadcast_shape(left.shape(), right.shape());
    let result = ops::map_binary(&left, &right, |a, b| a - b);
    match (shape, result) {
        (Ok(shape), Ok(out)) if &shape == out.shape() => Ok((shape.to_vec(), out.into_vec())),
        (Err(e), Err(f)) if e == f => Err(format!("{e:?}")),
        (shape, result) => Err(format!(
            "ranked broadcast_shape {shape:?} disagrees with map_binary {result:?}"
        )),
    }
}

/// The ranked run at the pair's runtime ranks: every (L, M) in 0..=6 x
/// 0..=6, 49 concrete instantiations of the ranked ops.
fn ranked_run(pair: &Pair) -> Got {
    let (left, right) = (&pair.left, &pair.right);
    with_rank!(left.owner.len(), [0 1 2 3 4 5 6], |L| {
        let left_owner = left.ranked_owner::<L>(left_values(&left.owner));
        with_rank!(right.owner.len(), [0 1 2 3 4 5 6], |M| {
            let right_owner = right.ranked_owner::<M>(right_values(&right.owner));
            ranked_pair(left.ranked_view(&left_owner), right.ranked_view(&right_owner))
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
    let got = dynamic_run(&pair, &case.id, report);
    report.check(&case.id, "dynamic", &pair.want, &got);
    report.check(&case.id, "ranked", &pair.want, &ranked_run(&pair));
    report.count("ranked replays");
    let rank = pair
        .left
        .view_shape()
        .len()
        .max(pair.right.view_shape().len());
    report.count(&format!("output rank {rank}"));
}
