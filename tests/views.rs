//! Views of a `[2, 3]` owner, one test per claim: row-major strides,
//! reshape vs transpose, permute, slice, materialize, `copying_transpose`,
//! and the edge shapes (rank 0, zero extents, singleton axes, slices at the
//! end of an axis, views of views).

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::Axes3;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The example owner: shape `[2, 3]`, storage `[10, 11, 12, 20, 21, 22]`.
fn frozen() -> Tensor<2> {
    Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0]).expect("6 values fit [2, 3]")
}

fn offsets<const R: usize, T>(view: &View<'_, R, T>) -> Vec<usize> {
    view.offsets().collect()
}

fn values<const R: usize, T: Copy>(view: &View<'_, R, T>) -> Vec<T> {
    view.iter().copied().collect()
}

/// Every value of a rank-2 view read through `get`, as nested rows.
fn rows<T: Copy>(view: &View<'_, 2, T>) -> Vec<Vec<T>> {
    let [rows, columns] = *view.shape();
    (0..rows)
        .map(|r| {
            (0..columns)
                .map(|c| *view.get([r, c]).expect("in bounds"))
                .collect()
        })
        .collect()
}

#[test]
fn frozen_owner_is_row_major() -> TestResult {
    let owner = frozen();
    assert_eq!(owner.shape(), &[2, 3]);
    assert_eq!(owner.strides(), &[3, 1]);
    assert_eq!(owner.rank(), 2);
    assert_eq!(owner.len(), 6);
    assert_eq!(owner.as_slice(), &[10.0, 11.0, 12.0, 20.0, 21.0, 22.0]);
    assert_eq!(owner.get([1, 2])?, &22.0);

    let view = owner.view();
    assert_eq!(
        (view.shape(), view.strides(), view.base_offset()),
        (&[2, 3], &[3, 1], 0)
    );
    assert_eq!(view.len(), 6);
    assert!(view.is_contiguous());
    assert_eq!(offsets(&view), [0, 1, 2, 3, 4, 5]);
    assert_eq!(rows(&view), [[10.0, 11.0, 12.0], [20.0, 21.0, 22.0]]);
    Ok(())
}

#[test]
fn reshape_keeps_logical_order_with_fresh_strides() -> TestResult {
    let owner = frozen();
    let reshaped = owner.view().reshape([3, 2])?;
    assert_eq!(reshaped.shape(), &[3, 2]);
    assert_eq!(reshaped.strides(), &[2, 1]);
    assert_eq!(reshaped.base_offset(), 0);
    assert_eq!(offsets(&reshaped), [0, 1, 2, 3, 4, 5]);
    assert_eq!(rows(&reshaped), [[10.0, 11.0], [12.0, 20.0], [21.0, 22.0]]);
    assert!(reshaped.is_contiguous());
    // Shares the owner's storage: no value moved.
    assert!(std::ptr::eq(reshaped.storage(), owner.as_slice()));
    assert_eq!(owner.as_slice(), &[10.0, 11.0, 12.0, 20.0, 21.0, 22.0]);
    Ok(())
}

#[test]
fn transpose_swaps_shape_and_strides() -> TestResult {
    let owner = frozen();
    let transposed = owner.view().transpose(0, 1)?;
    assert_eq!(transposed.shape(), &[3, 2]);
    assert_eq!(transposed.strides(), &[1, 3]);
    assert_eq!(transposed.base_offset(), 0);
    assert_eq!(offsets(&transposed), [0, 3, 1, 4, 2, 5]);
    assert_eq!(
        rows(&transposed),
        [[10.0, 20.0], [11.0, 21.0], [12.0, 22.0]]
    );
    assert_eq!(values(&transposed), [10.0, 20.0, 11.0, 21.0, 12.0, 22.0]);
    assert!(!transposed.is_contiguous());
    assert!(std::ptr::eq(transposed.storage(), owner.as_slice()));
    Ok(())
}

