//! Single-axis sums (by the fixed tree of `tree.rs`) and maxima, and how
//! each visits its groups.
//!
//! A sum is the tree sum of each group, whatever the layout: a group along
//! the innermost axis is summed as a dense slice or gathered leaf by leaf
//! (`Lanes`); a reduced axis that is outer in memory is read as rows
//! (`tree_rows.rs`, every output still gets its group's tree).
//!
//! A maximum folds each group in ascending index order from its first
//! value, bit-identical to the naive fold for every layout; only the order
//! in which *groups* are visited changes:
//! - `rows` ([`super::rows`]): the reduced axis is not the innermost in
//!   memory, so fold whole slices `x[.., i, ..]` into the output for
//!   `i = 0, 1, ..` (dense, vectorizable), one cache-sized block of the
//!   output at a time;
//! - `lanes`: the reduced axis is innermost, so fold `LANES` groups side by
//!   side, each still sequentially, to hide the latency;
//! - `dense_groups`: max over a dense innermost axis. The max policy (first
//!   NaN, else the earliest of the largest values) does not depend on the
//!   grouping: without NaN and with a non-zero maximum every value equal to
//!   the maximum has the same bits, so eight interleaved partial maxima give
//!   the exact answer; a NaN or a zero maximum (where -0.0 and +0.0 tie)
//!   falls back to the sequential fold of that group.
//!
//! Threads: a reduction reading at least the memory-bound threshold
//! (`simd::threads_for_bytes`, about 1 MiB) splits its output into
//! contiguous blocks of groups, one task each; every group is still reduced
//! whole by one task in its fixed order, so the values do not depend on the
//! thread count. One group (a reduction to a single value) stays on one
//! thread.

use super::fold::{Fold, LANES, Max, Reduce, Step};
use super::rows::rows;
use super::tree::{Counter, tree_sum_strided};
use super::tree_rows::{leaf_threads, tree_rows};
use crate::tensor::float::Float;
use crate::tensor::traverse::alloc::AllocationFailed;
use crate::tensor::traverse::offsets::StridedOffsets;
use crate::tensor::traverse::parallel::{Split, for_each_block};
use crate::tensor::traverse::plan::run_iter;
use crate::tensor::traverse::simd::{Compiled, Dispatch, threads_for_bytes, tuning};
use std::marker::PhantomData;

/// Fewest outputs a task of the threaded `rows` kernel gets: below this,
/// each task reads its piece of every input row in short stretches (512²
/// `f64` summed over axis 0 split into 64-output tasks ran slower on two
/// threads than on one).
const ROWS_MIN_OUTPUTS: usize = 256;

/// The max policy's result for one dense, non-empty group (first NaN, else
/// the earliest of the largest), by the same interleaved partial maxima as
/// `max_axis`'s dense kernel: `argmax_axis` and `softmax_axis` use it, so
/// they agree with `max_axis` by construction. Inlined, so that a kernel
/// compiled for a wider instruction set reads the group at its width.
#[inline(always)]
pub(crate) fn dense_max<F: Float>(group: &[F]) -> F {
    <Max as Step<F>>::dense(group)
}

/// [`dense_max`] of `LANES` dense groups of one length, read side by side
/// (eight memory streams in flight, as `max_axis`'s dense kernel).
#[inline(always)]
pub(crate) fn dense_max_lanes<F: Float>(groups: [&[F]; LANES]) -> [F; LANES] {
    <Max as Step<F>>::dense_lanes(groups)
}

/// Writes the reduction of every group into `out` (row-major over the
/// shape without `axis`; exactly that many elements).
///
/// # Errors
/// A sum's scratch (the `rows` tree) could not be reserved.
pub(crate) fn reduce<F: Float>(
    input: &Reduce<'_, '_, F>,
    fold: Fold,
    out: &mut [F],
) -> Result<(), AllocationFailed> {
    let extent = input.shape[input.axis];
    if out.is_empty() {
        return Ok(());
    }
    if extent == 0 {
        debug_assert_eq!(fold, Fold::Sum);
        out.fill(F::ZERO);
        return Ok(());
    }
    let strategy = ReduceStrategy::of(input, fold);
    match fold {
        Fold::Sum => return tree_with(input, strategy, out),
        Fold::Max => reduce_with::<F, Max>(input, strategy, out),
    }
    Ok(())
}

