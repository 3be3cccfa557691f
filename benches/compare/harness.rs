//! The measuring harness: the CPU-time clock, criterion groups and medians.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode};
use llm_from_scratch::tensor::{Element, Float, Tensor};
use ndarray::{ArrayView2, NdFloat};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant};

/// Samples criterion takes per benchmark (its minimum).
pub(crate) const SAMPLES: usize = 10;
/// The big square side of cases 1, 2, 4, 5 (f64: 128 MiB).
pub(crate) const N: usize = 4096;

/// Per benchmark id: (CPU, wall) mean ns/iteration of every call criterion made.
pub(crate) static TIMES: Mutex<BTreeMap<String, Vec<(f64, f64)>>> = Mutex::new(BTreeMap::new());

/// CPU time of this thread in ns, if the kernel reports it.
pub(crate) fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// An element type of the f64 / f32 cases (a float the crate's matmul,
/// reductions and softmax compute in, and an ndarray float).
pub(crate) trait Elem: Float + Element + NdFloat + Default {
    const NAME: &'static str;
    fn value(i: usize) -> Self;
    /// The bit pattern, for bit-exact checks.
    fn bits(self) -> u64;
    fn as_f64(self) -> f64;
}
impl Elem for f64 {
    const NAME: &'static str = "f64";
    fn value(i: usize) -> Self {
        (i.wrapping_mul(2_654_435_761) % 1999) as f64 * 1e-3 - 1.0
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
    fn as_f64(self) -> f64 {
        self
    }
}
impl Elem for f32 {
    const NAME: &'static str = "f32";
    fn value(i: usize) -> Self {
        ((i.wrapping_mul(2_654_435_761) % 1999) as f64 * 1e-3 - 1.0) as f32
    }
    fn bits(self) -> u64 {
        self.to_bits().into()
    }
    fn as_f64(self) -> f64 {
        self.into()
    }
}

pub(crate) fn values<T: Elem>(len: usize) -> Vec<T> {
    (0..len).map(T::value).collect()
}

/// ndarray's view of `owner`'s own buffer, so both sides read the same
/// bytes: where a 128 MiB input sits in physical memory moved the
/// memory-bound ratios by ±20 % from run to run when each side had its own
/// copy (`sum_axis1_f64`: 1.02 alone, 1.24-1.36 in the full run).
pub(crate) fn same_bytes<T: Elem>(owner: &Tensor<2, T>) -> ArrayView2<'_, T> {
    let &[rows, columns] = owner.shape();
    ArrayView2::from_shape((rows, columns), owner.as_slice()).unwrap()
}

/// Runs `f` `iters` times: (CPU time of the calling thread, wall time).
fn measure<O>(iters: u64, f: &mut impl FnMut() -> O) -> (Duration, Duration) {
    let cpu = thread_cpu_ns();
    let start = Instant::now();
    for _ in 0..iters {
        black_box(f());
    }
    let wall = start.elapsed();
    let cpu = match (cpu, thread_cpu_ns()) {
        (Some(before), Some(after)) => Duration::from_nanos(after - before),
        _ => wall,
    };
    (cpu, wall)
}

/// Times `f` under criterion and records ns/iteration under `group/id`.
pub(crate) fn timed<O>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    id: &str,
    mut f: impl FnMut() -> O,
) {
    record(group, name, id, |iters| measure(iters, &mut f));
}

/// [`timed`] with the whole timing loop on the worker of the global pool
/// (one thread, see `main`), whose CPU time is then the clock: for a peer
/// that hands its work to the current rayon pool even when that pool has
/// one thread (candle-core's gemm), so the work runs, and is counted, on
/// that one thread instead of leaving the bench thread waiting.
pub(crate) fn timed_on_worker<O>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    id: &str,
    mut f: impl FnMut() -> O + Send,
) {
    record(group, name, id, |iters| {
        rayon::scope(|_| measure(iters, &mut f))
    });
}