#[test]
fn transposed_and_source_coordinates_select_the_same_stored_value() -> TestResult {
    let owner = frozen();
    let view = owner.view();
    let transposed = view.transpose(0, 1)?;
    assert_eq!(transposed.storage_offset([2, 1])?, 5);
    assert_eq!(view.storage_offset([1, 2])?, 5);
    // The very same stored 22.0, not a copy of it.
    assert!(std::ptr::eq(transposed.get([2, 1])?, view.get([1, 2])?));
    assert!(std::ptr::eq(transposed.get([2, 1])?, &owner.as_slice()[5]));
    assert_eq!(transposed.get([2, 1])?, &22.0);
    Ok(())
}

#[test]
fn reshape_and_transpose_have_equal_shapes_but_different_orders() -> TestResult {
    let owner = frozen();
    let reshaped = owner.view().reshape([3, 2])?;
    let transposed = owner.view().transpose(0, 1)?;
    assert_eq!(reshaped.shape(), transposed.shape());
    assert_ne!(values(&reshaped), values(&transposed));
    let mut a = values(&reshaped);
    let mut b = values(&transposed);
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    assert_eq!(a, b, "the same six scalars overall");
    Ok(())
}

#[test]
fn permute_2_0_1_of_a_rank_three_owner() -> TestResult {
    let owner: Tensor<3, usize> = Tensor::from_fn([2, 3, 4], |[i, j, k]| 100 * i + 10 * j + k)?;
    assert_eq!(owner.strides(), &[12, 4, 1]);
    let permuted = owner.view().permute([2, 0, 1])?;
    assert_eq!(permuted.shape(), &[4, 2, 3]);
    assert_eq!(permuted.strides(), &[1, 12, 4]);
    assert_eq!(permuted.base_offset(), 0);
    assert!(!permuted.is_contiguous());
    // Output axis k is source axis axes[k]: permuted[k, i, j] == owner[i, j, k].
    for k in 0..4 {
        for i in 0..2 {
            for j in 0..3 {
                assert_eq!(permuted.get([k, i, j])?, owner.get([i, j, k])?);
            }
        }
    }
    assert_eq!(offsets(&permuted)[..8], [0, 4, 8, 12, 16, 20, 1, 5]);
    Ok(())
}

#[test]
fn inner_axis_slice_skips_offset_three() -> TestResult {
    let owner = frozen();
    let slice = owner.view().slice(1, 1..3)?;
    assert_eq!(slice.base_offset(), 1);
    assert_eq!(slice.shape(), &[2, 2]);
    assert_eq!(slice.strides(), &[3, 1]);
    assert_eq!(offsets(&slice), [1, 2, 4, 5]);
    assert_eq!(rows(&slice), [[11.0, 12.0], [21.0, 22.0]]);
    assert!(!slice.is_contiguous());
    assert_eq!(slice.as_contiguous_slice(), None);
    Ok(())
}

#[test]
fn materialize_builds_a_new_contiguous_owner() -> TestResult {
    let owner = frozen();
    let slice = owner.view().slice(1, 1..3)?;
    let materialized = slice.materialize()?;
    assert_eq!(materialized.shape(), &[2, 2]);
    assert_eq!(materialized.strides(), &[2, 1]);
    assert_eq!(materialized.as_slice(), &[11.0, 12.0, 21.0, 22.0]);
    let fresh = materialized.view();
    assert_eq!(offsets(&fresh), [0, 1, 2, 3]);
    assert!(fresh.is_contiguous());
    assert!(!std::ptr::eq(fresh.storage(), owner.as_slice()));
    // The owner is untouched.
    assert_eq!(owner.as_slice(), &[10.0, 11.0, 12.0, 20.0, 21.0, 22.0]);
    Ok(())
}

