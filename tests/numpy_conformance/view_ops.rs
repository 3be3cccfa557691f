//! `view_ops.txt`: chains of the view operations (split_axis, merge_axes,
//! reshape_strided, unsqueeze, squeeze, select, broadcast_to, slice_step,
//! chunk, split_at, with transpose / permute / slice between) over owners
//! and `as_strided` bases holding 0.0, 1.0, ... (a value is its storage
//! offset). PyTorch is the oracle of `view` and its kin (`unflatten`,
//! `flatten`, `unsqueeze`), NumPy of the rest; every recorded difference
//! must be a documented one.

use super::fixture::{self, Case, Expected, Report};
use super::views::{Layout, Outcome, record};
use crate::common::with_rank;
use crate::ranked_views::{RankedView, array};
use llm_from_scratch::tensor::View;
use llm_from_scratch::tensor::dynamic::DynView;

#[derive(Debug)]
enum Op {
    SplitAxis(usize, [usize; 2]),
    MergeAxes(usize),
    ReshapeStrided(Vec<usize>),
    Unsqueeze(usize),
    Squeeze(usize),
    Select(usize, usize),
    BroadcastTo(Vec<usize>),
    SliceStep(usize, usize, usize, usize),
    /// axis, parts, the part the chain goes on with
    Chunk(usize, usize, usize),
    /// axis, index, the part the chain goes on with
    SplitAt(usize, usize, usize),
    Transpose(usize, usize),
    Permute(Vec<usize>),
    Slice(usize, usize, usize),
}

impl Op {
    fn parse(text: &str) -> (&str, Self) {
        let mut words = text.split_whitespace();
        let kind = words.next().expect("step kind");
        let a: Vec<usize> = words.map(|w| w.parse().expect("step argument")).collect();
        let op = match kind {
            "split_axis" => Op::SplitAxis(a[0], [a[1], a[2]]),
            "merge_axes" => Op::MergeAxes(a[0]),
            "reshape_strided" => Op::ReshapeStrided(a),
            "unsqueeze" => Op::Unsqueeze(a[0]),
            "squeeze" => Op::Squeeze(a[0]),
            "select" => Op::Select(a[0], a[1]),
            "broadcast_to" => Op::BroadcastTo(a),
            "slice_step" => Op::SliceStep(a[0], a[1], a[2], a[3]),
            "chunk" => Op::Chunk(a[0], a[1], a[2]),
            "split_at" => Op::SplitAt(a[0], a[1], a[2]),
            "transpose" => Op::Transpose(a[0], a[1]),
            "permute" => Op::Permute(a),
            "slice" => Op::Slice(a[0], a[1], a[2]),
            _ => panic!("unknown step {kind}"),
        };
        (kind, op)
    }
}

/// One step: its kind, the operation, our outcome and the oracle's line.
struct Step {
    kind: String,
    op: Op,
    want: Outcome,
    oracle: Option<String>,
}

struct Chain {
    start: Layout,
    data_len: usize,
    steps: Vec<Step>,
    values: Vec<Expected>,
}

fn parse(case: &Case) -> Chain {
    let (mut start, mut data_len, mut steps) = (None, 0, Vec::<Step>::new());
    for (keyword, rest) in &case.lines {
        match (keyword.as_str(), steps.last_mut()) {
            ("owner", _) => data_len = fixture::shape(rest).iter().product(),
            ("base", _) => {
                data_len = rest
                    .rsplit(' ')
                    .next()
                    .and_then(|n| n.parse().ok())
                    .expect("len")
            }
            ("ok", None) => start = Some(Layout::parse(rest)),
            ("step", _) => {
                let (kind, op) = Op::parse(rest);
                let want = Err(String::new());
                steps.push(Step {
                    kind: kind.to_string(),
                    op,
                    want,
                    oracle: None,
                });
            }
            ("ok", Some(step)) => step.want = Ok(Layout::parse(rest)),
            ("err", Some(step)) => step.want = Err(fixture::error_now(rest, &step.kind)),
            ("np" | "torch", Some(step)) => step.oracle = Some(format!("{keyword} {rest}")),
            ("values", _) => {}
            _ => panic!("{}: unexpected line {keyword} {rest}", case.id),
        }
    }
    Chain {
        start: start.expect("a start layout"),
        data_len,
        steps,
        values: fixture::expected_values(case.first("values")),
    }
}

