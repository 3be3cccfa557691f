//! What a run measured: speed against the memory-bandwidth bound, and memory.
//!
//! Included by `gpt2` and `llama` with `#[path = "../common/report.rs"] mod report;`.

use std::time::{Duration, Instant};

/// The best of three timed reads of a 512 MiB buffer on `threads` threads,
/// in bytes per second: the rate at which a decode step can stream weights
/// (comparable to `torch.sum` over a large tensor, `scripts/bench_torch.py`).
pub fn read_bandwidth(threads: usize) -> f64 {
    // Integer sums reassociate freely, so the loop vectorizes and is bound
    // by memory, not by the latency of a float add chain; each thread reads
    // four streams at once, which keeps more lines in flight than one.
    let values = vec![1_u32; 128 << 20];
    let threads = threads.max(1);
    let part = values.len().div_ceil(threads);
    let mut best = Duration::MAX;
    let mut total = 0_u32;
    for _ in 0..3 {
        let started = Instant::now();
        total = std::thread::scope(|scope| {
            let parts: Vec<_> = values
                .chunks(part)
                .map(|part| scope.spawn(move || four_streams(part)))
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

/// The wrapping sum of `values`, read as four interleaved streams.
fn four_streams(values: &[u32]) -> u32 {
    let quarter = values.len() / 4 / 16 * 16;
    let (a, rest) = values.split_at(quarter);
    let (b, rest) = rest.split_at(quarter);
    let (c, rest) = rest.split_at(quarter);
    let (d, tail) = rest.split_at(quarter);
    let mut sums = [0_u32; 16];
    let blocks = a
        .chunks_exact(16)
        .zip(b.chunks_exact(16))
        .zip(c.chunks_exact(16))
        .zip(d.chunks_exact(16));
    for (((a, b), c), d) in blocks {
        for (i, sum) in sums.iter_mut().enumerate() {
            *sum = sum
                .wrapping_add(a[i])
                .wrapping_add(b[i])
                .wrapping_add(c[i])
                .wrapping_add(d[i]);
        }
    }
    tail.iter()
        .chain(&sums)
        .fold(0_u32, |sum, &x| sum.wrapping_add(x))
}

/// The peak resident set of this process (`VmHWM`), in bytes, where Linux tells.
pub fn peak_rss() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The size of the largest CPU cache in bytes, where Linux tells
/// (`/sys/devices/system/cpu/cpu0/cache/index*/size`, e.g. `32768K`).
pub fn last_level_cache() -> Option<usize> {
    let caches = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    caches
        .filter_map(|entry| {
            let size = std::fs::read_to_string(entry.ok()?.path().join("size")).ok()?;
            parse_cache_size(size.trim())
        })
        .max()
}

/// `"32768K"`, `"2M"` or `"512"` in bytes.
fn parse_cache_size(text: &str) -> Option<usize> {
    let (digits, unit) = match text.as_bytes().last()? {
        b'K' => (&text[..text.len() - 1], 1 << 10),
        b'M' => (&text[..text.len() - 1], 1 << 20),
        b'G' => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit)
}

/// `bytes` in MiB.
pub fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

#[cfg(test)]
mod tests {
    use super::parse_cache_size;

    #[test]
    fn cache_sizes_in_sysfs_notation() {
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("2M"), Some(2 << 20));
        assert_eq!(parse_cache_size("512"), Some(512));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size(""), None);
    }
}
