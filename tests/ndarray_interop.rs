//! Views to ndarray and back (feature `ndarray`): the same storage (pointer
//! equality, so no copy), the same shape and strides, and every value equal
//! coordinate by coordinate, for transposed, permuted, sliced, stepped,
//! broadcast, empty and scalar layouts of ranks 0 to 6 and dynamic; and
//! the typed errors for what safe code cannot borrow.
//!
//! `cargo test --features ndarray --test ndarray_interop`

use llm_from_scratch::Error;
use llm_from_scratch::prelude::{RemoveDim, sum_axis};
use llm_from_scratch::tensor::dynamic::{DynTensor, DynView};
use llm_from_scratch::tensor::{Tensor, View};
use ndarray::{Array, ArrayView, ArrayViewD, Axis, Dim, Dimension, IxDyn, ShapeBuilder, s};

/// Every coordinate of `shape` in row-major order.
fn coordinates(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut all = vec![vec![]];
    for &extent in shape {
        all = all
            .into_iter()
            .flat_map(|prefix| {
                (0..extent).map(move |i| {
                    let mut index = prefix.clone();
                    index.push(i);
                    index
                })
            })
            .collect();
    }
    all
}

/// The storage address of the value at `index` of `view`.
fn address<T>(view: &DynView<'_, T>, index: &[usize]) -> *const T {
    view.get(index).expect("index in range")
}

/// `ours` and `theirs` show the same values at the same addresses, with the same shape.
fn assert_same<T: PartialEq + std::fmt::Debug>(ours: &DynView<'_, T>, theirs: &ArrayViewD<'_, T>) {
    assert_eq!(ours.shape(), theirs.shape());
    for index in coordinates(ours.shape()) {
        let theirs_value = &theirs[IxDyn(&index)];
        assert_eq!(ours.get(&index).unwrap(), theirs_value, "at {index:?}");
        assert_eq!(
            address(ours, &index),
            theirs_value as *const T,
            "at {index:?}: not the same storage"
        );
    }
}

/// The model of what safe code can borrow back from ndarray: the distinct
/// storage offsets a (non-overlapping or broadcast) view reads form one
/// dense range.
fn dense_in_memory<T>(view: &DynView<'_, T>) -> bool {
    let mut offsets: Vec<usize> = view.offsets().collect();
    offsets.sort_unstable();
    offsets.dedup();
    match (offsets.first(), offsets.last()) {
        (Some(first), Some(last)) => last - first + 1 == offsets.len(),
        _ => true,
    }
}

/// A view of ours to ndarray (always: same strides, same values at the same
/// addresses) and back (exactly when the model says the storage is one
/// dense range; else `NotContiguousInMemory` naming ndarray's layout).
fn round_trip(view: DynView<'_, f64>) -> bool {
    let theirs = view.to_ndarray().unwrap();
    assert_same(&view, &theirs);
    if !view.is_empty() {
        let strides: Vec<isize> = view.strides().iter().map(|&s| s as isize).collect();
        assert_eq!(theirs.strides(), strides.as_slice());
    }
    match DynView::try_from(theirs.clone()) {
        Ok(back) => {
            assert!(dense_in_memory(&view), "{:?} came back", view.strides());
            assert_same(&back, &theirs);
            if !view.is_empty() {
                assert_eq!(back.strides(), view.strides());
            }
            true
        }
        Err(error) => {
            assert!(!dense_in_memory(&view), "{:?}: {error}", view.strides());
            assert_eq!(
                error,
                Error::NotContiguousInMemory {
                    shape: theirs.shape().to_vec(),
                    strides: theirs.strides().to_vec()
                }
            );
            false
        }
    }
}

fn owner(shape: &[usize]) -> DynTensor {
    DynTensor::from_fn(shape.to_vec(), |index| {
        index.iter().fold(0.0, |acc, &i| 10.0 * acc + i as f64)
    })
    .unwrap()
}

#[test]
fn every_permutation_slice_and_step_of_a_rank_3_view_round_trips() {
    let t = owner(&[3, 4, 5]);
    let permutations = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let (mut back, mut refused) = (0, 0);
    for axes in permutations {
        let permuted = t.view().permute(&axes).unwrap();
        let mut views = vec![permuted];
        for axis in 0..3 {
            let extent = permuted.shape()[axis];
            for (start, end, step) in [(0, extent, 1), (1, extent, 1), (0, extent, 2), (1, 2, 1)] {
                views.push(permuted.slice_step(axis, start..end, step).unwrap());
            }
            views.push(permuted.select(axis, extent - 1).unwrap());
            views.push(permuted.unsqueeze(axis).unwrap());
        }
        for view in views {
            if round_trip(view) {
                back += 1;
            } else {
                refused += 1;
            }
        }
    }
    // Both outcomes are exercised: permutations come back, column blocks do not.
    assert_eq!(back + refused, 6 * (1 + 3 * 6));
    assert!(back >= 6 && refused >= 6, "{back} back, {refused} refused");
}

