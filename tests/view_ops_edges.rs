//! Edge cases of the zero-copy view operations that a random model rarely
//! reaches: empty views whose strides or base offset are huge (their
//! strides are never used, so no transform may fail on them), extents and
//! arguments at `usize::MAX`, ranks at the ends of the typed table and at
//! the dynamic views' limit of 32 axes. Each test names the rule it pins.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::{DynTensor, DynView};

type TestResult = Result<(), Error>;

const HUGE: usize = usize::MAX;

/// An empty `[0, 4]` view over no data whose second stride is `usize::MAX`
/// (`from_parts` accepts it: an empty view reaches no offset).
fn empty_with_huge_stride() -> View<'static, 2> {
    View::from_parts(&[], [0, 4], [1, HUGE], 0).expect("an empty view is always in bounds")
}

/// Rule: an empty view's strides are never used, so a transform that scales
/// a stride (split_axis, slice_step) cannot overflow on one; every view
/// operation on such a view succeeds, as chunk, merge_axes and
/// reshape_strided already did. (Found by this suite: split_axis and
/// slice_step returned `ShapeOverflow` here.)
#[test]
fn transforms_of_an_empty_view_ignore_its_unused_strides() -> TestResult {
    let empty = empty_with_huge_stride();
    let split = empty.split_axis(1, [2, 2])?;
    assert_eq!((split.shape(), split.len()), (&[0, 2, 2], 0));
    let stepped = empty.slice_step(1, 0..4, 2)?;
    assert_eq!((stepped.shape(), stepped.len()), (&[0, 2], 0));
    assert_eq!(empty.chunk::<2>(1)?[1].shape(), &[0, 2]);
    assert_eq!(empty.merge_axes(0)?.shape(), &[0]);
    assert_eq!(empty.unsqueeze(2)?.shape(), &[0, 4, 1]);
    assert_eq!(empty.reshape_strided([2, 0, 2])?.shape(), &[2, 0, 2]);
    assert_eq!(empty.axis_iter(1)?.len(), 4);
    assert_eq!(empty.axis_chunks_iter(1, 3)?.len(), 2);
    // The dynamic view follows the same layout code.
    let dynamic = DynView::<f64>::from_parts(&[], vec![0, 4], vec![1, HUGE], 0)?;
    assert_eq!(dynamic.split_axis(1, [2, 2])?.shape(), &[0, 2, 2]);
    assert_eq!(dynamic.slice_step(1, 1..4, 2)?.shape(), &[0, 2]);
    Ok(())
}

/// Rule: merge_axes is reshape_strided to the merged shape, so on an empty
/// view (whose strides are never used) it succeeds whatever the strides of
/// the two axes, as reshape_strided does. (Found by this suite: it returned
/// `NonMergeableAxes` for the transposed axes of an empty `[0, 2, 3]`.)
#[test]
fn merge_axes_of_an_empty_view_agrees_with_reshape_strided() -> TestResult {
    let owner = Tensor::<3>::zeros([0, 3, 2])?;
    let transposed = owner.view().transpose(1, 2)?; // [0, 2, 3], strides [6, 1, 2]
    assert_eq!(transposed.reshape_strided([0, 6])?.shape(), &[0, 6]);
    assert_eq!(transposed.merge_axes(1)?.shape(), &[0, 6]);
    let dynamic = DynTensor::<f64>::zeros(vec![0, 3, 2])?;
    assert_eq!(
        dynamic.view().transpose(1, 2)?.merge_axes(1)?.shape(),
        &[0, 6]
    );
    // A non-empty transposed pair is still refused.
    let full = Tensor::<2>::zeros([3, 2])?;
    assert!(full.view().transpose(0, 1)?.merge_axes(0).is_err());
    Ok(())
}

