//! Ours vs ndarray vs a memcpy of the same bytes, in one run.
//!
//! `cargo bench --bench compare` runs the eight cases of the performance
//! issue with criterion (small sample counts: the machine is shared), then
//! prints a table of medians and ratios and, as its very last line, one JSON
//! object of ratios (ours / theirs) that scripts can parse.
//!
//! Clock: the benchmark thread's CPU time (`/proc/thread-self/schedstat`,
//! wall time where that file is missing), because this machine's two cores
//! are shared with other jobs: time spent waiting for a core is not the
//! kernel's cost. Every sample lasts ~100 ms or more (flat sampling), far
//! above the scheduler tick that clock advances by. The wall-clock ratio is
//! printed beside it so the difference stays visible.
//!
//! Cases 9 and 10 (matrix multiplication) compare `ops::matmul` with
//! ndarray (`dot`, `general_mat_mul`) and with the naive ordered triple
//! loop, which ours must equal bit for bit (checked before timing).
//!
//! `COMPARE_ALLOC_PROBE=N` skips the benchmarks and runs only the rank-4
//! view-transform chain `N` times, so `valgrind` can show that the chain
//! allocates nothing (the heap count does not grow with `N`, see BENCHMARKS.md);
//! `COMPARE_PROBE_SIDE=ndarray` runs ndarray's chain instead.

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, Criterion, SamplingMode};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::Float;
use ndarray::linalg::general_mat_mul;
use ndarray::{Array1, Array2, Array3, Array4, ArrayView4, Axis, NdFloat, s};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Samples criterion takes per benchmark (its minimum).
const SAMPLES: usize = 10;
/// The big square side of cases 1, 2, 4, 5 (f64: 128 MiB).
const N: usize = 4096;

/// Per benchmark id: (CPU, wall) mean ns/iteration of every call criterion made.
static TIMES: Mutex<BTreeMap<String, Vec<(f64, f64)>>> = Mutex::new(BTreeMap::new());

