//! Every refused view transform, with its exact variant and fields: the
//! requests a `[2, 3]` owner refuses, the check order of reshape / permute /
//! slice / transpose (the first problem from the left wins), shape overflow
//! that a wrapping product would hide, and the wording of each message.
//! Errors of constructors and element access are in `access_errors.rs`.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::DynTensor;
use std::ops::Range;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn frozen() -> Tensor<2> {
    Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0]).expect("6 values fit [2, 3]")
}

/// A range built from its ends, so reversed ranges can be written on purpose.
fn range(start: usize, end: usize) -> Range<usize> {
    Range { start, end }
}

/// The overflow of a shape given to the public operation `op`.
fn overflow(op: &'static str) -> Error {
    Error::ShapeOverflow { op }
}

/// Five extents whose true product is 2^64 + 5 = 3 · 7 · 29 · 36760123 · 823996703,
/// so a wrapping multiplication gives exactly 5.
const WRAPS_TO_FIVE: [usize; 5] = [3, 7, 29, 36_760_123, 823_996_703];

// ---- the requests a [2, 3] owner refuses ----

#[test]
fn reshape_to_four_by_two_needs_eight_values() {
    let owner = frozen();
    assert_eq!(
        owner.view().reshape([4, 2]).unwrap_err(),
        Error::ReshapeElementCountMismatch {
            op: "reshape",
            current: 6,
            requested: 8
        }
    );
}

#[test]
fn reshape_of_the_transpose_is_not_contiguous() -> TestResult {
    let owner = frozen();
    let transposed = owner.view().transpose(0, 1)?;
    assert_eq!(
        transposed.reshape([2, 3]).unwrap_err(),
        Error::NonContiguousReshape
    );
    assert_eq!(
        transposed.reshape([6]).unwrap_err(),
        Error::NonContiguousReshape
    );
    Ok(())
}

#[test]
fn slice_past_the_extent() {
    let owner = frozen();
    assert_eq!(
        owner.view().slice(1, 1..4).unwrap_err(),
        Error::SliceEndOutOfBounds {
            op: "slice",
            axis: 1,
            end: 4,
            dimension: 3
        }
    );
}

#[test]
fn reshape_of_the_inner_slice_is_not_contiguous() -> TestResult {
    let owner = frozen();
    let slice = owner.view().slice(1, 1..3)?;
    assert_eq!(slice.reshape([4]).unwrap_err(), Error::NonContiguousReshape);
    Ok(())
}

// ---- reshape: overflow, then count, then contiguity ----

#[test]
fn reshape_overflow_wins_over_count_and_contiguity() -> TestResult {
    let owner = frozen();
    let view = owner.view();
    let transposed = view.transpose(0, 1)?;
    // Overflow and count mismatch.
    assert_eq!(
        view.reshape([usize::MAX, 2]).unwrap_err(),
        overflow("reshape")
    );
    // Overflow and non-contiguity.
    assert_eq!(
        transposed.reshape([usize::MAX, 2]).unwrap_err(),
        overflow("reshape")
    );
    // All three at once, the overflow hidden to the right of a zero.
    assert_eq!(
        transposed.reshape([0, usize::MAX, 2]).unwrap_err(),
        overflow("reshape")
    );
    Ok(())
}

#[test]
fn reshape_count_wins_over_contiguity() -> TestResult {
    let owner = frozen();
    let transposed = owner.view().transpose(0, 1)?;
    assert_eq!(
        transposed.reshape([4, 2]).unwrap_err(),
        Error::ReshapeElementCountMismatch {
            op: "reshape",
            current: 6,
            requested: 8
        }
    );
    assert_eq!(
        transposed.reshape([usize::MAX, 0]).unwrap_err(),
        Error::ReshapeElementCountMismatch {
            op: "reshape",
            current: 6,
            requested: 0
        }
    );
    Ok(())
}

#[test]
fn a_zero_extent_does_not_hide_an_overflow_to_its_right() -> TestResult {
    let owner: Tensor<2> = Tensor::from_vec([0, 3], vec![])?;
    let empty = owner.view();
    // The element count would match (0 == 0), but a stride overflows.
    assert_eq!(
        empty.reshape([0, usize::MAX, 2]).unwrap_err(),
        overflow("reshape")
    );
    assert_eq!(
        empty.reshape([2, 0, usize::MAX, 2]).unwrap_err(),
        overflow("reshape")
    );
    // A huge extent to the left of the zero is a valid empty shape.
    assert_eq!(empty.reshape([usize::MAX, 0])?.shape(), &[usize::MAX, 0]);
    assert_eq!(
        Tensor::<3>::from_vec([0, usize::MAX, 2], vec![]).unwrap_err(),
        Error::ShapeOverflow { op: "from_vec" }
    );
    Ok(())
}