fn iota(len: usize) -> Vec<f64> {
    (0..len).map(|i| i as f64).collect()
}

/// Runs the chain through the dynamic API: each step's outcome, the last view's values.
fn run_dynamic(chain: &Chain, data: &[f64]) -> (Vec<Outcome>, Vec<f64>) {
    let s = &chain.start;
    let mut view =
        DynView::from_parts(data, s.shape.clone(), s.strides.clone(), s.offset).expect("start");
    let mut outcomes = Vec::new();
    for step in &chain.steps {
        let v = view;
        let result = match &step.op {
            Op::SplitAxis(axis, extents) => v.split_axis(*axis, *extents),
            Op::MergeAxes(axis) => v.merge_axes(*axis),
            Op::ReshapeStrided(shape) => v.reshape_strided(shape),
            Op::Unsqueeze(axis) => v.unsqueeze(*axis),
            Op::Squeeze(axis) => v.squeeze(*axis),
            Op::Select(axis, index) => v.select(*axis, *index),
            Op::BroadcastTo(shape) => v.broadcast_to(shape),
            Op::SliceStep(axis, start, end, step) => v.slice_step(*axis, *start..*end, *step),
            Op::Chunk(axis, parts, part) => match parts {
                1 => v.chunk::<1>(*axis).map(|p| p[*part]),
                2 => v.chunk::<2>(*axis).map(|p| p[*part]),
                3 => v.chunk::<3>(*axis).map(|p| p[*part]),
                _ => v.chunk::<4>(*axis).map(|p| p[*part]),
            },
            Op::SplitAt(axis, index, part) => v
                .split_at(*axis, *index)
                .map(|(a, b)| if *part == 0 { a } else { b }),
            Op::Transpose(a, b) => v.transpose(*a, *b),
            Op::Permute(axes) => v.permute(axes),
            Op::Slice(axis, start, end) => v.slice(*axis, *start..*end),
        };
        match record(&mut outcomes, result, Layout::of_dyn) {
            Some(next) => view = next,
            None => break,
        }
    }
    (outcomes, view.iter().copied().collect())
}

fn of_ranked(view: &RankedView<'_, f64>) -> Layout {
    Layout {
        shape: view.shape(),
        strides: view.strides(),
        offset: view.base_offset(),
        contiguous: view.is_contiguous(),
    }
}

/// The ranked API (`View<R>` at a rank chosen at run time); `None` when a
/// step cannot be written with ranked types (a permutation of another
/// length, `broadcast_to` a smaller rank, `chunk::<N>` past 4).
fn run_ranked(chain: &Chain, data: &[f64]) -> Option<(Vec<Outcome>, Vec<f64>)> {
    let s = &chain.start;
    let mut view = with_rank!(s.shape.len(), [0 1 2 3 4 5 6 7 8], |R| RankedView::from(
        View::from_parts(data, array::<R>(&s.shape), array(&s.strides), s.offset).expect("start")
    ));
    let mut outcomes = Vec::new();
    for step in &chain.steps {
        let result = match &step.op {
            Op::SplitAxis(axis, extents) => view.split_axis(*axis, *extents),
            Op::MergeAxes(axis) => view.merge_axes(*axis),
            Op::ReshapeStrided(shape) => view.reshape_strided(shape),
            Op::Unsqueeze(axis) => view.unsqueeze(*axis),
            Op::Squeeze(axis) => view.squeeze(*axis),
            Op::Select(axis, index) => view.select(*axis, *index),
            Op::BroadcastTo(shape) => view.broadcast_to(shape),
            Op::SliceStep(axis, start, end, step) => {
                Some(view.slice_step(*axis, *start, *end, *step))
            }
            Op::Chunk(axis, parts, part) => view.chunk(*axis, *parts).map(|p| p.map(|p| p[*part])),
            Op::SplitAt(axis, index, part) => Some(
                view.split_at(*axis, *index)
                    .map(|(a, b)| if *part == 0 { a } else { b }),
            ),
            Op::Transpose(a, b) => Some(view.transpose(*a, *b)),
            Op::Permute(axes) => view.permute(axes),
            Op::Slice(axis, start, end) => Some(view.slice(*axis, *start, *end)),
        }?;
        match record(&mut outcomes, result, of_ranked) {
            Some(next) => view = next,
            None => break,
        }
    }
    Some((outcomes, view.values()))
}