/// Rule: a write into an empty view writes nothing and succeeds, whatever its
/// shape; only an incompatible source is an error. (Found by this suite:
/// `assign` into the permuted empty `[0, 3, usize::MAX / 2]` returned
/// `ShapeOverflow`, because the source was broadcast to a fresh row-major
/// layout of that shape, which does not exist; `fill` already succeeded.)
#[test]
fn writes_into_an_empty_view_of_any_shape_succeed() -> TestResult {
    let scalar = Tensor::from_vec([], vec![1.0])?;
    let mut owner = Tensor::<3>::zeros([HUGE / 2, 3, 0])?;
    let mut empty = owner.view_mut().permute([2, 1, 0])?; // [0, 3, usize::MAX / 2]
    empty.assign(&scalar)?;
    empty.zip_map_inplace(&scalar, |x, s| x + s)?;
    empty.fill(2.0);
    let wrong = Tensor::from_vec([2], vec![1.0, 2.0])?;
    assert_eq!(
        empty.assign(&wrong),
        Err(Error::IncompatibleBroadcast {
            op: "assign",
            axis: 2,
            left_dimension: 2,
            right_dimension: HUGE / 2
        })
    );
    let mut dynamic = DynTensor::<f64>::zeros(vec![HUGE / 2, 3, 0])?;
    let mut empty = dynamic.view_mut().permute(&[2, 1, 0])?;
    empty.assign(&scalar.view().into_dyn())?;
    empty.zip_map_inplace(&scalar.view().into_dyn(), |x, s| x + s)?;
    Ok(())
}

/// Rule: every refusal names the axes and the numbers that made it fail.
/// A refused merge carries both extents and strides; a refused
/// reshape_strided names the run of chained axes (PyTorch's view rule) that
/// the requested axes do not cover exactly, and its element count.
#[test]
fn refused_merges_and_strided_reshapes_name_their_axes_and_extents() -> TestResult {
    let owner = Tensor::from_fn([2, 3, 4], |[a, b, c]| (100 * a + 10 * b + c) as f64)?;
    let swapped = owner.view().transpose(1, 2)?; // [2, 4, 3], strides [12, 1, 4]
    let error = swapped.merge_axes(1).unwrap_err();
    assert_eq!(
        error,
        Error::NonMergeableAxes {
            axis: 1,
            extents: [4, 3],
            strides: [1, 4]
        }
    );
    assert_eq!(
        error.to_string(),
        "merge_axes: axes 1 and 2 (extents [4, 3], strides [1, 4]) are not adjacent in memory: \
         stride 1 is not 4 * 3; materialize() first"
    );
    // Runs from the right: axis 2 (3 elements, stride 4), axis 1 (4, stride
    // 1), axis 0 (2, stride 12, which chains to nothing of axis 1's run).
    let error = swapped.reshape_strided([2, 12]).unwrap_err();
    assert_eq!(
        error,
        Error::NonStrideCompatibleReshape {
            axes: [2, 2],
            elements: 3
        }
    );
    assert_eq!(
        error.to_string(),
        "reshape_strided: axes 2..=2 of the view are one run of 3 elements in memory, and no run \
         of consecutive requested axes holds exactly 3 (PyTorch's view rule); materialize() first"
    );
    // [2, 4, 3] -> [8, 3]: axis 2 is covered by the new axis of 3, then the
    // run of axis 1 (4 elements) is overshot by the new axis of 8.
    assert_eq!(
        swapped.reshape_strided([8, 3]).unwrap_err(),
        Error::NonStrideCompatibleReshape {
            axes: [1, 1],
            elements: 4
        }
    );
    // The dynamic view reports the same.
    let dynamic = owner.view().into_dyn().transpose(1, 2)?;
    assert_eq!(
        dynamic.reshape_strided(&[8, 3]).unwrap_err(),
        swapped.reshape_strided([8, 3]).unwrap_err()
    );
    assert_eq!(
        dynamic.merge_axes(1).unwrap_err(),
        swapped.merge_axes(1).unwrap_err()
    );
    Ok(())
}

/// Rule: the run a refused reshape_strided names does not depend on the
/// stride of an extent-1 axis (any stride is valid there): the run is named
/// by its first and last axes of extent above 1.
#[test]
fn a_refused_strided_reshape_names_the_same_run_whatever_unit_axes_carry() -> TestResult {
    let data: Vec<f64> = (0..6).map(f64::from).collect();
    // The transpose of a [2, 3] owner, [3, 2] with strides [1, 3], and a
    // trailing extent-1 axis whose stride chains (3) or does not (5).
    for unit_stride in [3, 5, 0] {
        let view = View::from_parts(&data, [3, 2, 1], [1, 3, unit_stride], 0)?;
        assert_eq!(
            view.reshape_strided([6, 1]).unwrap_err(),
            Error::NonStrideCompatibleReshape {
                axes: [1, 1],
                elements: 2
            },
            "unit stride {unit_stride}"
        );
    }
    Ok(())
}