#[test]
fn a_product_that_wraps_to_the_right_count_is_an_overflow() -> TestResult {
    // The premise: the true product is 2^64 + 5, its wrapping product is 5.
    let true_product: u128 = WRAPS_TO_FIVE.iter().map(|&e| e as u128).product();
    assert_eq!(true_product, (1_u128 << 64) + 5);
    let wrapped = WRAPS_TO_FIVE
        .iter()
        .fold(1_usize, |p, &e| p.wrapping_mul(e));
    assert_eq!(wrapped, 5);

    let five = Tensor::from_vec([5], vec![1.0, 2.0, 3.0, 4.0, 5.0])?;
    assert_eq!(
        five.view().reshape(WRAPS_TO_FIVE).unwrap_err(),
        overflow("reshape")
    );
    let mut reversed = WRAPS_TO_FIVE;
    reversed.reverse();
    assert_eq!(
        five.view().reshape(reversed).unwrap_err(),
        overflow("reshape")
    );
    assert_eq!(
        Tensor::from_vec(WRAPS_TO_FIVE, vec![1.0, 2.0, 3.0, 4.0, 5.0]).unwrap_err(),
        Error::ShapeOverflow { op: "from_vec" }
    );
    // The dynamic API shares the check.
    let dynamic = DynTensor::from_vec(vec![5], vec![1.0, 2.0, 3.0, 4.0, 5.0])?;
    assert_eq!(
        dynamic.view().reshape(&WRAPS_TO_FIVE).unwrap_err(),
        overflow("reshape")
    );
    assert_eq!(
        DynTensor::from_vec(WRAPS_TO_FIVE.to_vec(), vec![0.0; 5]).unwrap_err(),
        Error::ShapeOverflow { op: "from_vec" }
    );
    Ok(())
}

// ---- permute: scanning left to right, the first problem wins ----

#[test]
fn permute_reports_the_first_problem_from_the_left() -> TestResult {
    let cube: Tensor<3> = Tensor::zeros([2, 3, 4])?;
    let view = cube.view();
    let cases: [([usize; 3], TensorViewError); 6] = [
        ([0, 0, 9], Error::DuplicateAxis { axis: 0 }),
        (
            [9, 0, 0],
            Error::AxisOutOfBounds {
                op: "permute",
                axis: 9,
                rank: 3,
            },
        ),
        (
            [1, 9, 1],
            Error::AxisOutOfBounds {
                op: "permute",
                axis: 9,
                rank: 3,
            },
        ),
        ([1, 1, 9], Error::DuplicateAxis { axis: 1 }),
        ([2, 0, 2], Error::DuplicateAxis { axis: 2 }),
        (
            [0, 1, 3],
            Error::AxisOutOfBounds {
                op: "permute",
                axis: 3,
                rank: 3,
            },
        ),
    ];
    for (axes, expected) in cases {
        assert_eq!(view.permute(axes).unwrap_err(), expected, "{axes:?}");
        assert_eq!(
            view.into_dyn().permute(&axes).unwrap_err(),
            expected,
            "dynamic {axes:?}"
        );
    }
    let matrix = frozen();
    assert_eq!(
        matrix.view().permute([1, 1]).unwrap_err(),
        Error::DuplicateAxis { axis: 1 }
    );
    assert_eq!(
        matrix.view().permute([2, 0]).unwrap_err(),
        Error::AxisOutOfBounds {
            op: "permute",
            axis: 2,
            rank: 2
        }
    );
    Ok(())
}

#[test]
fn transpose_checks_the_first_axis_then_the_second() {
    let owner = frozen();
    let view = owner.view();
    assert_eq!(
        view.transpose(2, 0).unwrap_err(),
        Error::AxisOutOfBounds {
            op: "transpose",
            axis: 2,
            rank: 2
        }
    );
    assert_eq!(
        view.transpose(0, 5).unwrap_err(),
        Error::AxisOutOfBounds {
            op: "transpose",
            axis: 5,
            rank: 2
        }
    );
    assert_eq!(
        view.transpose(7, 5).unwrap_err(),
        Error::AxisOutOfBounds {
            op: "transpose",
            axis: 7,
            rank: 2
        }
    );
    let scalar = Tensor::from_vec([], vec![1.0]).expect("one value");
    assert_eq!(
        scalar.view().transpose(0, 0).unwrap_err(),
        Error::AxisOutOfBounds {
            op: "transpose",
            axis: 0,
            rank: 0
        }
    );
}

// ---- slice: axis, then start <= end, then end <= extent ----

#[test]
fn slice_checks_axis_then_order_then_bound() {
    let owner = frozen();
    let view = owner.view();
    // Axis first, even when the range is also bad.
    assert_eq!(
        view.slice(2, range(9, 1)).unwrap_err(),
        Error::AxisOutOfBounds {
            op: "slice",
            axis: 2,
            rank: 2
        }
    );
    // start > end is checked before end > extent.
    assert_eq!(
        view.slice(1, range(5, 4)).unwrap_err(),
        Error::SliceStartAfterEnd {
            op: "slice",
            axis: 1,
            start: 5,
            end: 4
        }
    );
    assert_eq!(
        view.slice(1, range(3, 2)).unwrap_err(),
        Error::SliceStartAfterEnd {
            op: "slice",
            axis: 1,
            start: 3,
            end: 2
        }
    );
    assert_eq!(
        view.slice(1, 2..4).unwrap_err(),
        Error::SliceEndOutOfBounds {
            op: "slice",
            axis: 1,
            end: 4,
            dimension: 3
        }
    );
    assert_eq!(
        view.slice(1, 4..4).unwrap_err(),
        Error::SliceEndOutOfBounds {
            op: "slice",
            axis: 1,
            end: 4,
            dimension: 3
        }
    );
    assert_eq!(
        view.slice(0, 3..3).unwrap_err(),
        Error::SliceEndOutOfBounds {
            op: "slice",
            axis: 0,
            end: 3,
            dimension: 2
        }
    );
    let dynamic = view.into_dyn();
    assert_eq!(
        dynamic.slice(1, range(5, 4)).unwrap_err(),
        Error::SliceStartAfterEnd {
            op: "slice",
            axis: 1,
            start: 5,
            end: 4
        }
    );
}

