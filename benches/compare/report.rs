//! The table of medians and ratios, and the final JSON line.

use super::SWEEP;
use super::harness::*;
use super::matmul::{ATTN, NAIVE_BATCHES};
/// One table row: ours against ndarray and/or memcpy, with the target.
pub(crate) struct Row {
    label: String,
    ours: String,
    /// `ndarray` or `memcpy`: which reference the target ratio is against.
    against: &'static str,
    limit: Option<f64>,
    json: String,
}

pub(crate) fn row(
    label: &str,
    group: &str,
    ours: &str,
    against: &'static str,
    limit: Option<f64>,
    json: &str,
) -> Row {
    Row {
        label: label.into(),
        ours: format!("{group}/{ours}"),
        against,
        limit,
        json: json.into(),
    }
}

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
    rows
}

/// Two threads against one (wall clock, both ours), or ours on two threads
/// against candle-core on two (`candle_2t`):
/// `(label, group, two-thread id, reference id, JSON key, target)`.
/// The kernel rows ([`kernel_two_thread_rows`]) also compare with ndarray
/// and the composition; the last column of the table is what is compared.
type TwoThreadRow = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<f64>,
);

const TWO_THREAD_ROWS: [TwoThreadRow; 11] = [
    (
        "9 matmul 512 f32",
        "matmul512/f32",
        "ours_2t",
        "ours",
        "matmul512_f32_2t_vs_1t",
        Some(0.55),
    ),
    (
        "9 matmul 512 f64",
        "matmul512/f64",
        "ours_2t",
        "ours",
        "matmul512_f64_2t_vs_1t",
        Some(0.55),
    ),
    (
        "9 matmul 512 x b.t() f32",
        "matmul512_t/f32",
        "ours_2t",
        "ours",
        "matmul512_t_f32_2t_vs_1t",
        Some(0.55),
    ),
    (
        "10 matmul attn f32",
        "matmul_attn/f32",
        "ours_2t",
        "ours",
        "matmul_attn_f32_2t_vs_1t",
        Some(0.55),
    ),
    (
        "10 matmul attn f64",
        "matmul_attn/f64",
        "ours_2t",
        "ours",
        "matmul_attn_f64_2t_vs_1t",
        Some(0.55),
    ),
    (
        "10 matmul_into attn f32",
        "matmul_attn/f32",
        "ours_into_2t",
        "ours_into",
        "matmul_attn_into_f32_2t_vs_1t",
        Some(0.55),
    ),
    (
        "10 matmul_into attn f64",
        "matmul_attn/f64",
        "ours_into_2t",
        "ours_into",
        "matmul_attn_into_f64_2t_vs_1t",
        Some(0.55),
    ),
    (
        "9 matmul 512 f32 vs candle 2t",
        "matmul512/f32",
        "ours_2t",
        "candle_2t",
        "matmul512_f32_2t_vs_candle_2t",
        Some(1.0),
    ),
    (
        "10 matmul attn f32 vs candle 2t",
        "matmul_attn/f32",
        "ours_2t",
        "candle_2t",
        "matmul_attn_f32_2t_vs_candle_2t",
        Some(1.0),
    ),
    (
        "11 decode step f32",
        "decode/f32",
        "ours_2t",
        "ours",
        "decode_f32_2t_vs_1t",
        None,
    ),
    (
        "11 decode step f64",
        "decode/f64",
        "ours_2t",
        "ours",
        "decode_f64_2t_vs_1t",
        None,
    ),
];

/// A two-thread row of the copy, reduction and softmax cases: ours on
/// two threads against ours on one, ndarray (one thread) or the
/// composition on two, with the target where one applies.
type KernelRow = (
    String,
    String,
    &'static str,
    &'static str,
    String,
    Option<f64>,
);

