//! Random layouts for the view property tests: shapes, and `as_strided`
//! layouts (any strides, 0 included, and a base offset) with the storage
//! offset of each coordinate. Include with
//! `#[path = "common/layouts.rs"] mod layouts;`.
#![allow(dead_code)] // each test uses a subset

use proptest::prelude::*;

/// Shapes of rank `0..=max_rank` with extents `0..=max_extent`.
pub fn shapes(max_extent: usize, max_rank: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(0..=max_extent, 0..=max_rank)
}

/// Shape, strides (0–7: repeats, gaps, overlaps) and base offset (0–5) of
/// a layout over borrowed data (NumPy's / PyTorch's `as_strided`).
pub fn strided_layouts(
    max_extent: usize,
    max_rank: usize,
) -> impl Strategy<Value = (Vec<usize>, Vec<usize>, usize)> {
    shapes(max_extent, max_rank).prop_flat_map(|shape| {
        let rank = shape.len();
        (
            Just(shape),
            prop::collection::vec(0_usize..=7, rank),
            0_usize..=5,
        )
    })
}

/// The storage offset `base + Σ index·stride` of every coordinate of
/// `shape`, in row-major order (none for an empty shape).
pub fn strided_offsets(shape: &[usize], strides: &[usize], base: usize) -> Vec<usize> {
    let count = if shape.contains(&0) {
        0
    } else {
        shape.iter().product()
    };
    (0..count)
        .map(|mut position| {
            let mut offset = base;
            for axis in (0..shape.len()).rev() {
                offset += (position % shape[axis]) * strides[axis];
                position /= shape[axis];
            }
            offset
        })
        .collect()
}

/// One past the largest offset a layout reaches (0 when empty).
pub fn reach(shape: &[usize], strides: &[usize], base: usize) -> usize {
    strided_offsets(shape, strides, base)
        .into_iter()
        .max()
        .map_or(0, |last| last + 1)
}