#[test]
fn the_safe_two_step_correction_for_reshaping_a_slice() -> TestResult {
    let owner = frozen();
    let slice = owner.view().slice(1, 1..3)?;
    assert_eq!(slice.reshape([4]).unwrap_err(), Error::NonContiguousReshape);
    let materialized = slice.materialize()?;
    let flat = materialized.view().reshape([4])?;
    assert_eq!(flat.strides(), &[1]);
    assert_eq!(values(&flat), [11.0, 12.0, 21.0, 22.0]);
    Ok(())
}

#[test]
fn copying_transpose_allocates_the_transposed_order() -> TestResult {
    let owner = frozen();
    let copied = copying_transpose(&owner)?;
    assert_eq!(copied.shape(), &[3, 2]);
    assert_eq!(copied.strides(), &[2, 1]);
    assert_eq!(copied.as_slice(), &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0]);
    // The eager copy and the borrowed transpose read the same logical order.
    let borrowed = owner.view().transpose(0, 1)?;
    assert_eq!(values(&borrowed), copied.as_slice());
    assert_eq!(borrowed.materialize()?, copied);
    Ok(())
}

#[test]
fn copying_transpose_of_empty_and_large_matrices() -> TestResult {
    let empty: Tensor<2> = Tensor::from_vec([0, 3], vec![])?;
    let t = copying_transpose(&empty)?;
    assert_eq!((t.shape(), t.len()), (&[3, 0], 0));
    let empty: Tensor<2> = Tensor::from_vec([2, 0], vec![])?;
    assert_eq!(copying_transpose(&empty)?.shape(), &[0, 2]);

    // Large enough for the tiled path (edges that are not multiples of a tile).
    let (rows, columns) = (37, 41);
    let big: Tensor<2, usize> = Tensor::from_fn([rows, columns], |[r, c]| 1000 * r + c)?;
    let t = copying_transpose(&big)?;
    assert_eq!(t.shape(), &[columns, rows]);
    for c in 0..columns {
        for r in 0..rows {
            assert_eq!(t.get([c, r])?, &(1000 * r + c));
        }
    }
    Ok(())
}

#[test]
fn scalar_has_one_value_and_an_empty_permutation() -> TestResult {
    let scalar = Tensor::from_vec([], vec![7.0])?;
    assert_eq!(scalar.shape(), &[] as &[usize; 0]);
    assert_eq!(scalar.strides(), &[] as &[usize; 0]);
    assert_eq!((scalar.rank(), scalar.len()), (0, 1));
    assert_eq!(scalar.get([])?, &7.0);

    let view = scalar.view();
    assert!(view.is_contiguous());
    assert_eq!(offsets(&view), [0]);
    let permuted = view.permute([])?;
    assert_eq!(offsets(&permuted), [0]);
    assert_eq!(permuted.get([])?, &7.0);
    assert_eq!(view.materialize()?.as_slice(), &[7.0]);

    // A scalar reshapes to any all-ones shape and back.
    let ones = view.reshape([1, 1])?;
    assert_eq!((ones.shape(), ones.strides()), (&[1, 1], &[1, 1]));
    let back = ones.reshape([])?;
    assert_eq!(back.get([])?, &7.0);
    Ok(())
}

#[test]
fn scalar_view_yields_its_base_offset_once() -> TestResult {
    let data = [0.0, 1.0, 2.0, 3.0, 4.0];
    let scalar = View::from_parts(&data, [], [], 4)?;
    assert_eq!(offsets(&scalar), [4]);
    assert_eq!(scalar.offsets().len(), 1);
    assert_eq!(scalar.get([])?, &4.0);
    assert_eq!(scalar.materialize()?.as_slice(), &[4.0]);
    // Indexing one element out of a matrix row gives the same kind of scalar.
    let owner = frozen();
    let element = owner.view().slice(0, 1..2)?.slice(1, 2..3)?.reshape([])?;
    assert_eq!((element.base_offset(), offsets(&element)), (5, vec![5]));
    Ok(())
}