/// Rule: an axis of extent 0 has no pieces, whatever the other extents.
/// (Found by this suite: `axis_iter` over the empty axis of `[0, 2^33,
/// 2^32]`, a permuted empty owner, overflowed computing the element count
/// of a piece it never yields: a panic in a debug build.)
#[test]
fn iterating_an_empty_axis_yields_nothing_whatever_the_other_extents() -> TestResult {
    let owner = Tensor::<3>::zeros([1 << 33, 1 << 32, 0])?;
    let view = owner.view().permute([2, 0, 1])?; // [0, 2^33, 2^32]
    assert_eq!(view.axis_iter(0)?.len(), 0);
    assert_eq!(
        view.outer_iter()?.next_back().map(|piece| piece.len()),
        None
    );
    assert_eq!(view.axis_chunks_iter(0, 2)?.len(), 0);
    let dynamic = owner.view().into_dyn().permute(&[2, 0, 1])?;
    assert_eq!(dynamic.axis_iter(0)?.len(), 0);
    // The other axes still iterate (their pieces are empty).
    assert_eq!(view.axis_iter(1)?.len(), 1 << 33);
    assert_eq!(
        view.axis_iter(1)?.next_back().map(|piece| *piece.shape()),
        Some([0, 1 << 32])
    );
    let mut owner = owner;
    assert_eq!(owner.view_mut().permute([2, 0, 1])?.axis_iter(0)?.len(), 0);
    Ok(())
}

/// Rule: a broadcast view may hold `usize::MAX` elements (one stored value
/// read that many times); copying it is a typed allocation error, not an
/// abort, and its iterators report the exact length.
#[test]
fn a_broadcast_of_usize_max_elements_fails_to_copy_with_a_typed_error() -> TestResult {
    let one = Tensor::from_vec([1], vec![4.0])?;
    let huge = one.view().broadcast_to([HUGE])?;
    assert_eq!(
        (huge.len(), huge.offsets().len(), huge.iter().len()),
        (HUGE, HUGE, HUGE)
    );
    assert_eq!(huge.get([HUGE - 1]).copied(), Ok(4.0));
    assert_eq!(
        huge.materialize().map(|_| ()),
        Err(Error::AllocationFailed {
            op: "materialize",
            elements: HUGE
        })
    );
    assert_eq!(huge.split_axis(0, [HUGE, 1])?.strides(), &[0, 0]);
    assert_eq!(huge.slice_step(0, 0..HUGE, HUGE / 2)?.shape(), &[3]);
    assert_eq!(
        one.view().broadcast_to([HUGE, 2]).unwrap_err(),
        Error::ShapeOverflow { op: "broadcast_to" }
    );
    Ok(())
}

/// Rule: dynamic views keep their axes inline, up to rank 32
/// (`MAX_DYN_RANK`); every view operation works the same at high ranks.
#[test]
fn dynamic_views_of_high_rank_take_every_operation() -> TestResult {
    let owner = DynTensor::from_fn(vec![2, 3, 4], |i| (100 * i[0] + 10 * i[1] + i[2]) as f64)?;
    let mut shape = vec![1; 11];
    shape.extend([2, 3, 4]); // rank 14
    let wide = owner.view().reshape_strided(&shape)?.transpose(11, 13)?; // [.., 4, 3, 2]
    assert_eq!(wide.rank(), 14);
    let split = wide.split_axis(11, [2, 2])?; // rank 15
    assert_eq!(split.get(&[0; 15]).copied(), Ok(0.0));
    let merged = split.merge_axes(11)?.squeeze(0)?.unsqueeze(12)?; // rank 14
    assert_eq!(merged.shape()[10..], [4, 3, 1, 2]);
    let mut target = vec![2];
    target.extend([1; 9]);
    target.extend([3, 1, 2]);
    let picked = merged.select(10, 3)?.broadcast_to(&target)?; // rank 13
    assert_eq!(picked.rank(), 13);
    assert_eq!(
        picked
            .get(&[1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1])
            .copied(),
        Ok(123.0)
    );
    let [left, right] = picked.chunk::<2>(0)?;
    assert_eq!((left.len(), right.base_offset()), (6, picked.base_offset()));
    assert_eq!(
        picked
            .axis_iter(10)?
            .rev()
            .map(|p| *p.get(&[0; 12]).unwrap())
            .collect::<Vec<_>>(),
        [23.0, 13.0, 3.0]
    );
    let mut copy = owner.clone();
    let mut view = copy.view_mut().reshape_strided(&shape)?;
    view.reborrow().select(12, 1)?.fill(-1.0);
    assert_eq!(copy.get(&[0, 1, 3]).copied(), Ok(-1.0));
    Ok(())
}

