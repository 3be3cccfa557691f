//! `reduce.txt`: sum / mean / max over every axis (and one past the last),
//! keep_dim both ways, on strided views of values with NaN payloads, signed
//! zeros, ties and inexact decimals. Expected values are the crate's rules
//! written in Python (scripts/crate_numerics.py: sums by the fixed tree;
//! max keeping the first NaN and the earlier of equal values), so they must
//! match bit for bit. NumPy sums in another order (sequential below 8
//! values, pairwise with 8 partial sums above, and row by row along a
//! non-contiguous axis), so from 3 values on its sums may round differently.

use super::broadcast::Operand;
use super::fixture::{self, Case, Got, Report, Want};
use crate::common::with_rank;
use llm_from_scratch::tensor::ops;
use llm_from_scratch::tensor::{
    ArrayBase, Dimension, DynTensor, KeepDim, ReduceDim, RemoveDim, View,
};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Sum,
    Mean,
    Max,
}

/// One `r <op> <axis> <keep>` line with the NumPy lines that follow it.
struct Line {
    op: Op,
    axis: usize,
    keep: bool,
    want: Want,
    numpy: Option<String>,
}

impl Op {
    /// The public function that runs it.
    fn name(self) -> &'static str {
        match self {
            Op::Sum => "sum_axis",
            Op::Mean => "mean_axis",
            Op::Max => "max_axis",
        }
    }
}

fn parse_head(rest: &str) -> (Op, usize, bool, &str) {
    let mut words = rest.splitn(4, ' ');
    let op = match words.next() {
        Some("sum") => Op::Sum,
        Some("mean") => Op::Mean,
        Some("max") => Op::Max,
        other => panic!("unknown reduction {other:?}"),
    };
    let axis = words.next().and_then(|w| w.parse().ok()).expect("axis");
    let keep = words.next() == Some("1");
    (op, axis, keep, words.next().unwrap_or_default())
}

fn parse(case: &Case) -> (Operand, Vec<f64>, Vec<Line>) {
    let mut lines: Vec<Line> = Vec::new();
    for (keyword, rest) in &case.lines {
        match keyword.as_str() {
            "r" => {
                let (op, axis, keep, outcome) = parse_head(rest);
                lines.push(Line {
                    op,
                    axis,
                    keep,
                    want: Want::ours(outcome, op.name()),
                    numpy: None,
                });
            }
            "np" => {
                let (op, axis, keep, outcome) = parse_head(rest);
                let line = lines.last_mut().expect("np after r");
                assert_eq!(
                    (line.op, line.axis, line.keep),
                    (op, axis, keep),
                    "{}",
                    case.id
                );
                line.numpy = Some(outcome.to_string());
            }
            "owner" | "data" | "np-warn" => {}
            _ => panic!("{}: unexpected line {keyword}", case.id),
        }
    }
    let data = case
        .first("data")
        .split_whitespace()
        .map(fixture::value)
        .collect();
    (Operand::parse(case.first("owner")), data, lines)
}

/// One reduction of a view of either dimension, with the marker `keep`
/// (`KeepDim` / `RemoveDim`, or a `bool` for a dynamic view): the same
/// generic functions serve both APIs.
fn reduce<D: Dimension, E: Dimension, K: ReduceDim<D, Output = E>>(
    view: ArrayBase<&[f64], D>,
    op: Op,
    axis: usize,
    keep: K,
) -> Got {
    let result = match op {
        Op::Sum => ops::sum_axis(&view, axis, keep),
        Op::Mean => ops::mean_axis(&view, axis, keep),
        Op::Max => ops::max_axis(&view, axis, keep),
    };
    result
        .map(|t| (t.shape().as_ref().to_vec(), t.into_vec()))
        .map_err(|e| format!("{e:?}"))
}

