//! `argmax.txt` and `softmax.txt`: every axis (and one past the last) of
//! strided views of tricky values (NaN payloads, signed zeros, ties, ±inf,
//! masked -inf groups). Positions must equal NumPy's `argmax` wherever the
//! fixture has no `np` line; softmax values must equal the ordered Python
//! reference bit for bit (`nan` matching any NaN).

use super::broadcast::Operand;
use super::common::with_rank;
use super::fixture::{self, Case, Got, Report, Want};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::{self, DynTensor};

/// One `a`/`s` line: its axis, keep flag (argmax only), outcome and NumPy line.
struct Line {
    axis: usize,
    keep: bool,
    want: Want,
    numpy: Option<String>,
}

/// The operand, its storage values and the lines with keyword `op`.
fn parse(case: &Case, op: &str) -> (Operand, Vec<f64>, Vec<Line>) {
    let with_keep = op == "a";
    let head = |rest: &str| -> (usize, bool, String) {
        let words = if with_keep { 3 } else { 2 };
        let parts: Vec<&str> = rest.splitn(words, ' ').collect();
        let keep = with_keep && parts[1] == "1";
        (
            parts[0].parse().expect("axis"),
            keep,
            parts[words - 1].to_string(),
        )
    };
    let mut lines: Vec<Line> = Vec::new();
    for (keyword, rest) in &case.lines {
        match keyword.as_str() {
            k if k == op => {
                let (axis, keep, outcome) = head(rest);
                let want = Want::ours(
                    &outcome,
                    if with_keep {
                        "argmax_axis"
                    } else {
                        "softmax_axis"
                    },
                );
                lines.push(Line {
                    axis,
                    keep,
                    want,
                    numpy: None,
                });
            }
            "np" => {
                let (axis, keep, outcome) = head(rest);
                let line = lines.last_mut().expect("np after its line");
                assert_eq!((line.axis, line.keep), (axis, keep), "{}", case.id);
                line.numpy = Some(outcome);
            }
            "owner" | "data" => {}
            other => panic!("{}: unexpected line {other}", case.id),
        }
    }
    let data = case
        .first("data")
        .split_whitespace()
        .map(fixture::value)
        .collect();
    (Operand::parse(case.first("owner")), data, lines)
}

fn got<T: Into<f64> + Copy, E: std::fmt::Debug>(result: Result<(Vec<usize>, Vec<T>), E>) -> Got {
    result
        .map(|(shape, values)| (shape, values.iter().map(|&v| v.into()).collect()))
        .map_err(|e| format!("{e:?}"))
}

/// Positions as `f64` for the report (exact below 2^53).
fn positions<const S: usize>(t: Tensor<S, usize>) -> (Vec<usize>, Vec<f64>) {
    (
        t.shape().to_vec(),
        t.as_slice().iter().map(|&p| p as f64).collect(),
    )
}

/// Every NumPy difference must be one of the documented kinds.
fn classify(line: &Line, rank: usize, id: &str, report: &mut Report) {
    let Some(numpy) = &line.numpy else { return };
    let kind = match (&line.want, numpy.starts_with("err ")) {
        (Want::Err(_), true) => Some("numpy raises too"),
        (Want::Err(ours), false) if ours.starts_with("AxisOutOfBounds") && rank == 0 => {
            Some("numpy differs: accepts axis 0 of a 0-d array")
        }
        (Want::Ok(_, values), true) if values.is_empty() => {
            Some("numpy differs: raises on an empty result")
        }
        (Want::Ok(shape, ours), false) => match Want::parse(numpy) {
            Want::Ok(their_shape, theirs) if &their_shape == shape && close(ours, &theirs) => {
                Some("numpy differs: exp and pairwise-sum rounding (<= 4 ulp)")
            }
            _ => None,
        },
        _ => None,
    };
    match kind {
        Some(kind) => report.count(kind),
        None => report.fail(
            id,
            format!(
                "undocumented NumPy difference: ours {:?}, NumPy {numpy}",
                line.want
            ),
        ),
    }
}