/// Rule: a dynamic view holds at most 32 axes (`MAX_DYN_RANK`, NumPy 1.x's
/// limit): every operation works at rank 32, and each request for a 33rd
/// axis (a shape, a reshape, a broadcast, unsqueeze, split_axis) is
/// `RankTooLarge`, naming the operation.
#[test]
fn dynamic_views_reach_rank_32_and_refuse_rank_33() -> TestResult {
    let too_large = |op| Error::RankTooLarge {
        op,
        rank: 33,
        maximum: 32,
    };
    let owner = DynTensor::from_fn(vec![2, 3, 4], |i| (100 * i[0] + 10 * i[1] + i[2]) as f64)?;
    let mut shape = vec![1; 29];
    shape.extend([2, 3, 4]); // rank 32
    let full = owner.view().reshape(&shape)?;
    assert_eq!(
        (full.rank(), full.strides()[28..].to_vec()),
        (32, vec![24, 12, 4, 1])
    );
    let mut last = vec![0; 32];
    last[29..].copy_from_slice(&[1, 2, 3]);
    assert_eq!(full.get(&last).copied(), Ok(123.0));
    // Every operation at rank 32.
    let reversed: Vec<usize> = (0..32).rev().collect();
    let back = full.permute(&reversed)?; // [4, 3, 2, 1, ..]
    assert_eq!(
        (back.shape()[..3].to_vec(), back.strides()[..3].to_vec()),
        (vec![4, 3, 2], vec![1, 4, 12])
    );
    let picked = back
        .slice(0, 1..3)?
        .slice_step(1, 0..3, 2)?
        .select(2, 1)?
        .unsqueeze(31)?;
    assert_eq!(
        (picked.rank(), picked.shape()[..2].to_vec()),
        (32, vec![2, 2])
    );
    assert_eq!(
        picked.materialize()?.as_slice(),
        &[101.0, 121.0, 102.0, 122.0]
    );
    let merged = full.merge_axes(30)?.split_axis(30, [3, 4])?; // 32 -> 31 -> 32
    assert_eq!(merged.shape(), full.shape());
    let [left, right] = full.chunk::<2>(29)?;
    assert_eq!((left.len(), right.base_offset()), (12, 12));
    let sums = sum_axis(&full, 31, false)?; // rank 31
    assert_eq!((sums.rank(), sums.as_slice()[5]), (31, 4.0 * 120.0 + 6.0));
    assert_eq!(
        full.axis_iter(30)?
            .rev()
            .map(|p| p.len())
            .collect::<Vec<_>>(),
        [8, 8, 8]
    );
    let mut copy = owner.clone();
    let mut view = copy.view_mut().reshape(&shape)?;
    view.reborrow().select(31, 1)?.fill(-1.0); // rank 31
    assert_eq!(view.get(&last[..])?, 123.0);
    assert_eq!(copy.get(&[1, 2, 1]).copied(), Ok(-1.0));
    // A 33rd axis.
    let mut longer = shape.clone();
    longer.insert(0, 1);
    assert_eq!(full.reshape(&longer).unwrap_err(), too_large("reshape"));
    assert_eq!(
        full.reshape_strided(&longer).unwrap_err(),
        too_large("reshape_strided")
    );
    assert_eq!(
        full.broadcast_to(&longer).unwrap_err(),
        too_large("broadcast_to")
    );
    assert_eq!(full.unsqueeze(0).unwrap_err(), too_large("unsqueeze"));
    assert_eq!(
        full.split_axis(31, [2, 2]).unwrap_err(),
        too_large("split_axis")
    );
    assert_eq!(
        DynTensor::<f64>::zeros(longer.clone()).unwrap_err(),
        too_large("zeros")
    );
    assert_eq!(
        DynTensor::from_vec(longer.clone(), vec![0.0; 24]).unwrap_err(),
        too_large("from_vec")
    );
    assert_eq!(
        DynView::from_slice(owner.as_slice(), &longer).unwrap_err(),
        too_large("from_slice")
    );
    assert_eq!(
        owner.clone().into_shape(longer).unwrap_err(),
        too_large("into_shape")
    );
    Ok(())
}

