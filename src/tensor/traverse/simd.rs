//! Run-time SIMD dispatch and thread settings for the kernels, in safe Rust.
//!
//! The crate forbids `unsafe`, so it cannot call `core::arch` intrinsics
//! itself. `pulp` does the run-time CPU detection and hands a zero-sized
//! token (`V4` for AVX-512, `V3` for AVX2, `Scalar` otherwise; NEON on
//! aarch64) to a [`WithSimd`] body, which it calls from a function compiled
//! with that instruction set enabled. Everything the body calls must be
//! `#[inline(always)]` to be compiled with those features too: a plain
//! closure or a non-inlined function does not inherit them
//! (rust-lang/rust#108338), so the kernels are written as `WithSimd` bodies
//! with `#[inline(always)]` helpers, never as closures passed to `dispatch`.
//!
//! Vector arithmetic goes through [`Lanes`](crate::tensor::lanes::Lanes)
//! (in `lanes.rs`, below everything): each lane computes exactly what the
//! scalar expression computes, so a kernel that vectorizes across
//! independent outputs gives the same bits on every instruction set.
//!
//! Threads: parallel kernels use rayon's pool of the calling context
//! (`rayon::current_num_threads()`): the global pool, sized by the
//! `RAYON_NUM_THREADS` environment variable (else one thread per logical
//! CPU), or the pool of an enclosing `ThreadPool::install`. Work below
//! [`PARALLEL_MIN_FLOPS`] (memory-bound kernels: their bytes moved, at
//! [`FLOPS_PER_BYTE`] each) stays on the calling thread.

use pulp::{Simd, WithSimd};
use std::cell::Cell;

/// Floating-point work (multiplies plus adds) below which a kernel stays on
/// the calling thread: about 50 µs of one core at the matmul kernel's
/// speed here, several times what waking rayon's sleeping workers costs.
pub(crate) const PARALLEL_MIN_FLOPS: u64 = 1 << 22;

/// The widest instruction set the kernels may use (a test and bench hook).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimdLevel {
    /// `pulp`'s scalar fallback: the path of a CPU without AVX2.
    Baseline,
    /// At most AVX2 (`pulp`'s `V3`), even where AVX-512 is present.
    Avx2,
    /// The best the CPU has (the default).
    Best,
}

/// Kernel settings that tests and benches may impose on one thread.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelTuning {
    /// The widest instruction set used.
    pub simd: SimdLevel,
    /// Work below this many flops stays on the calling thread.
    pub parallel_min_flops: u64,
}

impl Default for KernelTuning {
    fn default() -> Self {
        Self {
            simd: SimdLevel::Best,
            parallel_min_flops: PARALLEL_MIN_FLOPS,
        }
    }
}

thread_local! {
    static TUNING: Cell<KernelTuning> = const {
        Cell::new(KernelTuning {
            simd: SimdLevel::Best,
            parallel_min_flops: PARALLEL_MIN_FLOPS,
        })
    };
}

/// Runs `body` with `tuning` in force for kernel calls made on this thread
/// (not part of the API: a hook so tests can run the baseline path and the
/// threaded splits on small inputs). The settings are read once per kernel
/// call on the calling thread, so inside `ThreadPool::install` set them
/// inside the installed closure. The previous settings come back afterwards,
/// also when `body` panics.
#[doc(hidden)]
pub fn with_kernel_tuning<R>(tuning: KernelTuning, body: impl FnOnce() -> R) -> R {
    struct Restore(KernelTuning);
    impl Drop for Restore {
        fn drop(&mut self) {
            TUNING.set(self.0);
        }
    }
    let _restore = Restore(TUNING.replace(tuning));
    body()
}

/// The settings in force on this thread.
pub(crate) fn tuning() -> KernelTuning {
    TUNING.get()
}

/// How many threads a kernel doing `flops` of work may use: 1 below the
/// threshold, else the size of the current rayon pool.
pub(crate) fn threads_for(flops: u64, tuning: KernelTuning) -> usize {
    if flops < tuning.parallel_min_flops {
        1
    } else {
        rayon::current_num_threads().max(1)
    }
}

/// What one byte a memory-bound kernel reads or writes (copies, reductions)
/// counts for against the flop threshold: moving a byte through memory
/// costs about what four flops of the matmul kernel do here (~20 GB/s of
/// cache-missing copy against ~80 GFLOP/s per core), so such kernels go to
/// the threads from about 1 MiB of traffic ([`PARALLEL_MIN_FLOPS`] / 4).
pub(crate) const FLOPS_PER_BYTE: u64 = 4;

/// How many threads a memory-bound kernel moving `bytes` (read plus
/// written) may use: [`threads_for`] of their [`FLOPS_PER_BYTE`] worth.
pub(crate) fn threads_for_bytes(bytes: usize, tuning: KernelTuning) -> usize {
    threads_for((bytes as u64).saturating_mul(FLOPS_PER_BYTE), tuning)
}

/// The instruction set a kernel call runs with, detected once per call.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Dispatch {
    /// `pulp`'s detection: the best the CPU has.
    Best(pulp::Arch),
    /// AVX2 although the CPU may have more.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    Avx2(pulp::x86::V3),
    /// The scalar fallback.
    Baseline,
}

impl Dispatch {
    /// The instruction set allowed by `level` on this CPU.
    pub(crate) fn new(level: SimdLevel) -> Self {
        match level {
            SimdLevel::Best => Self::Best(pulp::Arch::new()),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            SimdLevel::Avx2 => pulp::x86::V3::try_new().map_or(Self::Baseline, Self::Avx2),
            #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
            SimdLevel::Avx2 => Self::Best(pulp::Arch::new()),
            SimdLevel::Baseline => Self::Baseline,
        }
    }

    /// Runs `op` compiled for this instruction set.
    #[inline(always)]
    pub(crate) fn run<Op: WithSimd>(self, op: Op) -> Op::Output {
        match self {
            Self::Best(arch) => arch.dispatch(op),
            #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
            Self::Avx2(simd) => Simd::vectorize(simd, op),
            Self::Baseline => Simd::vectorize(pulp::Scalar::new(), op),
        }
    }
}

/// A kernel body written as plain scalar Rust that the compiler vectorizes
/// (the reductions' folds): [`Dispatch::compile`] runs it inside a function
/// compiled for the dispatched instruction set, so its loops get AVX2 or
/// AVX-512 vectors. Vectorizing changes no value: the compiler keeps every
/// operation's order and rounding (no reassociation, no fused multiply-add
/// in Rust), it only computes independent elements side by side.
///
/// `run` and everything it calls on the hot path must be
/// `#[inline(always)]` and free of closures that hold loops: only code
/// inlined into the dispatched function is compiled with its features
/// (rust-lang/rust#108338).
pub(crate) trait Compiled {
    /// What the body returns.
    type Output;
    /// The body (`#[inline(always)]` in every implementation).
    fn run(self) -> Self::Output;
}

/// A [`Compiled`] body as a `pulp` [`WithSimd`] operation.
struct Body<B>(B);

impl<B: Compiled> WithSimd for Body<B> {
    type Output = B::Output;
    #[inline(always)]
    fn with_simd<S: Simd>(self, _simd: S) -> B::Output {
        self.0.run()
    }
}

impl Dispatch {
    /// Runs `body` compiled for this instruction set (see [`Compiled`]).
    #[inline(always)]
    pub(crate) fn compile<B: Compiled>(self, body: B) -> B::Output {
        self.run(Body(body))
    }
}
