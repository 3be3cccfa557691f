//! Peak memory of loading a checkpoint: `AlignedBytes::read` (one read
//! straight into the aligned buffer), the memory map (feature `mmap`), and
//! the two-buffer path it replaced (`std::fs::read`, then a copy into an
//! aligned buffer), each in a fresh child process so that each peak
//! resident set (`VmHWM`) is that load's alone.
//!
//! `cargo bench --bench load` (Linux: the peaks come from `/proc`). Writes a
//! 256 MiB safetensors file (one f32 tensor) to the temporary directory,
//! loads it three ways, reads every value through `Weights::get`, and prints
//! each peak over the file's size; the last line is one JSON object of those
//! ratios. The child's baseline (the binary, the allocator) is measured
//! first and subtracted. The second column is the private (anonymous)
//! memory still resident after the values were read (`RssAnon`): a memory
//! map's pages are the page cache's, shared and reclaimable, so they count
//! in the resident set but not there.

use llm_from_scratch::tensor::Tensor;
use llm_from_scratch::tensor::weights::{AlignedBytes, MappedFile, SafetensorsWriter, Weights};
use std::path::Path;
use std::process::Command;

/// Values of the test tensor: 64 Mi f32 = 256 MiB.
const VALUES: usize = 64 << 20;
/// The environment variable that makes this binary a child: `mode:path`.
const CHILD: &str = "LOAD_BENCH_CHILD";

fn main() {
    if let Ok(request) = std::env::var(CHILD) {
        let (mode, path) = request.split_once(':').expect("mode:path");
        child(mode, Path::new(path));
        return;
    }
    let path = std::env::temp_dir().join(format!("load-bench-{}.safetensors", std::process::id()));
    write_file(&path);
    let file_bytes = std::fs::metadata(&path).expect("written").len() as f64;
    let (baseline, baseline_anon) = run_child("baseline", &path);
    println!(
        "load of a {:.0} MiB safetensors file (one f32 tensor), above a child's {:.1} MiB baseline: peak resident set, private memory after",
        file_bytes / MIB,
        baseline / MIB
    );
    let mut ratios = Vec::new();
    for (mode, key, what) in [
        (
            "read",
            "aligned_read_peak_vs_file",
            "AlignedBytes::read (one read into the aligned buffer)",
        ),
        (
            "mmap",
            "mmap_peak_vs_file",
            "MappedFile::open (pages of the page cache, counted once touched)",
        ),
        (
            "fs_read_copy",
            "fs_read_then_copy_peak_vs_file",
            "std::fs::read, then AlignedBytes::from_bytes (the path read replaced)",
        ),
    ] {
        let (peak, anon) = run_child(mode, &path);
        let (peak, anon) = (peak - baseline, (anon - baseline_anon).max(0.0));
        let ratio = peak / file_bytes;
        println!(
            "  {what:<70} {:>7.1} MiB ({ratio:.2} x the file)  {:>7.1} MiB",
            peak / MIB,
            anon / MIB
        );
        ratios.push(format!("\"{key}\": {ratio:.3}"));
    }
    std::fs::remove_file(&path).expect("removable");
    println!("{{{}}}", ratios.join(", "));
}

const MIB: f64 = (1 << 20) as f64;

/// Writes the test file: one `[VALUES]` f32 tensor of small integers.
fn write_file(path: &Path) {
    let tensor = Tensor::from_fn([VALUES], |[i]| (i % 251) as f32).expect("256 MiB");
    SafetensorsWriter::new()
        .add("w", tensor.view())
        .expect("one tensor")
        .write(path)
        .expect("writable temporary directory");
}

/// Runs this binary as a child in `mode`; its peak resident set and its
/// resident private memory at the end, in bytes.
fn run_child(mode: &str, path: &Path) -> (f64, f64) {
    let output = Command::new(std::env::current_exe().expect("the bench binary"))
        .env(CHILD, format!("{mode}:{}", path.display()))
        .output()
        .expect("the child runs");
    assert!(
        output.status.success(),
        "child {mode}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8(output.stdout).expect("UTF-8");
    let mut numbers = text
        .split_whitespace()
        .map(|n| n.parse::<f64>().expect("the child prints two numbers"));
    (
        numbers.next().expect("peak"),
        numbers.next().expect("anonymous"),
    )
}

/// The child: load `path` the way `mode` says, read every value, and print
/// VmHWM and RssAnon while the loaded buffer is still alive.
fn child(mode: &str, path: &Path) {
    let report = |sum: f64| {
        std::hint::black_box(sum);
        println!("{} {}", status_bytes("VmHWM:"), status_bytes("RssAnon:"));
    };
    match mode {
        "baseline" => report(0.0),
        "read" => {
            let buffer = AlignedBytes::read(path).expect("readable");
            report(sum_of(buffer.as_bytes()));
        }
        "mmap" => {
            let mapped = MappedFile::open(path).expect("mappable");
            report(sum_of(mapped.bytes()));
        }
        "fs_read_copy" => {
            let bytes = std::fs::read(path).expect("readable");
            let aligned = AlignedBytes::from_bytes(&bytes);
            drop(bytes);
            report(sum_of(aligned.as_bytes()));
        }
        other => panic!("unknown mode {other}"),
    }
}

/// The sum of the tensor `w`'s values, read through a view of `bytes`.
fn sum_of(bytes: &[u8]) -> f64 {
    let weights = Weights::parse(bytes).expect("a valid file");
    let w = weights.get::<1, f32>("w").expect("f32 [VALUES]");
    w.iter().map(|&x| f64::from(x)).sum()
}

/// A `/proc/self/status` field of this process (`VmHWM:`, `RssAnon:`) in bytes.
fn status_bytes(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    let line = status
        .lines()
        .find(|line| line.starts_with(field))
        .expect("the field");
    let kib: f64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("a number");
    kib * 1024.0
}
