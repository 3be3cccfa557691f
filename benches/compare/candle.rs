//! candle-core, Hugging Face's tensor crate (CPU backend, default
//! features), in the f32 matmul cases 9 (`[512, 512] x [512, 512]`) and 10
//! (attention scores `[12, 1024, 64] x [12, 64, 1024]`), on the same input
//! values as ours.
//!
//! Timed: `Tensor::matmul` alone, the input tensors made once before. It
//! allocates its output (`vec![0; b·m·n]`) on every call, as our `matmul`
//! does in the `ours` rows it is compared with (fresh output).
//!
//! Threads. candle's CPU matmul calls the `gemm` crate with
//! `Parallelism::Rayon(candle_core::utils::get_num_threads())` (the
//! `RAYON_NUM_THREADS` variable, read on every call, else the physical
//! cores: 2 here), and gemm splits that many tasks with `into_par_iter` on
//! the *current* rayon pool. So without touching the environment:
//! - `candle` (one thread): the timing loop runs on the worker of the global
//!   pool (one thread, see `main`), and that worker's CPU time is the clock
//!   ([`timed_on_worker`]): gemm's tasks all run on it, one after the other.
//!   Called from the bench thread instead, they would be sent to that worker
//!   while the bench thread sleeps, and its CPU time would miss them.
//! - `candle_2t`: the timing loop inside the pool `TWO` ([`timed_on_two`]),
//!   wall clock, as `ours_2t`; gemm's tasks run on its two workers.
//!
//! With `RAYON_NUM_THREADS=1` candle passes `Parallelism::None` and gemm
//! runs inline on the calling thread: the one-thread row stays valid (the
//! pools of `main` and `TWO` set their sizes explicitly), the two-thread
//! row is left out.
//!
//! Before timing, [`thread_check`] prints how the process's CPU time spread
//! over its threads while candle-core ran in each mode (one thread: all on
//! one; two threads: about half on each of `TWO`'s workers).

use super::harness::*;
use super::table::{Row, row};
use candle_core::{Device, Tensor};
use criterion::BenchmarkGroup;
use criterion::measurement::WallTime;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// candle-core's `candle` and `candle_2t` rows in the group `name`, for f32
/// (other element types are left out): `left x right`, each given as
/// (values, shape), checked against `ours` (the same product, contraction
/// length `k`) before timing.
pub(crate) fn compare<T: Elem>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    left: (&[T], &[usize]),
    right: (&[T], &[usize]),
    ours: &[T],
    k: usize,
) {
    if T::NAME != "f32" {
        return;
    }
    // T is f32 here: the round trip through f64 is exact.
    let f32s = |values: &[T]| -> Vec<f32> { values.iter().map(|x| x.as_f64() as f32).collect() };
    let tensor = |(values, shape): (&[T], &[usize])| {
        Tensor::from_vec(f32s(values), shape, &Device::Cpu).unwrap()
    };
    let (a, b) = (tensor(left), tensor(right));
    let product = || a.matmul(&b).unwrap();
    let theirs: Vec<f32> = rayon::scope(|_| product())
        .flatten_all()
        .unwrap()
        .to_vec1()
        .unwrap();
    check_close(&f32s(ours), &theirs, k, "candle-core");
    let threads = candle_core::utils::get_num_threads();
    thread_check(name, &product, threads);
    timed_on_worker(g, name, "candle", product);
    if threads >= 2 {
        timed_on_two(g, name, "candle_2t", product);
    } else {
        println!(
            "{name}: candle-core splits gemm in {threads} task (RAYON_NUM_THREADS), so no candle_2t row"
        );
    }
}

/// CPU time in ns of every thread of the process, by thread id, from
/// `/proc/self/task/*/schedstat`.
fn threads_cpu_ns() -> Option<BTreeMap<OsString, u64>> {
    let mut threads = BTreeMap::new();
    for task in std::fs::read_dir("/proc/self/task").ok()? {
        let task = task.ok()?;
        let stat = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
        let ns = stat.split_whitespace().next()?.parse().ok()?;
        threads.insert(task.file_name(), ns);
    }
    Some(threads)
}

/// Calls `product` for ~0.3 s; returns the process's CPU time over the
/// wall time and each thread's share of that CPU time, largest first.
fn cpu_shares(product: &impl Fn() -> Tensor) -> Option<(f64, Vec<f64>)> {
    let (before, start) = (threads_cpu_ns()?, Instant::now());
    while start.elapsed() < Duration::from_millis(300) {
        black_box(product());
    }
    let wall = start.elapsed().as_nanos() as f64;
    let used: Vec<f64> = threads_cpu_ns()?
        .iter()
        .map(|(id, after)| (after - before.get(id).unwrap_or(&0)) as f64)
        .collect();
    let total: f64 = used.iter().sum();
    let mut shares: Vec<f64> = used.iter().map(|ns| ns / total).collect();
    shares.sort_by(|x, y| y.total_cmp(x));
    Some((total / wall, shares))
}

/// Prints how candle-core's work spreads over the threads in its one- and
/// two-thread rows: each thread's share of the process's CPU time (one
/// thread: ~100% on one; two: ~50% on each) and that CPU time over the wall
/// time (up to 1 and up to 2).
fn thread_check(name: &str, product: &(impl Fn() -> Tensor + Sync), threads: usize) {
    let show = |(per_wall, shares): (f64, Vec<f64>)| {
        let shares: Vec<String> = shares
            .iter()
            .take(3)
            .map(|s| format!("{:.0}%", s * 100.0))
            .collect();
        format!("CPU shares {}, CPU / wall {per_wall:.2}", shares.join(" "))
    };
    let one = rayon::scope(|_| cpu_shares(product)).map(show);
    let two = TWO.install(|| cpu_shares(product)).map(show);
    if let (Some(one), Some(two)) = (one, two) {
        println!(
            "{name}: candle-core (gemm tasks: {threads}): one thread: {one}; two threads: {two}"
        );
    }
}

/// The one-thread report rows: ours / candle-core (CPU time each; the
/// reference column `memcpy|nv` shows candle-core for them).
pub(crate) fn rows() -> Vec<Row> {
    [
        (
            "9 matmul 512 f32 vs candle",
            "matmul512/f32",
            "matmul512_f32_vs_candle",
        ),
        (
            "10 matmul attn f32 vs candle",
            "matmul_attn/f32",
            "matmul_attn_f32_vs_candle",
        ),
    ]
    .into_iter()
    .map(|(label, group, json)| row(label, group, "ours", "candle", Some(1.0), json))
    .collect()
}