/// CPU time of this thread in ns, if the kernel reports it.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// An element type of the f64 / f32 cases.
trait Elem: Float + NdFloat + Default {
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

fn values<T: Elem>(len: usize) -> Vec<T> {
    (0..len).map(T::value).collect()
}

/// Times `f` under criterion and records ns/iteration under `group/id`.
fn timed<O>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    name: &str,
    id: &str,
    mut f: impl FnMut() -> O,
) {
    let key = format!("{name}/{id}");
    group.bench_function(id, |b| {
        b.iter_custom(|iters| {
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
fn group<'c>(c: &'c mut Criterion, name: &str, millis: u64) -> BenchmarkGroup<'c, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(SAMPLES)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(millis));
    group
}

/// `dst <- src`: the memcpy reference for `len` elements of `T`.
fn memcpy_case<T: Elem>(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, len: usize) {
    let source = values::<T>(len);
    let mut target = vec![T::default(); len];
    timed(group, name, "memcpy", || {
        target.copy_from_slice(black_box(&source));
        target[len / 2]
    });
}

/// Case 1: materialize a transposed N×N view; `materialize_into` vs memcpy.
fn transpose<T: Elem>(c: &mut Criterion) {
    let name = format!("transpose/{}", T::NAME);
    let mut g = group(c, &name, 2000);
    let owner = Tensor::from_vec([N, N], values::<T>(N * N)).unwrap();
    let array = Array2::from_shape_vec((N, N), values::<T>(N * N)).unwrap();
    let ours = owner.view().transpose(0, 1).unwrap().materialize().unwrap();
    assert_eq!(
        ours.as_slice(),
        array.t().as_standard_layout().as_slice().unwrap()
    );
    timed(&mut g, &name, "ours", || {
        owner.view().transpose(0, 1).unwrap().materialize().unwrap()
    });
    timed(&mut g, &name, "ndarray", || {
        array.t().as_standard_layout().into_owned()
    });
    let mut out = Tensor::zeros([N, N]).unwrap();
    timed(&mut g, &name, "ours_into", || {
        owner
            .view()
            .transpose(0, 1)
            .unwrap()
            .materialize_into(&mut out)
            .unwrap();
        out.as_slice()[N]
    });
    memcpy_case::<T>(&mut g, &name, N * N);
    g.finish();
}

/// Case 2: materialize the slice `[.., 1..N-1]`.
fn slice<T: Elem>(c: &mut Criterion) {
    let name = format!("slice/{}", T::NAME);
    let mut g = group(c, &name, 1500);
    let owner = Tensor::from_vec([N, N], values::<T>(N * N)).unwrap();
    let array = Array2::from_shape_vec((N, N), values::<T>(N * N)).unwrap();
    let ours = owner
        .view()
        .slice(1, 1..N - 1)
        .unwrap()
        .materialize()
        .unwrap();
    assert_eq!(
        ours.as_slice(),
        array.slice(s![.., 1..N - 1]).to_owned().as_slice().unwrap()
    );
    timed(&mut g, &name, "ours", || {
        owner
            .view()
            .slice(1, 1..N - 1)
            .unwrap()
            .materialize()
            .unwrap()
    });
    timed(&mut g, &name, "ndarray", || {
        array.slice(s![.., 1..N - 1]).to_owned()
    });
    memcpy_case::<T>(&mut g, &name, N * (N - 2));
    g.finish();
}

/// Case 3: broadcast add `[8, 1024, 768] + [768]`.
fn broadcast_add<T: Elem>(c: &mut Criterion) {
    let name = format!("broadcast_add/{}", T::NAME);
    let mut g = group(c, &name, 1500);
    let shape = [8, 1024, 768];
    let len = 8 * 1024 * 768;
    let left = Tensor::from_vec(shape, values::<T>(len)).unwrap();
    let right = Tensor::from_vec([768], values::<T>(768)).unwrap();
    let left_array = Array3::from_shape_vec((8, 1024, 768), values::<T>(len)).unwrap();
    let right_array = Array1::from_vec(values::<T>(768));
    let ours = map_binary(&left.view(), &right.view(), |a, b| a + b).unwrap();
    assert_eq!(
        ours.as_slice(),
        (&left_array + &right_array).as_slice().unwrap()
    );
    timed(&mut g, &name, "ours", || {
        map_binary(&left.view(), &right.view(), |a, b| a + b).unwrap()
    });
    timed(&mut g, &name, "ndarray", || &left_array + &right_array);
    memcpy_case::<T>(&mut g, &name, len);
    g.finish();
}

/// The naive ascending fold from +0.0 of one axis of an N×N row-major matrix.
fn naive_sum<T: Elem>(data: &[T], axis: usize) -> Vec<T> {
    (0..N)
        .map(|g| {
            (0..N).fold(T::ZERO, |acc, i| {
                acc + if axis == 0 {
                    data[i * N + g]
                } else {
                    data[g * N + i]
                }
            })
        })
        .collect()
}

/// Case 4: `sum_axis` over axis 0 and over axis 1 of N×N.
fn sums<T: Elem>(c: &mut Criterion) {
    let owner = Tensor::from_vec([N, N], values::<T>(N * N)).unwrap();
    let array = Array2::from_shape_vec((N, N), values::<T>(N * N)).unwrap();
    for axis in 0..2 {
        let name = format!("sum_axis{axis}/{}", T::NAME);
        let mut g = group(c, &name, 1500);
        let ours = sum_axis(&owner.view(), axis, RemoveDim).unwrap();
        let bits = |v: &[T]| v.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>();
        assert_eq!(
            bits(ours.as_slice()),
            bits(&naive_sum(owner.as_slice(), axis)),
            "not bit-exact"
        );
        timed(&mut g, &name, "ours", || {
            sum_axis(&owner.view(), axis, RemoveDim).unwrap()
        });
        timed(&mut g, &name, "ndarray", || array.sum_axis(Axis(axis)));
        g.finish();
    }
}

/// The max policy: the first NaN wins, ties keep the earlier value.
fn max_policy(current: f64, candidate: f64) -> f64 {
    if !current.is_nan() && (candidate.is_nan() || candidate > current) {
        candidate
    } else {
        current
    }
}

/// Case 5: `max_axis` over axis 1 with the NaN policy vs ndarray `map_axis` + fold.
fn max(c: &mut Criterion) {
    let name = "max_axis1/f64";
    let mut g = group(c, name, 1500);
    let owner = Tensor::from_vec([N, N], values::<f64>(N * N)).unwrap();
    let array = Array2::from_shape_vec((N, N), values::<f64>(N * N)).unwrap();
    let nd = || array.map_axis(Axis(1), |row| row.fold(row[0], |m, &x| max_policy(m, x)));
    let ours = max_axis(&owner.view(), 1, RemoveDim).unwrap();
    assert_eq!(ours.as_slice(), nd().as_slice().unwrap());
    timed(&mut g, name, "ours", || {
        max_axis(&owner.view(), 1, RemoveDim).unwrap()
    });
    timed(&mut g, name, "ndarray", nd);
    g.finish();
}

/// Case 6: GPT-2 split heads and merge heads, T = 1024, C = 768, H = 12.
fn heads(c: &mut Criterion) {
    let (t, channels, h) = (1024, 768, 12);
    let d = channels / h;
    let qkv = Tensor::from_vec([1, t, 3 * channels], values::<f64>(t * 3 * channels)).unwrap();
    let qkv_array =
        Array3::from_shape_vec((1, t, 3 * channels), values::<f64>(t * 3 * channels)).unwrap();
    let split = || {
        let q = qkv
            .view()
            .slice(2, 0..channels)
            .unwrap()
            .materialize()
            .unwrap();
        q.view()
            .reshape([1, t, h, d])
            .unwrap()
            .permute([0, 2, 1, 3])
            .unwrap()
            .materialize()
            .unwrap()
    };
    let split_nd = || {
        let q = qkv_array.slice(s![.., .., 0..channels]).to_owned();
        let q = q.into_shape_with_order((1, t, h, d)).unwrap();
        q.permuted_axes([0, 2, 1, 3])
            .as_standard_layout()
            .into_owned()
    };
    let heads = split();
    let heads_array: Array4<f64> = split_nd();
    assert_eq!(heads.as_slice(), heads_array.as_slice().unwrap());
    let merge = || {
        let merged = heads
            .view()
            .permute([0, 2, 1, 3])
            .unwrap()
            .materialize()
            .unwrap();
        Tensor::from_vec([1, t, channels], merged.into_vec()).unwrap()
    };
    let merge_nd = || {
        let merged = heads_array
            .view()
            .permuted_axes([0, 2, 1, 3])
            .as_standard_layout()
            .into_owned();
        merged.into_shape_with_order((1, t, channels)).unwrap()
    };
    assert_eq!(merge().as_slice(), merge_nd().as_slice().unwrap());
    let name = "split_heads/f64";
    let mut g = group(c, name, 1000);
    timed(&mut g, name, "ours", split);
    timed(&mut g, name, "ndarray", split_nd);
    // Split writes the Q slice, then the permuted heads: twice Q's bytes.
    memcpy_case::<f64>(&mut g, name, 2 * t * channels);
    g.finish();
    let name = "merge_heads/f64";
    let mut g = group(c, name, 1000);
    timed(&mut g, name, "ours", merge);
    timed(&mut g, name, "ndarray", merge_nd);
    memcpy_case::<f64>(&mut g, name, t * channels);
    g.finish();
}

/// The rank-4 chain: reshape, permute, slice, transpose (all views, no copy).
fn chain<'a>(view: View<'a, 4>) -> View<'a, 4> {
    view.reshape([16, 8, 64, 32])
        .unwrap()
        .permute([0, 2, 1, 3])
        .unwrap()
        .slice(1, 8..56)
        .unwrap()
        .transpose(2, 3)
        .unwrap()
}

/// The same chain on an ndarray `Ix4` view.
fn chain_nd(view: ArrayView4<'_, f64>) -> ArrayView4<'_, f64> {
    let mut v = view
        .into_shape_with_order((16, 8, 64, 32))
        .unwrap()
        .permuted_axes([0, 2, 1, 3])
        .slice_move(s![.., 8..56, .., ..]);
    v.swap_axes(2, 3);
    v
}

/// Case 7: ns per chain of view transforms on a rank-4 view.
fn view_chain(c: &mut Criterion) {
    let owner = Tensor::from_vec([8, 16, 32, 64], values::<f64>(1 << 18)).unwrap();
    let array = Array4::from_shape_vec((8, 16, 32, 64), values::<f64>(1 << 18)).unwrap();
    let ours = chain(owner.view());
    let theirs = chain_nd(array.view());
    assert_eq!(ours.shape(), &[16, 48, 32, 8]);
    assert_eq!(
        &ours.strides()[..],
        theirs
            .strides()
            .iter()
            .map(|&s| s as usize)
            .collect::<Vec<_>>()
    );
    let name = "view_chain/f64";
    let mut g = group(c, name, 1000);
    timed(&mut g, name, "ours", || chain(black_box(owner.view())));
    timed(&mut g, name, "ndarray", || {
        chain_nd(black_box(array.view()))
    });
    g.finish();
}

/// Sides of the sweep: 2^10 .. 2^24 elements (squares of 32 .. 4096).
const SWEEP: [usize; 8] = [32, 64, 128, 256, 512, 1024, 2048, 4096];

/// Case 8: `materialize(transpose)` over a size sweep.
fn sweep(c: &mut Criterion) {
    for side in SWEEP {
        let name = format!("sweep/{}", side * side);
        let mut g = group(c, &name, 1000);
        let owner = Tensor::from_vec([side, side], values::<f64>(side * side)).unwrap();
        let array = Array2::from_shape_vec((side, side), values::<f64>(side * side)).unwrap();
        timed(&mut g, &name, "ours", || {
            owner.view().transpose(0, 1).unwrap().materialize().unwrap()
        });
        timed(&mut g, &name, "ndarray", || {
            array.t().as_standard_layout().into_owned()
        });
        // The physical reference: a plain copy of the same bytes.
        memcpy_case::<f64>(&mut g, &name, side * side);
        // The kernel alone: a reused output, so no allocation or page faults.
        let mut out = Tensor::zeros([side, side]).unwrap();
        timed(&mut g, &name, "ours_into", || {
            owner
                .view()
                .transpose(0, 1)
                .unwrap()
                .materialize_into(&mut out)
                .unwrap();
            out.as_slice()[side]
        });
        g.finish();
    }
}

/// An operand of the naive loop: `[batch, rows, cols]` read through
/// `(batch, row, col)` strides (a transposed view is just other strides).
#[derive(Clone, Copy)]
struct Strided<'a, T> {
    data: &'a [T],
    strides: [usize; 3],
}

/// The naive ordered triple loop over `batches` batches of `[m, k] x [k, n]`:
/// per output element, ascending `k` from +0.0, a separate multiply and add.
fn naive_matmul<T: Elem>(
    a: Strided<'_, T>,
    b: Strided<'_, T>,
    [batches, m, k, n]: [usize; 4],
) -> Vec<T> {
    let mut out = Vec::with_capacity(batches * m * n);
    let ([ab, ai, ak], [bb, bk, bj]) = (a.strides, b.strides);
    for batch in 0..batches {
        for i in 0..m {
            for j in 0..n {
                let (mut x, mut y) = (batch * ab + i * ai, batch * bb + j * bj);
                let mut acc = T::ZERO;
                for _ in 0..k {
                    let product = a.data[x] * b.data[y];
                    acc += product;
                    x += ak;
                    y += bk;
                }
                out.push(acc);
            }
        }
    }
    out
}

/// Ours equals the naive loop bit for bit, and ndarray within rounding.
fn check_matmul<T: Elem>(ours: &[T], naive: &[T], ndarray: &[T], k: usize) {
    assert_eq!(ours.len(), naive.len());
    let bits = |v: &[T]| v.iter().map(|x| x.bits()).collect::<Vec<_>>();
    assert!(bits(ours) == bits(naive), "matmul not bit-exact");
    let tolerance = k as f64 * if T::NAME == "f32" { 1e-6 } else { 1e-14 };
    let worst = ours
        .iter()
        .zip(ndarray)
        .map(|(x, y)| (x.as_f64() - y.as_f64()).abs())
        .fold(0.0, f64::max);
    assert!(worst <= tolerance, "ndarray disagrees by {worst}");
}

/// Side of the square matmul cases.
const MM: usize = 512;

/// Case 9: `[512, 512] x [512, 512]`, the right operand dense (`ab`) or the
/// transposed view of a dense matrix (`abt`): ours, ndarray `dot`, naive.
fn matmul_square<T: Elem>(c: &mut Criterion) {
    let left_values = values::<T>(2 * MM * MM);
    let (left_values, right_values) = left_values.split_at(MM * MM);
    let a = Tensor::from_vec([MM, MM], left_values.to_vec()).unwrap();
    let b = Tensor::from_vec([MM, MM], right_values.to_vec()).unwrap();
    let a_nd = Array2::from_shape_vec((MM, MM), left_values.to_vec()).unwrap();
    let b_nd = Array2::from_shape_vec((MM, MM), right_values.to_vec()).unwrap();
    let naive_a = Strided {
        data: a.as_slice(),
        strides: [0, MM, 1],
    };
    for transposed in [false, true] {
        let (name, naive_b) = if transposed {
            // b[k, j] = data[j * MM + k]: the naive loop's inner dot product is contiguous.
            let strides = [0, 1, MM];
            (format!("matmul512_t/{}", T::NAME), strides)
        } else {
            (format!("matmul512/{}", T::NAME), [0, MM, 1])
        };
        let naive_b = Strided {
            data: b.as_slice(),
            strides: naive_b,
        };
        let right = || {
            if transposed {
                b.view().transpose(0, 1).unwrap()
            } else {
                b.view()
            }
        };
        let nd = || {
            if transposed {
                a_nd.dot(&b_nd.t())
            } else {
                a_nd.dot(&b_nd)
            }
        };
        let ours: Tensor<2, T> = matmul(&a.view(), &right()).unwrap();
        check_matmul(
            ours.as_slice(),
            &naive_matmul(naive_a, naive_b, [1, MM, MM, MM]),
            nd().as_standard_layout().as_slice().unwrap(),
            MM,
        );
        let mut g = group(c, &name, 1000);
        timed(&mut g, &name, "ours", || -> Tensor<2, T> {
            matmul(&a.view(), &right()).unwrap()
        });
        timed(&mut g, &name, "ndarray", nd);
        timed(&mut g, &name, "naive", || {
            naive_matmul(naive_a, naive_b, [1, MM, MM, MM])
        });
        g.finish();
    }
}

/// Attention scores: `[H, T, D] x [H, D, T]`, GPT-2 small.
const ATTN: [usize; 3] = [12, 1024, 64];
/// Batches the naive attention loop is timed on; its time is scaled by
/// `12 / NAIVE_BATCHES` (about 1 s per full iteration otherwise).
const NAIVE_BATCHES: usize = 2;

/// Case 10: batched `[12, 1024, 64] x [12, 64, 1024]`: ours, ndarray
/// `general_mat_mul` per batch into one output, naive (on 2 batches, scaled).
fn matmul_attention<T: Elem>(c: &mut Criterion) {
    let [h, t, d] = ATTN;
    let all = values::<T>(2 * h * t * d);
    let (left_values, right_values) = all.split_at(h * t * d);
    let a = Tensor::from_vec([h, t, d], left_values.to_vec()).unwrap();
    let b = Tensor::from_vec([h, d, t], right_values.to_vec()).unwrap();
    let a_nd = Array3::from_shape_vec((h, t, d), left_values.to_vec()).unwrap();
    let b_nd = Array3::from_shape_vec((h, d, t), right_values.to_vec()).unwrap();
    let naive_a = Strided {
        data: a.as_slice(),
        strides: [t * d, d, 1],
    };
    let naive_b = Strided {
        data: b.as_slice(),
        strides: [d * t, t, 1],
    };
    let nd = || {
        let mut out = Array3::<T>::zeros((h, t, t));
        for batch in 0..h {
            general_mat_mul(
                T::one(),
                &a_nd.index_axis(Axis(0), batch),
                &b_nd.index_axis(Axis(0), batch),
                T::ZERO,
                &mut out.index_axis_mut(Axis(0), batch),
            );
        }
        out
    };
    let ours: Tensor<3, T> = matmul(&a.view(), &b.view()).unwrap();
    check_matmul(
        ours.as_slice(),
        &naive_matmul(naive_a, naive_b, [h, t, d, t]),
        nd().as_slice().unwrap(),
        d,
    );
    let name = format!("matmul_attn/{}", T::NAME);
    let mut g = group(c, &name, 1500);
    timed(&mut g, &name, "ours", || -> Tensor<3, T> {
        matmul(&a.view(), &b.view()).unwrap()
    });
    // The kernel alone: a reused output, so no page faults (96 MiB of f64).
    let mut out = Tensor::zeros([h, t, t]).unwrap();
    timed(&mut g, &name, "ours_into", || {
        matmul_into(&a.view(), &b.view(), &mut out).unwrap();
        out.as_slice()[t]
    });
    timed(&mut g, &name, "ndarray", nd);
    timed(&mut g, &name, "naive", || {
        naive_matmul(naive_a, naive_b, [NAIVE_BATCHES, t, d, t])
    });
    g.finish();
    // Scale the subset to all 12 batches (a per-batch cost, same shapes).
    if let Some(samples) = TIMES.lock().unwrap().get_mut(&format!("{name}/naive")) {
        let scale = h as f64 / NAIVE_BATCHES as f64;
        for (cpu, wall) in samples.iter_mut() {
            *cpu *= scale;
            *wall *= scale;
        }
    }
}

/// Median CPU ns/iteration of the last `SAMPLES` calls (the measurement, not the warm-up).
fn median(key: &str) -> Option<f64> {
    median_of(key, |(cpu, _)| cpu)
}

/// The same for wall-clock time.
fn median_wall(key: &str) -> Option<f64> {
    median_of(key, |(_, wall)| wall)
}

fn median_of(key: &str, pick: impl Fn((f64, f64)) -> f64) -> Option<f64> {
    let times = TIMES.lock().unwrap();
    let all = times.get(key)?;
    let mut last: Vec<f64> = all[all.len().saturating_sub(SAMPLES)..]
        .iter()
        .map(|&t| pick(t))
        .collect();
    last.sort_by(f64::total_cmp);
    Some(last[last.len() / 2])
}

fn format_ns(ns: Option<f64>) -> String {
    match ns {
        None => "-".into(),
        Some(ns) if ns >= 1e6 => format!("{:.2} ms", ns / 1e6),
        Some(ns) if ns >= 1e3 => format!("{:.2} µs", ns / 1e3),
        Some(ns) => format!("{ns:.1} ns"),
    }
}

fn ratio(ours: Option<f64>, theirs: Option<f64>) -> Option<f64> {
    Some(ours? / theirs?)
}

/// One table row: ours against ndarray and/or memcpy, with the target.
struct Row {
    label: String,
    ours: String,
    /// `ndarray` or `memcpy`: which reference the target ratio is against.
    against: &'static str,
    limit: Option<f64>,
    json: String,
}

fn row(
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

fn rows() -> Vec<Row> {
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
                Some(3.0),
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
    rows
}

/// `"key":value`, or `"key":null` when the value is not finite (a sample
/// below the clock's resolution, as in `cargo test`'s single-iteration runs).
fn json_entry(key: &str, value: f64, decimals: usize) -> String {
    if value.is_finite() {
        format!("\"{key}\":{value:.decimals$}")
    } else {
        format!("\"{key}\":null")
    }
}

/// Prints the table and, last, the JSON object of ratios.
fn report() {
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
        // The third reference: memcpy, or for the matmul rows the naive loop.
        let mc = median(&format!("{group}/memcpy")).or(median(&format!("{group}/naive")));
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
        "memcpy|nv: the naive triple loop (nv) for the matmul rows 9 and 10, memcpy otherwise; \
         * naive timed on {NAIVE_BATCHES} of {} batches, scaled by {}",
        ATTN[0],
        ATTN[0] / NAIVE_BATCHES
    );
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

/// `COMPARE_ALLOC_PROBE=N`: only the chain, `N` times, for a heap profiler
/// (`COMPARE_PROBE_SIDE=ndarray` runs ndarray's chain instead, for callgrind).
fn alloc_probe(times: usize) {
    let values = values::<f64>(1 << 18);
    let mut checksum = 0;
    if std::env::var("COMPARE_PROBE_SIDE").is_ok_and(|side| side == "ndarray") {
        let array = Array4::from_shape_vec((8, 16, 32, 64), values).unwrap();
        for _ in 0..times {
            checksum += chain_nd(black_box(array.view())).len();
        }
    } else {
        let owner = Tensor::from_vec([8, 16, 32, 64], values).unwrap();
        for _ in 0..times {
            checksum += chain(black_box(owner.view())).base_offset();
        }
    }
    println!("chains: {times}, checksum {checksum}");
}

fn main() {
    if let Some(times) = std::env::var("COMPARE_ALLOC_PROBE")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        alloc_probe(times);
        return;
    }
    let mut c = Criterion::default()
        .nresamples(20_000)
        .without_plots()
        .configure_from_args();
    transpose::<f64>(&mut c);
    transpose::<f32>(&mut c);
    slice::<f64>(&mut c);
    slice::<f32>(&mut c);
    broadcast_add::<f64>(&mut c);
    broadcast_add::<f32>(&mut c);
    sums::<f64>(&mut c);
    sums::<f32>(&mut c);
    max(&mut c);
    heads(&mut c);
    view_chain(&mut c);
    sweep(&mut c);
    matmul_square::<f64>(&mut c);
    matmul_square::<f32>(&mut c);
    matmul_attention::<f64>(&mut c);
    matmul_attention::<f32>(&mut c);
    c.final_summary();
    report();
}
