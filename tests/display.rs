//! Printing: nested values like NumPy's `print` (with commas, like its
//! `repr`), scalars, empty and summarised tensors, and the seed's layout
//! trace table (shares / new owner, Yes / No).

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::TraceRow;
use llm_from_scratch::tensor::dynamic::DynTensor;
use std::fmt::{self, Write};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn frozen() -> Tensor<2> {
    Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0]).expect("6 values fit [2, 3]")
}

/// A writer that refuses to grow past `limit` bytes, so a runaway `Display`
/// fails with `fmt::Error` instead of hanging the test.
struct Bounded {
    text: String,
    limit: usize,
}

impl Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.text.len() + s.len() > self.limit {
            return Err(fmt::Error);
        }
        self.text.push_str(s);
        Ok(())
    }
}

fn bounded(value: &dyn fmt::Display, limit: usize) -> Result<String, fmt::Error> {
    let mut out = Bounded {
        text: String::new(),
        limit,
    };
    write!(out, "{value}")?;
    Ok(out.text)
}

// ---- nested values ----

#[test]
fn the_frozen_owner_and_its_views() -> TestResult {
    let owner = frozen();
    assert_eq!(owner.to_string(), "[[10, 11, 12],\n [20, 21, 22]]");
    let view = owner.view();
    assert_eq!(view.to_string(), "[[10, 11, 12],\n [20, 21, 22]]");
    assert_eq!(
        view.reshape([3, 2])?.to_string(),
        "[[10, 11],\n [12, 20],\n [21, 22]]"
    );
    assert_eq!(
        view.transpose(0, 1)?.to_string(),
        "[[10, 20],\n [11, 21],\n [12, 22]]"
    );
    assert_eq!(view.slice(1, 1..3)?.to_string(), "[[11, 12],\n [21, 22]]");
    assert_eq!(
        view.slice(1, 1..3)?.materialize()?.to_string(),
        "[[11, 12],\n [21, 22]]"
    );
    assert_eq!(
        copying_transpose(&owner)?.to_string(),
        "[[10, 20],\n [11, 21],\n [12, 22]]"
    );
    assert_eq!(view.reshape([6])?.to_string(), "[10, 11, 12, 20, 21, 22]");
    Ok(())
}

#[test]
fn rank_three_separates_blocks_with_a_blank_line() -> TestResult {
    let cube: Tensor<3, i32> = Tensor::from_vec([2, 2, 2], (0..8).collect())?;
    assert_eq!(
        cube.to_string(),
        "[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]"
    );
    let permuted = cube.view().permute([2, 0, 1])?;
    assert_eq!(
        permuted.to_string(),
        "[[[0, 2],\n  [4, 6]],\n\n [[1, 3],\n  [5, 7]]]"
    );
    Ok(())
}

#[test]
fn scalars_print_as_their_value() -> TestResult {
    let scalar = Tensor::from_vec([], vec![7.0])?;
    assert_eq!(scalar.to_string(), "7");
    assert_eq!(scalar.view().to_string(), "7");
    let half = Tensor::from_vec([], vec![1.5])?;
    assert_eq!(half.to_string(), "1.5");
    let data = [0, 1, 2, 3, 4];
    assert_eq!(View::from_parts(&data, [], [], 4)?.to_string(), "4");
    Ok(())
}

#[test]
fn empty_tensors_print_their_brackets() -> TestResult {
    assert_eq!(Tensor::<1>::from_vec([0], vec![])?.to_string(), "[]");
    assert_eq!(Tensor::<2>::from_vec([0, 3], vec![])?.to_string(), "[]");
    assert_eq!(
        Tensor::<2>::from_vec([2, 0], vec![])?.to_string(),
        "[[],\n []]"
    );
    assert_eq!(
        Tensor::<3>::from_vec([2, 0, 3], vec![])?.to_string(),
        "[[],\n\n []]"
    );
    let owner = frozen();
    assert_eq!(owner.view().slice(1, 3..3)?.to_string(), "[[],\n []]");
    Ok(())
}

#[test]
fn an_empty_tensor_with_a_huge_extent_prints_in_bounded_space() -> TestResult {
    // Valid empty shapes: every suffix product fits. Printing one row per
    // index of a usize::MAX axis would never end.
    let tall: Tensor<2> = Tensor::from_vec([usize::MAX, 0], vec![])?;
    let text = bounded(&tall, 10_000).expect("an empty tensor prints in a few bytes");
    assert!(text.starts_with('[') && text.ends_with(']'), "{text}");
    let taller: Tensor<3> = Tensor::from_vec([usize::MAX, 2, 0], vec![])?;
    let text = bounded(&taller, 10_000).expect("an empty tensor prints in a few bytes");
    assert!(text.starts_with('[') && text.ends_with(']'), "{text}");
    Ok(())
}

