//! Reading and writing through a mutable view's storage, `&[Cell<T>]`.
//!
//! Mutable views share the owner's storage as cells (`Cell::from_mut(..)
//! .as_slice_of_cells()`), so disjoint views of interleaved parts (heads of
//! a `[T, H, D]` cache) can coexist in safe Rust. A cell read or write is a
//! plain load or store; the runs below let the compiler see slices.

use super::plan::Plan;
use super::sink::Sink;
use std::cell::Cell;

/// A checked layout over cells: `(shape, strides, base offset)`.
pub(crate) type CellLayout<'s> = (&'s [usize], &'s [usize], usize);

/// `cell <- f(cell)` at every logical position, in row-major order.
pub(crate) fn update<T: Copy>(
    cells: &[Cell<T>],
    (shape, strides, base): CellLayout<'_>,
    mut f: impl FnMut(T) -> T,
) {
    let plan = Plan::new(shape, [strides], [base]);
    let ([stride], n) = (plan.run_strides, plan.run_len);
    plan.for_each_run(|[start]| match stride {
        1 => cells[start..start + n]
            .iter()
            .for_each(|cell| cell.set(f(cell.get()))),
        _ => (0..n)
            .map(|k| &cells[start + k * stride])
            .for_each(|cell| cell.set(f(cell.get()))),
    });
}

/// `cell <- f(cell, source)` at every logical position, in row-major order;
/// `source` is read through `source_strides` (0 on broadcast axes).
pub(crate) fn zip_update<T: Copy, U: Copy>(
    cells: &[Cell<T>],
    (shape, strides, base): CellLayout<'_>,
    source: &[U],
    source_strides: &[usize],
    source_base: usize,
    mut f: impl FnMut(T, U) -> T,
) {
    let plan = Plan::new(shape, [strides, source_strides], [base, source_base]);
    let ([stride, source_stride], n) = (plan.run_strides, plan.run_len);
    plan.for_each_run(|[start, from]| match (stride, source_stride) {
        (1, 1) => {
            for (cell, &value) in cells[start..start + n].iter().zip(&source[from..from + n]) {
                cell.set(f(cell.get(), value));
            }
        }
        (1, 0) => {
            let value = source[from];
            cells[start..start + n]
                .iter()
                .for_each(|cell| cell.set(f(cell.get(), value)));
        }
        _ => {
            for k in 0..n {
                let cell = &cells[start + k * stride];
                cell.set(f(cell.get(), source[from + k * source_stride]));
            }
        }
    });
}

/// The values at every logical position, in row-major order, into `sink`.
pub(crate) fn read<T: Copy>(
    cells: &[Cell<T>],
    (shape, strides, base): CellLayout<'_>,
    sink: &mut impl Sink<T>,
) {
    let plan = Plan::new(shape, [strides], [base]);
    let ([stride], n) = (plan.run_strides, plan.run_len);
    plan.for_each_run(|[start]| {
        sink.extend_run(n, (0..n).map(|k| cells[start + k * stride].get()));
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_land_on_the_layout_in_row_major_order() {
        let mut storage = [0_i32; 12];
        let cells = Cell::from_mut(&mut storage[..]).as_slice_of_cells();
        // The transpose of a [3, 4] owner's columns 1..3: shape [2, 3], strides [1, 4], base 1.
        let layout: CellLayout<'_> = (&[2, 3], &[1, 4], 1);
        let mut order = 0;
        update(cells, layout, |_| {
            order += 1;
            order
        });
        assert_eq!(storage, [0, 1, 4, 0, 0, 2, 5, 0, 0, 3, 6, 0]);

        let cells = Cell::from_mut(&mut storage[..]).as_slice_of_cells();
        // Add a broadcast row [10, 20, 30] (stride 0 on the first axis).
        zip_update(cells, layout, &[10, 20, 30], &[0, 1], 0, |old, add| {
            old + add
        });
        let mut values = Vec::new();
        read(cells, layout, &mut values);
        assert_eq!(values, [11, 22, 33, 14, 25, 36]);
    }
}