#[test]
fn zero_extents_anywhere_give_empty_contiguous_views() -> TestResult {
    for shape in [[0, 3, 2], [2, 0, 3], [2, 3, 0], [0, 0, 0]] {
        let owner: Tensor<3> = Tensor::from_vec(shape, vec![])?;
        assert!(owner.is_empty());
        let view = owner.view();
        assert!(view.is_empty() && view.is_contiguous(), "{shape:?}");
        assert_eq!(view.offsets().len(), 0);
        assert_eq!(view.iter().count(), 0);
        let transposed = view.transpose(0, 2)?;
        assert!(
            transposed.is_contiguous(),
            "an empty transpose is still contiguous"
        );
        assert_eq!(transposed.reshape([0])?.shape(), &[0]);
        let materialized = transposed.materialize()?;
        assert_eq!(materialized.shape(), &[shape[2], shape[1], shape[0]]);
        assert_eq!(materialized.len(), 0);
    }
    // Plain suffix products, even behind a zero.
    assert_eq!(
        Tensor::<3>::from_vec([2, 0, 3], vec![])?.strides(),
        &[0, 3, 1]
    );
    assert_eq!(
        Tensor::<3>::from_vec([0, 3, 2], vec![])?.strides(),
        &[6, 2, 1]
    );
    let huge_empty = Tensor::<2>::from_vec([usize::MAX, 0], vec![])?;
    assert_eq!(huge_empty.strides(), &[0, 1]);
    Ok(())
}

#[test]
fn reshape_between_empty_shapes() -> TestResult {
    let owner: Tensor<3> = Tensor::from_vec([2, 0, 3], vec![])?;
    let reshaped = owner.view().reshape([3, 0, 7, 1])?;
    assert_eq!(reshaped.shape(), &[3, 0, 7, 1]);
    assert_eq!(reshaped.strides(), &[0, 7, 1, 1]);
    assert_eq!(reshaped.reshape([0])?.shape(), &[0]);
    assert_eq!(reshaped.reshape([usize::MAX, 0])?.strides(), &[0, 1]);
    assert_eq!(
        reshaped.reshape([5]).unwrap_err(),
        Error::ReshapeElementCountMismatch {
            op: "reshape",
            current: 0,
            requested: 5
        }
    );
    Ok(())
}

#[test]
fn materialize_of_an_empty_view_allocates_no_storage() -> TestResult {
    let owner = frozen();
    let empty = owner.view().slice(1, 2..2)?;
    assert_eq!((empty.shape(), empty.len()), (&[2, 0], 0));
    let materialized = empty.materialize()?;
    assert_eq!(materialized.shape(), &[2, 0]);
    assert_eq!(materialized.strides(), &[0, 1]);
    assert_eq!(materialized.len(), 0);
    assert_eq!(materialized.into_vec().capacity(), 0, "no storage reserved");
    Ok(())
}

#[test]
fn singleton_axes_may_carry_any_stride() -> TestResult {
    let data: Vec<f64> = (0..10).map(f64::from).collect();
    // A row whose singleton outer axis has a stride of 1000.
    let row = View::from_parts(&data, [1, 3], [1000, 1], 2)?;
    assert!(row.is_contiguous());
    assert_eq!(offsets(&row), [2, 3, 4]);
    assert_eq!(values(&row.reshape([3])?), [2.0, 3.0, 4.0]);
    assert_eq!(row.as_contiguous_slice(), Some(&data[2..5]));
    // A singleton in the middle, with a stride that points nowhere useful.
    let middle = View::from_parts(&data, [2, 1, 3], [3, 99, 1], 0)?;
    assert!(middle.is_contiguous());
    assert_eq!(offsets(&middle.reshape([6])?), [0, 1, 2, 3, 4, 5]);
    // A singleton innermost axis.
    let column = View::from_parts(&data, [3, 1], [1, 7], 1)?;
    assert!(column.is_contiguous());
    assert_eq!(offsets(&column), [1, 2, 3]);
    // A non-singleton axis with the wrong stride is not contiguous.
    let gappy = View::from_parts(&data, [2, 3], [4, 1], 0)?;
    assert!(!gappy.is_contiguous());
    assert_eq!(gappy.reshape([6]).unwrap_err(), Error::NonContiguousReshape);

    // The transpose of a [1, 3] row is a [3, 1] column with strides [1, 3]: still contiguous.
    let owner: Tensor<2> = Tensor::from_vec([1, 3], vec![1.0, 2.0, 3.0])?;
    let transposed = owner.view().transpose(0, 1)?;
    assert_eq!(transposed.strides(), &[1, 3]);
    assert!(transposed.is_contiguous());
    assert_eq!(offsets(&transposed.reshape([3])?), [0, 1, 2]);
    Ok(())
}