/// How a reduction visits its groups: data a test can inspect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduceStrategy {
    /// Max over a dense innermost axis: interleaved partial maxima per group.
    DenseGroups,
    /// The reduced axis is innermost in memory: `LANES` groups side by side.
    Lanes,
    /// The reduced axis is outer in memory: whole slices `x[.., i, ..]`
    /// folded into the output block by block.
    Rows,
}

impl ReduceStrategy {
    /// The strategy for `input` and `fold` (the axis must be non-empty).
    pub(crate) fn of<F>(input: &Reduce<'_, '_, F>, fold: Fold) -> Self {
        let axis_stride = input.strides[input.axis];
        let innermost = input
            .shape
            .iter()
            .zip(input.strides)
            .enumerate()
            .all(|(a, (&e, &s))| a == input.axis || e <= 1 || s >= axis_stride);
        let extent = input.shape[input.axis];
        if fold == Fold::Max && innermost && axis_stride == 1 && extent >= 2 * LANES {
            ReduceStrategy::DenseGroups
        } else if innermost {
            ReduceStrategy::Lanes
        } else {
            ReduceStrategy::Rows
        }
    }
}

/// The groups of a reduction (the shape and strides without the reduced
/// axis), its thread count and instruction set, and how its output splits
/// into tasks: what the max and the sum kernels share.
struct Groups {
    shape: Vec<usize>,
    strides: Vec<usize>,
    threads: usize,
    dispatch: Dispatch,
    split: Split,
}

impl Groups {
    fn of<F>(input: &Reduce<'_, '_, F>, strategy: ReduceStrategy, outputs: usize) -> Self {
        let mut shape = input.shape.to_vec();
        let mut strides = input.strides.to_vec();
        shape.remove(input.axis);
        strides.remove(input.axis);
        let extent = input.shape[input.axis];
        let read = outputs.saturating_mul(extent).saturating_add(outputs);
        let tuning = tuning();
        // Row blocks keep a few hundred contiguous outputs per task, so every
        // input row is read in long pieces.
        let min_units = match strategy {
            ReduceStrategy::Rows => ROWS_MIN_OUTPUTS,
            ReduceStrategy::DenseGroups | ReduceStrategy::Lanes => LANES,
        };
        Self {
            shape,
            strides,
            threads: threads_for_bytes(read.saturating_mul(size_of::<F>()), tuning),
            dispatch: Dispatch::new(tuning.simd),
            split: Split { unit: 1, min_units },
        }
    }
}

fn reduce_with<F: Float, S: Step<F>>(
    input: &Reduce<'_, '_, F>,
    strategy: ReduceStrategy,
    out: &mut [F],
) {
    let groups = Groups::of(input, strategy, out.len());
    let (group_shape, group_strides) = (groups.shape.as_slice(), groups.strides.as_slice());
    let (extent, threads, dispatch, split) = (
        input.shape[input.axis],
        groups.threads,
        groups.dispatch,
        groups.split,
    );
    let starts = |first| StridedOffsets::from_index(group_shape, group_strides, input.base, first);
    for_each_block(out, split, threads, |groups, block| match strategy {
        ReduceStrategy::DenseGroups => dispatch.compile(DenseGroups::<F, S> {
            data: input.data,
            extent,
            starts: starts(groups.start),
            out: block,
            step: PhantomData,
        }),
        ReduceStrategy::Lanes => lanes::<F, S>(input, starts(groups.start), block),
        ReduceStrategy::Rows => {
            rows::<F, S>(dispatch, input, group_shape, group_strides, groups, block);
        }
    });
}

