//! View transforms never touch the heap: a counting global allocator shows
//! that `view`, `reshape`, `transpose`, `permute`, `slice`, `transpose_axes`
//! and `permute_axes` perform zero allocations, that materializing an
//! empty view reserves nothing, and that the `_into` twins of the gathers,
//! `argmax_axis` and `softmax_axis` write into the caller's tensor without
//! any allocation.
//!
//! The counter is per thread, so tests running in parallel do not see each
//! other's allocations.

use llm_from_scratch::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

/// `System`, counting every allocation and reallocation made by the current thread.
struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn record() {
    // `try_with` so allocations during thread teardown are not a problem.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
}

// SAFETY: every method forwards to `System` unchanged; the counter is a
// const-initialised thread-local `Cell` that never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns its result with the number of heap allocations it made on this thread.
fn allocations<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = ALLOCATIONS.with(Cell::get);
    let result = black_box(f());
    let after = ALLOCATIONS.with(Cell::get);
    (result, after - before)
}

fn owner() -> Tensor<4> {
    Tensor::from_fn([2, 3, 4, 5], |[a, b, c, d]| {
        (1000 * a + 100 * b + 10 * c + d) as f64
    })
    .expect("120 values")
}

#[test]
fn the_counter_sees_allocations() {
    let (vec, count) = allocations(|| Vec::<u64>::with_capacity(black_box(4)));
    assert_eq!(count, 1);
    drop(vec);
    let source = owner();
    let (copy, count) = allocations(|| source.view().transpose(0, 3).and_then(|v| v.materialize()));
    assert!(count >= 1, "materialize allocates its storage");
    assert_eq!(copy.expect("in bounds").len(), 120);
}

#[test]
fn view_and_runtime_transforms_do_not_allocate() {
    let source = owner();
    let (view, count) = allocations(|| black_box(&source).view());
    assert_eq!(count, 0, "view");

    let (reshaped, count) = allocations(|| view.reshape(black_box([6, 4, 5])));
    assert_eq!(count, 0, "reshape");
    assert_eq!(reshaped.expect("contiguous").shape(), &[6, 4, 5]);

    let (transposed, count) = allocations(|| view.transpose(black_box(1), black_box(3)));
    assert_eq!(count, 0, "transpose");
    let transposed = transposed.expect("axes in range");
    assert_eq!(transposed.strides(), &[60, 1, 5, 20]);

    let (permuted, count) = allocations(|| view.permute(black_box([0, 2, 1, 3])));
    assert_eq!(count, 0, "permute");
    assert_eq!(permuted.expect("a permutation").shape(), &[2, 4, 3, 5]);

    let (sliced, count) = allocations(|| view.slice(black_box(2), black_box(1..3)));
    assert_eq!(count, 0, "slice");
    assert_eq!(sliced.expect("in range").base_offset(), 5);

    // A whole chain, including reshape of a contiguous slice of a view of a view.
    let (chain, count) = allocations(|| {
        view.slice(0, 1..2)?
            .reshape([3, 4, 5])?
            .permute([2, 0, 1])?
            .transpose(1, 2)?
            .slice(0, 2..4)
    });
    assert_eq!(count, 0, "chain");
    let chain = chain.expect("valid chain");
    assert_eq!((chain.shape(), chain.base_offset()), (&[2, 4, 3], 60 + 2));
}

#[test]
fn rejected_requests_do_not_allocate() {
    let source = owner();
    let view = source.view();
    let transposed = view.transpose(0, 1).expect("axes in range");
    let (error, count) = allocations(|| transposed.reshape(black_box([120])));
    assert_eq!(count, 0);
    assert_eq!(error.unwrap_err(), TensorViewError::NonContiguousReshape);
    let (error, count) = allocations(|| view.permute(black_box([0, 0, 1, 2])));
    assert_eq!(count, 0);
    assert_eq!(
        error.unwrap_err(),
        TensorViewError::DuplicateAxis { axis: 0 }
    );
    let (error, count) = allocations(|| view.slice(black_box(3), black_box(2..9)));
    assert_eq!(count, 0);
    assert_eq!(
        error.unwrap_err(),
        TensorViewError::SliceEndOutOfBounds {
            axis: 3,
            end: 9,
            dimension: 5
        }
    );
}

#[test]
fn compile_time_axis_transforms_do_not_allocate() {
    let source = owner();
    let view = source.view();
    let (transposed, count) = allocations(|| view.transpose_axes::<2, 3>());
    assert_eq!(count, 0, "transpose_axes");
    assert_eq!(transposed.shape(), &[2, 3, 5, 4]);
    let (permuted, count) = allocations(|| view.permute_axes::<Axes4<0, 2, 1, 3>>());
    assert_eq!(count, 0, "permute_axes");
    assert_eq!(permuted.strides(), &[60, 5, 20, 1]);
}

