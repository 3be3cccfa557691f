//! Copying a strided layout into contiguous row-major storage (materialize).
//!
//! Two strategies, both writing exactly the logical row-major sequence:
//! - runs: whole innermost runs after coalescing: `extend_from_slice` (a
//!   memcpy) when the run is dense, a fill when it is a stride-0 splat, a
//!   strided gather otherwise;
//! - tiles: when the innermost run is strided but another axis is dense in
//!   the source (a transposed block) and the copy is larger than L2-ish
//!   sizes, copy rectangular tiles so every source line fetched is used for
//!   several output rows before it is evicted.
//!
//! Threads ([`copy_fresh`], [`copy_into`]): a copy moving at least the
//! memory-bound threshold (`simd::threads_for_bytes`, about 1 MiB) is split
//! into contiguous blocks of the output, each copied by one task from its
//! first element on ([`Plan::for_each_run_in`]); a tiled copy whose tiled
//! axis is the plan's last outer axis splits into blocks of whole runs,
//! tiled over consecutive runs ([`tiled_runs`]). A copy has no arithmetic,
//! so any split gives the same values.

use super::alloc::{AllocationFailed, try_buffer, try_filled_parallel};
use super::parallel::{Split, for_each_block};
use super::plan::{Plan, advance, run_iter};
use super::simd::{threads_for_bytes, tuning};
use super::sink::{Sink, SliceSink};
use std::ops::Range;

/// Tile height: output rows per tile, i.e. consecutive source elements read
/// from each source row (256 f64 = 32 cache lines per source row).
const TILE_ROWS: usize = 256;
/// Tile width: output elements written per output row per tile, i.e.
/// source rows read side by side (8 f64 = one cache line per output row).
///
/// Measured on 4096×4096 transposes into a reused output (BENCHMARKS.md).
/// On the Intel Xeon of 2026-12-01 (f64): 32×32 tiles ran at ~4.5× memcpy,
/// 128×32 at ~3.1×, 256×64 at ~2.9×; square 8×8 register micro-tiles,
/// strided writes and staging through a buffer were all slower. On the
/// AMD EPYC (Zen 4) of 2026-12-06 the 256×64 tile ran at 3.6× (f64) and
/// 8.5× (f32) memcpy, and fewer source rows side by side won: 256×8 at
/// 1.8× and 2.8× (256×4: 1.9× / 4.3×; 256×16: 2.6× / 4.5×; 512×8: 2.9× /
/// 2.7×; 1024×8 for f32: 3.9×). Each of the tile's source rows is a stream
/// of `TILE_ROWS` consecutive values, and eight streams are what this
/// machine's prefetchers keep up with; each output row still gets whole
/// cache lines (f64) or half lines that the next tile completes while they
/// are in L1 (f32).
const TILE_COLUMNS: usize = 8;
/// Smallest copy worth tiling: below this the source sits in L1/L2 anyway,
/// and a plain gather needs no pre-filled output (the fresh `Vec` sink
/// must initialize its slots before a tile can write them out of order).
const MIN_TILED_BYTES: usize = 1 << 17;
/// Shortest extents worth tiling; below this a plain gather is as fast.
const MIN_TILE_EXTENT: usize = 16;

/// Fewest values a task of an untiled threaded copy gets (32 KiB of f64).
const MIN_BLOCK_VALUES: usize = 4096;

/// How [`copy_plan`] walks a layout: data a test can inspect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CopyStrategy {
    /// Whole innermost runs: a slice copy when dense, a fill when stride 0,
    /// a strided gather otherwise.
    Runs,
    /// 2-D tiles of the innermost run against outer axis `axis` (a
    /// transposed block larger than the caches).
    Tiled {
        /// The outer axis of the plan that is tiled against the run.
        axis: usize,
    },
}

impl CopyStrategy {
    /// The strategy for a plan over values of `T`: tiles when the innermost
    /// run is strided, some outer axis has a smaller non-zero source stride,
    /// and the copy is at least `MIN_TILED_BYTES`.
    pub(crate) fn of<T>(plan: &Plan<1>) -> Self {
        let [run_stride] = plan.run_strides;
        if run_stride <= 1
            || plan.run_len < MIN_TILE_EXTENT
            || plan.len * size_of::<T>() < MIN_TILED_BYTES
        {
            return CopyStrategy::Runs;
        }
        let axes = plan.outer_axes().iter().enumerate();
        axes.filter(|(_, (extent, [stride]))| {
            *extent >= MIN_TILE_EXTENT && *stride > 0 && *stride < run_stride
        })
        .min_by_key(|(_, (_, [stride]))| *stride)
        .map_or(CopyStrategy::Runs, |(axis, _)| CopyStrategy::Tiled { axis })
    }
}