#[test]
fn a_slice_may_start_at_the_extent() -> TestResult {
    let owner = frozen();
    let view = owner.view();
    let past_rows = view.slice(0, 2..2)?;
    assert_eq!(past_rows.shape(), &[0, 3]);
    assert_eq!(
        past_rows.base_offset(),
        6,
        "base offset equals the owner's length"
    );
    assert_eq!(past_rows.base_offset(), owner.len());
    assert!(past_rows.is_empty() && past_rows.is_contiguous());
    assert_eq!(past_rows.offsets().len(), 0);
    assert_eq!(past_rows.materialize()?.len(), 0);
    assert_eq!(past_rows.reshape([3, 0])?.base_offset(), 6);

    let past_columns = view.slice(1, 3..3)?;
    assert_eq!(
        (past_columns.shape(), past_columns.base_offset()),
        (&[2, 0], 3)
    );
    // Through a transpose: [3, 2] with strides [1, 3], rows 3..3 start at 3 * 1.
    let transposed = view.transpose(0, 1)?.slice(1, 2..2)?;
    assert_eq!((transposed.shape(), transposed.base_offset()), (&[3, 0], 6));
    // The same layout can be built directly: an empty view is always in bounds.
    let direct = View::from_parts(owner.as_slice(), [0, 3], [3, 1], 6)?;
    assert_eq!(direct.base_offset(), 6);
    Ok(())
}

#[test]
fn views_of_views_keep_their_base_offset() -> TestResult {
    let owner = frozen();
    let slice = owner.view().slice(1, 1..3)?; // base 1
    let second_row = slice.slice(0, 1..2)?; // base 1 + 1 * 3
    assert_eq!(second_row.base_offset(), 4);
    assert_eq!(
        (second_row.shape(), second_row.strides()),
        (&[1, 2], &[3, 1])
    );
    assert_eq!(offsets(&second_row), [4, 5]);
    assert!(second_row.is_contiguous(), "a singleton row is contiguous");
    let flat = second_row.reshape([2])?;
    assert_eq!((flat.base_offset(), flat.strides()), (4, &[1]));
    assert_eq!(values(&flat), [21.0, 22.0]);

    let transposed = slice.transpose(0, 1)?;
    assert_eq!(transposed.base_offset(), 1);
    assert_eq!(offsets(&transposed), [1, 4, 2, 5]);
    let permuted = slice.permute([1, 0])?;
    assert_eq!(offsets(&permuted), [1, 4, 2, 5]);
    assert_eq!(flat.materialize()?.as_slice(), &[21.0, 22.0]);

    // Rank 3: two slices then a permute accumulate start * stride on each axis.
    let cube: Tensor<3, usize> = Tensor::from_fn([2, 3, 4], |[i, j, k]| 12 * i + 4 * j + k)?;
    let nested = cube
        .view()
        .slice(2, 1..3)?
        .slice(0, 1..2)?
        .permute([2, 0, 1])?;
    assert_eq!(nested.base_offset(), 12 + 1);
    assert_eq!(nested.shape(), &[2, 1, 3]);
    assert_eq!(offsets(&nested), [13, 17, 21, 14, 18, 22]);
    assert_eq!(values(&nested), [13, 17, 21, 14, 18, 22]);
    Ok(())
}

