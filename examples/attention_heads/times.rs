//! The closing time table: the wall time of each attention step, from the
//! ledger's measurements, and the arithmetic rate of the two matrix products.

use crate::args::Dims;
use crate::audit::ledger::{Ledger, Step};

/// Prints the wall time of the steps, from the ledger's measurements, and
/// the arithmetic rate of the two matrix products.
pub fn table(ledger: &Ledger, dims: &Dims) {
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
    let rate = |label: &str, call: &str| -> String {
        let nanos: u128 = ledger
            .steps()
            .iter()
            .flat_map(|s| s.entries.iter())
            .filter(|e| e.label.starts_with(label))
            .map(|e| e.nanos)
            .sum();
        format!(
            "{call} alone {:.1} ms, {:.2} GFLOP/s",
            nanos as f64 / 1e6,
            flops / nanos.max(1) as f64
        )
    };
    let (scores, weighted) = (
        rate("scores = matmul", "matmul_affine"),
        rate("Y = matmul", "matmul"),
    );
    let rows = [
        ("1 ", "Q, K, V: chunk::<3> (step 1)", "metadata only"),
        (
            "2 ",
            "split heads: 3 × split_axis + permute (step 2)",
            "metadata only",
        ),
        ("3 ", "Kᵀ: transpose (step 3)", "metadata only"),
        (
            "4a",
            "scores matmul_affine(Q, Kᵀ, 1/√D) (step 4a)",
            scores.as_str(),
        ),
        (
            "4b",
            "causal_softmax(scores, 0) (step 4b)",
            "mask + stable softmax, fused",
        ),
        ("4c", "Y = matmul(P, V) (step 4c)", weighted.as_str()),
        (
            "5 ",
            "merge heads (step 5)",
            "permute + materialize + merge_axes",
        ),
    ];
    for (start, what, note) in rows {
        let line = format!("  {what:<46} {:>10.4} ms  {note}", millis(start));
        println!("{}", line.trim_end());
    }
}