/// Sums by the fixed tree ([`super::tree`]): whole groups per task, each
/// group's tree computed by one task, or (a long outer axis, see
/// [`leaf_threads`]) the leaves split where the tree splits them, so no
/// bit depends on the threads.
fn tree_with<F: Float>(
    input: &Reduce<'_, '_, F>,
    strategy: ReduceStrategy,
    out: &mut [F],
) -> Result<(), AllocationFailed> {
    let groups = Groups::of(input, strategy, out.len());
    let (group_shape, group_strides) = (groups.shape.as_slice(), groups.strides.as_slice());
    let (extent, threads, dispatch, split) = (
        input.shape[input.axis],
        groups.threads,
        groups.dispatch,
        groups.split,
    );
    let starts = |first| StridedOffsets::from_index(group_shape, group_strides, input.base, first);
    let failed = std::sync::Mutex::new(None);
    let leaf_threads = match strategy {
        ReduceStrategy::Rows => leaf_threads(extent, threads),
        ReduceStrategy::DenseGroups | ReduceStrategy::Lanes => 1,
    };
    let block_threads = if leaf_threads > 1 { 1 } else { threads };
    for_each_block(out, split, block_threads, |groups, block| {
        if strategy == ReduceStrategy::Rows {
            let sums = tree_rows(
                dispatch,
                input,
                group_shape,
                group_strides,
                groups,
                block,
                leaf_threads,
            );
            if let Err(error) = sums {
                *failed.lock().unwrap_or_else(|poison| poison.into_inner()) = Some(error);
            }
        } else {
            dispatch.compile(TreeGroups {
                data: input.data,
                extent,
                stride: input.strides[input.axis],
                starts: starts(groups.start),
                out: block,
            });
        }
    });
    match failed
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner())
    {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// The tree sum of each group along an innermost axis (dense slices or
/// gathered leaves), compiled for the dispatched instruction set.
struct TreeGroups<'d, 'o, F> {
    data: &'d [F],
    extent: usize,
    stride: usize,
    starts: StridedOffsets,
    out: &'o mut [F],
}

impl<F: Float> Compiled for TreeGroups<'_, '_, F> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        let (data, extent, stride) = (self.data, self.extent, self.stride);
        let mut counter = Counter::new();
        for (slot, start) in self.out.iter_mut().zip(self.starts) {
            *slot = tree_sum_strided(&mut counter, data, start, stride, extent);
        }
    }
}

/// [`dense_groups`] compiled for the dispatched instruction set: the
/// partial maxima's loop gets the widest vectors (~20% faster in cache
/// with AVX-512 than with the SSE2 baseline, BENCHMARKS.md).
struct DenseGroups<'d, 'o, F, S> {
    data: &'d [F],
    extent: usize,
    starts: StridedOffsets,
    out: &'o mut [F],
    step: PhantomData<S>,
}

impl<F: Float, S: Step<F>> Compiled for DenseGroups<'_, '_, F, S> {
    type Output = ();
    #[inline(always)]
    fn run(self) {
        dense_groups::<F, S>(self.data, self.extent, self.starts, self.out);
    }
}

/// Folds dense groups `LANES` at a time with [`Step::dense_lanes`], visiting
/// the groups round-robin in blocks of `STREAM_BLOCK` values: eight memory
/// streams in flight read this 4096×4096 f64 matrix twice as fast as one
/// stream per group on this machine (BENCHMARKS.md).
#[inline(always)]
fn dense_groups<F: Float, S: Step<F>>(
    data: &[F],
    extent: usize,
    mut starts: StridedOffsets,
    out: &mut [F],
) {
    let mut chunks = out.chunks_exact_mut(LANES);
    for chunk in &mut chunks {
        let groups: [&[F]; LANES] = std::array::from_fn(|_| {
            let start = starts.next().unwrap_or(0);
            &data[start..start + extent]
        });
        chunk.copy_from_slice(&S::dense_lanes(groups));
    }
    for (slot, start) in chunks.into_remainder().iter_mut().zip(starts) {
        *slot = S::dense(&data[start..start + extent]);
    }
}

