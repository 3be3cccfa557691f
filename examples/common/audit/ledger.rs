//! A [`Recorder`] that keeps a [`LayoutTrace`] for the table, plus what
//! each record cost, measured between two records (heap bytes requested,
//! from a probe such as the counting allocator of `heap.rs`, and wall time),
//! and audits the records against the claim "no step copies values except
//! the copies it announces".
//!
//! Temporaries (`Made::Temporary`) are listed but kept out of the trace:
//! the trace recognises owners by address, and a freed buffer's address can
//! be handed out again to a later one.

use super::record::{Made, Recorder};
use llm_from_scratch::prelude::*;
use std::fmt::Arguments;
use std::time::Instant;

/// What a record was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A view; `shares` is what the trace found for its storage.
    View {
        /// The storage belongs to an owner already in the trace.
        shares: bool,
    },
    /// A refused request.
    Rejected,
    /// A new owner.
    Made(Made),
}

/// One record and its measured cost.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The request.
    pub label: String,
    /// What it was.
    pub kind: Kind,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its values' size in bytes (what a copy of it would write).
    pub bytes: u64,
    /// Heap bytes requested since the previous record.
    pub heap: u64,
    /// Nanoseconds since the previous record.
    pub nanos: u128,
}

/// A titled group of records.
#[derive(Debug, Clone)]
pub struct Step {
    /// The title.
    pub title: String,
    /// The records, in order.
    pub entries: Vec<Entry>,
    /// The trace rows of this step: `rows.0..rows.1`.
    rows: (usize, usize),
}

impl Step {
    /// Total bytes of the entries matching `keep`.
    pub fn bytes(&self, keep: impl Fn(Kind) -> bool) -> u64 {
        self.entries
            .iter()
            .filter(|e| keep(e.kind))
            .map(|e| e.bytes)
            .sum()
    }

    /// Wall time of all records, in milliseconds.
    pub fn millis(&self) -> f64 {
        self.entries.iter().map(|e| e.nanos).sum::<u128>() as f64 / 1e6
    }
}

/// Records steps and their costs; prints them as they complete.
pub struct Ledger {
    trace: LayoutTrace,
    steps: Vec<Step>,
    probe: fn() -> u64,
    heap_mark: u64,
    time_mark: Instant,
    printed: usize,
    reused: Vec<String>,
}

impl Ledger {
    /// An empty ledger reading heap bytes from `probe`.
    pub fn new(probe: fn() -> u64) -> Self {
        Self {
            trace: LayoutTrace::new(),
            steps: Vec::new(),
            probe,
            heap_mark: probe(),
            time_mark: Instant::now(),
            printed: 0,
            reused: Vec::new(),
        }
    }

    /// The steps so far.
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// Restarts the heap and time measurement.
    fn rearm(&mut self) {
        self.heap_mark = (self.probe)();
        self.time_mark = Instant::now();
    }

    fn push(
        &mut self,
        label: String,
        kind: Kind,
        shape: &[usize],
        bytes: usize,
        cost: (u64, u128),
    ) {
        if self.steps.is_empty() {
            self.steps.push(Step {
                title: "(untitled)".into(),
                entries: Vec::new(),
                rows: (0, 0),
            });
        }
        let rows = self.trace.rows().len();
        let step = self.steps.last_mut().expect("a step exists");
        step.rows.1 = rows;
        step.entries.push(Entry {
            label,
            kind,
            shape: shape.to_vec(),
            bytes: bytes as u64,
            heap: cost.0,
            nanos: cost.1,
        });
        self.rearm();
    }

    fn cost(&self) -> (u64, u128) {
        (
            (self.probe)() - self.heap_mark,
            self.time_mark.elapsed().as_nanos(),
        )
    }

