//! `concat.txt`, `stack.txt`, `take.txt`: strided inputs joined or picked
//! from, NumPy's values (owner values name their input and storage index)
//! or our error, with NumPy's error (or result) on an `np` line.

use super::broadcast::Operand;
use super::common::with_rank;
use super::fixture::{Case, Got, Report, Want};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::DynTensor;

/// The lines every gather case shares: the outcome (its error as the
/// function `op` reports it) and NumPy's line.
fn outcome(case: &Case, op: &str) -> (Want, Option<String>) {
    let mut want = None;
    let mut numpy = None;
    for (keyword, rest) in &case.lines {
        match keyword.as_str() {
            "ok" | "err" => want = Some(Want::ours(&format!("{keyword} {rest}"), op)),
            "np" => numpy = Some(rest.clone()),
            "axis" | "input" | "indices" => {}
            other => panic!("{}: unexpected line {other}", case.id),
        }
    }
    (want.expect("outcome"), numpy)
}

fn axis(case: &Case) -> usize {
    case.first("axis").parse().expect("axis")
}

fn got<E: std::fmt::Debug>(result: Result<(Vec<usize>, Vec<f64>), E>) -> Got {
    result.map_err(|e| format!("{e:?}"))
}

/// Counts the outcome; an error must be one NumPy raises too, unless it is
/// a documented difference (`documented` names it for NumPy's `np ok` line).
fn classify(
    case: &Case,
    want: &Want,
    numpy: Option<&str>,
    documented: Option<&str>,
    report: &mut Report,
) {
    match (want, numpy) {
        (Want::Ok(..), None) => report.count("ok"),
        (Want::Err(error), Some(numpy)) => {
            report.count(&format!(
                "error: {}",
                error.split(' ').next().unwrap_or_default()
            ));
            match (numpy.starts_with("err "), documented) {
                (true, _) => report.count("numpy raises too"),
                (false, Some(kind)) => report.count(kind),
                (false, None) => report.fail(&case.id, format!("NumPy accepts: {numpy}")),
            }
        }
        _ => report.fail(&case.id, format!("undocumented NumPy line {numpy:?}")),
    }
}

/// Replays a concat (`stack = false`) or stack case through both APIs.
pub fn replay_join(case: &Case, stack: bool, report: &mut Report) {
    let (want, numpy) = outcome(case, if stack { "stack" } else { "concat" });
    classify(case, &want, numpy.as_deref(), None, report);
    let axis = axis(case);
    let operands: Vec<Operand> = case
        .lines
        .iter()
        .filter(|(k, _)| k == "input")
        .map(|(_, rest)| Operand::parse(rest))
        .collect();
    let values = |i: usize, owner: &[usize]| -> Vec<f64> {
        (0..owner.iter().product::<usize>())
            .map(|j| (1000 * i + j) as f64)
            .collect()
    };
    let owners: Vec<DynTensor> = operands
        .iter()
        .enumerate()
        .map(|(i, op)| DynTensor::from_vec(op.owner.clone(), values(i, &op.owner)).expect("owner"))
        .collect();
    let views: Vec<_> = operands
        .iter()
        .zip(&owners)
        .map(|(op, owner)| op.dyn_view(owner))
        .collect();
    let dynamic = join(&views, axis, stack);
    report.check(&case.id, "dynamic", &want, &dynamic);
    // The ranked API needs one rank for all inputs (an empty list: any rank).
    let ranks: Vec<usize> = operands.iter().map(|op| op.owner.len()).collect();
    if ranks.windows(2).any(|pair| pair[0] != pair[1]) {
        report.count("ranked: not expressible (inputs of different ranks)");
        return;
    }
    let ranked = with_rank!(ranks.first().copied().unwrap_or(2), [0 1 2 3 4 5 6], |R| {
        let owners: Vec<Tensor<R>> = operands
            .iter()
            .enumerate()
            .map(|(i, op)| op.ranked_owner::<R>(values(i, &op.owner)))
            .collect();
        let views: Vec<View<'_, R>> =
            operands.iter().zip(&owners).map(|(op, owner)| op.ranked_view(owner)).collect();
        join(&views, axis, stack)
    });
    report.check(&case.id, "ranked", &want, &ranked);
    report.count("ranked replays");
}

/// `stack` (output rank `R + 1` from the rank table, or dynamic) or
/// `concat` of views of one dimension, typed or dynamic.
fn join<D, E>(views: &[ArrayBase<&[f64], D>], axis: usize, stack: bool) -> Got
where
    D: Dimension + InsertAxis<Larger = E>,
    E: Dimension,
{
    if stack {
        got(llm_from_scratch::tensor::ops::stack(views, axis)
            .map(|t| (t.shape().as_ref().to_vec(), t.into_vec())))
    } else {
        got(concat(views, axis).map(|t| (t.shape().as_ref().to_vec(), t.into_vec())))
    }
}

/// Replays a take case (`index_select`) through both APIs.
pub fn replay_take(case: &Case, report: &mut Report) {
    let (want, numpy) = outcome(case, "index_select");
    let operand = Operand::parse(case.first("input"));
    let axis = axis(case);
    let indices: Vec<usize> = case
        .first("indices")
        .split_whitespace()
        .map(|i| i.parse().expect("index"))
        .collect();
    // NumPy's take on a 0-d array accepts axis 0; with nothing to copy it
    // checks no index. We check the axis and every index always.
    let documented = if operand.view_shape().is_empty() {
        "numpy differs: take on a 0-d array accepts axis 0"
    } else {
        "numpy differs: take checks no index when the result is empty"
    };
    classify(case, &want, numpy.as_deref(), Some(documented), report);
    let values: Vec<f64> = (0..operand.owner.iter().product::<usize>())
        .map(|j| j as f64 + 0.5)
        .collect();
    let owner = DynTensor::from_vec(operand.owner.clone(), values.clone()).expect("owner");
    let dynamic = take(operand.dyn_view(&owner), axis, &indices);
    report.check(&case.id, "dynamic", &want, &dynamic);
    let ranked = with_rank!(operand.owner.len(), [0 1 2 3 4 5 6], |R| {
        let owner = operand.ranked_owner::<R>(values);
        take(operand.ranked_view(&owner), axis, &indices)
    });
    report.check(&case.id, "ranked", &want, &ranked);
    report.count("ranked replays");
}

/// `index_select` of a view, typed or dynamic.
fn take<D: Dimension>(view: ArrayBase<&[f64], D>, axis: usize, indices: &[usize]) -> Got {
    got(index_select(&view, axis, indices).map(|t| (t.shape().as_ref().to_vec(), t.into_vec())))
}
