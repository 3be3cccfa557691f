//! View transforms never touch the heap: a counting global allocator shows
//! that `view`, `reshape`, `transpose`, `permute`, `slice`, `transpose_axes`
//! and `permute_axes` perform zero allocations, and that materializing an
//! empty view reserves nothing. So do the other view operations
//! (`split_axis`, `merge_axes`, `reshape_strided`, `unsqueeze`, `squeeze`,
//! `select`, `broadcast_to`, `slice_step`, `split_at`, `chunk`), the axis
//! iterators and their `next` / `next_back`, and the mutable views'
//! transforms, pieces and writes (`set`, `fill`, `map_inplace`, `assign`,
//! `zip_map_inplace`), ranked and dynamic, and their typed errors; and the
//! `_into` twins of the gathers, `argmax_axis` and `softmax_axis` write into
//! the caller's tensor without any allocation, an exclusive mutable view as
//! their input too. A dynamic view holds its axes inline (at most 32,
//! `MAX_DYN_RANK`): it is `Copy`, and no transform of it allocates at any
//! rank up to 32; a 33rd axis is a typed error, not a heap allocation.
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
    assert_eq!(error.unwrap_err(), Error::NonContiguousReshape);
    let (error, count) = allocations(|| view.permute(black_box([0, 0, 1, 2])));
    assert_eq!(count, 0);
    assert_eq!(error.unwrap_err(), Error::DuplicateAxis { axis: 0 });
    let (error, count) = allocations(|| view.slice(black_box(3), black_box(2..9)));
    assert_eq!(count, 0);
    assert_eq!(
        error.unwrap_err(),
        Error::SliceEndOutOfBounds {
            op: "slice",
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

// ---- the view operations beyond reshape / transpose / permute / slice ----

/// A `[B, T, 3C]` = `[2, 3, 12]` packed projection (C = 4, two heads of 2).
fn packed() -> Tensor<3> {
    Tensor::from_fn([2, 3, 12], |[b, t, c]| (100 * b + 10 * t + c) as f64).expect("72 values")
}

#[test]
fn ranked_view_operations_do_not_allocate() {
    let source = packed();
    let view = source.view();
    let (q, count) = allocations(|| view.chunk::<3>(black_box(2)).map(|[q, _, _]| q));
    assert_eq!(count, 0, "chunk");
    let q = q.expect("12 splits into 3");
    let (heads, count) = allocations(|| q.split_axis(black_box(2), black_box([2, 2])));
    assert_eq!(count, 0, "split_axis");
    let heads = heads.expect("4 = 2 * 2");
    assert_eq!(
        (heads.shape(), heads.strides()),
        (&[2, 3, 2, 2], &[36, 12, 2, 1])
    );
    let (merged, count) = allocations(|| heads.merge_axes(black_box(2)));
    assert_eq!(count, 0, "merge_axes");
    assert_eq!(merged.expect("chained").shape(), &[2, 3, 4]);
    let (strided, count) = allocations(|| q.reshape_strided(black_box([2, 3, 2, 2])));
    assert_eq!(count, 0, "reshape_strided");
    assert_eq!(strided.expect("splits only").strides(), heads.strides());
    let (refused, count) = allocations(|| {
        heads
            .transpose(1, 2)
            .and_then(|v| v.reshape_strided([2, 12]))
    });
    assert_eq!(count, 0, "reshape_strided refused");
    assert!(refused.is_err());
    let (unsqueezed, count) = allocations(|| view.unsqueeze(black_box(1)));
    assert_eq!(count, 0, "unsqueeze");
    let unsqueezed = unsqueezed.expect("axis 1 of 0..=3");
    let (squeezed, count) = allocations(|| unsqueezed.squeeze(black_box(1)));
    assert_eq!(count, 0, "squeeze");
    assert_eq!(squeezed.expect("extent 1").shape(), view.shape());
    let (last, count) = allocations(|| view.select(black_box(1), black_box(2)));
    assert_eq!(count, 0, "select");
    assert_eq!(last.expect("t = 2").get([1, 5]).copied(), Ok(125.0));
    let bias = Tensor::from_fn([12], |[c]| c as f64).expect("12 values");
    let (wide, count) = allocations(|| bias.view().broadcast_to(black_box([2, 3, 12])));
    assert_eq!(count, 0, "broadcast_to");
    assert_eq!(wide.expect("compatible").strides(), &[0, 0, 1]);
    let (odd, count) =
        allocations(|| view.slice_step(black_box(2), black_box(1..12), black_box(2)));
    assert_eq!(count, 0, "slice_step");
    assert_eq!(odd.expect("in range").shape(), &[2, 3, 6]);
    let (halves, count) = allocations(|| view.split_at(black_box(1), black_box(1)));
    assert_eq!(count, 0, "split_at");
    assert_eq!(halves.expect("in range").1.shape(), &[2, 2, 12]);
}

#[test]
fn axis_iterators_do_not_allocate() {
    let source = packed();
    let view = source.view();
    let (rows, count) = allocations(|| {
        let mut items = view.axis_iter(black_box(1))?;
        let first = items.next().map(|row| row.base_offset());
        let last = items.next_back().map(|row| row.base_offset());
        Ok::<_, Error>((first, last, items.len()))
    });
    assert_eq!(count, 0, "axis_iter, next, next_back");
    assert_eq!(rows.expect("axis 1"), (Some(0), Some(24), 1));
    let (batches, count) = allocations(|| {
        view.outer_iter()
            .map(|items| items.map(|b| b.len()).sum::<usize>())
    });
    assert_eq!((count, batches), (0, Ok(72)), "outer_iter");
    let (widths, count) = allocations(|| {
        view.axis_chunks_iter(black_box(2), black_box(5))
            .map(|items| {
                items
                    .rev()
                    .map(|c| c.shape()[2])
                    .fold(0, |acc, w| 10 * acc + w)
            })
    });
    assert_eq!(
        (count, widths),
        (0, Ok(255)),
        "axis_chunks_iter, from the back"
    );
    let dynamic = source.view().into_dyn();
    let (sum, count) = allocations(|| {
        dynamic
            .axis_iter(2)
            .map(|items| items.map(|column| column.base_offset()).sum::<usize>())
    });
    assert_eq!((count, sum), (0, Ok(66)), "dynamic axis_iter");
    let (chunks, count) = allocations(|| dynamic.axis_chunks_iter(0, 1).map(|items| items.len()));
    assert_eq!((count, chunks), (0, Ok(2)), "dynamic axis_chunks_iter");
}

#[test]
fn dynamic_view_operations_do_not_allocate() {
    let source = packed().into_dyn();
    let view = source.view();
    let (chain, count) = allocations(|| {
        let [q, _, _] = view.chunk::<3>(2)?;
        let heads = q.split_axis(2, black_box([2, 2]))?.permute(&[0, 2, 1, 3])?;
        let back = heads
            .transpose(1, 2)?
            .merge_axes(2)?
            .reshape_strided(black_box(&[6, 4]))?;
        let unit = back.unsqueeze(0)?.squeeze(0)?.select(0, 5)?;
        let bias = unit
            .broadcast_to(black_box(&[3, 4]))?
            .slice_step(1, 0..4, 3)?;
        let (left, _) = bias.split_at(0, 1)?;
        Ok::<_, Error>(left)
    });
    assert_eq!(count, 0, "dynamic chain of every view operation");
    let left = chain.expect("valid chain");
    assert_eq!((left.shape(), left.strides()), (&[1, 2][..], &[0, 3][..]));
    assert_eq!(left.get(&[0, 1]).copied(), Ok(123.0));
}

#[test]
fn mutable_views_write_without_allocating() {
    let mut cache = Tensor::<3>::zeros([2, 4, 3]).expect("24 zeros"); // [H, T, D]
    let row = Tensor::from_vec([3], vec![1.0, 2.0, 3.0]).expect("3 values");
    let step = Tensor::from_vec([2, 3], vec![4.0, 5.0, 6.0, 7.0, 8.0, 9.0]).expect("6 values");
    let (result, count) = allocations(|| {
        let mut all = cache.view_mut();
        all.reborrow().select(1, 0)?.assign(&row)?; // [3] broadcast to [H, D]
        all.reborrow().select(1, 1)?.assign(&step)?;
        all.reborrow().slice(1, 2..4)?.fill(-1.0);
        all.reborrow().map_inplace(|x| x * 2.0);
        all.reborrow().zip_map_inplace(&row, |x, r| x + r)?;
        let (mut first, mut rest) = all.reborrow().split_at(0, 1)?;
        first.set([0, 3, 2], 0.5)?;
        rest.fill(0.0);
        let [mut a, _, _] = all.reborrow().chunk::<3>(2)?;
        a.fill(9.0);
        let mut heads = all.reborrow().axis_iter(0)?;
        heads.next_back().expect("two heads").fill(3.0);
        let mut blocks = all.reborrow().axis_chunks_iter(1, 3)?;
        blocks.next().expect("one block").set([0, 0, 1], 7.0)?;
        let merged = all
            .reborrow()
            .merge_axes(0)?
            .split_axis(0, [2, 4])?
            .unsqueeze(0)?
            .squeeze(0)?;
        merged
            .reshape_strided([8, 3])?
            .slice_step(0, 0..8, 4)?
            .get([1, 1])
    });
    assert_eq!(count, 0, "view_mut, transforms, pieces and writes");
    assert_eq!(result, Ok(3.0));
    assert_eq!(cache.get([0, 0, 1]).copied(), Ok(7.0));
    assert_eq!(cache.get([0, 3, 2]).copied(), Ok(0.5));
    assert_eq!(cache.get([0, 1, 0]).copied(), Ok(9.0));

    let mut dynamic = Tensor::<3>::zeros([2, 4, 3]).expect("24 zeros").into_dyn();
    let row = row.into_dyn();
    let (result, count) = allocations(|| {
        let mut all = dynamic.view_mut();
        all.reborrow().select(1, 0)?.assign(&row.view())?;
        all.reborrow().fill(1.0);
        all.reborrow().map_inplace(|x| x + 1.0);
        all.reborrow().zip_map_inplace(&row.view(), |x, r| x * r)?;
        let (_, mut rest) = all.reborrow().split_at(1, 2)?;
        rest.set(&[1, 1, 2], -5.0)?;
        let mut heads = all.reborrow().axis_iter(0)?;
        heads.next().expect("two heads").slice(0, 3..4)?.fill(8.0);
        all.get(&[1, 3, 2])
    });
    assert_eq!(count, 0, "dynamic view_mut, transforms, pieces and writes");
    assert_eq!(result, Ok(-5.0));
    assert_eq!(dynamic.get(&[0, 3, 1]).copied(), Ok(8.0));
}

#[test]
fn a_dynamic_view_is_copy_and_never_allocates_up_to_rank_32() {
    let source = owner().into_dyn(); // [2, 3, 4, 5]
    let view = source.view();
    let (copies, count) = allocations(|| {
        let first = black_box(view); // a copy: `view` stays usable
        let second = first;
        (first.base_offset(), second.rank(), view.len())
    });
    assert_eq!((copies, count), ((0, 4, 120), 0), "copies of a DynView");
    let mut shape = [1_usize; 32];
    shape[28..].copy_from_slice(&[2, 3, 4, 5]); // rank 32
    let (chain, count) = allocations(|| {
        let wide = view.reshape(black_box(&shape[..]))?;
        let reversed: [usize; 32] = std::array::from_fn(|k| 31 - k);
        let back = wide.permute(black_box(&reversed[..]))?; // [5, 4, 3, 2, 1, ..]
        let picked = back
            .transpose(0, 31)?
            .transpose(31, 0)?
            .slice(1, 1..3)? // c in 1..3
            .slice_step(2, 0..3, 2)? // b in {0, 2}
            .select(0, 4)? // d = 4: rank 31, [c, b, a, 1, ..]
            .unsqueeze(0)? // rank 32
            .squeeze(0)?
            .split_axis(0, [1, 2])? // rank 32
            .merge_axes(0)?
            .reshape_strided(black_box(&[2, 2, 2][..]))?; // [c, b, a]
        let [left, _] = picked.chunk::<2>(0)?;
        let (top, _) = wide.split_at(28, 1)?;
        let rows = wide
            .axis_iter(30)?
            .rev()
            .map(|p| p.base_offset())
            .sum::<usize>();
        let copied = picked; // still a copy
        Ok::<_, Error>((left, copied, top.len(), rows))
    });
    assert_eq!(count, 0, "rank-32 dynamic transforms, copies and pieces");
    let (left, copied, top, rows) = chain.expect("valid chain");
    assert_eq!(
        (left.shape(), copied.shape()),
        (&[1, 2, 2][..], &[2, 2, 2][..])
    );
    assert_eq!(copied.get(&[1, 1, 1]).copied(), Ok(1224.0));
    assert_eq!((top, rows), (60, 5 + 10 + 15));
    let mut longer = shape.to_vec();
    longer.push(1);
    let (refused, count) = allocations(|| {
        [
            view.reshape(black_box(&longer[..])).err(),
            view.reshape(black_box(&shape[..]))
                .and_then(|wide| wide.unsqueeze(32))
                .err(),
        ]
    });
    assert_eq!(count, 0, "a 33rd axis is refused without allocating");
    assert_eq!(
        refused,
        [
            Some(Error::RankTooLarge {
                op: "reshape",
                rank: 33,
                maximum: 32
            }),
            Some(Error::RankTooLarge {
                op: "unsqueeze",
                rank: 33,
                maximum: 32
            }),
        ]
    );
}

#[test]
fn an_exclusive_mutable_view_is_an_operand_without_allocating() {
    let mut source = packed(); // [2, 3, 12]
    let mut picked = Tensor::<3>::zeros([2, 12, 2]).expect("small");
    let mut probabilities = Tensor::<3>::zeros([2, 12, 3]).expect("small");
    let mut positions = Tensor::<2, usize>::zeros([2, 12]).expect("small");
    let (result, count) = allocations(|| {
        let mut x = source.view_mut().transpose(1, 2)?; // [2, 12, 3]
        x.map_inplace(|v| v / 100.0);
        index_select_into(&x, 2, black_box(&[2, 0]), &mut picked)?;
        softmax_axis_into(&x, 2, &mut probabilities)?;
        argmax_axis_into(&x, 2, RemoveDim, &mut positions)?;
        let cells = x.into_cells();
        let (_, mut last) = cells.split_at(2, 2)?;
        last.set([1, 11, 0], -1.0)?;
        last.get([0, 0, 0])
    });
    assert_eq!(count, 0, "a ViewMut as the input of the _into ops");
    assert_eq!(result, Ok(0.2));
    assert_eq!(picked.get([1, 11, 0]).copied(), Ok(1.31));
    assert!(positions.as_slice().iter().all(|&p| p == 2));
    assert_eq!(source.get([1, 2, 11]).copied(), Ok(-1.0));
}

#[test]
fn rejected_view_operations_do_not_allocate() {
    let source = packed();
    let view = source.view();
    let (errors, count) = allocations(|| {
        [
            view.split_axis(black_box(2), [5, 2]).err(),
            view.transpose(0, 2).and_then(|t| t.merge_axes(0)).err(),
            view.squeeze(black_box(0)).err(),
            view.select(1, black_box(3)).err(),
            view.slice_step(2, 0..4, black_box(0)).err(),
            view.chunk::<5>(2).err(),
            view.axis_chunks_iter(1, black_box(0)).err(),
            view.unsqueeze(black_box(4)).err(),
        ]
    });
    assert_eq!(count, 0, "typed errors carry numbers, not strings");
    assert!(errors.iter().all(Option::is_some));
    let mut owner = packed();
    let wrong = Tensor::from_vec([5], vec![0.0; 5]).expect("5 values");
    let (error, count) = allocations(|| owner.view_mut().assign(&wrong));
    assert_eq!(count, 0, "a refused assign");
    assert!(error.is_err());
}
