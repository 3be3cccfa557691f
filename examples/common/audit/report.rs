//! The closing summary of a [`Ledger`]: bytes copied against a
//! copy-everything baseline, per step and in total, the announced copies
//! with the heap bytes measured around each, and the audit's verdict.

use super::ledger::{Kind, Ledger, human};
use super::record::Made;

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
        "  view steps (chunk, split_axis, permute, transpose, reshape, merge_axes): {}, heap bytes requested by them: {}",
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
        "  matmul ({} calls) also requested {} of heap beyond its outputs: its packing scratch, kernel working memory, not a materialize (transposed operands are read in place)",
        products.len(),
        human(scratch)
    );
    println!(
        "  inputs: {}",
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
