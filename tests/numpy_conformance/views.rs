//! `views.txt`: transpose / permute / slice / reshape chains over owners
//! holding 0.0, 1.0, ... in storage order (so a value is its storage offset).

use super::fixture::{self, Case, Expected, Report};
use crate::common::with_rank;
use llm_from_scratch::tensor::dynamic::{DynTensor, DynView};
use llm_from_scratch::tensor::{Tensor, View};

#[derive(Debug)]
enum Op {
    Transpose(usize, usize),
    Permute(Vec<usize>),
    Slice(usize, usize, usize),
    Reshape(Vec<usize>),
}

impl Op {
    fn parse(text: &str) -> Self {
        let mut words = text.split_whitespace();
        let kind = words.next().expect("step kind");
        let args: Vec<usize> = words.map(|w| w.parse().expect("step argument")).collect();
        match kind {
            "transpose" => Op::Transpose(args[0], args[1]),
            "permute" => Op::Permute(args),
            "slice" => Op::Slice(args[0], args[1], args[2]),
            "reshape" => Op::Reshape(args),
            _ => panic!("unknown step {kind}"),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Op::Transpose(..) => "transpose",
            Op::Permute(..) => "permute",
            Op::Slice(..) => "slice",
            Op::Reshape(..) => "reshape",
        }
    }
}

/// A layout as we report it: shape, strides in elements, base offset, contiguity.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    pub shape: Vec<usize>,
    pub strides: Vec<usize>,
    pub offset: usize,
    pub contiguous: bool,
}

impl Layout {
    /// `<shape> <strides> <offset> <contiguous 0|1>`.
    pub fn parse(text: &str) -> Self {
        let words: Vec<&str> = text.split_whitespace().collect();
        Layout {
            shape: fixture::shape(words[0]),
            strides: fixture::shape(words[1]),
            offset: words[2].parse().expect("offset"),
            contiguous: words[3] == "1",
        }
    }

    pub fn of_dyn(view: &DynView<'_>) -> Self {
        Layout {
            shape: view.shape().to_vec(),
            strides: view.strides().to_vec(),
            offset: view.base_offset(),
            contiguous: view.is_contiguous(),
        }
    }

    fn of<const R: usize>(view: &View<'_, R>) -> Self {
        Layout {
            shape: view.shape().to_vec(),
            strides: view.strides().to_vec(),
            offset: view.base_offset(),
            contiguous: view.is_contiguous(),
        }
    }
}

/// Our layout or the `Debug` of our error.
pub type Outcome = Result<Layout, String>;

/// A step's recorded outcome, its error as the step's function reports it now.
fn outcome(keyword: &str, rest: &str, op: &str) -> Outcome {
    if keyword == "ok" {
        Ok(Layout::parse(rest))
    } else {
        Err(fixture::error_now(rest, op))
    }
}

/// One chain: the owner, each step with our outcome and NumPy's `np` line.
struct Chain {
    owner: Vec<usize>,
    owner_layout: Layout,
    owner_numpy: Option<String>,
    steps: Vec<(Op, Outcome, Option<String>)>,
    values: Vec<Expected>,
}

fn parse(case: &Case) -> Chain {
    let mut owner_layout = None;
    let mut owner_numpy = None;
    let mut steps: Vec<(Op, Option<Outcome>, Option<String>)> = Vec::new();
    for (keyword, rest) in &case.lines {
        match (keyword.as_str(), steps.last_mut()) {
            ("owner" | "values", _) => {}
            ("step", _) => steps.push((Op::parse(rest), None, None)),
            ("ok" | "err", None) => owner_layout = Some(Layout::parse(rest)),
            ("ok" | "err", Some(step)) => step.1 = Some(outcome(keyword, rest, step.0.name())),
            ("np", None) => owner_numpy = Some(rest.clone()),
            ("np", Some(step)) => step.2 = Some(rest.clone()),
            _ => panic!("{}: unexpected line {keyword} {rest}", case.id),
        }
    }
    Chain {
        owner: fixture::shape(case.first("owner")),
        owner_layout: owner_layout.expect("owner layout"),
        owner_numpy,
        steps: steps
            .into_iter()
            .map(|(op, out, np)| (op, out.expect("step outcome"), np))
            .collect(),
        values: fixture::expected_values(case.first("values")),
    }
}

