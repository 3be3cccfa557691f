//! Running a test body under a forced kernel tuning (included with
//! `#[path = "common/tuning.rs"] mod tuning;` by the tests that compare
//! thread counts and SIMD levels).

use llm_from_scratch::tensor::{KernelTuning, SimdLevel, with_kernel_tuning};

/// Every SIMD level the tuning hook can force, the widest first.
pub const LEVELS: [SimdLevel; 3] = [SimdLevel::Best, SimdLevel::Avx2, SimdLevel::Baseline];

/// Runs `body` in a fresh pool of `threads` threads with the kernels
/// limited to `simd` and every input, however small, split over the pool.
pub fn under<R: Send>(simd: SimdLevel, threads: usize, body: impl FnOnce() -> R + Send) -> R {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    let tuning = KernelTuning {
        simd,
        parallel_min_flops: 0,
    };
    pool.install(|| with_kernel_tuning(tuning, body))
}
