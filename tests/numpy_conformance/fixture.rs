//! The fixture text format (std only) and the failure / count report.
//!
//! A fixture is a list of cases, `case <id>` ... `end`; every line inside is
//! `<keyword> <rest>`. Shapes are `[2,0,3]` (`[]` for a scalar). Floats are
//! Python `repr()` (exact through `str::parse::<f64>`), `inf`, `-inf`,
//! `nan:<16 hex digits>` (a NaN with exactly these bits) or `nan` (any NaN).

use std::collections::BTreeMap;

/// One `case <id>` block: its lines as `(keyword, rest)`.
pub struct Case {
    pub id: String,
    pub lines: Vec<(String, String)>,
}

impl Case {
    /// The rest of the first line with this keyword (the fixture must have it).
    pub fn first(&self, keyword: &str) -> &str {
        self.lines
            .iter()
            .find(|(k, _)| k == keyword)
            .map(|(_, rest)| rest.as_str())
            .unwrap_or_else(|| panic!("{}: no `{keyword}` line", self.id))
    }
}

/// Reads and splits `tests/fixtures/numpy/<name>`.
pub fn load(name: &str) -> Vec<Case> {
    let path = format!("{}/tests/fixtures/numpy/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut cases = Vec::new();
    let mut current: Option<Case> = None;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (keyword, rest) = line.split_once(' ').unwrap_or((line, ""));
        match keyword {
            "case" => {
                current = Some(Case {
                    id: rest.to_string(),
                    lines: Vec::new(),
                })
            }
            "end" => cases.push(current.take().expect("`end` without `case`")),
            _ => {
                let case = current
                    .as_mut()
                    .unwrap_or_else(|| panic!("{path}: stray line {line}"));
                case.lines.push((keyword.to_string(), rest.to_string()));
            }
        }
    }
    assert!(current.is_none(), "{path}: last case has no `end`");
    cases
}

/// `[2,0,3]` -> `vec![2, 0, 3]`; `[]` -> `vec![]`.
pub fn shape(token: &str) -> Vec<usize> {
    let inner = token
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .unwrap_or_else(|| panic!("not a shape: {token}"));
    if inner.is_empty() {
        return Vec::new();
    }
    inner
        .split(',')
        .map(|e| e.parse().expect("extent"))
        .collect()
}

/// A value token as an `f64` (data: `nan:<hex>` gives exactly those bits).
pub fn value(token: &str) -> f64 {
    match token.strip_prefix("nan:") {
        Some(hex) => f64::from_bits(u64::from_str_radix(hex, 16).expect("NaN bits")),
        None => token
            .parse()
            .unwrap_or_else(|_| panic!("not a float: {token}")),
    }
}

/// An expected value: exact bits, or any NaN (`nan`: the payload of a NaN
/// made by arithmetic is unspecified by IEEE 754 and by LLVM).
#[derive(Clone, Copy, Debug)]
pub enum Expected {
    Bits(u64),
    AnyNan,
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expected::Bits(bits) => write!(f, "{:?} ({bits:#018x})", f64::from_bits(*bits)),
            Expected::AnyNan => write!(f, "any NaN"),
        }
    }
}

impl Expected {
    pub fn parse(token: &str) -> Self {
        if token == "nan" {
            Expected::AnyNan
        } else {
            Expected::Bits(value(token).to_bits())
        }
    }

    pub fn matches(self, actual: f64) -> bool {
        match self {
            Expected::Bits(bits) => actual.to_bits() == bits,
            Expected::AnyNan => actual.is_nan(),
        }
    }
}

/// Parses a whitespace-separated list of expected values.
pub fn expected_values(tokens: &str) -> Vec<Expected> {
    tokens.split_whitespace().map(Expected::parse).collect()
}

/// What an operation should give: a shape and values, or our error's `Debug`.
#[derive(Debug)]
pub enum Want {
    Ok(Vec<usize>, Vec<Expected>),
    Err(String),
}

impl Want {
    /// Parses one of our outcomes, `ok <shape> <values..>` or `err <Debug>`,
    /// with the error as the function `op` reports it now ([`error_now`]).
    pub fn ours(text: &str, op: &str) -> Self {
        match Self::parse(text) {
            Want::Err(old) => Want::Err(error_now(&old, op)),
            ok => ok,
        }
    }

    /// Parses `ok <shape> <values..>` or `err <text>` as written (an oracle's line).
    pub fn parse(text: &str) -> Self {
        let (kind, rest) = text.split_once(' ').unwrap_or((text, ""));
        match kind {
            "ok" => {
                let (dims, values) = rest.split_once(' ').unwrap_or((rest, ""));
                Want::Ok(shape(dims), expected_values(values))
            }
            "err" => Want::Err(rest.to_string()),
            _ => panic!("not an outcome: {text}"),
        }
    }
}

