//! Threads for the backward rules' own loops (accumulating, scattering,
//! the norm and softmax rules): the same split as the tensor kernels.
//!
//! A loop whose traffic clears a quarter of the kernels' threshold (about
//! 256 KiB against their 1 MiB, see `tensor::traverse::simd`: these loops
//! run inside a training step on a pool worker, where a region is a join
//! the other worker steals, cheaper than the kernels' general case) is cut
//! into blocks of whole rows, each written by one task exactly as the
//! one-thread loop writes it; below the
//! threshold it runs on the calling thread. No value depends on the split,
//! so gradients stay bit-identical for every thread count. (A training
//! step's backward pass was mostly these loops on one thread while the
//! pool waited.)

use std::ops::Range;

use rayon::prelude::*;

use crate::error::Error;
use crate::tensor::traverse::alloc::try_filled_parallel;
use crate::tensor::traverse::parallel::{Split, for_each_block};
use crate::tensor::traverse::simd::{threads_for_bytes, tuning};

use super::Real;

/// Threads for a loop that reads and writes `values` values of `T` in all:
/// each byte counts four times against the kernels' byte threshold (on two
/// threads a 2-thread README-model step measured 11.1-11.3k -> 11.4-11.5k
/// tokens/s in three alternated pairs; 16 times was no better).
pub(crate) fn threads_for<T>(values: usize) -> usize {
    threads_for_bytes(values.saturating_mul(4 * size_of::<T>()), tuning())
}

/// Calls `body(rows, block)` for consecutive blocks of whole rows of `out`
/// (`row_len` values each; `block` holds exactly rows `rows`), on
/// `threads` threads. `out.len()` must be a multiple of `row_len`.
pub(crate) fn for_each_rows<T: Send>(
    out: &mut [T],
    row_len: usize,
    threads: usize,
    body: impl Fn(Range<usize>, &mut [T]) + Sync,
) {
    let split = Split {
        unit: row_len,
        min_units: 1,
    };
    for_each_block(out, split, threads, body);
}

/// `existing[i] += g[i]` for every `i` (the slices have one length).
pub(crate) fn add_in_place<T: Real>(existing: &mut [T], g: &[T]) {
    let threads = threads_for::<T>(3 * existing.len());
    for_each_rows(existing, 1, threads, |rows, block| {
        for (e, &v) in block.iter_mut().zip(&g[rows]) {
            *e = *e + v;
        }
    });
}

/// A zero-filled vector of `len` elements, reserved fallibly; a large one
/// is filled (its pages first touched) by the threads that will write it.
pub(crate) fn zeroed<T: Real>(len: usize) -> Result<Vec<T>, Error> {
    try_filled_parallel(len, T::ZERO, threads_for::<T>(len)).map_err(|failed| {
        Error::AllocationFailed {
            op: "autograd",
            elements: failed.elements,
        }
    })
}

/// `f(0), f(1), …, f(len - 1)`, reserved fallibly (no zero-fill first);
/// a long one computed by the threads, each value by the same `f`.
pub(crate) fn filled_from<T: Send>(
    len: usize,
    f: impl Fn(usize) -> T + Sync + Send,
) -> Result<Vec<T>, Error> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::AllocationFailed {
            op: "autograd",
            elements: len,
        })?;
    if threads_for::<T>(2 * len) > 1 {
        (0..len).into_par_iter().map(f).collect_into_vec(&mut v);
    } else {
        v.extend((0..len).map(f));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::traverse::simd::{KernelTuning, SimdLevel, with_kernel_tuning};

    #[test]
    fn adding_zeroing_and_filling_split_over_threads_give_the_one_thread_values() {
        let g: Vec<f32> = (0..1001).map(|i| i as f32 * 0.37 - 100.0).collect();
        let start: Vec<f32> = (0..1001).map(|i| (i % 7) as f32 * 1.1).collect();
        let mut one = start.clone();
        add_in_place(&mut one, &g);
        let expected: Vec<f32> = start.iter().zip(&g).map(|(&a, &b)| a + b).collect();
        assert_eq!(one, expected);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build();
        let tuning = KernelTuning {
            simd: SimdLevel::Best,
            parallel_min_flops: 0,
        };
        let (added, zeros, squares) = pool.expect("a pool").install(|| {
            with_kernel_tuning(tuning, || {
                let mut added = start.clone();
                add_in_place(&mut added, &g);
                (
                    added,
                    zeroed::<f64>(5000),
                    filled_from(777, |i| g[i] * g[i]),
                )
            })
        });
        assert_eq!(added, expected);
        assert_eq!(zeros.expect("5000 zeros"), vec![0.0; 5000]);
        let expected: Vec<f32> = g[..777].iter().map(|&v| v * v).collect();
        assert_eq!(squares.expect("777 squares"), expected);
    }
}