#[test]
fn materializing_an_empty_view_allocates_nothing() {
    let source = owner();
    let view = source.view();
    let empty = view.slice(1, 2..2).expect("an empty range");
    let (materialized, count) = allocations(|| empty.materialize());
    assert_eq!(count, 0, "materialize of an empty [2, 0, 4, 5] view");
    assert_eq!(
        materialized.expect("nothing to reserve").shape(),
        &[2, 0, 4, 5]
    );

    let empty_owner: Tensor<3> = Tensor::from_vec([2, 0, 3], vec![]).expect("no values");
    let (materialized, count) = allocations(|| empty_owner.view().transpose(0, 2)?.materialize());
    assert_eq!(count, 0, "materialize of an empty transposed view");
    assert_eq!(materialized.expect("nothing to reserve").len(), 0);
}

#[test]
fn into_shape_reuses_the_storage() {
    let source = owner();
    let (heads, count) = allocations(|| source.into_shape(black_box([2, 3, 2, 2, 5])));
    assert_eq!(count, 0, "into_shape");
    let heads = heads.expect("same element count");
    assert_eq!(heads.get([1, 2, 1, 1, 4]).copied(), Ok(1234.0));
}

#[test]
fn dynamic_views_transform_without_allocating() {
    let source = owner().into_dyn();
    let (view, count) = allocations(|| black_box(&source).view());
    assert_eq!(count, 0, "DynTensor::view");
    let (chain, count) = allocations(|| {
        view.slice(0, 1..2)?
            .reshape(black_box(&[3, 4, 5]))?
            .permute(black_box(&[2, 0, 1]))?
            .transpose(1, 2)?
            .slice(0, 2..4)
    });
    assert_eq!(count, 0, "dynamic chain");
    let chain = chain.expect("valid chain");
    assert_eq!(
        (chain.shape(), chain.base_offset()),
        (&[2, 4, 3][..], 60 + 2)
    );
    let (offsets, count) = allocations(|| chain.offsets().take(3).sum::<usize>());
    assert_eq!(count, 0, "offsets");
    let expected: usize = (0..3)
        .map(|k| chain.storage_offset(&[0, 0, k]).expect("in bounds"))
        .sum();
    assert_eq!(offsets, expected);
}

#[test]
fn data_movement_and_softmax_into_twins_do_not_allocate() {
    // [2, 3, 4, 5] values 0, 1, ..; every layout kind: dense, transposed, stepped.
    let source = owner();
    let view = source.view();
    let transposed = view.transpose(1, 3).expect("axes in range"); // [2, 5, 4, 3]
    let mut joined = Tensor::<4>::zeros([2, 3, 8, 5]).expect("small");
    let (result, count) = allocations(|| concat_into(&[view, view], 2, &mut joined));
    assert_eq!((result, count), (Ok(()), 0), "concat_into");
    let mut stacked = Tensor::<5>::zeros([2, 3, 2, 4, 5]).expect("small");
    let (result, count) = allocations(|| stack_into(&[view, view], 2, &mut stacked));
    assert_eq!((result, count), (Ok(()), 0), "stack_into");
    let mut picked = Tensor::<4>::zeros([2, 5, 3, 3]).expect("small");
    let (result, count) =
        allocations(|| index_select_into(&transposed, 2, black_box(&[3, 0, 3]), &mut picked));
    assert_eq!((result, count), (Ok(()), 0), "index_select_into");
    let mut positions = Tensor::<3, usize>::zeros([2, 5, 4]).expect("small");
    let (result, count) =
        allocations(|| argmax_axis_into(&transposed, 3, RemoveDim, &mut positions));
    assert_eq!((result, count), (Ok(()), 0), "argmax_axis_into");
    assert!(
        positions.as_slice().iter().all(|&p| p == 2),
        "the largest of an ascending run is last"
    );
    // Long dense rows (the eight-at-a-time kernel), rows of a transposed view, columns.
    let rows = Tensor::from_fn([9, 40], |[i, j]| (i * j) as f64 * 0.01).expect("small");
    for (input, axis) in [
        (rows.view(), 1),
        (rows.view().transpose(0, 1).expect("2-D"), 1),
        (rows.view(), 0),
    ] {
        let mut probabilities = Tensor::<2>::zeros(*input.shape()).expect("small");
        let (result, count) = allocations(|| softmax_axis_into(&input, axis, &mut probabilities));
        assert_eq!(
            (result, count),
            (Ok(()), 0),
            "softmax_axis_into axis {axis}"
        );
        assert_eq!(probabilities, softmax_axis(&input, axis).expect("fresh"));
    }
}
