//! The named elementwise functions over one strided layout, split into
//! contiguous blocks of the output over rayon's threads.
//!
//! Every element goes through the same vector code
//! ([`map_slice_on`]: whole vectors, the tail as a partial vector), whose
//! lanes are independent and give the scalar model's bits. So the result
//! does not depend on where an element sits in a slice, on the block a
//! thread was given, on the SIMD level, or on the input's layout: only the
//! way values are fetched differs between the strategies below.

use crate::tensor::element::Element;
use crate::tensor::float::Float;
use crate::tensor::math::apply::{Function, map_lanes_on};
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::parallel::{Split, for_each_block};
use crate::tensor::traverse::plan::Plan;
use crate::tensor::traverse::simd::{Dispatch, KernelTuning, threads_for_bytes};

/// Values staged at a time by [`UnaryStrategy::Staged`] (two stack
/// buffers of this many compute values: 4 KiB of `f32`, 8 KiB of `f64`).
const STAGE: usize = 512;

/// Shortest dense run mapped straight from the input slice; shorter runs
/// are staged, so one vector call covers many of them.
const MIN_SLICE_RUN: usize = 64;

/// Fewest values a task of a threaded map gets (32 KiB of `f64`).
const MIN_BLOCK_VALUES: usize = 4096;

/// How the input's values reach the vector code: data a test can inspect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnaryStrategy {
    /// The element is its own compute type (`f32`, `f64`) and the
    /// innermost run is dense and long: each run (each thread's piece of
    /// it) is mapped from the input slice straight into the output.
    Slices,
    /// Anything else (a half type, a strided, transposed or broadcast run,
    /// short runs): values are gathered in logical order into a stack
    /// buffer of [`STAGE`] compute values (widened), mapped, and written
    /// out (rounded once to the element type).
    Staged,
}

impl UnaryStrategy {
    /// The strategy for `plan` over elements `T`.
    pub(crate) fn of<T: Element>(plan: &Plan<1>) -> Self {
        let same_type = T::as_acc(&[] as &[T]).is_some();
        if same_type && plan.run_strides == [1] && plan.run_len >= MIN_SLICE_RUN {
            UnaryStrategy::Slices
        } else {
            UnaryStrategy::Staged
        }
    }
}

/// Threads for a map over `len` values of `T` under `tuning`: the
/// memory-bound threshold of the values read plus written (about 1 MiB,
/// as for a copy).
pub(crate) fn unary_threads<T>(len: usize, tuning: KernelTuning) -> usize {
    threads_for_bytes(len.saturating_mul(2 * size_of::<T>()), tuning)
}

/// `out <- function(input)` in logical row-major order (`out` holds the
/// input's element count), on up to `threads` threads, with the
/// instruction set of `tuning` (read on the calling thread).
pub(crate) fn unary_blocks<T: Element>(
    function: Function,
    input: Strided<'_, '_, T>,
    out: &mut [T],
    tuning: KernelTuning,
    threads: usize,
) {
    let plan = Plan::new(input.shape, [input.strides], [input.base]);
    debug_assert_eq!(plan.len, out.len());
    let dispatch = Dispatch::new(tuning.simd);
    let strategy = UnaryStrategy::of::<T>(&plan);
    let split = Split {
        unit: 1,
        min_units: MIN_BLOCK_VALUES,
    };
    let [stride] = plan.run_strides;
    let data = input.data;
    for_each_block(out, split, threads, |range, block| match strategy {
        UnaryStrategy::Slices => {
            let mut at = 0;
            plan.for_each_run_in(range, |[start], count| {
                let (Some(x), Some(y)) = (
                    T::as_acc(&data[start..start + count]),
                    T::as_acc_mut(&mut block[at..at + count]),
                ) else {
                    return;
                };
                map_lanes_on(dispatch, function, x, y);
                at += count;
            });
        }
        UnaryStrategy::Staged => {
            let mut stage = Stage::<T>::new(dispatch, function, block);
            plan.for_each_run_in(range, |[start], count| {
                stage.push_run(data, start, stride, count);
            });
            stage.flush();
        }
    });
}

/// The staging buffers of [`UnaryStrategy::Staged`] and where the next
/// mapped values go.
struct Stage<'o, T: Element> {
    dispatch: Dispatch,
    function: Function,
    input: [T::Acc; STAGE],
    output: [T::Acc; STAGE],
    filled: usize,
    out: &'o mut [T],
    at: usize,
}

impl<'o, T: Element> Stage<'o, T> {
    fn new(dispatch: Dispatch, function: Function, out: &'o mut [T]) -> Self {
        Self {
            dispatch,
            function,
            input: [T::Acc::ZERO; STAGE],
            output: [T::Acc::ZERO; STAGE],
            filled: 0,
            out,
            at: 0,
        }
    }

    /// Stages the `count` values from `start`, `stride` apart (0: one value
    /// repeated), mapping and writing out every full buffer.
    fn push_run(&mut self, data: &[T], start: usize, stride: usize, count: usize) {
        let mut done = 0;
        while done < count {
            let take = (STAGE - self.filled).min(count - done);
            let slots = &mut self.input[self.filled..self.filled + take];
            for (k, slot) in slots.iter_mut().enumerate() {
                *slot = data[start + (done + k) * stride].to_acc();
            }
            self.filled += take;
            done += take;
            if self.filled == STAGE {
                self.flush();
            }
        }
    }

    /// Maps the staged values and writes them out, rounded to `T`.
    fn flush(&mut self) {
        let n = self.filled;
        if n == 0 {
            return;
        }
        let (x, y) = (&self.input[..n], &mut self.output[..n]);
        map_lanes_on(self.dispatch, self.function, x, y);
        for (slot, &value) in self.out[self.at..self.at + n].iter_mut().zip(y.iter()) {
            *slot = T::from_acc(value);
        }
        self.at += n;
        self.filled = 0;
    }
}