/// Replays every line at rank `R`; `remove` is `None` where `RemoveDim`
/// does not compile (rank 0).
fn ranked_rank<const R: usize>(
    operand: &Operand,
    data: &[f64],
    lines: &[Line],
    id: &str,
    report: &mut Report,
    remove: impl Fn(View<'_, R>, Op, usize) -> Option<Got>,
) {
    let owner = operand.ranked_owner::<R>(data.to_vec());
    let view = operand.ranked_view(&owner);
    for line in lines {
        let result = if line.keep {
            Some(reduce(view, line.op, line.axis, KeepDim))
        } else {
            remove(view, line.op, line.axis)
        };
        match result {
            Some(result) => {
                report.check(
                    id,
                    &format!("ranked {:?} axis {} keep {}", line.op, line.axis, line.keep),
                    &line.want,
                    &result,
                );
                report.count("ranked replays");
            }
            None => report.count("ranked: not expressible (RemoveDim on rank 0)"),
        }
    }
}

/// Replays every line at the operand's runtime rank.
fn ranked_run(operand: &Operand, data: &[f64], lines: &[Line], id: &str, report: &mut Report) {
    with_rank!(operand.owner.len(), [1 2 3 4 5 6], |R| {
        ranked_rank::<R>(operand, data, lines, id, report, |v, op, axis| {
            Some(reduce(v, op, axis, RemoveDim))
        })
    },
    0 => ranked_rank::<0>(operand, data, lines, id, report, |_, _, _| None),
    rank => panic!("rank {rank} is beyond the fixtures' 6"))
}

/// Every NumPy difference must be one of the documented kinds.
fn check_numpy(line: &Line, numpy: &str, view_shape: &[usize], id: &str, report: &mut Report) {
    let numpy = Want::parse(numpy);
    let kind = match (&line.want, &numpy) {
        (Want::Ok(_, ours), Want::Ok(_, theirs)) => {
            let pairs = ours.iter().zip(theirs).map(|(a, b)| match (a, b) {
                (fixture::Expected::Bits(a), fixture::Expected::Bits(b)) => {
                    (f64::from_bits(*a), f64::from_bits(*b))
                }
                _ => (f64::NAN, f64::NAN),
            });
            // Two values are added in the same way by every order.
            let long_axis = view_shape[line.axis] >= 3;
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
            let mut kinds = pairs
                .filter(|(a, b)| a.to_bits() != b.to_bits())
                .map(|(a, b)| {
                    if (a.is_nan() && b.is_nan()) || a == b {
                        Some("numpy differs: max -0.0 / +0.0 tie or NaN payload")
                    } else if line.op != Op::Max && long_axis && close(a, b) {
                        Some("numpy differs: summation order rounding")
                    } else {
                        None
                    }
                });
            let first = kinds.next().flatten();
            if line.op == Op::Max || first.is_none() {
                first
            } else {
                Some("numpy differs: summation order rounding")
            }
        }
        (Want::Err(ours), Want::Ok(..))
            if ours.starts_with("AxisOutOfBounds") && view_shape.is_empty() =>
        {
            Some("numpy differs: accepts axis 0 of a 0-d array")
        }
        (Want::Err(ours), Want::Ok(..)) if ours.starts_with("EmptyMeanAxis") => {
            Some("numpy differs: empty mean warns and gives NaN")
        }
        (Want::Err(ours), Want::Err(theirs))
            if ours.starts_with("AxisOutOfBounds") && theirs.starts_with("AxisError") =>
        {
            Some("numpy raises too")
        }
        (Want::Err(ours), Want::Err(theirs))
            if ours.starts_with("EmptyMaxAxis")
                && theirs.starts_with("ValueError: zero-size array") =>
        {
            Some("numpy raises too")
        }
        (Want::Err(ours), Want::Ok(_, theirs))
            if ours.starts_with("EmptyMaxAxis") && theirs.is_empty() =>
        {
            Some("numpy differs: max over an empty axis with an empty output")
        }
        _ => None,
    };
    match kind {
        Some(kind) => report.count(kind),
        None => report.fail(
            id,
            format!(
                "undocumented NumPy difference: ours {:?}, NumPy {numpy:?}",
                line.want
            ),
        ),
    }
}

/// Replays one case's reductions through both APIs and checks its NumPy lines.
pub fn replay(case: &Case, report: &mut Report) {
    let (operand, data, lines) = parse(case);
    let view_shape = operand.view_shape();
    let owner = DynTensor::from_vec(operand.owner.clone(), data.clone()).expect("owner");
    let view = operand.dyn_view(&owner);
    for line in &lines {
        report.count(match line.op {
            Op::Sum => "sum",
            Op::Mean => "mean",
            Op::Max => "max",
        });
        if let Want::Err(error) = &line.want {
            report.count(&format!(
                "error: {}",
                error.split(" {").next().unwrap_or_default()
            ));
        }
        let result = reduce(view, line.op, line.axis, line.keep);
        let what = format!(
            "dynamic {:?} axis {} keep {}",
            line.op, line.axis, line.keep
        );
        report.check(&case.id, &what, &line.want, &result);
        if let Some(numpy) = &line.numpy {
            check_numpy(line, numpy, &view_shape, &case.id, report);
        }
    }
    ranked_run(&operand, &data, &lines, &case.id, report);
}