/// [`timed`] with the whole timing loop on a worker of [`TWO`]: one
/// `install` per criterion sample, as the `gpt2` and `llama` examples
/// install their pool once around a run, rather than one per call (until
/// 7f5e38f). Entering the pool from the bench thread wakes a worker and, at
/// the end, the bench thread again; on the 2-vCPU KVM guest of 2026-12-07
/// a no-op `install` took 1.7 µs at best and 22 µs in the median (2000
/// calls), and a 512² `f32` product entered per call 1.43-1.48 ms
/// (medians of 400 calls) against 1.33-1.40 with its loop on the worker.
/// A loop of back-to-back calls keeps the other worker warm, which a
/// forward pass with serial code between its kernels does not always do.
///
/// Two threads do the work, so the wall clock is the measure: it is
/// recorded as both clocks and handed to criterion (the worker's own CPU
/// time would count only its share, plus its waits).
pub(crate) fn timed_on_two<O>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    id: &str,
    mut f: impl FnMut() -> O + Send,
) {
    record(group, name, id, |iters| {
        let (_, wall) = TWO.install(|| measure(iters, &mut f));
        (wall, wall)
    });
}

/// Runs `run(iters)` for criterion, records its (CPU, wall) ns/iteration
/// under `group/id` and hands criterion the CPU time.
fn record(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    id: &str,
    mut run: impl FnMut(u64) -> (Duration, Duration),
) {
    let key = format!("{name}/{id}");
    group.bench_function(id, |b| {
        b.iter_custom(|iters| {
            let (cpu, wall) = run(iters);
            let per_iter = |d: Duration| d.as_secs_f64() * 1e9 / iters as f64;
            let sample = (per_iter(cpu), per_iter(wall));
            TIMES
                .lock()
                .unwrap()
                .entry(key.clone())
                .or_default()
                .push(sample);
            cpu
        });
    });
}

/// A group tuned for this shared 2-core machine: few samples, flat sampling.
pub(crate) fn group<'c>(
    c: &'c mut Criterion,
    name: &str,
    millis: u64,
) -> BenchmarkGroup<'c, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(SAMPLES)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(millis));
    group
}

/// `dst <- src`: the memcpy reference for `len` elements of `T`.
pub(crate) fn memcpy_case<T: Elem>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    len: usize,
) {
    let source = values::<T>(len);
    let mut target = vec![T::default(); len];
    timed(group, name, "memcpy", || {
        target.copy_from_slice(black_box(&source));
        target[len / 2]
    });
}

/// Median CPU ns/iteration of the last `SAMPLES` calls (the measurement, not the warm-up).
pub(crate) fn median(key: &str) -> Option<f64> {
    median_of(key, |(cpu, _)| cpu)
}

/// The same for wall-clock time.
pub(crate) fn median_wall(key: &str) -> Option<f64> {
    median_of(key, |(_, wall)| wall)
}

pub(crate) fn median_of(key: &str, pick: impl Fn((f64, f64)) -> f64) -> Option<f64> {
    let times = TIMES.lock().unwrap();
    let all = times.get(key)?;
    let mut last: Vec<f64> = all[all.len().saturating_sub(SAMPLES)..]
        .iter()
        .map(|&t| pick(t))
        .collect();
    last.sort_by(f64::total_cmp);
    Some(last[last.len() / 2])
}

pub(crate) fn format_ns(ns: Option<f64>) -> String {
    match ns {
        None => "-".into(),
        Some(ns) if ns >= 1e6 => format!("{:.2} ms", ns / 1e6),
        Some(ns) if ns >= 1e3 => format!("{:.2} µs", ns / 1e3),
        Some(ns) => format!("{ns:.1} ns"),
    }
}

pub(crate) fn ratio(ours: Option<f64>, theirs: Option<f64>) -> Option<f64> {
    Some(ours? / theirs?)
}

/// A local pool of two threads for the two-thread rows (`ours_2t`,
/// `ours_into_2t`, `composition_2t`, `candle_2t`; [`timed_on_two`]): its
/// workers do the work, so only the wall clock measures it.
pub(crate) static TWO: LazyLock<rayon::ThreadPool> = LazyLock::new(|| {
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a pool of two threads")
});

/// A peer's product equals ours within rounding: `k·1e-6` (f32) or
/// `k·1e-14` (f64) absolute, since peers reassociate the `k` products.
pub(crate) fn check_close<T: Elem>(ours: &[T], theirs: &[T], k: usize, peer: &str) {
    assert_eq!(ours.len(), theirs.len(), "{peer} has another length");
    let tolerance = k as f64 * if T::NAME == "f32" { 1e-6 } else { 1e-14 };
    let worst = ours
        .iter()
        .zip(theirs)
        .map(|(x, y)| (x.as_f64() - y.as_f64()).abs())
        .fold(0.0, f64::max);
    assert!(worst <= tolerance, "{peer} disagrees by {worst}");
}
