//! The two-thread rows: ours on two threads against ours on one (or
//! candle-core on two, ndarray, the composition), wall-clock medians.

use super::harness::*;
use super::table::json_entry;

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

const TWO_THREAD_ROWS: [TwoThreadRow; 18] = [
    (
        "9 matmul 512 f32",
        "matmul512/f32",
        "ours_2t",
        "ours",
        "matmul512_f32_2t_vs_1t",
        Some(0.55),
    ),
    (
        "9 matmul 512 f32, pool per call",
        "matmul512/f32",
        "ours_2t_call",
        "ours",
        "matmul512_f32_2t_call_vs_1t",
        None,
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
    (
        "12 attention end to end f32",
        "attention_e2e/f32",
        "ours_2t",
        "ours",
        "attention_e2e_f32_2t_vs_1t",
        None,
    ),
    (
        "12 attention end to end f64",
        "attention_e2e/f64",
        "ours_2t",
        "ours",
        "attention_e2e_f64_2t_vs_1t",
        None,
    ),
    (
        "12 attention e2e, reused f32",
        "attention_e2e/f32",
        "ours_into_2t",
        "ours_into",
        "attention_e2e_into_f32_2t_vs_1t",
        None,
    ),
    (
        "12 attention e2e, reused f64",
        "attention_e2e/f64",
        "ours_into_2t",
        "ours_into",
        "attention_e2e_into_f64_2t_vs_1t",
        None,
    ),
    (
        "12 attention e2e, fused f32",
        "attention_e2e/f32",
        "ours_fused_2t",
        "ours_fused",
        "attention_e2e_fused_f32_2t_vs_1t",
        None,
    ),
    (
        "12 attention e2e, one call f32",
        "attention_e2e/f32",
        "ours_sdpa_2t",
        "ours_sdpa",
        "attention_e2e_sdpa_f32_2t_vs_1t",
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
pub(crate) fn two_thread_rows() -> Vec<String> {
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
