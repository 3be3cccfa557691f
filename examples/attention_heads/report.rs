//! The closing summaries: bytes copied against a copy-everything baseline,
//! per step and in total, and the time of each step.

use crate::ledger::{Kind, Ledger, Step, human};
use crate::pipeline::{Dims, Made};

const COPY: Kind = Kind::Made(Made::Copy);

/// Whether an entry is a layout result (a view, or a materialized copy).
fn layout(kind: Kind) -> bool {
    matches!(kind, Kind::View { .. }) || kind == COPY
}

/// `title` cut to `width` characters.
fn short(title: &str, width: usize) -> String {
    let mut cut: String = title.chars().take(width).collect();
    if title.chars().count() > width {
        cut.pop();
        cut.push('…');
    }
    cut
}

/// Prints copies, op outputs and the baseline; false if the audit finds a
/// hidden copy (see [`Ledger::audit`]).
pub fn bytes(ledger: &Ledger) -> bool {
    let steps = ledger.steps();
    let entries = || steps.iter().flat_map(|s| s.entries.iter());
    let total = |keep: &dyn Fn(Kind) -> bool| {
        entries()
            .filter(|e| keep(e.kind))
            .map(|e| e.bytes)
            .sum::<u64>()
    };

    println!(
        "  {:<48} {:>7} {:>26} {:>26}",
        "step", "layouts", "copy-everything baseline", "copied here"
    );
    for step in steps
        .iter()
        .filter(|s| s.entries.iter().any(|e| layout(e.kind)))
    {
        let count = step.entries.iter().filter(|e| layout(e.kind)).count();
        println!(
            "  {:<48} {count:>7} {:>26} {:>26}",
            short(&step.title, 48),
            human(step.bytes(layout)),
            human(step.bytes(|k| k == COPY))
        );
    }
    let layouts = entries().filter(|e| layout(e.kind)).count();
    let baseline = total(&layout);
    let copied = total(&|k| k == COPY);
    println!(
        "  {:<48} {layouts:>7} {:>26} {:>26}",
        "total",
        human(baseline),
        human(copied)
    );
    println!(
        "  copied here: {:.1} % of a library that writes every layout result to a new buffer",
        100.0 * copied as f64 / baseline.max(1) as f64
    );

    println!("\n  the announced copies (materialize), with the heap bytes measured around each:");
    for e in entries().filter(|e| e.kind == COPY) {
        println!(
            "    {:<28} {:<18} {:>26}  heap +{} B",
            e.label,
            format!("{:?}", e.shape),
            human(e.bytes),
            e.heap
        );
    }
    let views: Vec<_> = entries()
        .filter(|e| matches!(e.kind, Kind::View { .. }))
        .collect();
    println!(
        "  view steps (slice, reshape, permute, transpose): {}, heap bytes requested by them: {}",
        views.len(),
        views.iter().map(|e| e.heap).sum::<u64>()
    );
    println!(
        "  op outputs, not copies (new values from matmul / map / reduce, temporaries included): {}",
        human(total(&|k| matches!(
            k,
            Kind::Made(Made::Computed | Made::Temporary)
        )))
    );
    let products: Vec<_> = entries().filter(|e| e.label.contains("matmul(")).collect();
    let scratch: u64 = products
        .iter()
        .map(|e| e.heap.saturating_sub(e.bytes))
        .sum();
    println!(
        "  matmul ({} calls) also requested {} of heap beyond its outputs: its packing scratch, kernel working memory, not a materialize (Kᵀ is read in place)",
        products.len(),
        human(scratch)
    );
    println!(
        "  input (qkv, positions): {}",
        human(total(&|k| k == Kind::Made(Made::Input)))
    );

    let problems = ledger.audit();
    for problem in &problems {
        println!("  PROBLEM: {problem}");
    }
    if problems.is_empty() {
        println!(
            "  audit: every view shares a traced owner and requested 0 heap bytes; only the copies above copied"
        );
    }
    problems.is_empty()
}

/// Prints the wall time of the steps, from the ledger's measurements, and
/// the arithmetic rate of the two matrix products.
pub fn times(ledger: &Ledger, dims: &Dims) {
    let millis = |start: &str| -> f64 {
        ledger
            .steps()
            .iter()
            .filter(|s| s.title.starts_with(start))
            .map(Step::millis)
            .sum()
    };
    // Each product is B·H·T²·D multiply-adds (two flops each).
    let [b, t, c] = [dims.batch(), dims.seq(), dims.width()].map(|x| x as f64);
    let flops = 2.0 * b * t * t * c;
    let rate = |label: &str| -> String {
        let nanos: u128 = ledger
            .steps()
            .iter()
            .flat_map(|s| s.entries.iter())
            .filter(|e| e.label.starts_with(label))
            .map(|e| e.nanos)
            .sum();
        format!(
            "matmul alone {:.1} ms, {:.2} GFLOP/s",
            nanos as f64 / 1e6,
            flops / nanos.max(1) as f64
        )
    };
    let (scores, weighted) = (rate("Q·Kᵀ = matmul"), rate("Y = matmul"));
    let rows = [
        ("1 ", "slice + materialize Q, K, V (step 1)", ""),
        (
            "2 ",
            "split heads: 3 × reshape + permute (step 2)",
            "metadata only",
        ),
        ("3 ", "Kᵀ: transpose (step 3)", "metadata only"),
        ("4a", "causal mask [T, T] (step 4a)", "broadcast"),
        ("4b", "scores matmul(Q, Kᵀ)/√D (step 4b)", scores.as_str()),
        (
            "4c",
            "mask + stable softmax (step 4c)",
            "map, max_axis, sum_axis",
        ),
        ("4d", "Y = matmul(P, V) (step 4d)", weighted.as_str()),
        (
            "5 ",
            "merge heads (step 5)",
            "permute + materialize + reshape",
        ),
    ];
    for (start, what, note) in rows {
        let line = format!("  {what:<46} {:>10.4} ms  {note}", millis(start));
        println!("{}", line.trim_end());
    }
}