/// Same NaN pattern and at most 4 units in the last place apart.
fn close(ours: &[fixture::Expected], theirs: &[fixture::Expected]) -> bool {
    use fixture::Expected::{AnyNan, Bits};
    ours.len() == theirs.len()
        && ours.iter().zip(theirs).all(|pair| match pair {
            (AnyNan, AnyNan) => true,
            (Bits(a), Bits(b)) => a.abs_diff(*b) <= 4 && (a >> 63) == (b >> 63),
            _ => false,
        })
}

/// Replays one argmax case through both APIs and checks its NumPy lines.
pub fn replay_argmax(case: &Case, report: &mut Report) {
    let (operand, data, lines) = parse(case, "a");
    let owner = DynTensor::from_vec(operand.owner.clone(), data.clone()).expect("owner");
    let view = operand.dyn_view(&owner);
    let rank = operand.view_shape().len();
    for line in &lines {
        let what = format!("argmax axis {} keep {}", line.axis, line.keep);
        match &line.want {
            Want::Ok(..) => report.count("argmax ok"),
            Want::Err(e) => report.count(&format!(
                "error: {}",
                e.split(' ').next().unwrap_or_default()
            )),
        }
        classify(line, rank, &case.id, report);
        let dynamic = dynamic::argmax_axis(&view, line.axis, line.keep);
        let dynamic = dynamic.map(|t| {
            (
                t.shape().to_vec(),
                t.as_slice().iter().map(|&p| p as f64).collect(),
            )
        });
        report.check(
            &case.id,
            &format!("dynamic {what}"),
            &line.want,
            &got(dynamic),
        );
    }
    with_rank!(operand.owner.len(), [0 1 2 3 4 5 6], |R| {
        let owner = operand.ranked_owner::<R>(data);
        let view = operand.ranked_view(&owner);
        for line in &lines {
            let result = if line.keep {
                got(argmax_axis(&view, line.axis, KeepDim).map(positions))
            } else {
                match removed(&view, line.axis) {
                    Some(result) => result,
                    None => continue, // RemoveDim does not compile for rank 0
                }
            };
            let what = format!("ranked argmax axis {} keep {}", line.axis, line.keep);
            report.check(&case.id, &what, &line.want, &result);
            report.count("ranked replays");
        }
    });
}

/// `argmax_axis(.., RemoveDim)` at a concrete rank `R >= 1`, else `None`.
fn removed<const R: usize>(view: &View<'_, R>, axis: usize) -> Option<Got> {
    with_rank!(R, [1 2 3 4 5 6], |Q| {
        let view: View<'_, Q> = view.into_dyn().into_ranked().expect("rank");
        Some(got(argmax_axis(&view, axis, RemoveDim).map(positions)))
    }, _ => None)
}

/// Replays one softmax case through both APIs and checks its NumPy lines.
pub fn replay_softmax(case: &Case, report: &mut Report) {
    let (operand, data, lines) = parse(case, "s");
    let owner = DynTensor::from_vec(operand.owner.clone(), data.clone()).expect("owner");
    let view = operand.dyn_view(&owner);
    let shape = operand.view_shape();
    for line in &lines {
        match &line.want {
            Want::Ok(..) if shape.iter().product::<usize>() == 0 => {
                report.count("softmax of an empty view")
            }
            Want::Ok(..) => report.count("softmax ok"),
            Want::Err(e) => report.count(&format!(
                "error: {}",
                e.split(' ').next().unwrap_or_default()
            )),
        }
        classify(line, shape.len(), &case.id, report);
        let dynamic =
            dynamic::softmax_axis(&view, line.axis).map(|t| (t.shape().to_vec(), t.into_vec()));
        report.check(
            &case.id,
            &format!("dynamic softmax axis {}", line.axis),
            &line.want,
            &got(dynamic),
        );
    }
    with_rank!(operand.owner.len(), [0 1 2 3 4 5 6], |R| {
        let owner = operand.ranked_owner::<R>(data);
        let view = operand.ranked_view(&owner);
        for line in &lines {
            let result = view.softmax_axis(line.axis).map(|t| (t.shape().to_vec(), t.into_vec()));
            let what = format!("ranked softmax axis {}", line.axis);
            report.check(&case.id, &what, &line.want, &got(result));
            report.count("ranked replays");
        }
    });
}
