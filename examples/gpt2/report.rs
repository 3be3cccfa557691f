//! What a run measured: speed against the memory-bandwidth bound, and memory.

use std::time::{Duration, Instant};

/// The best of three timed reads of a 256 MiB buffer on `threads` threads,
/// in bytes per second: the rate at which a decode step can stream weights.
pub fn read_bandwidth(threads: usize) -> f64 {
    // Integer sums reassociate freely, so the loop vectorizes and is bound
    // by memory, not by the latency of a float add chain.
    let values = vec![1_u32; 64 << 20];
    let threads = threads.max(1);
    let chunk = values.len().div_ceil(threads);
    let mut best = Duration::MAX;
    let mut total = 0_u32;
    for _ in 0..3 {
        let started = Instant::now();
        total = std::thread::scope(|scope| {
            let parts: Vec<_> = values
                .chunks(chunk)
                .map(|part| scope.spawn(move || part.iter().fold(0_u32, |a, &b| a.wrapping_add(b))))
                .collect();
            parts
                .into_iter()
                .map(|part| part.join().unwrap_or(0))
                .fold(0_u32, u32::wrapping_add)
        });
        best = best.min(started.elapsed());
    }
    std::hint::black_box(total);
    (values.len() * 4) as f64 / best.as_secs_f64()
}

/// The peak resident set of this process (`VmHWM`), in bytes, where Linux tells.
pub fn peak_rss() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `bytes` in MiB.
pub fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}