/// The variants that name the function called (`op`) in the one `Error`
/// enum and did not in the earlier three-enum design.
const GAINED_OP: [&str; 21] = [
    "ShapeOverflow",
    "EmptyMeanAxis",
    "MatmulInnerMismatch",
    "IndexSelectOutOfBounds",
    "StridesLengthMismatch",
    "RankMismatch",
    "ElementCountMismatch",
    "IndexOutOfBounds",
    "ViewOutOfBounds",
    "ReshapeElementCountMismatch",
    "SliceStartAfterEnd",
    "SliceEndOutOfBounds",
    "BroadcastRankTooSmall",
    "OutputShapeMismatch",
    "EmptyMaxAxis",
    "ConcatShapeMismatch",
    "ConcatRankMismatch",
    "EmptyInputList",
    "AxisOutOfBounds",
    "IncompatibleBroadcast",
    "AllocationFailed",
];

/// The fixtures (written by `scripts/numpy_fixtures.py`) record our errors
/// as the `Debug` of the earlier three-enum design; this is the `Debug` of
/// the one `Error` enum for the same failure raised by the public function
/// `op`: the layer wrapper `Tensor(..)` is gone, `ReductionAxisOutOfBounds`
/// is `AxisOutOfBounds`, the view's `IncompatibleBroadcast { axis, extent,
/// target }` names them `left_dimension` / `right_dimension`, and the
/// variants of [`GAINED_OP`] start with `op` (an `op` already recorded is kept).
///
/// `error_now("Tensor(ShapeOverflow)", "reshape")` is `ShapeOverflow { op: "reshape" }`.
pub fn error_now(old: &str, op: &str) -> String {
    let old = old
        .strip_prefix("Tensor(")
        .and_then(|inner| inner.strip_suffix(')'))
        .unwrap_or(old);
    let (variant, fields) = match old.split_once(" { ") {
        Some((variant, fields)) => (variant, fields.strip_suffix(" }").expect("`}`")),
        None => (old, ""),
    };
    let variant = match variant {
        "ReductionAxisOutOfBounds" => "AxisOutOfBounds",
        other => other,
    };
    let mut fields = if variant == "IncompatibleBroadcast" {
        fields
            .replace("extent:", "left_dimension:")
            .replace("target:", "right_dimension:")
    } else {
        fields.to_string()
    };
    if GAINED_OP.contains(&variant) && !fields.starts_with("op: ") {
        let op = format!("op: {op:?}");
        fields = if fields.is_empty() {
            op
        } else {
            format!("{op}, {fields}")
        };
    }
    if fields.is_empty() {
        variant.to_string()
    } else {
        format!("{variant} {{ {fields} }}")
    }
}

/// What an operation gave: a shape and values, or the `Debug` of its error.
pub type Got = Result<(Vec<usize>, Vec<f64>), String>;

/// Failures (case id, what, first difference) and counts per operation.
pub struct Report {
    title: &'static str,
    counts: BTreeMap<String, usize>,
    failures: Vec<String>,
}

impl Report {
    pub fn new(title: &'static str) -> Self {
        Self {
            title,
            counts: BTreeMap::new(),
            failures: Vec::new(),
        }
    }

    pub fn count(&mut self, key: &str) {
        self.add(key, 1);
    }

    pub fn add(&mut self, key: &str, n: usize) {
        *self.counts.entry(key.to_string()).or_default() += n;
    }

    pub fn fail(&mut self, case: &str, message: String) {
        self.failures.push(format!("{case}: {message}"));
    }

    /// Checks `got` against `want`; reports the first differing element.
    pub fn check(&mut self, case: &str, what: &str, want: &Want, got: &Got) {
        match (want, got) {
            (Want::Ok(shape, values), Ok((got_shape, got_values))) => {
                if shape != got_shape {
                    self.fail(
                        case,
                        format!("{what}: shape {got_shape:?}, expected {shape:?}"),
                    );
                } else {
                    self.values(case, what, values, got_values);
                }
            }
            (Want::Err(want), Err(got)) if want == got => {}
            _ => self.fail(case, format!("{what}: got {got:?}, expected {want:?}")),
        }
    }

    /// Compares values bit for bit; reports the count or the first difference.
    pub fn values(&mut self, case: &str, what: &str, want: &[Expected], got: &[f64]) {
        if want.len() != got.len() {
            let message = format!("{what}: {} values, expected {}", got.len(), want.len());
            return self.fail(case, message);
        }
        if let Some(i) = (0..want.len()).find(|&i| !want[i].matches(got[i])) {
            let message = format!(
                "{what}: first difference at element {i}: got {:?} ({:#018x}), expected {}",
                got[i],
                got[i].to_bits(),
                want[i]
            );
            self.fail(case, message);
        }
    }

    /// Prints the counts (`--nocapture`), then fails on any failure or on a
    /// count below its floor.
    pub fn finish(self, floors: &[(&str, usize)]) {
        println!("{}: cases per operation", self.title);
        for (key, n) in &self.counts {
            println!("  {n:>6}  {key}");
        }
        if !self.failures.is_empty() {
            let shown: Vec<_> = self.failures.iter().take(20).collect();
            panic!(
                "{} failures, the first ones:\n{shown:#?}",
                self.failures.len()
            );
        }
        for (key, floor) in floors {
            let n = self.counts.get(*key).copied().unwrap_or(0);
            assert!(
                n >= *floor,
                "{}: only {n} `{key}` (expected at least {floor})",
                self.title
            );
        }
    }
}