/// Rule: the typed ranks run from 0 to 8 (`MAX_RANK`) at both ends of the
/// `InsertAxis` / `RemoveAxis` / `RankAtMost` tables.
#[test]
fn ranked_view_operations_reach_both_ends_of_the_rank_table() -> TestResult {
    let scalar = Tensor::from_vec([], vec![7.0])?;
    let eight = scalar.view().broadcast_to([1, 2, 1, 2, 1, 2, 1, 2])?; // rank 0 -> 8
    assert_eq!((eight.len(), eight.strides()), (16, &[0; 8]));
    let seven = eight.select(7, 1)?.squeeze(0)?.merge_axes(0)?; // 8 -> 7 -> 6 ... -> 5
    assert_eq!(seven.shape(), &[2, 2, 1, 2, 1]);
    let back: View<'_, 8> = seven.unsqueeze(5)?.split_axis(0, [1, 2])?.unsqueeze(0)?; // 5 -> 8
    assert_eq!(back.shape(), &[1, 1, 2, 2, 1, 2, 1, 1]);
    let flat = back.reshape_strided([8])?; // every stride 0: one run
    assert_eq!((flat.strides(), flat.iter().sum::<f64>()), (&[0], 56.0));
    let mut owner = Tensor::<8>::zeros([1, 1, 2, 1, 1, 1, 1, 1])?;
    let mut column = owner
        .view_mut()
        .select(2, 1)?
        .squeeze(0)?
        .squeeze(0)?
        .squeeze(0)?
        .squeeze(0)?
        .squeeze(0)?
        .squeeze(0)?; // 8 -> 1
    column.fill(3.0);
    assert_eq!(owner.as_slice(), &[0.0, 3.0]);
    let scalar_mut = owner.view_mut().reshape_strided([2])?.select(0, 0)?; // rank 0
    assert_eq!(scalar_mut.get([]), Ok(0.0));
    Ok(())
}

/// `nth`, `nth_back`, `count` and `last` jump: on an axis of 2^60 indices
/// (a broadcast) they return at once, and agree with stepping on a small one.
#[test]
fn axis_iterators_jump_to_an_index() -> TestResult {
    let row = Tensor::from_vec([1, 4], vec![1.0, 2.0, 3.0, 4.0])?;
    let tall = row.view().broadcast_to([1 << 60, 4])?;
    let mut rows = tall.axis_iter(0)?;
    let far = rows.nth((1 << 60) - 2).map(|piece| piece.base_offset());
    assert_eq!((far, rows.len()), (Some(0), 1));
    assert_eq!(tall.axis_iter(0)?.count(), 1 << 60);
    let mut chunks = tall.axis_chunks_iter(0, 3)?;
    let last = chunks.nth_back(1).map(|piece| *piece.shape());
    assert_eq!(last, Some([3, 4]));
    assert_eq!(
        tall.axis_chunks_iter(0, 3)?.last().map(|p| p.shape()[0]),
        Some(1)
    );

    let owner = Tensor::from_vec([5, 2], (0..10).map(f64::from).collect())?;
    let firsts = |mut it: llm_from_scratch::tensor::AxisIter<View<'_, 1>>, n| {
        it.nth(n)
            .map(|p| p.as_contiguous_slice().map(<[f64]>::to_vec))
    };
    for n in 0..7 {
        // One `next` at a time: the walk `nth` must agree with.
        let mut walk = owner.view().axis_iter(0)?;
        for _ in 0..n {
            let _ = walk.next();
        }
        let stepped = walk
            .next()
            .map(|p| p.as_contiguous_slice().map(<[f64]>::to_vec));
        assert_eq!(firsts(owner.view().axis_iter(0)?, n), stepped);
        let back = owner
            .view()
            .axis_iter(0)?
            .nth_back(n)
            .map(|p| p.base_offset());
        let stepped_back = owner
            .view()
            .axis_iter(0)?
            .rev()
            .nth(n)
            .map(|p| p.base_offset());
        assert_eq!(back, stepped_back);
    }
    let mut both = owner.view().axis_iter(0)?;
    assert_eq!(both.nth(1).map(|p| p.base_offset()), Some(2));
    assert_eq!(both.nth_back(1).map(|p| p.base_offset()), Some(6));
    assert_eq!(both.len(), 1);
    assert!(both.nth(5).is_none() && both.next_back().is_none());
    Ok(())
}