/// A tensor whose value at `[i, j, ..]` is the number `ij..` (digits of its coordinate).
fn numbered<const R: usize>(shape: [usize; R]) -> Tensor<R> {
    Tensor::from_fn(shape, |index| {
        index.iter().fold(0.0, |acc, &i| 10.0 * acc + i as f64)
    })
    .unwrap()
}

/// A ranked view to `ArrayView<Dim<[usize; R]>>` and back (it is dense in
/// memory), by method and by `TryFrom`.
fn ranked_round_trip<const R: usize>(view: View<'_, R>)
where
    Dim<[usize; R]>: Dimension,
{
    assert!(dense_in_memory(&view.into_dyn()));
    let theirs: ArrayView<'_, f64, Dim<[usize; R]>> = view.to_ndarray().unwrap();
    assert_eq!(theirs.ndim(), R);
    assert_same(&view.into_dyn(), &theirs.into_dyn());
    let back = View::try_from(theirs).unwrap();
    assert_eq!(
        (back.shape(), back.strides()),
        (view.shape(), view.strides())
    );
    assert!(back.iter().eq(view.iter()));
    let via_try_from: ArrayView<'_, f64, Dim<[usize; R]>> = view.try_into().unwrap();
    assert_eq!(via_try_from.as_ptr(), theirs.as_ptr());
}

#[test]
fn ranked_views_of_ranks_0_to_6_keep_their_rank_and_strides() {
    let (r0, r1, r2) = (numbered([]), numbered([5]), numbered([3, 4]));
    let (r3, r4) = (numbered([2, 3, 4]), numbered([2, 1, 3, 2]));
    let (r5, r6) = (numbered([2, 2, 1, 3, 2]), numbered([2, 1, 3, 2, 1, 2]));
    ranked_round_trip(r0.view());
    ranked_round_trip(r1.view().slice(0, 1..4).unwrap());
    ranked_round_trip(r2.view().transpose(0, 1).unwrap());
    ranked_round_trip(
        r3.view()
            .permute([2, 0, 1])
            .unwrap()
            .slice(1, 1..2)
            .unwrap(),
    );
    ranked_round_trip(r4.view().permute([3, 2, 0, 1]).unwrap());
    ranked_round_trip(
        r5.view()
            .slice(0, 1..2)
            .unwrap()
            .broadcast_to([3, 1, 2, 1, 3, 2])
            .unwrap()
            .select(1, 0)
            .unwrap(),
    );
    ranked_round_trip(r6.view().transpose(0, 5).unwrap());
    // Ranks 7 and 8 go through the dynamic view.
    let r8 = DynTensor::zeros(vec![2; 8]).unwrap();
    assert!(round_trip(r8.view().transpose(0, 7).unwrap()));
}

#[test]
fn broadcast_views_go_both_ways_without_a_copy() {
    let bias = Tensor::from_vec([3], vec![1.0, 2.0, 3.0]).unwrap();
    let wide = bias.view().broadcast_to([4, 2, 3]).unwrap(); // strides [0, 0, 1]
    let theirs = wide.to_ndarray().unwrap();
    assert_eq!(theirs.strides(), &[0, 0, 1]);
    assert_same(&wide.into_dyn(), &theirs.into_dyn());

    // ndarray's own broadcast of a transposed column: strides [0, 2] over [3, 2] storage.
    let a = Array::from_shape_vec((3, 2), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let rows = a.t(); // [2, 3], strides [1, 2]
    let stretched = rows.broadcast((4, 2, 3)).unwrap(); // strides [0, 1, 2]
    let ours = View::try_from(stretched).unwrap();
    assert_eq!(ours.strides(), &[0, 1, 2]);
    assert_same(&ours.into_dyn(), &stretched.into_dyn());

    // A scalar repeated everywhere: every axis has stride 0.
    let one = Array::from_elem((), 5.0);
    let everywhere = one.broadcast((2, 3)).unwrap();
    let ours = View::try_from(everywhere).unwrap();
    assert_eq!((ours.strides(), ours.storage().len()), (&[0, 0], 1));
    assert!(ours.iter().all(|&x| x == 5.0));
}

#[test]
fn empty_and_scalar_views_convert_both_ways() {
    let data = [1.0, 2.0, 3.0];
    for shape in [vec![0], vec![2, 0, 3], vec![0, 0], vec![3, 0]] {
        let strides = vec![1; shape.len()];
        let empty = DynView::from_parts(&data, shape.clone(), strides, 3).unwrap();
        let theirs = empty.to_ndarray().unwrap();
        assert_eq!((theirs.shape(), theirs.len()), (shape.as_slice(), 0));
        let back = DynView::try_from(theirs).unwrap();
        assert_eq!((back.shape(), back.len()), (shape.as_slice(), 0));
    }
    // ndarray's empty views with negative strides are fine: nothing is read.
    let a = Array::<f64, _>::zeros((0, 3));
    let reversed = a.slice(s![.., ..;-1]);
    assert_eq!(View::try_from(reversed).unwrap().shape(), &[0, 3]);

    let scalar = DynTensor::from_vec(vec![], vec![4.5]).unwrap();
    assert!(round_trip(scalar.view()));
    let from_ndarray = Array::from_elem((), 4.5);
    let ours = View::try_from(from_ndarray.view()).unwrap();
    assert_eq!(ours.get([]).unwrap(), &4.5);
}

#[test]
fn ndarray_layouts_that_safe_code_cannot_borrow_are_typed_errors() {
    let a = Array::from_shape_vec((3, 4), (0..12).map(f64::from).collect()).unwrap();
    // A column block and a stepped slice skip memory between their elements.
    for skipping in [a.slice(s![.., 1..3]), a.slice(s![..;2, ..])] {
        let shape = skipping.shape().to_vec();
        let strides = skipping.strides().to_vec();
        assert_eq!(
            View::try_from(skipping).unwrap_err(),
            Error::NotContiguousInMemory { shape, strides }
        );
    }
    // A reversed axis: strides here are usize.
    let mut reversed = a.view();
    reversed.invert_axis(Axis(1));
    assert_eq!(
        View::try_from(reversed).unwrap_err(),
        Error::NegativeStride {
            axis: 1,
            stride: -1
        }
    );
    // The first reversed axis is named, before any contiguity problem.
    let both = a.slice(s![..;-1, ..;-2]);
    assert_eq!(
        DynView::try_from(both.into_dyn()).unwrap_err(),
        Error::NegativeStride {
            axis: 0,
            stride: -4
        }
    );
    // A reversed unit axis is never stepped along: accepted, stride 0.
    let values: Vec<f64> = (0..12).map(f64::from).collect();
    let row = ArrayView::from_shape((1, 4).strides((-4_isize as usize, 1)), &values[4..]).unwrap();
    assert_eq!(row.strides(), &[-4, 1]);
    let ours = View::try_from(row).unwrap();
    assert_eq!((ours.strides(), ours.get([0, 3]).unwrap()), (&[0, 1], &7.0));
}

#[test]
fn layouts_beyond_ndarrays_limits_are_typed_errors() {
    // 2^63 elements by broadcasting one value: fine here, above isize::MAX for ndarray.
    let one = Tensor::from_vec([1], vec![1.0]).unwrap();
    let huge = one.view().broadcast_to([1 << 61, 4]).unwrap();
    assert_eq!(huge.len(), 1 << 63);
    assert_eq!(
        huge.to_ndarray().unwrap_err(),
        Error::NdarrayLimitExceeded {
            shape: vec![1 << 61, 4],
            strides: vec![0, 0]
        }
    );
    // An empty [usize::MAX, 0]: ndarray counts the non-zero extents.
    let empty = View::<2>::from_parts(&[], [usize::MAX, 0], [0, 1], 0).unwrap();
    assert!(matches!(
        empty.to_ndarray(),
        Err(Error::NdarrayLimitExceeded { .. })
    ));
    // A unit axis whose stride does not fit in isize: never stepped, so 0 there.
    let data = [1.0, 2.0];
    let odd = View::from_parts(&data, [1, 2], [usize::MAX, 1], 0).unwrap();
    let theirs = odd.to_ndarray().unwrap();
    assert_eq!(theirs.strides(), &[0, 1]);
    assert_eq!(theirs.iter().copied().collect::<Vec<_>>(), [1.0, 2.0]);
}

#[test]
fn mutable_views_write_what_ndarray_then_reads() {
    // A KV-cache position written in place, read through ndarray without a copy.
    let mut cache = Tensor::<3>::zeros([2, 4, 3]).unwrap();
    let new_kv = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let mut slot = cache.view_mut().select(1, 2).unwrap(); // [H, D], position 2
    slot.assign(&new_kv).unwrap();
    // The exclusive mutable view is an operand as it is, and its read-only
    // view goes to ndarray: both read what was just written, without a copy.
    assert_eq!(
        sum_axis(&slot, 1, RemoveDim).unwrap().as_slice(),
        &[6.0, 15.0]
    );
    assert_eq!(
        slot.view().to_ndarray().unwrap(),
        ndarray::arr2(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    );
    let theirs = cache.view().to_ndarray().unwrap();
    assert_eq!(
        theirs.slice(s![.., 2, ..]),
        ndarray::arr2(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    );
    assert_eq!(theirs.sum(), 21.0);
}