#[test]
fn large_tensors_are_summarised_with_edges_of_three() -> TestResult {
    let long: Tensor<1, i32> = Tensor::from_vec([1001], (0..1001).collect())?;
    assert_eq!(long.to_string(), "[0, 1, 2, ..., 998, 999, 1000]");
    // Exactly the threshold is printed in full.
    let full: Tensor<1, i32> = Tensor::from_vec([1000], (0..1000).collect())?;
    let text = full.to_string();
    assert!(!text.contains("..."));
    assert_eq!(text.matches(", ").count(), 999);

    let wide: Tensor<2, usize> = Tensor::from_fn([7, 150], |[r, c]| 1000 * r + c)?;
    let expected = [
        "[[0, 1, 2, ..., 147, 148, 149],",
        " [1000, 1001, 1002, ..., 1147, 1148, 1149],",
        " [2000, 2001, 2002, ..., 2147, 2148, 2149],",
        " ...,",
        " [4000, 4001, 4002, ..., 4147, 4148, 4149],",
        " [5000, 5001, 5002, ..., 5147, 5148, 5149],",
        " [6000, 6001, 6002, ..., 6147, 6148, 6149]]",
    ]
    .join("\n");
    assert_eq!(wide.to_string(), expected);
    // A summarised view reads its edges in logical order; every axis longer
    // than six is cut, the short one too once the whole is summarised.
    let transposed = wide.view().transpose(0, 1)?;
    let expected = [
        "[[0, 1000, 2000, ..., 4000, 5000, 6000],",
        " [1, 1001, 2001, ..., 4001, 5001, 6001],",
        " [2, 1002, 2002, ..., 4002, 5002, 6002],",
        " ...,",
        " [147, 1147, 2147, ..., 4147, 5147, 6147],",
        " [148, 1148, 2148, ..., 4148, 5148, 6148],",
        " [149, 1149, 2149, ..., 4149, 5149, 6149]]",
    ]
    .join("\n");
    assert_eq!(transposed.to_string(), expected);
    Ok(())
}

#[test]
fn a_huge_broadcast_view_prints_only_its_edges() -> TestResult {
    // One stored value read 2^62 times through stride 0; the summary needs six of them.
    let one = [1_u8];
    let wide = View::from_parts(&one, [1 << 62], [0], 0)?;
    let text = bounded(&wide, 1_000).expect("a summary is short");
    assert_eq!(text, "[1, 1, 1, ..., 1, 1, 1]");
    Ok(())
}

