//! The table of medians and ratios, and the final JSON line.

use super::SWEEP;
use super::harness::*;
use super::matmul::{ATTN, NAIVE_BATCHES};
use super::table::{Row, json_entry, row};
use super::two_threads::two_thread_rows;

/// The third references of the table, the first one a group has.
const REFERENCES: [&str; 6] = ["candle", "memcpy", "naive", "composition", "loop", "std"];

pub(crate) fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for t in ["f64", "f32"] {
        rows.push(row(
            &format!("1 transpose materialize {t}"),
            &format!("transpose/{t}"),
            "ours",
            "ndarray",
            Some(0.5),
            &format!("transpose_{t}"),
        ));
        rows.push(row(
            &format!("1 transpose materialize_into {t}"),
            &format!("transpose/{t}"),
            "ours_into",
            "memcpy",
            Some(4.0),
            &format!("transpose_into_{t}_vs_memcpy"),
        ));
        rows.push(row(
            &format!("2 slice [.., 1..4095] {t}"),
            &format!("slice/{t}"),
            "ours",
            "ndarray",
            Some(1.1),
            &format!("slice_{t}"),
        ));
        rows.push(row(
            &format!("3 broadcast add {t}"),
            &format!("broadcast_add/{t}"),
            "ours",
            "ndarray",
            Some(1.1),
            &format!("broadcast_add_{t}"),
        ));
        rows.push(row(
            &format!("4 sum_axis 0 {t}"),
            &format!("sum_axis0/{t}"),
            "ours",
            "ndarray",
            Some(1.1),
            &format!("sum_axis0_{t}"),
        ));
        rows.push(row(
            &format!("4 sum_axis 1 {t}"),
            &format!("sum_axis1/{t}"),
            "ours",
            "ndarray",
            Some(1.2),
            &format!("sum_axis1_{t}"),
        ));
    }
    rows.push(row(
        "5 max_axis 1 f64",
        "max_axis1/f64",
        "ours",
        "ndarray",
        Some(0.4),
        "max_axis1_f64",
    ));
    rows.push(row(
        "6 split heads f64",
        "split_heads/f64",
        "ours",
        "ndarray",
        Some(1.1),
        "split_heads",
    ));
    rows.push(row(
        "6 merge heads f64",
        "merge_heads/f64",
        "ours",
        "ndarray",
        Some(1.1),
        "merge_heads",
    ));
    rows.push(row(
        "7 rank-4 view chain",
        "view_chain/f64",
        "ours",
        "ndarray",
        Some(1.0),
        "view_chain",
    ));
    for side in SWEEP {
        let n = side * side;
        rows.push(row(
            &format!("8 sweep transpose {n}"),
            &format!("sweep/{n}"),
            "ours",
            "ndarray",
            None,
            &format!("sweep_{n}"),
        ));
    }
    for t in ["f64", "f32"] {
        for (label, group, json) in [
            ("9 matmul 512", "matmul512", "matmul512"),
            ("9 matmul 512 x b.t()", "matmul512_t", "matmul512_t"),
            ("10 matmul attn", "matmul_attn", "matmul_attn"),
        ] {
            let group = format!("{group}/{t}");
            rows.push(row(
                &format!("{label} {t}"),
                &group,
                "ours",
                "ndarray",
                Some(1.0),
                &format!("{json}_{t}"),
            ));
            let naive = if json == "matmul_attn" {
                " vs naive*"
            } else {
                " vs naive"
            };
            rows.push(row(
                &format!("{label} {t}{naive}"),
                &group,
                "ours",
                "naive",
                Some(0.1),
                &format!("{json}_{t}_vs_naive"),
            ));
        }
        rows.push(row(
            &format!("10 matmul_into attn {t} vs naive*"),
            &format!("matmul_attn/{t}"),
            "ours_into",
            "naive",
            None,
            &format!("matmul_attn_into_{t}_vs_naive"),
        ));
    }
    rows.extend(super::candle::rows());
    rows.extend(super::softmax::rows());
    rows.extend(super::norm::rows());
    rows.extend(super::elementwise::rows());
    rows.extend(super::affine::rows());
    rows.extend(super::pairwise::rows());
    for t in ["f64", "f32"] {
        let group = format!("decode/{t}");
        rows.push(row(
            &format!("11 decode step {t}"),
            &group,
            "ours",
            "ndarray",
            Some(1.0),
            &format!("decode_{t}"),
        ));
        rows.push(row(
            &format!("11 decode step {t} vs loop"),
            &group,
            "ours",
            "naive",
            Some(0.5),
            &format!("decode_{t}_vs_loop"),
        ));
        rows.push(row(
            &format!("11 decode, K row-major {t} vs loop"),
            &group,
            "ours_kview",
            "naive",
            None,
            &format!("decode_kview_{t}_vs_loop"),
        ));
    }
    for t in ["f64", "f32"] {
        rows.push(row(
            &format!("12 attention end to end {t}"),
            &format!("attention_e2e/{t}"),
            "ours",
            "ndarray",
            None,
            &format!("attention_e2e_{t}"),
        ));
        rows.push(row(
            &format!("12 attention e2e, reused outputs {t}"),
            &format!("attention_e2e/{t}"),
            "ours_into",
            "ndarray",
            None,
            &format!("attention_e2e_into_{t}"),
        ));
        rows.push(row(
            &format!("12 attention e2e, fused ops {t}"),
            &format!("attention_e2e/{t}"),
            "ours_fused",
            "ours",
            None,
            &format!("attention_e2e_fused_{t}_vs_composition"),
        ));
        rows.push(row(
            &format!("12 attention e2e, one call {t}"),
            &format!("attention_e2e/{t}"),
            "ours_sdpa",
            "ours",
            None,
            &format!("attention_e2e_sdpa_{t}_vs_composition"),
        ));
    }
    rows
}