/// The layout's values in logical row-major order, in a new buffer
/// reserved with `try_reserve` (on several threads when large).
pub(crate) fn copy_fresh<T: Copy + Send + Sync>(
    data: &[T],
    shape: &[usize],
    strides: &[usize],
    base: usize,
) -> Result<Vec<T>, AllocationFailed> {
    let plan = Plan::new(shape, [strides], [base]);
    let threads = copy_threads::<T>(&plan);
    if threads <= 1 || plan.len == 0 {
        let mut values = try_buffer(plan.len)?;
        copy_plan(data, &plan, &mut values);
        return Ok(values);
    }
    let mut values = try_filled_parallel(plan.len, data[base], threads)?;
    copy_blocks(data, &plan, &mut values, threads);
    Ok(values)
}

/// Writes the layout's values into `out` (exactly its element count) in
/// logical row-major order (on several threads when large).
pub(crate) fn copy_into<T: Copy + Send + Sync>(
    data: &[T],
    shape: &[usize],
    strides: &[usize],
    base: usize,
    out: &mut [T],
) {
    let plan = Plan::new(shape, [strides], [base]);
    let threads = copy_threads::<T>(&plan);
    copy_blocks(data, &plan, out, threads);
}

/// Threads for copying `plan`: its bytes read plus written.
fn copy_threads<T>(plan: &Plan<1>) -> usize {
    threads_for_bytes(plan.len.saturating_mul(2 * size_of::<T>()), tuning())
}

/// Copies `plan` into `out` (its element count) as contiguous blocks, one
/// task each, on up to `threads` threads (see the module docs).
fn copy_blocks<T: Copy + Send + Sync>(data: &[T], plan: &Plan<1>, out: &mut [T], threads: usize) {
    if threads <= 1 {
        copy_plan(data, plan, &mut SliceSink::new(out));
        return;
    }
    let tiled_last = matches!(
        CopyStrategy::of::<T>(plan),
        CopyStrategy::Tiled { axis } if axis + 1 == plan.outer_axes().len()
    );
    if tiled_last {
        let split = Split {
            unit: plan.run_len,
            min_units: MIN_TILE_EXTENT,
        };
        for_each_block(out, split, threads, |runs, block| {
            tiled_runs(data, plan, runs, block);
        });
    } else {
        let split = Split {
            unit: 1,
            min_units: MIN_BLOCK_VALUES,
        };
        for_each_block(out, split, threads, |range, block| {
            let sink = &mut SliceSink::new(block);
            let [stride] = plan.run_strides;
            plan.for_each_run_in(range, |[start], count| {
                copy_run(data, start, stride, count, sink);
            });
        });
    }
}

/// Writes the values a plan visits (from its base) to `sink` in logical
/// row-major order. Gathers reuse one plan for many blocks of the same
/// layout, moving only its base.
pub(crate) fn copy_plan<T: Copy>(data: &[T], plan: &Plan<1>, sink: &mut impl Sink<T>) {
    if plan.len == 0 {
        return;
    }
    let [base] = plan.bases;
    if let CopyStrategy::Tiled { axis } = CopyStrategy::of::<T>(plan) {
        let out = sink.next_slots(plan.len, data[base]);
        tiled_copy(data, plan, axis, out);
        return;
    }
    let [stride] = plan.run_strides;
    let run_len = plan.run_len;
    plan.for_each_run(|[start]| copy_run(data, start, stride, run_len, sink));
}

/// Appends the `count` values from `start`, `stride` apart: a slice copy
/// when dense, a fill when stride 0, a strided gather otherwise.
#[inline(always)]
fn copy_run<T: Copy>(
    data: &[T],
    start: usize,
    stride: usize,
    count: usize,
    sink: &mut impl Sink<T>,
) {
    match stride {
        1 => sink.extend_slice(&data[start..start + count]),
        0 => sink.extend_fill(count, data[start]),
        _ => sink.extend_run(count, run_iter(data, start, stride, count)),
    }
}

/// Copies the runs `runs` of `plan` (whole runs, in row-major order) into
/// `out`, tiled: up to `TILE_ROWS` consecutive runs at a time, column
/// block by column block. Consecutive runs are consecutive positions of
/// the plan's last outer axis, so when that axis has the smallest source
/// stride their elements share source lines as in [`tiled_copy`].
fn tiled_runs<T: Copy>(data: &[T], plan: &Plan<1>, runs: Range<usize>, out: &mut [T]) {
    if runs.is_empty() {
        return;
    }
    let (columns, [column_stride]) = (plan.run_len, plan.run_strides);
    let (mut cursor, _) = plan.runs_from(runs.start * columns);
    let mut starts = [0; TILE_ROWS];
    for rows in out.chunks_mut(TILE_ROWS * columns) {
        let starts = &mut starts[..rows.len() / columns];
        for start in starts.iter_mut() {
            // The block holds exactly these runs, so the cursor has them.
            [*start] = cursor.next(plan).unwrap_or_default();
        }
        for column0 in (0..columns).step_by(TILE_COLUMNS) {
            let width = (column0 + TILE_COLUMNS).min(columns) - column0;
            for (row, &start) in rows.chunks_exact_mut(columns).zip(starts.iter()) {
                let mut offset = start + column0 * column_stride;
                for slot in &mut row[column0..column0 + width] {
                    *slot = data[offset];
                    offset += column_stride;
                }
            }
        }
    }
}