    /// Prints every step completed since the last call: its trace rows,
    /// its temporaries and one cost line. Restarts the measurement after.
    pub fn print_new(&mut self) {
        let table = self.trace.to_string();
        let lines: Vec<&str> = table.lines().collect();
        for step in &self.steps[self.printed..] {
            println!("\n── {} ──", step.title);
            if step.rows.1 > step.rows.0 {
                println!("  {}\n  {}", lines[0], lines[1]);
                for line in &lines[2 + step.rows.0..2 + step.rows.1] {
                    println!("  {line}");
                }
            }
            for e in step
                .entries
                .iter()
                .filter(|e| e.kind == Kind::Made(Made::Temporary))
            {
                println!(
                    "  + temporary {} {:?}: {} computed, freed inside the step (not in the trace)",
                    e.label,
                    e.shape,
                    human(e.bytes)
                );
            }
            let views = step
                .entries
                .iter()
                .filter(|e| matches!(e.kind, Kind::View { .. }));
            let (view_count, view_heap) = views.fold((0, 0), |(n, h), e| (n + 1, h + e.heap));
            println!(
                "  = {view_count} views (heap +{view_heap} B) · copied {} · computed {} · {:.4} ms",
                human(step.bytes(|k| k == Kind::Made(Made::Copy))),
                human(step.bytes(|k| matches!(k, Kind::Made(Made::Computed | Made::Temporary)))),
                step.millis()
            );
        }
        self.printed = self.steps.len();
        self.rearm();
    }

    /// Everything that contradicts "no step copies values except the ones
    /// it announces": a view that allocated or does not share a known
    /// owner, a refusal that allocated, a new owner the trace thinks it has
    /// seen, a copy whose allocation is smaller than its values.
    pub fn audit(&self) -> Vec<String> {
        let mut problems = self.reused.clone();
        for (step, e) in self
            .steps
            .iter()
            .flat_map(|s| s.entries.iter().map(move |e| (&s.title, e)))
        {
            let problem = match e.kind {
                Kind::View { shares: false } => Some("does not share a known owner".to_string()),
                Kind::View { .. } | Kind::Rejected if e.heap > 0 => {
                    Some(format!("allocated {} B", e.heap))
                }
                Kind::Made(Made::Copy) if e.heap < e.bytes => {
                    Some(format!("allocated {} B < {} B", e.heap, e.bytes))
                }
                _ => None,
            };
            if let Some(problem) = problem {
                problems.push(format!("{step}: `{}` {problem}", e.label));
            }
        }
        problems
    }
}

impl Recorder for Ledger {
    fn step(&mut self, title: Arguments<'_>) {
        let rows = self.trace.rows().len();
        self.steps.push(Step {
            title: title.to_string(),
            entries: Vec::new(),
            rows: (rows, rows),
        });
        self.rearm();
    }

    fn view<const R: usize, T>(&mut self, label: Arguments<'_>, view: &View<'_, R, T>) {
        let cost = self.cost();
        let label = label.to_string();
        self.trace.view(&label, view);
        let shares = self
            .trace
            .rows()
            .last()
            .is_some_and(|row| row.storage.starts_with("shares "));
        let bytes = view.len() * size_of::<T>();
        self.push(label, Kind::View { shares }, view.shape(), bytes, cost);
    }

    fn owner<const R: usize, T>(
        &mut self,
        label: Arguments<'_>,
        made: Made,
        tensor: &Tensor<R, T>,
    ) {
        let cost = self.cost();
        let label = label.to_string();
        if made != Made::Temporary {
            self.trace.owner(&label, tensor);
            let fresh = self
                .trace
                .rows()
                .last()
                .is_some_and(|row| row.storage.starts_with("new owner "));
            if !fresh {
                self.reused.push(format!(
                    "`{label}` is a new owner but the trace matched an earlier address"
                ));
            }
        }
        let bytes = tensor.len() * size_of::<T>();
        self.push(label, Kind::Made(made), tensor.shape(), bytes, cost);
    }

    fn rejected(&mut self, label: Arguments<'_>, error: &Error) {
        let cost = self.cost();
        let label = label.to_string();
        self.trace.rejected(&label, error);
        self.push(label, Kind::Rejected, &[], 0, cost);
    }
}

/// `18,874,368 B (18.00 MiB)`, or `0 B`.
pub fn human(bytes: u64) -> String {
    let digits = bytes.to_string();
    let mut grouped = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    if bytes < 1024 * 1024 {
        format!("{grouped} B")
    } else {
        format!("{grouped} B ({:.2} MiB)", bytes as f64 / (1024.0 * 1024.0))
    }
}