#[test]
fn compile_time_axes_match_the_runtime_transforms() -> TestResult {
    let owner = frozen();
    let view = owner.view();
    let runtime = view.transpose(0, 1)?;
    let typed = view.transpose_axes::<0, 1>();
    assert_eq!(
        (typed.shape(), typed.strides()),
        (runtime.shape(), runtime.strides())
    );
    assert_eq!(offsets(&typed), [0, 3, 1, 4, 2, 5]);
    let identity = view.transpose_axes::<1, 1>();
    assert_eq!((identity.shape(), identity.strides()), (&[2, 3], &[3, 1]));

    let cube: Tensor<3, usize> = Tensor::from_fn([2, 3, 4], |[i, j, k]| 100 * i + 10 * j + k)?;
    let typed = cube.view().permute_axes::<Axes3<2, 0, 1>>();
    assert_eq!((typed.shape(), typed.strides()), (&[4, 2, 3], &[1, 12, 4]));
    assert_eq!(offsets(&typed), offsets(&cube.view().permute([2, 0, 1])?));

    // GPT-2 split heads: [B, T, C] -> [B, T, H, D] -> [B, H, T, D].
    let x: Tensor<3, usize> = Tensor::from_fn([1, 3, 4], |[_, t, c]| 10 * t + c)?;
    let heads = x
        .view()
        .reshape([1, 3, 2, 2])?
        .permute_axes::<Axes4<0, 2, 1, 3>>();
    assert_eq!(
        (heads.shape(), heads.strides()),
        (&[1, 2, 3, 2], &[12, 2, 4, 1])
    );
    assert_eq!(
        heads.get([0, 1, 2, 0])?,
        &22,
        "token 2, head 1, lane 0 = channel 2"
    );
    let keys_t = heads.transpose_axes::<2, 3>();
    assert_eq!(
        (keys_t.shape(), keys_t.strides()),
        (&[1, 2, 2, 3], &[12, 2, 1, 4])
    );
    Ok(())
}

#[test]
fn materialize_into_reuses_a_buffer() -> TestResult {
    let owner = frozen();
    let mut out: Tensor<2> = Tensor::zeros([3, 2])?;
    let buffer = out.as_slice().as_ptr();
    owner.view().transpose(0, 1)?.materialize_into(&mut out)?;
    assert_eq!(out.as_slice(), &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0]);
    owner.view().reshape([3, 2])?.materialize_into(&mut out)?;
    assert_eq!(out.as_slice(), &[10.0, 11.0, 12.0, 20.0, 21.0, 22.0]);
    assert_eq!(
        out.as_slice().as_ptr(),
        buffer,
        "the same storage was reused"
    );

    let mut quarter: Tensor<2> = Tensor::full([2, 2], -1.0)?;
    owner
        .view()
        .slice(1, 1..3)?
        .materialize_into(&mut quarter)?;
    assert_eq!(quarter.as_slice(), &[11.0, 12.0, 21.0, 22.0]);

    let mut empty: Tensor<2> = Tensor::zeros([2, 0])?;
    owner.view().slice(1, 0..0)?.materialize_into(&mut empty)?;
    assert_eq!(empty.len(), 0);
    Ok(())
}