/// What one API did with a chain.
struct Trace {
    owner: Layout,
    steps: Vec<Outcome>,
    values: Vec<f64>,
}

fn iota(shape: &[usize]) -> Vec<f64> {
    (0..shape.iter().product::<usize>())
        .map(|i| i as f64)
        .collect()
}

pub fn record<V>(
    steps: &mut Vec<Outcome>,
    result: Result<V, impl std::fmt::Debug>,
    layout: impl Fn(&V) -> Layout,
) -> Option<V> {
    match result {
        Ok(view) => {
            steps.push(Ok(layout(&view)));
            Some(view)
        }
        Err(error) => {
            steps.push(Err(format!("{error:?}")));
            None
        }
    }
}

fn run_dynamic(chain: &Chain, id: &str, report: &mut Report) -> Trace {
    let owner = DynTensor::from_vec(chain.owner.clone(), iota(&chain.owner)).expect("owner");
    let mut view = owner.view();
    let owner_layout = Layout {
        strides: owner.strides().to_vec(),
        ..Layout::of_dyn(&view)
    };
    let mut steps = Vec::new();
    for (op, _, _) in &chain.steps {
        let result = match op {
            Op::Transpose(a, b) => view.transpose(*a, *b),
            Op::Permute(axes) => view.permute(axes),
            Op::Slice(axis, start, end) => view.slice(*axis, *start..*end),
            Op::Reshape(shape) => view.reshape(shape),
        };
        match record(&mut steps, result, Layout::of_dyn) {
            Some(next) => view = next,
            None => break,
        }
    }
    let values: Vec<f64> = view.iter().copied().collect();
    // The owner holds its storage offsets, so the offset cursor must agree.
    let offsets: Vec<f64> = view.offsets().map(|o| o as f64).collect();
    let copied = view.materialize().expect("materialize").into_vec();
    if offsets != values || copied != values {
        report.fail(
            id,
            format!("dynamic offsets() {offsets:?} / materialize() {copied:?} differ from iter()"),
        );
    }
    Trace {
        owner: owner_layout,
        steps,
        values,
    }
}

/// The ranked API: `Tensor<R>` and `View<R>`, the rank following each reshape.
fn run_ranked(chain: &Chain) -> Option<Trace> {
    with_rank!(chain.owner.len(), [0 1 2 3 4 5 6], |R| start::<R>(chain))
}

fn start<const R: usize>(chain: &Chain) -> Option<Trace> {
    let shape: [usize; R] = chain.owner.as_slice().try_into().expect("rank");
    let owner = Tensor::from_vec(shape, iota(&chain.owner)).expect("owner");
    let view = owner.view();
    let owner_layout = Layout {
        strides: owner.strides().to_vec(),
        ..Layout::of(&view)
    };
    let mut steps = Vec::new();
    let values = walk(view, &chain.steps, &mut steps)?;
    Some(Trace {
        owner: owner_layout,
        steps,
        values,
    })
}

/// Applies the steps at rank `R` until a reshape changes the rank; `None`
/// when a step cannot be written with ranked types (a permutation whose
/// length differs from the rank does not compile).
fn walk<const R: usize>(
    mut view: View<'_, R>,
    rest: &[(Op, Outcome, Option<String>)],
    steps: &mut Vec<Outcome>,
) -> Option<Vec<f64>> {
    for (k, (op, _, _)) in rest.iter().enumerate() {
        let result = match op {
            Op::Transpose(a, b) => view.transpose(*a, *b),
            Op::Permute(axes) => view.permute(axes.as_slice().try_into().ok()?),
            Op::Slice(axis, start, end) => view.slice(*axis, *start..*end),
            Op::Reshape(shape) => return reshape(view, shape, &rest[k + 1..], steps),
        };
        match record(steps, result, Layout::of) {
            Some(next) => view = next,
            None => break,
        }
    }
    Some(view.iter().copied().collect())
}

fn reshape<const R: usize>(
    view: View<'_, R>,
    shape: &[usize],
    rest: &[(Op, Outcome, Option<String>)],
    steps: &mut Vec<Outcome>,
) -> Option<Vec<f64>> {
    with_rank!(shape.len(), [0 1 2 3 4 5 6], |S| {
        reshape_to::<R, S>(view, shape, rest, steps)
    })
}

