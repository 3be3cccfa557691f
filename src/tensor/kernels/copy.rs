//! Copying a strided layout into contiguous row-major storage (materialize).
//!
//! Two strategies, both writing exactly the logical row-major sequence:
//! - runs: whole innermost runs, `extend_from_slice` when the run is dense;
//! - tiles: when the innermost run is strided but another axis is dense in
//!   the source (a transposed block), copy 32×32 tiles so both the reads and
//!   the writes stay within a few cache lines.

use super::plan::{Plan, run_iter};
use super::sink::Sink;

/// Tile edge of the transposed copy: 32×32 f64 = 8 KiB per side, L1-sized.
const TILE: usize = 32;

/// Writes the layout's values to `sink` in logical row-major order.
pub(crate) fn copy<T: Copy>(
    data: &[T],
    shape: &[usize],
    strides: &[usize],
    base: usize,
    sink: &mut impl Sink<T>,
) {
    let plan = Plan::new(shape, [strides], [base]);
    if plan.len == 0 {
        return;
    }
    if let Some(tile_axis) = tile_axis(&plan) {
        tiled_copy(
            data,
            &plan,
            tile_axis,
            sink.next_slots(plan.len, data[base]),
        );
        return;
    }
    let [stride] = plan.run_strides;
    let run_len = plan.run_len;
    plan.for_each_run(|[start]| {
        if stride == 1 {
            sink.extend_slice(&data[start..start + run_len]);
        } else {
            sink.extend_run(run_iter(data, start, stride, run_len));
        }
    });
}

/// The outer axis to tile against the innermost one, when the innermost run
/// is strided and some outer axis has a smaller source stride.
fn tile_axis(plan: &Plan<1>) -> Option<usize> {
    let [run_stride] = plan.run_strides;
    if run_stride <= 1 || plan.run_len < TILE / 2 {
        return None;
    }
    (0..plan.outer_rank())
        .filter(|&axis| {
            let (extent, [stride]) = plan.outer_axis(axis);
            extent >= TILE / 2 && stride < run_stride
        })
        .min_by_key(|&axis| plan.outer_axis(axis).1[0])
}

/// Copies with the innermost axis and outer axis `tile` handled as a 2-D
/// tiled transpose; the remaining outer axes are walked by an odometer.
fn tiled_copy<T: Copy>(data: &[T], plan: &Plan<1>, tile: usize, out: &mut [T]) {
    let rank = plan.outer_rank();
    let (rows, [row_stride]) = plan.outer_axis(tile);
    let (columns, [column_stride]) = (plan.run_len, plan.run_strides);
    // Output strides of the outer axes (row-major over outer extents, then the run).
    let mut out_strides = vec![0; rank];
    let mut running = columns;
    for axis in (0..rank).rev() {
        out_strides[axis] = running;
        running *= plan.outer_axis(axis).0;
    }
    let out_row_stride = out_strides[tile];
    let others: Vec<usize> = (0..rank).filter(|&axis| axis != tile).collect();
    let mut position = vec![0; others.len()];
    let (mut source, mut target) = (plan.bases[0], 0);
    loop {
        for row0 in (0..rows).step_by(TILE) {
            for column0 in (0..columns).step_by(TILE) {
                for row in row0..(row0 + TILE).min(rows) {
                    let source_row = source + row * row_stride;
                    let target_row = target + row * out_row_stride;
                    let width = (column0 + TILE).min(columns) - column0;
                    let slots = &mut out[target_row + column0..target_row + column0 + width];
                    let mut offset = source_row + column0 * column_stride;
                    for slot in slots {
                        *slot = data[offset];
                        offset += column_stride;
                    }
                }
            }
        }
        // Odometer over the non-tiled outer axes.
        let mut index = others.len();
        loop {
            if index == 0 {
                return;
            }
            index -= 1;
            let axis = others[index];
            let (extent, [stride]) = plan.outer_axis(axis);
            position[index] += 1;
            if position[index] < extent {
                source += stride;
                target += out_strides[axis];
                break;
            }
            position[index] = 0;
            source -= (extent - 1) * stride;
            target -= (extent - 1) * out_strides[axis];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sink::SliceSink;
    use super::*;

    #[test]
    fn tiled_transpose_matches_logical_order() {
        let (rows, columns) = (70, 45);
        let data: Vec<usize> = (0..rows * columns).collect();
        // The transpose: shape [columns, rows], strides [1, columns].
        let mut out = Vec::new();
        copy(&data, &[columns, rows], &[1, columns], 0, &mut out);
        let expected: Vec<usize> = (0..columns)
            .flat_map(|c| (0..rows).map(move |r| r * columns + c))
            .collect();
        assert_eq!(out, expected);
    }

    #[test]
    fn tiled_transpose_inside_rank_three() {
        let data: Vec<usize> = (0..3 * 40 * 33).collect();
        // [3, 40, 33] owner viewed as [3, 33, 40] (last two axes swapped).
        let mut out = vec![0; data.len()];
        copy(
            &data,
            &[3, 33, 40],
            &[1320, 1, 33],
            0,
            &mut SliceSink::new(&mut out),
        );
        let expected: Vec<usize> = (0..3)
            .flat_map(|b| (0..33).flat_map(move |c| (0..40).map(move |r| b * 1320 + r * 33 + c)))
            .collect();
        assert_eq!(out, expected);
    }
}