// ---- messages name the operation and the sizes ----

#[test]
fn every_message_names_the_numbers() {
    let cases: Vec<(Error, &str)> = vec![
        (
            Error::ReshapeElementCountMismatch {
                op: "reshape",
                current: 6,
                requested: 8,
            },
            "reshape: the view holds 6 elements, the requested shape holds 8",
        ),
        (
            Error::NonContiguousReshape,
            "reshape: the view is not row-major contiguous; reshape never copies, call materialize() first",
        ),
        (
            Error::PermutationLengthMismatch {
                expected: 2,
                actual: 3,
            },
            "permute: the axis list has 3 entries, the view has rank 2",
        ),
        (
            Error::DuplicateAxis { axis: 0 },
            "permute: axis 0 appears more than once",
        ),
        (
            Error::AxisOutOfBounds {
                op: "permute",
                axis: 9,
                rank: 3,
            },
            "permute: axis 9 is out of bounds for rank 3",
        ),
        (
            Error::SliceStartAfterEnd {
                op: "slice",
                axis: 1,
                start: 5,
                end: 4,
            },
            "slice: on axis 1 the start 5 is after the end 4",
        ),
        (
            Error::SliceEndOutOfBounds {
                op: "slice",
                axis: 1,
                end: 4,
                dimension: 3,
            },
            "slice: on axis 1 the end 4 is past the extent 3",
        ),
        (
            Error::OutputShapeMismatch {
                op: "materialize_into",
                expected: vec![3, 2],
                actual: vec![2, 3],
            },
            "materialize_into: the result has shape [3, 2], the output has shape [2, 3]",
        ),
        (
            Error::IndexOutOfBounds {
                op: "get",
                axis: 1,
                index: 3,
                dimension: 3,
            },
            "get: index 3 on axis 1 of extent 3 is out of bounds",
        ),
        (
            Error::ElementCountMismatch {
                op: "from_vec",
                expected: 6,
                actual: 5,
            },
            "from_vec: the shape needs 6 values, 5 were given",
        ),
        (
            Error::RankMismatch {
                op: "into_ranked",
                expected: 3,
                actual: 2,
            },
            "into_ranked: expected rank 3, got rank 2",
        ),
        (
            Error::AllocationFailed {
                op: "materialize",
                elements: 7,
            },
            "materialize: could not reserve storage for 7 elements",
        ),
        (
            overflow("reshape"),
            "reshape: shape overflow: an element count, stride or offset does not fit in usize",
        ),
    ];
    for (error, message) in cases {
        assert_eq!(error.to_string(), message);
    }
    // The out-of-bounds message names the operation and both sizes.
    let out_of_bounds = Error::ViewOutOfBounds {
        op: "View::from_parts",
        required_len: 7,
        available: 6,
    }
    .to_string();
    assert_eq!(
        out_of_bounds,
        "View::from_parts: the layout needs 7 elements of storage, the data holds 6"
    );
}

/// The errors come with the operation the caller called, whichever
/// operation did the failing check inside.
#[test]
fn errors_name_the_public_operation_called() -> TestResult {
    let owner = frozen();
    let view = owner.view();
    assert_eq!(
        view.slice(1, 0..9).unwrap_err().to_string(),
        "slice: on axis 1 the end 9 is past the extent 3"
    );
    assert_eq!(
        view.slice_step(1, 0..9, 2).unwrap_err(),
        Error::SliceEndOutOfBounds {
            op: "slice_step",
            axis: 1,
            end: 9,
            dimension: 3
        }
    );
    assert_eq!(
        view.split_at(1, 4).unwrap_err(),
        Error::SliceEndOutOfBounds {
            op: "split_at",
            axis: 1,
            end: 4,
            dimension: 3
        }
    );
    assert_eq!(
        view.reshape_strided([4, 2]).unwrap_err(),
        Error::ReshapeElementCountMismatch {
            op: "reshape_strided",
            current: 6,
            requested: 8
        }
    );
    assert_eq!(
        view.reshape_strided([usize::MAX, 2]).unwrap_err(),
        overflow("reshape_strided")
    );
    assert_eq!(
        view.select(0, 2).unwrap_err(),
        Error::IndexOutOfBounds {
            op: "select",
            axis: 0,
            index: 2,
            dimension: 2
        }
    );
    Ok(())
}
