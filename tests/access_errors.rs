//! Errors of making and reading tensors and views, with their exact
//! variants and fields: a wrong value count, a failed allocation, a
//! `from_parts` layout that reaches past its data, `get` / `storage_offset`
//! past an extent (the first failing axis is named, every bound is checked
//! before any offset arithmetic), and `materialize_into` into another
//! shape. The errors of view transforms are in `view_errors.rs`.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::{DynTensor, DynView};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn frozen() -> Tensor<2> {
    Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0]).expect("6 values fit [2, 3]")
}

/// The overflow of a shape given to the public operation `op`.
fn overflow(op: &'static str) -> Error {
    Error::ShapeOverflow { op }
}

/// `IndexOutOfBounds` of the coordinate access `op`.
fn index_error(op: &'static str, axis: usize, index: usize, dimension: usize) -> Error {
    Error::IndexOutOfBounds {
        op,
        axis,
        index,
        dimension,
    }
}

#[test]
fn from_vec_rejects_a_wrong_value_count() {
    assert_eq!(
        Tensor::from_vec([2, 3], vec![1.0; 5]).unwrap_err(),
        Error::ElementCountMismatch {
            op: "from_vec",
            expected: 6,
            actual: 5
        }
    );
    assert_eq!(
        Tensor::<0>::from_vec([], vec![]).unwrap_err(),
        Error::ElementCountMismatch {
            op: "from_vec",
            expected: 1,
            actual: 0
        }
    );
    assert_eq!(
        Tensor::from_vec([2, 0, 3], vec![1.0]).unwrap_err(),
        Error::ElementCountMismatch {
            op: "from_vec",
            expected: 0,
            actual: 1
        }
    );
    // Overflow is checked before the count.
    assert_eq!(
        Tensor::<2>::from_vec([usize::MAX, 2], vec![]).unwrap_err(),
        overflow("from_vec")
    );
    assert_eq!(
        DynTensor::from_vec(vec![2, 3], vec![1.0; 7]).unwrap_err(),
        Error::ElementCountMismatch {
            op: "from_vec",
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
        Error::AllocationFailed {
            op: "zeros",
            elements
        }
    );
    assert_eq!(
        Tensor::<2>::full([elements, 1], 1.0).unwrap_err(),
        Error::AllocationFailed {
            op: "full",
            elements
        }
    );
    assert_eq!(
        Tensor::<1, f64>::from_fn([elements], |_| 0.0).unwrap_err(),
        Error::AllocationFailed {
            op: "from_fn",
            elements
        }
    );
    assert_eq!(
        Tensor::<2>::zeros([usize::MAX, 2]).unwrap_err(),
        overflow("zeros")
    );
    // A stride-0 view reaches 2^62 logical values from one stored value.
    let one = [1.0];
    let wide = View::from_parts(&one, [elements], [0], 0).expect("every offset is 0");
    assert_eq!(
        wide.materialize().unwrap_err(),
        Error::AllocationFailed {
            op: "materialize",
            elements
        }
    );
}

#[test]
fn from_parts_rejects_layouts_outside_the_data() {
    let data = [0.0; 6];
    // Offset 1 + 3 + 2 = 6 is one past the end.
    assert_eq!(
        View::from_parts(&data, [2, 3], [3, 1], 1).unwrap_err(),
        Error::ViewOutOfBounds {
            op: "View::from_parts",
            required_len: 7,
            available: 6
        }
    );
    assert_eq!(
        View::from_parts(&data, [], [], 6).unwrap_err(),
        Error::ViewOutOfBounds {
            op: "View::from_parts",
            required_len: 7,
            available: 6
        }
    );
    assert_eq!(
        View::from_parts(&data, [2, 2], [4, 2], 0).unwrap_err(),
        Error::ViewOutOfBounds {
            op: "View::from_parts",
            required_len: 7,
            available: 6
        }
    );
    // The largest offset overflows.
    assert_eq!(
        View::from_parts(&data, [3], [usize::MAX], 0).unwrap_err(),
        overflow("View::from_parts")
    );
    assert_eq!(
        View::from_parts(&data, [2], [1], usize::MAX).unwrap_err(),
        overflow("View::from_parts")
    );
    // The element count overflows even with stride 0.
    assert_eq!(
        View::from_parts(&data, [usize::MAX, 2], [0, 0], 0).unwrap_err(),
        overflow("View::from_parts")
    );
    // Row-major data that is too short.
    assert_eq!(
        View::from_slice(&data[..5], [2, 3]).unwrap_err(),
        Error::ViewOutOfBounds {
            op: "from_slice",
            required_len: 6,
            available: 5
        }
    );
    assert_eq!(
        View::<2>::from_slice(&data, [usize::MAX, 2]).unwrap_err(),
        overflow("from_slice")
    );
    // The dynamic constructor also checks that shape and strides agree in length.
    assert_eq!(
        DynView::from_parts(&data, vec![2, 3], vec![3], 0).unwrap_err(),
        Error::StridesLengthMismatch {
            op: "View::from_parts",
            rank: 2,
            strides: 1
        }
    );
}

#[test]
fn get_names_the_first_axis_out_of_bounds() -> TestResult {
    let mut owner = frozen();
    {
        let view = owner.view();
        assert_eq!(view.get([2, 0]).unwrap_err(), index_error("get", 0, 2, 2));
        assert_eq!(view.get([1, 3]).unwrap_err(), index_error("get", 1, 3, 3));
        assert_eq!(view.get([5, 5]).unwrap_err(), index_error("get", 0, 5, 2));
        assert_eq!(
            view.storage_offset([0, 3]).unwrap_err(),
            index_error("storage_offset", 1, 3, 3)
        );
        let transposed = view.transpose(0, 1)?;
        assert_eq!(
            transposed.get([0, 2]).unwrap_err(),
            index_error("get", 1, 2, 2)
        );
        assert_eq!(
            transposed.get([3, 0]).unwrap_err(),
            index_error("get", 0, 3, 3)
        );
        let empty = view.slice(1, 1..1)?;
        assert_eq!(empty.get([0, 0]).unwrap_err(), index_error("get", 1, 0, 0));
        let dynamic = view.into_dyn();
        assert_eq!(
            dynamic.get(&[0]).unwrap_err(),
            Error::RankMismatch {
                op: "get",
                expected: 2,
                actual: 1
            }
        );
        assert_eq!(
            dynamic.get(&[0, 4]).unwrap_err(),
            index_error("get", 1, 4, 3)
        );
    }
    assert_eq!(owner.get([0, 3]).unwrap_err(), index_error("get", 1, 3, 3));
    assert_eq!(
        owner.get_mut([2, 0]).unwrap_err(),
        index_error("get_mut", 0, 2, 2)
    );
    Ok(())
}

#[test]
fn every_bound_is_checked_before_any_offset_arithmetic() -> TestResult {
    // An empty view may have any base offset; no coordinate is inside it.
    let nothing: [f64; 0] = [];
    let empty = View::from_parts(&nothing, [3, 0], [1, 1], usize::MAX)?;
    assert_eq!(empty.get([1, 0]).unwrap_err(), index_error("get", 1, 0, 0));
    assert_eq!(
        empty.storage_offset([2, 0]).unwrap_err(),
        index_error("storage_offset", 1, 0, 0)
    );
    // The same through transforms: [0, 1, MAX] has strides [MAX, MAX, 1];
    // its transpose sliced at the end of the stride-MAX axis has base MAX.
    let owner: Tensor<3> = Tensor::from_vec([0, 1, usize::MAX], vec![])?;
    let view = owner.view().transpose(2, 0)?.slice(1, 1..1)?;
    assert_eq!(
        (view.shape(), view.base_offset()),
        (&[usize::MAX, 0, 0], usize::MAX)
    );
    assert_eq!(
        view.get([5, 0, 0]).unwrap_err(),
        index_error("get", 1, 0, 0)
    );
    assert_eq!(
        view.into_dyn().get(&[5, 0, 0]).unwrap_err(),
        index_error("get", 1, 0, 0)
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
        Error::OutputShapeMismatch {
            op: "materialize_into",
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
        Error::OutputShapeMismatch {
            op: "materialize_into",
            expected: vec![2, 3],
            actual: vec![6]
        }
    );
    Ok(())
}