/// Prints the table and, last, the JSON object of ratios.
pub(crate) fn report() {
    let mut json = Vec::new();
    println!();
    println!(
        "{:<34} {:>11} {:>11} {:>11} {:>8} {:>8} {:>8} {:>12}",
        "case (CPU-time medians)",
        "ours",
        "ndarray",
        "memcpy|nv",
        "/ndarray",
        "/mc|nv",
        "wall",
        "target"
    );
    for row in rows() {
        let group = row.ours.rsplit_once('/').map_or("", |(g, _)| g);
        let ours = median(&row.ours);
        let nd = median(&format!("{group}/ndarray"));
        // The third reference: memcpy, or for the matmul rows the naive loop
        // (candle-core in the rows against it), the four-call composition for
        // softmax, the plain loop for index_select, std's `exp` map for exp.
        let mc = REFERENCES
            .iter()
            .filter(|&&reference| reference != "candle" || row.against == "candle")
            .find_map(|reference| median(&format!("{group}/{reference}")));
        let (vs_nd, vs_mc) = (ratio(ours, nd), ratio(ours, mc));
        // Against ndarray, the third reference, or another of our own ids
        // (the fused attention against our composition).
        let against = if row.against == "ndarray" {
            vs_nd
        } else if REFERENCES.contains(&row.against) {
            vs_mc
        } else {
            ratio(ours, median(&format!("{group}/{}", row.against)))
        };
        let target = match (row.limit, against) {
            (Some(limit), Some(r)) => format!(
                "{} {} {limit}",
                if r <= limit { "met" } else { "MISSED" },
                "≤"
            ),
            (Some(limit), None) => format!("≤ {limit}"),
            (None, _) => String::new(),
        };
        let show = |r: Option<f64>| r.map_or("-".into(), |r| format!("{r:.3}"));
        let reference = format!("{group}/{}", row.against);
        let wall = ratio(median_wall(&row.ours), median_wall(&reference));
        println!(
            "{:<34} {:>11} {:>11} {:>11} {:>8} {:>8} {:>8} {:>12}",
            row.label,
            format_ns(ours),
            format_ns(nd),
            format_ns(mc),
            show(vs_nd),
            show(vs_mc),
            show(wall),
            target
        );
        if let Some(r) = against {
            json.push(json_entry(&row.json, r, 3));
        }
    }
    println!(
        "memcpy|nv: the naive triple loop (nv) for the matmul rows 9 and 10 (candle-core in \
         their `vs candle` rows), the four-call composition for softmax, the plain loop for index_select, std's exp map for exp, memcpy otherwise; \
         * naive timed on {NAIVE_BATCHES} of {} batches, scaled by {}",
        ATTN[0],
        ATTN[0] / NAIVE_BATCHES
    );
    json.extend(two_thread_rows());
    // Sweep linearity: spread of ns per element across sizes.
    for (id, what) in [
        ("ours", "materialize"),
        ("ours_into", "materialize_into"),
        ("ndarray", "ndarray"),
        ("memcpy", "memcpy (reference)"),
    ] {
        let per_element: Vec<f64> = SWEEP
            .iter()
            .filter_map(|&side| {
                let n = side * side;
                Some(median(&format!("sweep/{n}/{id}"))? / n as f64)
            })
            .collect();
        if per_element.is_empty() {
            continue;
        }
        let (lo, hi) = per_element
            .iter()
            .fold((f64::MAX, 0.0_f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        let line: Vec<String> = per_element.iter().map(|x| format!("{x:.2}")).collect();
        println!(
            "8 sweep {what} ns/element 2^10..2^24: [{}], max/min = {:.2} (target ≤ 2)",
            line.join(", "),
            hi / lo
        );
        json.push(json_entry(&format!("sweep_{id}_max_over_min"), hi / lo, 3));
    }
    if let Some(ns) = median("view_chain/f64/ours") {
        json.push(json_entry("view_chain_ours_ns", ns, 1));
    }
    // Absolute wall times of case 12, for the PyTorch table of BENCHMARKS.md
    // (`scripts/bench_torch.py` times the same pipeline by the wall clock).
    for t in ["f32", "f64"] {
        for (id, suffix) in [
            ("ours", ""),
            ("ours_2t", "_2t"),
            ("ours_into", "_into"),
            ("ours_into_2t", "_into_2t"),
            ("ours_fused", "_fused"),
            ("ours_fused_2t", "_fused_2t"),
            ("ours_sdpa", "_sdpa"),
            ("ours_sdpa_2t", "_sdpa_2t"),
        ] {
            if let Some(ns) = median_wall(&format!("attention_e2e/{t}/{id}")) {
                json.push(json_entry(
                    &format!("attention_e2e_{t}{suffix}_ms"),
                    ns / 1e6,
                    2,
                ));
            }
        }
    }
    println!("{{{}}}", json.join(","));
}