fn compare(
    chain: &Chain,
    got: &(Vec<Outcome>, Vec<f64>),
    id: &str,
    api: &str,
    report: &mut Report,
) {
    let wants = chain.steps.iter().map(|s| &s.want);
    for (k, (want, got)) in wants
        .zip(got.0.iter().map(Some).chain(std::iter::repeat(None)))
        .enumerate()
    {
        if got != Some(want) {
            let op = &chain.steps[k].op;
            return report.fail(
                id,
                format!("{api} step {k} {op:?}: got {got:?}, expected {want:?}"),
            );
        }
    }
    report.values(id, &format!("{api} values"), &chain.values, &got.1);
}

/// Every difference from the oracle must be a documented one; each is counted.
fn check_oracle(step: &Step, line: &str, id: &str, report: &mut Report) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let (oracle, oracle_ok) = (words[0], words[1] == "ok");
    match &step.want {
        Ok(ours) if oracle_ok => {
            let empty = ours.shape.contains(&0);
            let strides = fixture::shape(words[3]);
            let trivial = (0..ours.shape.len())
                .all(|a| empty || ours.shape[a] <= 1 || strides[a] == ours.strides[a]);
            let offset_differs = words[4] != ours.offset.to_string();
            if words[6] != "view"
                || !trivial
                || (offset_differs && !empty)
                || (words[5] == "1") != ours.contiguous
            {
                return report.fail(
                    id,
                    format!("undocumented difference: ours {ours:?}, {line}"),
                );
            }
            if strides != ours.strides {
                report.count(&format!(
                    "{oracle} differs: strides of empty or extent-1 axes"
                ));
            }
            if offset_differs {
                report.count(&format!("{oracle} differs: base offset of an empty view"));
            }
        }
        Ok(ours) => report.fail(id, format!("the oracle raised on {ours:?}: {line}")),
        Err(error) => {
            let variant = error.split(" {").next().unwrap_or_default();
            match (variant, oracle, oracle_ok) {
                ("NonMergeableAxes", "torch", true) if words[6] == "copy" => {
                    report.count("torch differs: flatten copies what merge_axes refuses")
                }
                ("SliceEndOutOfBounds" | "SliceStartAfterEnd", "np", true) => report
                    .count("np differs: out-of-range slices clamp (slice, slice_step, split_at)"),
                ("NonStrideCompatibleReshape", "torch", false) => {
                    report.count("torch view refuses too")
                }
                (_, _, false) => report.count(&format!("{oracle} raises too")),
                _ => report.fail(id, format!("undocumented difference: ours {error}, {line}")),
            }
        }
    }
}

/// Replays one chain through both APIs and checks its oracle lines.
pub fn replay(case: &Case, report: &mut Report) {
    let chain = parse(case);
    let data = iota(chain.data_len);
    report.count("view-op chains");
    if chain.start.strides != row_major(&chain.start.shape) || chain.start.offset != 0 {
        report.count("chains from an as_strided base");
    }
    let mut before = chain.start.clone();
    for step in &chain.steps {
        report.count(&step.kind);
        match &step.want {
            Err(error) => report.count(&format!(
                "error: {}",
                error.split(" {").next().unwrap_or_default()
            )),
            Ok(after) if step.kind == "reshape_strided" && !before.contiguous => {
                report.count("reshape_strided of a non-contiguous view (reshape refuses it)");
                before = after.clone();
            }
            Ok(after) => before = after.clone(),
        }
        if let Some(line) = &step.oracle {
            check_oracle(step, line, &case.id, report);
        }
    }
    compare(
        &chain,
        &run_dynamic(&chain, &data),
        &case.id,
        "dynamic",
        report,
    );
    match run_ranked(&chain, &data) {
        Some(got) => {
            compare(&chain, &got, &case.id, "ranked", report);
            report.count("ranked replays");
        }
        None => report.count(
            "ranked: not expressible (permutation of another length, a smaller broadcast rank)",
        ),
    }
}

fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for axis in (0..shape.len().saturating_sub(1)).rev() {
        strides[axis] = strides[axis + 1] * shape[axis + 1];
    }
    strides
}
