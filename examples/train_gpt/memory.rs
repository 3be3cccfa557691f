//! The run's memory next to what training must hold: the process's peak
//! resident set (Linux: `VmHWM` in `/proc/self/status`) against parameters,
//! gradients, AdamW's two moments and the tape's values.

use crate::model::StepBytes;

/// The peak resident set in bytes (`VmHWM`, kB in `/proc/self/status`), or
/// `None` where that file is missing or unreadable (not Linux).
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line["VmHWM:".len()..]
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    Some(kib * 1024)
}

fn mib(bytes: u64) -> String {
    format!("{:.2} MiB", bytes as f64 / f64::from(1u32 << 20))
}

/// One line: peak RSS, then parameters + gradients + AdamW state + the
/// tape's values (`f32` parameters of `parameters` elements; `step` the
/// largest step seen), and the backward's other gradient buffers.
pub fn summary(parameters: usize, step: StepBytes) -> String {
    let p = (parameters * size_of::<f32>()) as u64;
    let tape = step.tape as u64;
    let held = p + p + 2 * p + tape;
    let rss = peak_rss_bytes().map_or("unavailable".to_string(), mib);
    format!(
        "memory: peak RSS {rss} (VmHWM) vs parameters {} + gradients {} + AdamW m, v {} + tape {} = {}; \
         the backward's intermediate gradients {} more",
        mib(p),
        mib(p),
        mib(2 * p),
        mib(tape),
        mib(held),
        mib((step.grads as u64).saturating_sub(p)),
    )
}