#[test]
fn views_borrow_any_row_major_buffer() -> TestResult {
    let buffer: Vec<i32> = (0..8).collect();
    let view = View::from_slice(&buffer, [2, 3])?; // the tail [6, 7] is unused
    assert_eq!(values(&view), [0, 1, 2, 3, 4, 5]);
    assert_eq!(view.transpose(0, 1)?.get([2, 1])?, &5);
    let shifted = View::from_parts(&buffer, [2, 3], [3, 1], 2)?;
    assert_eq!(values(&shifted), [2, 3, 4, 5, 6, 7]);
    assert_eq!(shifted.as_contiguous_slice(), Some(&buffer[2..8]));
    // Stride 0 repeats one stored value.
    let repeated = View::from_parts(&buffer, [2, 3], [0, 1], 1)?;
    assert_eq!(values(&repeated), [1, 2, 3, 1, 2, 3]);
    assert!(!repeated.is_contiguous());
    Ok(())
}

#[test]
fn iter_borrows_from_the_owner_in_logical_order() -> TestResult {
    let owner = frozen();
    let transposed = owner.view().transpose(0, 1)?;
    let references: Vec<&f64> = transposed.iter().collect();
    for (reference, offset) in references.iter().zip(transposed.offsets()) {
        assert!(std::ptr::eq(*reference, &owner.as_slice()[offset]));
    }
    assert_eq!(transposed.iter().len(), 6);
    let mut iter = transposed.iter();
    iter.next();
    assert_eq!(iter.len(), 5, "exact size while iterating");
    Ok(())
}

#[test]
fn row_slices_are_contiguous_sub_slices() -> TestResult {
    let owner = frozen();
    let row = owner.view().slice(0, 1..2)?;
    assert_eq!(row.as_contiguous_slice(), Some(&[20.0, 21.0, 22.0][..]));
    let whole = owner.view().reshape([6])?;
    assert_eq!(whole.as_contiguous_slice(), Some(owner.as_slice()));
    assert_eq!(
        owner.view().slice(0, 1..1)?.as_contiguous_slice(),
        Some(&[][..])
    );
    Ok(())
}

#[test]
fn owners_are_mutable_again_after_the_last_view_use() -> TestResult {
    let mut owner = frozen();
    let copy = owner.view().transpose(0, 1)?.materialize()?;
    owner.as_mut_slice()[0] = 99.0;
    *owner.get_mut([1, 2])? = -1.0;
    assert_eq!(owner.as_slice(), &[99.0, 11.0, 12.0, 20.0, 21.0, -1.0]);
    assert_eq!(
        copy.as_slice(),
        &[10.0, 20.0, 11.0, 21.0, 12.0, 22.0],
        "the copy is independent"
    );
    Ok(())
}

#[test]
fn slices_of_a_permuted_empty_view_stay_valid() -> TestResult {
    // [usize::MAX / 2, 3, 0] is a valid empty shape (every suffix product fits);
    // its transpose [0, 3, usize::MAX / 2] has no row-major layout, but it is
    // a valid view, and so is every slice of it.
    let owner: Tensor<3> = Tensor::from_vec([usize::MAX / 2, 3, 0], vec![])?;
    let transposed = owner.view().transpose(0, 2)?;
    assert_eq!(transposed.shape(), &[0, 3, usize::MAX / 2]);
    let whole = transposed.slice(1, 0..3)?;
    assert_eq!((whole.shape(), whole.len()), (&[0, 3, usize::MAX / 2], 0));
    let part = transposed.slice(2, 1..usize::MAX / 2)?;
    assert_eq!(
        (part.shape(), part.is_empty()),
        (&[0, 3, usize::MAX / 2 - 1], true)
    );
    let dynamic = transposed.into_dyn().slice(1, 1..3)?;
    assert_eq!(
        (dynamic.shape(), dynamic.len()),
        (&[0, 2, usize::MAX / 2][..], 0)
    );
    // It reshapes like any empty view; only an owner of its own shape cannot exist.
    assert_eq!(transposed.reshape([0])?.shape(), &[0]);
    assert_eq!(
        transposed.materialize().unwrap_err(),
        Error::ShapeOverflow { op: "materialize" }
    );
    Ok(())
}