/// The two-thread rows of cases 1, 4, 5 and the softmax: each existing
/// target of these cases, now on two threads, and the speedup over one
/// thread (also of the `_into` form where the case times it).
fn kernel_two_thread_rows() -> Vec<KernelRow> {
    // (label, group, JSON stem, type, reference, target, has `_into`).
    type Case = (
        String,
        String,
        String,
        &'static str,
        &'static str,
        Option<f64>,
        bool,
    );
    let mut cases: Vec<Case> = Vec::new();
    for t in ["f64", "f32"] {
        let (label, group) = (format!("1 transpose {t}"), format!("transpose/{t}"));
        cases.push((
            label,
            group,
            "transpose".into(),
            t,
            "ndarray",
            Some(0.5),
            true,
        ));
        for (axis, limit) in [(0, 1.1), (1, 1.2)] {
            let label = format!("4 sum_axis {axis} {t}");
            let (group, stem) = (format!("sum_axis{axis}/{t}"), format!("sum_axis{axis}"));
            cases.push((label, group, stem, t, "ndarray", Some(limit), false));
        }
    }
    let (label, group) = ("5 max_axis 1 f64".to_string(), "max_axis1/f64".to_string());
    cases.push((
        label,
        group,
        "max_axis1".into(),
        "f64",
        "ndarray",
        Some(0.4),
        false,
    ));
    for t in ["f32", "f64"] {
        for (kind, limit) in [("softmax", Some(0.5)), ("softmax_unmasked", None)] {
            let label = format!("{} {t}", kind.replace('_', " "));
            let group = format!("{kind}/{t}");
            cases.push((label, group, kind.into(), t, "composition_2t", limit, true));
        }
    }
    let mut rows = Vec::new();
    for (label, group, stem, t, reference, limit, into) in cases {
        let against = reference.trim_end_matches("_2t");
        // Against ndarray the keys read as the one-thread ones (`transpose_f64`).
        let key = match against {
            "ndarray" => format!("{stem}_{t}_2t"),
            _ => format!("{stem}_{t}_2t_vs_{against}"),
        };
        rows.push((
            format!("{label} vs {against}"),
            group.clone(),
            "ours_2t",
            reference,
            key,
            limit,
        ));
        let key = format!("{stem}_{t}_2t_vs_1t");
        rows.push((
            format!("{label} 2t/1t"),
            group.clone(),
            "ours_2t",
            "ours",
            key,
            None,
        ));
        if into {
            let key = format!("{stem}_into_{t}_2t_vs_1t");
            rows.push((
                format!("{label} into 2t/1t"),
                group,
                "ours_into_2t",
                "ours_into",
                key,
                None,
            ));
        }
    }
    rows
}

/// Prints the two-thread rows (wall-clock medians) and returns their JSON entries.
fn two_thread_rows() -> Vec<String> {
    let mut json = Vec::new();
    println!(
        "{:<34} {:>11} {:>11} {:>8} {:>12}",
        "two threads (wall medians)", "ours 2t", "against", "ratio", "target"
    );
    let matmul_rows = TWO_THREAD_ROWS
        .iter()
        .map(|&(label, group, two, one, key, limit)| {
            (
                label.to_string(),
                group.to_string(),
                two,
                one,
                key.to_string(),
                limit,
            )
        });
    for (label, group, two_id, one_id, key, limit) in matmul_rows.chain(kernel_two_thread_rows()) {
        let two = median_wall(&format!("{group}/{two_id}"));
        let one = median_wall(&format!("{group}/{one_id}"));
        let Some(r) = ratio(two, one) else { continue };
        let target = match limit {
            Some(limit) if r <= limit => format!("met ≤ {limit}"),
            Some(limit) => format!("MISSED ≤ {limit}"),
            None => String::new(),
        };
        println!(
            "{:<34} {:>11} {:>11} {:>8.3} {:>12}",
            label,
            format_ns(two),
            format_ns(one),
            r,
            target
        );
        json.push(json_entry(&key, r, 3));
    }
    json
}

/// `"key":value`, or `"key":null` when the value is not finite (a sample
/// below the clock's resolution, as in `cargo test`'s single-iteration runs).
pub(crate) fn json_entry(key: &str, value: f64, decimals: usize) -> String {
    if value.is_finite() {
        format!("\"{key}\":{value:.decimals$}")
    } else {
        format!("\"{key}\":null")
    }
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
        // softmax, the plain loop for index_select.
        let mc = ["candle", "memcpy", "naive", "composition", "loop"]
            .iter()
            .filter(|&&reference| reference != "candle" || row.against == "candle")
            .find_map(|reference| median(&format!("{group}/{reference}")));
        let (vs_nd, vs_mc) = (ratio(ours, nd), ratio(ours, mc));
        let against = if row.against == "ndarray" {
            vs_nd
        } else {
            vs_mc
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
         their `vs candle` rows), the four-call composition for softmax, the plain loop for index_select, memcpy otherwise; \
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
    println!("{{{}}}", json.join(","));
}
