//! Every rejected request of seed 000, with its exact variant and fields,
//! the check order of reshape / permute / slice / transpose, shape overflow
//! that a wrapping product would hide, and the wording of each message.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::{DynTensor, DynView};
use std::ops::Range;

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn frozen() -> Tensor<2> {
    Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0]).expect("6 values fit [2, 3]")
}

/// A range built from its ends, so reversed ranges can be written on purpose.
fn range(start: usize, end: usize) -> Range<usize> {
    Range { start, end }
}

const OVERFLOW: TensorViewError = TensorViewError::Tensor(TensorError::ShapeOverflow);

/// Five extents whose true product is 2^64 + 5 = 3 · 7 · 29 · 36760123 · 823996703,
/// so a wrapping multiplication gives exactly 5.
const WRAPS_TO_FIVE: [usize; 5] = [3, 7, 29, 36_760_123, 823_996_703];

// ---- the chapter's rejected requests ----

#[test]
fn reshape_to_four_by_two_needs_eight_values() {
    let owner = frozen();
    assert_eq!(
        owner.view().reshape([4, 2]).unwrap_err(),
        TensorViewError::ReshapeElementCountMismatch {
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
        TensorViewError::NonContiguousReshape
    );
    assert_eq!(
        transposed.reshape([6]).unwrap_err(),
        TensorViewError::NonContiguousReshape
    );
    Ok(())
}

#[test]
fn slice_past_the_extent() {
    let owner = frozen();
    assert_eq!(
        owner.view().slice(1, 1..4).unwrap_err(),
        TensorViewError::SliceEndOutOfBounds {
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
    assert_eq!(
        slice.reshape([4]).unwrap_err(),
        TensorViewError::NonContiguousReshape
    );
    Ok(())
}

// ---- reshape: overflow, then count, then contiguity ----

#[test]
fn reshape_overflow_wins_over_count_and_contiguity() -> TestResult {
    let owner = frozen();
    let view = owner.view();
    let transposed = view.transpose(0, 1)?;
    // Overflow and count mismatch.
    assert_eq!(view.reshape([usize::MAX, 2]).unwrap_err(), OVERFLOW);
    // Overflow and non-contiguity.
    assert_eq!(transposed.reshape([usize::MAX, 2]).unwrap_err(), OVERFLOW);
    // All three at once, the overflow hidden to the right of a zero.
    assert_eq!(
        transposed.reshape([0, usize::MAX, 2]).unwrap_err(),
        OVERFLOW
    );
    Ok(())
}

#[test]
fn reshape_count_wins_over_contiguity() -> TestResult {
    let owner = frozen();
    let transposed = owner.view().transpose(0, 1)?;
    assert_eq!(
        transposed.reshape([4, 2]).unwrap_err(),
        TensorViewError::ReshapeElementCountMismatch {
            current: 6,
            requested: 8
        }
    );
    assert_eq!(
        transposed.reshape([usize::MAX, 0]).unwrap_err(),
        TensorViewError::ReshapeElementCountMismatch {
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
    assert_eq!(empty.reshape([0, usize::MAX, 2]).unwrap_err(), OVERFLOW);
    assert_eq!(empty.reshape([2, 0, usize::MAX, 2]).unwrap_err(), OVERFLOW);
    // A huge extent to the left of the zero is a valid empty shape.
    assert_eq!(empty.reshape([usize::MAX, 0])?.shape(), &[usize::MAX, 0]);
    assert_eq!(
        Tensor::<3>::from_vec([0, usize::MAX, 2], vec![]).unwrap_err(),
        TensorError::ShapeOverflow
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
    assert_eq!(five.view().reshape(WRAPS_TO_FIVE).unwrap_err(), OVERFLOW);
    let mut reversed = WRAPS_TO_FIVE;
    reversed.reverse();
    assert_eq!(five.view().reshape(reversed).unwrap_err(), OVERFLOW);
    assert_eq!(
        Tensor::from_vec(WRAPS_TO_FIVE, vec![1.0, 2.0, 3.0, 4.0, 5.0]).unwrap_err(),
        TensorError::ShapeOverflow
    );
    // The dynamic API shares the check.
    let dynamic = DynTensor::from_vec(vec![5], vec![1.0, 2.0, 3.0, 4.0, 5.0])?;
    assert_eq!(
        dynamic.view().reshape(&WRAPS_TO_FIVE).unwrap_err(),
        OVERFLOW
    );
    assert_eq!(
        DynTensor::from_vec(WRAPS_TO_FIVE.to_vec(), vec![0.0; 5]).unwrap_err(),
        TensorError::ShapeOverflow
    );
    Ok(())
}

// ---- permute: scanning left to right, the first problem wins ----

#[test]
fn permute_reports_the_first_problem_from_the_left() -> TestResult {
    let cube: Tensor<3> = Tensor::zeros([2, 3, 4])?;
    let view = cube.view();
    let cases: [([usize; 3], TensorViewError); 6] = [
        ([0, 0, 9], TensorViewError::DuplicateAxis { axis: 0 }),
        (
            [9, 0, 0],
            TensorViewError::AxisOutOfBounds { axis: 9, rank: 3 },
        ),
        (
            [1, 9, 1],
            TensorViewError::AxisOutOfBounds { axis: 9, rank: 3 },
        ),
        ([1, 1, 9], TensorViewError::DuplicateAxis { axis: 1 }),
        ([2, 0, 2], TensorViewError::DuplicateAxis { axis: 2 }),
        (
            [0, 1, 3],
            TensorViewError::AxisOutOfBounds { axis: 3, rank: 3 },
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
        TensorViewError::DuplicateAxis { axis: 1 }
    );
    assert_eq!(
        matrix.view().permute([2, 0]).unwrap_err(),
        TensorViewError::AxisOutOfBounds { axis: 2, rank: 2 }
    );
    Ok(())
}

#[test]
fn transpose_checks_the_first_axis_then_the_second() {
    let owner = frozen();
    let view = owner.view();
    assert_eq!(
        view.transpose(2, 0).unwrap_err(),
        TensorViewError::AxisOutOfBounds { axis: 2, rank: 2 }
    );
    assert_eq!(
        view.transpose(0, 5).unwrap_err(),
        TensorViewError::AxisOutOfBounds { axis: 5, rank: 2 }
    );
    assert_eq!(
        view.transpose(7, 5).unwrap_err(),
        TensorViewError::AxisOutOfBounds { axis: 7, rank: 2 }
    );
    let scalar = Tensor::from_vec([], vec![1.0]).expect("one value");
    assert_eq!(
        scalar.view().transpose(0, 0).unwrap_err(),
        TensorViewError::AxisOutOfBounds { axis: 0, rank: 0 }
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
        TensorViewError::AxisOutOfBounds { axis: 2, rank: 2 }
    );
    // start > end is checked before end > extent.
    assert_eq!(
        view.slice(1, range(5, 4)).unwrap_err(),
        TensorViewError::SliceStartAfterEnd {
            axis: 1,
            start: 5,
            end: 4
        }
    );
    assert_eq!(
        view.slice(1, range(3, 2)).unwrap_err(),
        TensorViewError::SliceStartAfterEnd {
            axis: 1,
            start: 3,
            end: 2
        }
    );
    assert_eq!(
        view.slice(1, 2..4).unwrap_err(),
        TensorViewError::SliceEndOutOfBounds {
            axis: 1,
            end: 4,
            dimension: 3
        }
    );
    assert_eq!(
        view.slice(1, 4..4).unwrap_err(),
        TensorViewError::SliceEndOutOfBounds {
            axis: 1,
            end: 4,
            dimension: 3
        }
    );
    assert_eq!(
        view.slice(0, 3..3).unwrap_err(),
        TensorViewError::SliceEndOutOfBounds {
            axis: 0,
            end: 3,
            dimension: 2
        }
    );
    let dynamic = view.into_dyn();
    assert_eq!(
        dynamic.slice(1, range(5, 4)).unwrap_err(),
        TensorViewError::SliceStartAfterEnd {
            axis: 1,
            start: 5,
            end: 4
        }
    );
}

// ---- constructors ----

#[test]
fn from_vec_rejects_a_wrong_value_count() {
    assert_eq!(
        Tensor::from_vec([2, 3], vec![1.0; 5]).unwrap_err(),
        TensorError::ElementCountMismatch {
            expected: 6,
            actual: 5
        }
    );
    assert_eq!(
        Tensor::<0>::from_vec([], vec![]).unwrap_err(),
        TensorError::ElementCountMismatch {
            expected: 1,
            actual: 0
        }
    );
    assert_eq!(
        Tensor::from_vec([2, 0, 3], vec![1.0]).unwrap_err(),
        TensorError::ElementCountMismatch {
            expected: 0,
            actual: 1
        }
    );
    // Overflow is checked before the count.
    assert_eq!(
        Tensor::<2>::from_vec([usize::MAX, 2], vec![]).unwrap_err(),
        TensorError::ShapeOverflow
    );
    assert_eq!(
        DynTensor::from_vec(vec![2, 3], vec![1.0; 7]).unwrap_err(),
        TensorError::ElementCountMismatch {
            expected: 6,
            actual: 7
        }
    );
}

#[test]
fn allocation_failure_is_an_error_not_an_abort() {
    let elements = 1_usize << 62; // 2^65 bytes of f64
    assert_eq!(
        Tensor::<1>::zeros([elements]).unwrap_err(),
        TensorError::AllocationFailed { elements }
    );
    assert_eq!(
        Tensor::<2>::full([elements, 1], 1.0).unwrap_err(),
        TensorError::AllocationFailed { elements }
    );
    assert_eq!(
        Tensor::<1, f64>::from_fn([elements], |_| 0.0).unwrap_err(),
        TensorError::AllocationFailed { elements }
    );
    assert_eq!(
        Tensor::<2>::zeros([usize::MAX, 2]).unwrap_err(),
        TensorError::ShapeOverflow
    );
    // A stride-0 view reaches 2^62 logical values from one stored value.
    let one = [1.0];
    let wide = View::from_parts(&one, [elements], [0], 0).expect("every offset is 0");
    assert_eq!(
        wide.materialize().unwrap_err(),
        TensorViewError::Tensor(TensorError::AllocationFailed { elements })
    );
}

#[test]
fn from_parts_rejects_layouts_outside_the_data() {
    let data = [0.0; 6];
    // Offset 1 + 3 + 2 = 6 is one past the end.
    assert_eq!(
        View::from_parts(&data, [2, 3], [3, 1], 1).unwrap_err(),
        TensorViewError::ViewOutOfBounds {
            required_len: 7,
            available: 6
        }
    );
    assert_eq!(
        View::from_parts(&data, [], [], 6).unwrap_err(),
        TensorViewError::ViewOutOfBounds {
            required_len: 7,
            available: 6
        }
    );
    assert_eq!(
        View::from_parts(&data, [2, 2], [4, 2], 0).unwrap_err(),
        TensorViewError::ViewOutOfBounds {
            required_len: 7,
            available: 6
        }
    );
    // The largest offset overflows.
    assert_eq!(
        View::from_parts(&data, [3], [usize::MAX], 0).unwrap_err(),
        OVERFLOW
    );
    assert_eq!(
        View::from_parts(&data, [2], [1], usize::MAX).unwrap_err(),
        OVERFLOW
    );
    // The element count overflows even with stride 0.
    assert_eq!(
        View::from_parts(&data, [usize::MAX, 2], [0, 0], 0).unwrap_err(),
        OVERFLOW
    );
    // Row-major data that is too short.
    assert_eq!(
        View::from_slice(&data[..5], [2, 3]).unwrap_err(),
        TensorViewError::ViewOutOfBounds {
            required_len: 6,
            available: 5
        }
    );
    assert_eq!(
        View::<2>::from_slice(&data, [usize::MAX, 2]).unwrap_err(),
        OVERFLOW
    );
    // The dynamic constructor also checks that shape and strides agree in length.
    assert_eq!(
        DynView::from_parts(&data, vec![2, 3], vec![3], 0).unwrap_err(),
        TensorViewError::StridesLengthMismatch {
            rank: 2,
            strides: 1
        }
    );
}

#[test]
fn get_names_the_first_axis_out_of_bounds() -> TestResult {
    let mut owner = frozen();
    let index_error = |axis, index, dimension| {
        TensorViewError::Tensor(TensorError::IndexOutOfBounds {
            axis,
            index,
            dimension,
        })
    };
    {
        let view = owner.view();
        assert_eq!(view.get([2, 0]).unwrap_err(), index_error(0, 2, 2));
        assert_eq!(view.get([1, 3]).unwrap_err(), index_error(1, 3, 3));
        assert_eq!(view.get([5, 5]).unwrap_err(), index_error(0, 5, 2));
        assert_eq!(
            view.storage_offset([0, 3]).unwrap_err(),
            index_error(1, 3, 3)
        );
        let transposed = view.transpose(0, 1)?;
        assert_eq!(transposed.get([0, 2]).unwrap_err(), index_error(1, 2, 2));
        assert_eq!(transposed.get([3, 0]).unwrap_err(), index_error(0, 3, 3));
        let empty = view.slice(1, 1..1)?;
        assert_eq!(empty.get([0, 0]).unwrap_err(), index_error(1, 0, 0));
        let dynamic = view.into_dyn();
        assert_eq!(
            dynamic.get(&[0]).unwrap_err(),
            TensorViewError::Tensor(TensorError::RankMismatch {
                expected: 2,
                actual: 1
            })
        );
        assert_eq!(dynamic.get(&[0, 4]).unwrap_err(), index_error(1, 4, 3));
    }
    assert_eq!(
        owner.get([0, 3]).unwrap_err(),
        TensorError::IndexOutOfBounds {
            axis: 1,
            index: 3,
            dimension: 3
        }
    );
    assert_eq!(
        owner.get_mut([2, 0]).unwrap_err(),
        TensorError::IndexOutOfBounds {
            axis: 0,
            index: 2,
            dimension: 2
        }
    );
    Ok(())
}

#[test]
fn every_bound_is_checked_before_any_offset_arithmetic() -> TestResult {
    let index_error = |axis, index, dimension| {
        TensorViewError::Tensor(TensorError::IndexOutOfBounds {
            axis,
            index,
            dimension,
        })
    };
    // An empty view may have any base offset; no coordinate is inside it.
    let nothing: [f64; 0] = [];
    let empty = View::from_parts(&nothing, [3, 0], [1, 1], usize::MAX)?;
    assert_eq!(empty.get([1, 0]).unwrap_err(), index_error(1, 0, 0));
    assert_eq!(
        empty.storage_offset([2, 0]).unwrap_err(),
        index_error(1, 0, 0)
    );
    // The same through transforms: [0, 1, MAX] has strides [MAX, MAX, 1];
    // its transpose sliced at the end of the stride-MAX axis has base MAX.
    let owner: Tensor<3> = Tensor::from_vec([0, 1, usize::MAX], vec![])?;
    let view = owner.view().transpose(2, 0)?.slice(1, 1..1)?;
    assert_eq!(
        (view.shape(), view.base_offset()),
        (&[usize::MAX, 0, 0], usize::MAX)
    );
    assert_eq!(view.get([5, 0, 0]).unwrap_err(), index_error(1, 0, 0));
    assert_eq!(
        view.into_dyn().get(&[5, 0, 0]).unwrap_err(),
        index_error(1, 0, 0)
    );
    Ok(())
}

#[test]
fn materialize_into_rejects_another_shape_and_leaves_it_untouched() -> TestResult {
    let owner = frozen();
    let mut out: Tensor<2> = Tensor::full([2, 3], -1.0)?;
    assert_eq!(
        owner
            .view()
            .transpose(0, 1)?
            .materialize_into(&mut out)
            .unwrap_err(),
        TensorViewError::OutputShapeMismatch {
            expected: vec![3, 2],
            actual: vec![2, 3]
        }
    );
    assert_eq!(out.as_slice(), &[-1.0; 6]);
    let mut dynamic_out = DynTensor::from_vec(vec![6], vec![0.0; 6])?;
    assert_eq!(
        owner
            .view()
            .into_dyn()
            .materialize_into(&mut dynamic_out)
            .unwrap_err(),
        TensorViewError::OutputShapeMismatch {
            expected: vec![2, 3],
            actual: vec![6]
        }
    );
    Ok(())
}

// ---- messages name the operation and the sizes ----

#[test]
fn every_message_names_the_numbers() {
    let cases: Vec<(TensorViewError, &str)> = vec![
        (
            TensorViewError::ReshapeElementCountMismatch {
                current: 6,
                requested: 8,
            },
            "reshape: the view holds 6 elements, the requested shape holds 8",
        ),
        (
            TensorViewError::NonContiguousReshape,
            "reshape: the view is not row-major contiguous; reshape never copies, call materialize() first",
        ),
        (
            TensorViewError::PermutationLengthMismatch {
                expected: 2,
                actual: 3,
            },
            "permute: the axis list has 3 entries, the view has rank 2",
        ),
        (
            TensorViewError::DuplicateAxis { axis: 0 },
            "permute: axis 0 appears more than once",
        ),
        (
            TensorViewError::AxisOutOfBounds { axis: 9, rank: 3 },
            "axis 9 is out of bounds for a view of rank 3",
        ),
        (
            TensorViewError::SliceStartAfterEnd {
                axis: 1,
                start: 5,
                end: 4,
            },
            "slice: on axis 1 the start 5 is after the end 4",
        ),
        (
            TensorViewError::SliceEndOutOfBounds {
                axis: 1,
                end: 4,
                dimension: 3,
            },
            "slice: on axis 1 the end 4 is past the extent 3",
        ),
        (
            TensorViewError::OutputShapeMismatch {
                expected: vec![3, 2],
                actual: vec![2, 3],
            },
            "materialize_into: the output has shape [2, 3], the view has shape [3, 2]",
        ),
        (
            TensorViewError::Tensor(TensorError::IndexOutOfBounds {
                axis: 1,
                index: 3,
                dimension: 3,
            }),
            "index out of bounds: index 3 on axis 1 of extent 3",
        ),
        (
            TensorViewError::Tensor(TensorError::ElementCountMismatch {
                expected: 6,
                actual: 5,
            }),
            "element count mismatch: the shape needs 6 values, 5 were given",
        ),
        (
            TensorViewError::Tensor(TensorError::RankMismatch {
                expected: 3,
                actual: 2,
            }),
            "rank mismatch: expected rank 3, got rank 2",
        ),
        (
            TensorViewError::Tensor(TensorError::AllocationFailed { elements: 7 }),
            "allocation failed: could not reserve storage for 7 elements",
        ),
        (
            OVERFLOW,
            "shape overflow: an element count, stride or offset of this shape does not fit in usize",
        ),
    ];
    for (error, message) in cases {
        assert_eq!(error.to_string(), message);
    }
    // The out-of-bounds message names both sizes.
    let out_of_bounds = TensorViewError::ViewOutOfBounds {
        required_len: 7,
        available: 6,
    }
    .to_string();
    assert!(
        out_of_bounds.contains('7') && out_of_bounds.contains('6'),
        "{out_of_bounds}"
    );
}