fn reshape_to<const R: usize, const S: usize>(
    view: View<'_, R>,
    shape: &[usize],
    rest: &[(Op, Outcome, Option<String>)],
    steps: &mut Vec<Outcome>,
) -> Option<Vec<f64>> {
    let target: [usize; S] = shape.try_into().expect("rank");
    match record(steps, view.reshape(target), Layout::of) {
        Some(next) => walk(next, rest, steps),
        None => Some(view.iter().copied().collect()),
    }
}

fn compare(chain: &Chain, trace: &Trace, id: &str, api: &str, report: &mut Report) {
    if trace.owner != chain.owner_layout {
        report.fail(
            id,
            format!(
                "{api} owner: got {:?}, expected {:?}",
                trace.owner, chain.owner_layout
            ),
        );
    }
    for (k, (op, want, _)) in chain.steps.iter().enumerate() {
        let got = trace.steps.get(k);
        if got != Some(want) {
            report.fail(
                id,
                format!("{api} step {k} {op:?}: got {got:?}, expected {want:?}"),
            );
            return;
        }
    }
    if trace.steps.len() != chain.steps.len() {
        report.fail(
            id,
            format!(
                "{api}: {} steps run, expected {}",
                trace.steps.len(),
                chain.steps.len()
            ),
        );
    }
    report.values(id, &format!("{api} values"), &chain.values, &trace.values);
}

/// Every NumPy difference must be a documented one.
fn check_numpy(ours: &Outcome, numpy: &str, id: &str, report: &mut Report) {
    let words: Vec<&str> = numpy.split_whitespace().collect();
    let numpy_ok = words[0] == "ok";
    match ours {
        Ok(layout) if numpy_ok => {
            let empty = layout.shape.contains(&0);
            let strides = fixture::shape(words[2]);
            let stride_differs = strides != layout.strides;
            let only_trivial_axes = (0..layout.shape.len())
                .all(|a| empty || layout.shape[a] <= 1 || strides[a] == layout.strides[a]);
            let offset_differs = words[3] != layout.offset.to_string();
            let contiguity_agrees = (words[4] == "1") == layout.contiguous;
            if words[5] != "view"
                || !only_trivial_axes
                || (offset_differs && !empty)
                || !contiguity_agrees
            {
                let message =
                    format!("undocumented NumPy difference: ours {layout:?}, NumPy {numpy}");
                return report.fail(id, message);
            }
            if stride_differs {
                report.count("numpy differs: strides of empty or extent-1 axes");
            }
            if offset_differs {
                report.count("numpy differs: base offset of an empty view");
            }
        }
        Ok(layout) => report.fail(id, format!("NumPy raised on {layout:?}: {numpy}")),
        Err(error) => {
            let variant = error.split(" {").next().unwrap_or_default();
            match (variant, numpy_ok) {
                ("NonContiguousReshape", true) if words[5] == "copy" => {
                    report.count("numpy differs: reshape copies a non-contiguous view")
                }
                ("NonContiguousReshape", true) => {
                    report.count("numpy differs: reshape views some non-row-major layouts")
                }
                ("SliceStartAfterEnd" | "SliceEndOutOfBounds", true) => {
                    report.count("numpy differs: out-of-range slices clamp")
                }
                (_, false) if variant != "NonContiguousReshape" => report.count("numpy raises too"),
                _ => report.fail(
                    id,
                    format!("undocumented NumPy difference: ours {error}, NumPy {numpy}"),
                ),
            }
        }
    }
}

/// Replays one chain through both APIs and checks its NumPy lines.
pub fn replay(case: &Case, report: &mut Report) {
    let chain = parse(case);
    report.count("view chains");
    for (op, out, numpy) in &chain.steps {
        report.count(op.name());
        if let Err(error) = out {
            let variant = error.split(" {").next().unwrap_or_default();
            report.count(&format!("error: {variant}"));
        }
        if let Some(numpy) = numpy {
            check_numpy(out, numpy, &case.id, report);
        }
    }
    if let Some(numpy) = &chain.owner_numpy {
        check_numpy(&Ok(chain.owner_layout.clone()), numpy, &case.id, report);
    }
    let trace = run_dynamic(&chain, &case.id, report);
    compare(&chain, &trace, &case.id, "dynamic", report);
    match run_ranked(&chain) {
        Some(trace) => {
            compare(&chain, &trace, &case.id, "ranked", report);
            report.count("ranked replays");
        }
        None => report.count("ranked: not expressible (permutation of another length)"),
    }
}