#[test]
fn dynamic_values_print_like_ranked_ones() -> TestResult {
    let owner = DynTensor::from_vec(vec![2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    assert_eq!(owner.to_string(), frozen().to_string());
    assert_eq!(
        owner.view().transpose(0, 1)?.to_string(),
        "[[10, 20],\n [11, 21],\n [12, 22]]"
    );
    Ok(())
}

// ---- the layout trace ----

fn row(trace: &LayoutTrace, label: &str) -> TraceRow {
    trace
        .rows()
        .iter()
        .find(|row| row.label == label)
        .cloned()
        .expect("row exists")
}

#[test]
fn trace_rows_record_layout_and_ownership() -> TestResult {
    let owner = frozen();
    let view = owner.view();
    let transposed = view.transpose(0, 1)?;
    let slice = view.slice(1, 1..3)?;
    let materialized = slice.materialize()?;
    let mut trace = LayoutTrace::new();
    trace
        .owner("base", &owner)
        .view("reshape [3, 2]", &view.reshape([3, 2])?)
        .view("transpose(0, 1)", &transposed)
        .view("slice(1, 1..3)", &slice)
        .owner("materialize", &materialized)
        .view("materialize.view()", &materialized.view())
        .rejected("reshape [4, 2]", &view.reshape([4, 2]).unwrap_err());

    assert_eq!(
        row(&trace, "base"),
        TraceRow {
            label: "base".into(),
            shape: vec![2, 3],
            strides: vec![3, 1],
            base_offset: 0,
            offsets: (vec![0, 1, 2, 3, 4, 5], 6),
            contiguous: true,
            storage: "new owner base".into(),
            rejected: false,
        }
    );
    let reshaped = row(&trace, "reshape [3, 2]");
    assert_eq!((reshaped.strides, reshaped.contiguous), (vec![2, 1], true));
    assert_eq!(reshaped.storage, "shares base");
    let transposed = row(&trace, "transpose(0, 1)");
    assert_eq!(transposed.offsets, (vec![0, 3, 1, 4, 2, 5], 6));
    assert_eq!(
        (transposed.contiguous, transposed.storage.as_str()),
        (false, "shares base")
    );
    let slice = row(&trace, "slice(1, 1..3)");
    assert_eq!(
        (slice.base_offset, slice.offsets),
        (1, (vec![1, 2, 4, 5], 4))
    );
    assert_eq!(
        (slice.contiguous, slice.storage.as_str()),
        (false, "shares base")
    );
    let copy = row(&trace, "materialize");
    assert_eq!(
        (copy.strides, copy.offsets),
        (vec![2, 1], (vec![0, 1, 2, 3], 4))
    );
    assert_eq!(
        (copy.contiguous, copy.storage.as_str()),
        (true, "new owner materialize")
    );
    assert_eq!(
        row(&trace, "materialize.view()").storage,
        "shares materialize"
    );
    let rejected = row(&trace, "reshape [4, 2]");
    assert!(rejected.rejected);
    assert_eq!(
        rejected.storage,
        "rejected: reshape: the view holds 6 elements, the requested shape holds 8"
    );
    Ok(())
}

#[test]
fn trace_table_text() -> TestResult {
    let owner = frozen();
    let view = owner.view();
    let mut trace = LayoutTrace::new();
    trace
        .owner("base", &owner)
        .view("transpose", &view.transpose(0, 1)?)
        .view("slice", &view.slice(1, 1..3)?)
        .owner("copy", &view.slice(1, 1..3)?.materialize()?)
        .rejected("slice 1..4", &view.slice(1, 1..4).unwrap_err());
    let expected = "\
request    | shape  | strides | base | logical offsets    | contiguous | storage
-----------+--------+---------+------+--------------------+------------+----------------------------------------------------------
base       | [2, 3] | [3, 1]  | 0    | [0, 1, 2, 3, 4, 5] | Yes        | new owner base
transpose  | [3, 2] | [1, 3]  | 0    | [0, 3, 1, 4, 2, 5] | No         | shares base
slice      | [2, 2] | [3, 1]  | 1    | [1, 2, 4, 5]       | No         | shares base
copy       | [2, 2] | [2, 1]  | 0    | [0, 1, 2, 3]       | Yes        | new owner copy
slice 1..4 | -      | -       | -    | -                  | -          | rejected: slice: on axis 1 the end 4 is past the extent 3
";
    assert_eq!(trace.to_string(), expected);
    Ok(())
}

#[test]
fn trace_elides_long_offset_lists_and_handles_scalars() -> TestResult {
    let long: Tensor<2, i32> = Tensor::from_vec([3, 4], (0..12).collect())?;
    let scalar = Tensor::from_vec([], vec![7.0])?;
    let mut trace = LayoutTrace::new();
    trace
        .owner("long", &long)
        .view("long.T", &long.view().transpose(0, 1)?)
        .owner("scalar", &scalar);
    let expected = "\
request | shape  | strides | base | logical offsets                  | contiguous | storage
--------+--------+---------+------+----------------------------------+------------+-----------------
long    | [3, 4] | [4, 1]  | 0    | [0, 1, 2, 3, 4, 5, 6, 7, … (12)] | Yes        | new owner long
long.T  | [4, 3] | [1, 4]  | 0    | [0, 4, 8, 1, 5, 9, 2, 6, … (12)] | No         | shares long
scalar  | []     | []      | 0    | [0]                              | Yes        | new owner scalar
";
    assert_eq!(trace.to_string(), expected);
    let scalar_row = row(&trace, "scalar");
    assert_eq!(
        (scalar_row.shape, scalar_row.offsets),
        (vec![], (vec![0], 1))
    );
    assert!(scalar_row.contiguous);
    Ok(())
}

#[test]
fn a_view_row_never_claims_a_new_owner() -> TestResult {
    let empty: Tensor<3> = Tensor::from_vec([2, 0, 3], vec![])?;
    let mut trace = LayoutTrace::new();
    trace
        .owner("empty", &empty)
        .view("empty.T", &empty.view().transpose(0, 2)?);
    let owner_row = row(&trace, "empty");
    assert_eq!(
        (owner_row.strides, owner_row.offsets),
        (vec![0, 3, 1], (vec![], 0))
    );
    assert!(owner_row.contiguous);
    assert_eq!(owner_row.storage, "new owner empty");
    // The view borrows the empty owner: it shares it, it does not own anything.
    assert_eq!(row(&trace, "empty.T").storage, "shares empty");
    // Even a view of storage the trace has not seen is no owner.
    let unseen = frozen();
    trace.view("unseen.T", &unseen.view().transpose(0, 1)?);
    let storage = row(&trace, "unseen.T").storage;
    assert!(!storage.starts_with("new owner"), "{storage}");
    Ok(())
}

#[test]
fn empty_views_with_any_strides_or_base_print_without_overflow() -> TestResult {
    // Valid: an empty view is never read, so from_parts accepts any strides and base.
    let data = [1.0; 4];
    let huge_stride = View::<2>::from_parts(&data, [5, 0], [usize::MAX, 1], 0)?;
    assert_eq!(huge_stride.to_string(), "[[],\n [],\n [],\n [],\n []]");
    let huge_base = View::<2>::from_parts(&data, [3, 0], [1, 1], usize::MAX)?;
    assert_eq!(huge_base.to_string(), "[[],\n [],\n []]");
    // Slicing it keeps it valid: the base of an empty result is never read.
    let sliced = huge_base.slice(0, 1..2)?;
    assert_eq!((sliced.shape(), sliced.len()), (&[1, 0], 0));
    Ok(())
}

#[test]
fn debug_of_a_view_shows_its_layout_not_the_owner() -> TestResult {
    let owner: Tensor<2> = Tensor::zeros([1000, 1000])?;
    let corner = owner.view().slice(0, 0..1)?.slice(1, 0..1)?;
    assert_eq!(
        format!("{corner:?}"),
        "View { shape: [1, 1], strides: [1000, 1], base_offset: 0, len: 1, storage_len: 1000000, values: [0.0] }"
    );
    Ok(())
}