/// Folds `LANES` groups side by side along the innermost reduced axis.
// Index loops over the fixed lanes: the iterator forms clippy suggests
// measured 10% more instructions here (callgrind), see BENCHMARKS.md.
#[allow(clippy::needless_range_loop)]
fn lanes<F: Float, S: Step<F>>(
    input: &Reduce<'_, '_, F>,
    mut starts: StridedOffsets,
    out: &mut [F],
) {
    let (extent, stride) = (input.shape[input.axis], input.strides[input.axis]);
    let data = input.data;
    let span = (extent - 1) * stride + 1;
    let mut chunks = out.chunks_exact_mut(LANES);
    for chunk in &mut chunks {
        let group_starts: [usize; LANES] = std::array::from_fn(|_| starts.next().unwrap_or(0));
        let mut accumulators: [F; LANES] = std::array::from_fn(|j| S::seed(data[group_starts[j]]));
        if stride == 1 {
            let groups: [&[F]; LANES] =
                std::array::from_fn(|j| &data[group_starts[j]..group_starts[j] + extent]);
            for i in S::SEEDED..extent {
                for j in 0..LANES {
                    accumulators[j] = S::step(accumulators[j], groups[j][i]);
                }
            }
        } else {
            let groups: [&[F]; LANES] =
                std::array::from_fn(|j| &data[group_starts[j]..group_starts[j] + span]);
            for i in S::SEEDED..extent {
                for j in 0..LANES {
                    accumulators[j] = S::step(accumulators[j], groups[j][i * stride]);
                }
            }
        }
        chunk.copy_from_slice(&accumulators);
    }
    for slot in chunks.into_remainder() {
        let start = starts.next().unwrap_or(0);
        let group = run_iter(data, start, stride, extent).skip(S::SEEDED);
        *slot = group.fold(S::seed(data[start]), S::step);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::float::max_step;
    use crate::tensor::ops::tree_sum;

    /// The tree sum or the naive ascending max of every group of any
    /// strided layout, the group gathered first.
    fn naive_any(input: &Reduce<'_, '_, f64>, fold: Fold) -> Vec<f64> {
        let (axis, extent) = (input.axis, input.shape[input.axis]);
        let mut group_shape = input.shape.to_vec();
        let mut group_strides = input.strides.to_vec();
        group_shape.remove(axis);
        group_strides.remove(axis);
        StridedOffsets::new(&group_shape, &group_strides, input.base)
            .map(|start| {
                let at = |i: usize| input.data[start + i * input.strides[axis]];
                match fold {
                    Fold::Sum => tree_sum(&(0..extent).map(at).collect::<Vec<_>>()),
                    Fold::Max => (1..extent).fold(at(0), |acc, i| max_step(acc, at(i))),
                }
            })
            .collect()
    }

    /// Values with ties, both zeros, infinities and NaNs of distinct bits.
    fn tricky(len: usize, seed: u64) -> Vec<f64> {
        let mut state = seed;
        (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                match (state >> 33) % 23 {
                    0 => f64::from_bits(0x7ff8_0000_0000_0000 | (state >> 40)),
                    1 => -0.0,
                    2 => 0.0,
                    3 => f64::INFINITY,
                    4 => f64::NEG_INFINITY,
                    r => (r as f64 - 12.0) * 0.37 + ((state >> 50) % 7) as f64 * 1e-9,
                }
            })
            .collect()
    }

    #[test]
    fn every_layout_and_strategy_is_bit_exact() {
        // (shape, strides, base) over an 80 000-element buffer: dense, transposed,
        // permuted, sliced, stride-0 (broadcast) and long rows for every kernel.
        let layouts: [(&[usize], &[usize], usize); 18] = [
            (&[37, 41], &[41, 1], 0),
            (&[41, 37], &[1, 41], 3),
            (&[5, 7, 9], &[63, 9, 1], 1),
            (&[9, 5, 7], &[1, 63, 9], 0),
            (&[7, 9, 5], &[9, 1, 63], 2),
            (&[6, 40], &[64, 1], 5),
            (&[3, 50, 4], &[0, 4, 1], 0),
            (&[20, 3], &[1, 0], 7),
            (&[2, 1500], &[1500, 1], 11),
            (&[3, 2100], &[2100, 1], 0),
            // Many runs, so the rows kernel folds several batches.
            (&[4, 700, 2], &[1, 8, 4], 0),
            (&[700, 4, 2], &[8, 1, 4], 1),
            // Long outer axes: many leaves for the rows tree, dense and strided runs.
            (&[4000, 2], &[2, 1], 0),
            (&[2600, 3], &[1, 2600], 0),
            // Outer axes over more columns than one chunk of a lane's chain:
            // several leaves, lanes with one row and with two, strided runs.
            (&[300, 260], &[260, 1], 0),
            (&[30, 270], &[270, 1], 5),
            (&[13, 300], &[601, 2], 1),
            // A short last leaf in a pending slot that a whole leaf filled.
            (&[1541, 3], &[3, 1], 0),
        ];
        // Seed 3 keeps the infinities but no NaN; seed 4 only finite values,
        // so that long sums are not all NaN and every bit is compared.
        for (seed, nan_free, finite) in [
            (1, false, false),
            (2, false, false),
            (3, true, false),
            (4, true, true),
        ] {
            let mut data = tricky(80_000, seed);
            if nan_free {
                data.iter_mut()
                    .filter(|x| x.is_nan() || (finite && x.is_infinite()))
                    .for_each(|x| *x = 1.5);
            }
            for (shape, strides, base) in layouts {
                for axis in 0..shape.len() {
                    let input = Reduce {
                        data: &data,
                        shape,
                        strides,
                        base,
                        axis,
                    };
                    for fold in [Fold::Sum, Fold::Max] {
                        let expected = naive_any(&input, fold);
                        let mut out = vec![7.0; expected.len()];
                        reduce(&input, fold, &mut out).unwrap();
                        // A sum's NaN payload is not specified by Rust (LLVM may
                        // commute an add), so sums compare NaN as NaN; max
                        // selects and keeps the first NaN's exact bits.
                        let bits = |v: &[f64]| {
                            v.iter()
                                .map(|x| match fold {
                                    Fold::Sum if x.is_nan() => u64::MAX,
                                    _ => x.to_bits(),
                                })
                                .collect::<Vec<_>>()
                        };
                        assert_eq!(
                            bits(&out),
                            bits(&expected),
                            "{shape:?} {strides:?} axis {axis} {fold:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_strategy_follows_the_reduced_axis_in_memory() {
        let data = [0.0; 64];
        let input = |shape: &'static [usize], strides: &'static [usize], axis| Reduce {
            data: &data,
            shape,
            strides,
            base: 0,
            axis,
        };
        // Rows of [4, 16]: axis 1 is innermost and dense, axis 0 is outer.
        let rows = input(&[4, 16], &[16, 1], 1);
        assert_eq!(
            ReduceStrategy::of(&rows, Fold::Max),
            ReduceStrategy::DenseGroups
        );
        assert_eq!(ReduceStrategy::of(&rows, Fold::Sum), ReduceStrategy::Lanes);
        let columns = input(&[4, 16], &[16, 1], 0);
        assert_eq!(
            ReduceStrategy::of(&columns, Fold::Sum),
            ReduceStrategy::Rows
        );
        // The transpose: axis 0 is now the innermost in memory, with stride 1.
        let transposed = input(&[16, 4], &[1, 16], 0);
        assert_eq!(
            ReduceStrategy::of(&transposed, Fold::Max),
            ReduceStrategy::DenseGroups
        );
        // Short dense groups are not worth partial maxima.
        let short = input(&[8, 8], &[8, 1], 1);
        assert_eq!(ReduceStrategy::of(&short, Fold::Max), ReduceStrategy::Lanes);
    }

    #[test]
    fn dense_max_keeps_the_first_nan_and_the_earlier_zero() {
        let mut row = vec![-1.0_f64; 40];
        row[30] = -0.0;
        row[35] = 0.0;
        assert_eq!(
            <Max as Step<f64>>::dense(&row).to_bits(),
            (-0.0_f64).to_bits()
        );
        row[3] = f64::from_bits(0x7ff8_0000_0000_0001);
        row[20] = f64::from_bits(0x7ff8_0000_0000_0002);
        assert_eq!(
            <Max as Step<f64>>::dense(&row).to_bits(),
            0x7ff8_0000_0000_0001
        );
        let rising: Vec<f64> = (0..40).map(f64::from).collect();
        assert_eq!(<Max as Step<f64>>::dense(&rising), 39.0);
        let f32_row: Vec<f32> = (0..33)
            .map(|i| if i == 32 { f32::NAN } else { i as f32 })
            .collect();
        assert!(<Max as Step<f32>>::dense(&f32_row).is_nan());
    }

    #[test]
    fn dense_lanes_match_the_sequential_fold_per_group() {
        let mut values = tricky(8 * 100, 4);
        for value in values.iter_mut().filter(|x| x.is_nan() || x.is_infinite()) {
            *value = -2.0;
        }
        let mut groups: Vec<Vec<f64>> = values.chunks(100).map(<[f64]>::to_vec).collect();
        groups[1].iter_mut().for_each(|x| *x = x.min(-0.0)); // maximum is a zero
        groups[2][77] = f64::from_bits(0x7ff8_0000_0000_0042); // a late NaN
        groups[3][99] = 1e300; // the maximum in the tail
        let lanes: [&[f64]; LANES] = std::array::from_fn(|j| groups[j].as_slice());
        let got = <Max as Step<f64>>::dense_lanes(lanes);
        for (j, group) in groups.iter().enumerate() {
            let expected = group[1..].iter().fold(group[0], |acc, &x| max_step(acc, x));
            assert_eq!(got[j].to_bits(), expected.to_bits(), "group {j}");
        }
    }
}
