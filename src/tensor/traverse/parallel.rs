//! Splitting a row-major output into disjoint blocks for rayon's threads.
//!
//! A threaded kernel hands each task a contiguous block of whole units of
//! its output (single values for a copy, whole groups for a softmax, output
//! rows for a reduction) as its own `&mut [T]` (`par_chunks_mut`), and the
//! task computes every value of its block exactly as the one-thread kernel
//! does. So no value depends on which thread computed it or on how many
//! there are: results are bit-identical for every thread count.

use rayon::prelude::*;
use std::ops::Range;

/// Tasks per thread: a few, so rayon can even out a thread slowed by other
/// work on the machine (every task still covers a long contiguous block).
const TASKS_PER_THREAD: usize = 4;

/// How an output is cut into tasks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Split {
    /// Values per unit (a group, a run): tasks get whole units.
    pub(crate) unit: usize,
    /// The fewest units worth a task of their own (a task's block should
    /// keep the kernel's own blocking, e.g. a tile's rows, intact).
    pub(crate) min_units: usize,
}

/// Calls `body(units, block)` for consecutive ranges of the `out.len() /
/// split.unit` units of `out`, `block` holding exactly those units'
/// values; on the calling thread in one call when `threads <= 1`, else as
/// about `TASKS_PER_THREAD × threads` tasks (of at least `split.min_units`
/// units) in rayon's current pool. `out.len()` must be a multiple of the unit.
pub(crate) fn for_each_block<T: Send>(
    out: &mut [T],
    split: Split,
    threads: usize,
    body: impl Fn(Range<usize>, &mut [T]) + Sync,
) {
    let unit = split.unit;
    if out.is_empty() || unit == 0 {
        return;
    }
    debug_assert_eq!(out.len() % unit, 0, "a partial unit");
    let units = out.len() / unit;
    let per_task = units
        .div_ceil(threads.max(1) * TASKS_PER_THREAD)
        .max(split.min_units);
    if threads <= 1 || per_task >= units {
        body(0..units, out);
        return;
    }
    out.par_chunks_mut(per_task * unit)
        .enumerate()
        .for_each(|(task, block)| {
            let first = task * per_task;
            body(first..first + block.len() / unit, block);
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_every_unit_once_in_order() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build();
        let pool = pool.expect("a pool of three threads");
        for (len, unit) in [(0, 3), (12, 3), (35, 5), (7, 7), (1000, 1), (6, 0)] {
            for (threads, min_units) in [(1, 1), (2, 1), (3, 1), (3, 2), (2, 1000)] {
                let mut out = vec![usize::MAX; len];
                let split = Split { unit, min_units };
                pool.install(|| {
                    for_each_block(&mut out, split, threads, |units, block| {
                        assert_eq!(block.len(), units.len() * unit);
                        for (k, slot) in block.iter_mut().enumerate() {
                            *slot = units.start * unit + k;
                        }
                    });
                });
                let expected: Vec<usize> = if unit == 0 {
                    vec![usize::MAX; len]
                } else {
                    (0..len).collect()
                };
                assert_eq!(out, expected, "{len} values in units of {unit}");
            }
        }
    }
}