/// Copies with the innermost run and outer axis `tile` handled as a 2-D
/// tiled transpose; the other outer axes are walked by the odometer.
fn tiled_copy<T: Copy>(data: &[T], plan: &Plan<1>, tile: usize, out: &mut [T]) {
    let outer = plan.outer_axes();
    let (rows, [row_stride]) = outer[tile];
    let (columns, [column_stride]) = (plan.run_len, plan.run_strides);
    // Output strides of the outer axes: row-major over the outer extents, then the run.
    let mut out_strides = vec![0; outer.len()];
    let mut running = columns;
    for (slot, (extent, _)) in out_strides.iter_mut().zip(outer).rev() {
        *slot = running;
        running *= extent;
    }
    let out_row_stride = out_strides[tile];
    // The other outer axes as (extent, [source stride, output stride]).
    let others: Vec<(usize, [usize; 2])> = outer
        .iter()
        .zip(&out_strides)
        .enumerate()
        .filter(|&(axis, _)| axis != tile)
        .map(|(_, (&(extent, [stride]), &out_stride))| (extent, [stride, out_stride]))
        .collect();
    let mut position = vec![0; others.len()];
    let mut starts = [plan.bases[0], 0];
    loop {
        let [source, target] = starts;
        for row0 in (0..rows).step_by(TILE_ROWS) {
            let row_end = (row0 + TILE_ROWS).min(rows);
            for column0 in (0..columns).step_by(TILE_COLUMNS) {
                let width = (column0 + TILE_COLUMNS).min(columns) - column0;
                for row in row0..row_end {
                    let target_row = target + row * out_row_stride + column0;
                    let slots = &mut out[target_row..target_row + width];
                    let mut offset = source + row * row_stride + column0 * column_stride;
                    for slot in slots {
                        *slot = data[offset];
                        offset += column_stride;
                    }
                }
            }
        }
        if !advance(&others, &mut position, &mut starts) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::plan::tests::naive_offsets;
    use super::*;

    /// Whether `copy` takes the tiled path for this layout of `u64`s.
    fn tiles(shape: &[usize], strides: &[usize]) -> bool {
        let plan = Plan::new(shape, [strides], [0]);
        matches!(CopyStrategy::of::<u64>(&plan), CopyStrategy::Tiled { .. })
    }

    /// Both outputs against the offset cursor, for one layout over
    /// `0..65536`, on one thread and split into blocks for 2 and 3.
    fn check(shape: &[usize], strides: &[usize], base: usize) {
        let data: Vec<u64> = (0..1 << 16).collect();
        let expected: Vec<u64> = naive_offsets(shape, strides, base)
            .into_iter()
            .map(|offset| data[offset])
            .collect();
        let len = expected.len();
        let fresh = copy_fresh(&data, shape, strides, base);
        assert_eq!(fresh, Ok(expected.clone()), "{shape:?} {strides:?}");
        let plan = Plan::new(shape, [strides], [base]);
        for threads in [1, 2, 3] {
            let mut into = vec![u64::MAX; len];
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads);
            let pool = pool.build().expect("a pool");
            pool.install(|| copy_blocks(&data, &plan, &mut into, threads));
            assert_eq!(into, expected, "{shape:?} {strides:?} on {threads}");
        }
    }

    #[test]
    fn tiled_layouts_match_the_offset_cursor() {
        // Transposes crossing both tile edges (300 > 256 rows, 70 > 64
        // columns), a transposed block inside rank 3, and a tile axis that is
        // not the last outer axis ([3, 300, 40] viewed as [40, 3, 300]).
        let layouts: [(&[usize], &[usize], usize); 4] = [
            (&[300, 70], &[1, 300], 0),
            (&[70, 300], &[1, 70], 5),
            (&[2, 40, 300], &[12000, 1, 40], 3),
            (&[40, 3, 300], &[1, 12000, 40], 0),
        ];
        for (shape, strides, base) in layouts {
            assert!(
                tiles(shape, strides),
                "{shape:?} should take the tiled path"
            );
            check(shape, strides, base);
        }
    }

    #[test]
    fn run_layouts_match_the_offset_cursor() {
        // Small transposes (gathered, not tiled), dense and strided runs,
        // splats (stride 0), empty and scalar layouts.
        assert!(!tiles(&[45, 70], &[1, 45]));
        check(&[45, 70], &[1, 45], 0);
        check(&[2, 33, 150], &[4950, 1, 33], 1);
        check(&[40, 3, 20], &[1, 800, 40], 0);
        check(&[20, 3, 40], &[40, 800, 1], 0);
        check(&[4, 5, 6, 7], &[210, 1, 35, 5], 2);
        check(&[12, 30, 64], &[64, 768, 1], 0);
        check(&[3, 50], &[0, 1], 4);
        check(&[50, 3], &[1, 0], 4);
        check(&[6, 10], &[20, 2], 1);
        check(&[1, 0, 5], &[5, 5, 1], 0);
        check(&[], &[], 9);
    }
}
