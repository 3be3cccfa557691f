//! The dynamic-rank fallback: `DynTensor` / `DynView` keep the seed's
//! runtime-checked signatures, convert to and from the ranked types with
//! `RankMismatch` on a wrong rank, and work above `MAX_RANK`.

use llm_from_scratch::Error;
use llm_from_scratch::tensor::dynamic::{DynTensor, DynView};
use llm_from_scratch::tensor::{MAX_RANK, Tensor, View};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn frozen() -> DynTensor {
    DynTensor::from_vec(vec![2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0]).expect("6 values")
}

#[test]
fn the_seed_example_through_the_dynamic_api() -> TestResult {
    let owner = frozen();
    assert_eq!(
        (owner.shape(), owner.strides(), owner.rank()),
        (&[2, 3][..], &[3, 1][..], 2)
    );
    let view = owner.view();
    let reshaped = view.reshape(&[3, 2])?;
    assert_eq!(
        (reshaped.shape(), reshaped.strides()),
        (&[3, 2][..], &[2, 1][..])
    );
    assert_eq!(reshaped.offsets().collect::<Vec<_>>(), [0, 1, 2, 3, 4, 5]);
    let transposed = view.transpose(0, 1)?;
    assert_eq!(transposed.strides(), &[1, 3]);
    assert_eq!(transposed.offsets().collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);
    assert_eq!(transposed.get(&[2, 1])?, &22.0);
    let slice = view.slice(1, 1..3)?;
    assert_eq!(slice.base_offset(), 1);
    assert_eq!(slice.offsets().collect::<Vec<_>>(), [1, 2, 4, 5]);
    assert!(!slice.is_contiguous());
    let materialized = slice.materialize()?;
    assert_eq!(
        (materialized.shape(), materialized.strides()),
        (&[2, 2][..], &[2, 1][..])
    );
    assert_eq!(materialized.as_slice(), &[11.0, 12.0, 21.0, 22.0]);
    assert_eq!(
        view.reshape(&[4, 2]).unwrap_err(),
        Error::ReshapeElementCountMismatch {
            op: "reshape",
            current: 6,
            requested: 8
        }
    );
    assert_eq!(
        transposed.reshape(&[2, 3]).unwrap_err(),
        Error::NonContiguousReshape
    );
    Ok(())
}

#[test]
fn permutation_length_is_checked_first() -> TestResult {
    let owner = frozen();
    let view = owner.view();
    assert_eq!(
        view.permute(&[0]).unwrap_err(),
        Error::PermutationLengthMismatch {
            expected: 2,
            actual: 1
        }
    );
    assert_eq!(
        view.permute(&[0, 1, 2]).unwrap_err(),
        Error::PermutationLengthMismatch {
            expected: 2,
            actual: 3
        }
    );
    // The length wins over bad entries.
    assert_eq!(
        view.permute(&[9, 9, 9]).unwrap_err(),
        Error::PermutationLengthMismatch {
            expected: 2,
            actual: 3
        }
    );
    assert_eq!(
        view.permute(&[]).unwrap_err(),
        Error::PermutationLengthMismatch {
            expected: 2,
            actual: 0
        }
    );
    assert_eq!(
        view.permute(&[1, 0])?.offsets().collect::<Vec<_>>(),
        [0, 3, 1, 4, 2, 5]
    );
    let scalar = DynTensor::from_vec(vec![], vec![7.0])?;
    assert_eq!(scalar.view().permute(&[])?.get(&[])?, &7.0);
    Ok(())
}

#[test]
fn into_ranked_reports_the_rank_mismatch() -> TestResult {
    assert_eq!(
        frozen().into_ranked::<3>().unwrap_err(),
        Error::RankMismatch {
            op: "into_ranked",
            expected: 3,
            actual: 2
        }
    );
    assert_eq!(
        frozen().into_ranked::<0>().unwrap_err(),
        Error::RankMismatch {
            op: "into_ranked",
            expected: 0,
            actual: 2
        }
    );
    let owner = frozen();
    assert_eq!(
        owner.view().into_ranked::<1>().unwrap_err(),
        Error::RankMismatch {
            op: "into_ranked",
            expected: 1,
            actual: 2
        }
    );
    let ranked: Tensor<2> = frozen().into_ranked()?;
    assert_eq!(ranked.get([1, 2])?, &22.0);
    Ok(())
}

#[test]
fn try_from_both_ways_for_tensors_and_views() -> TestResult {
    assert_eq!(
        Tensor::<3>::try_from(frozen()).unwrap_err(),
        Error::RankMismatch {
            op: "try_from",
            expected: 3,
            actual: 2
        }
    );
    let ranked = Tensor::<2>::try_from(frozen())?;
    assert_eq!(ranked.shape(), &[2, 3]);
    let back = DynTensor::from(ranked);
    assert_eq!(back, frozen());

    let owner = frozen();
    assert_eq!(
        View::<4>::try_from(owner.view()).unwrap_err(),
        Error::RankMismatch {
            op: "try_from",
            expected: 4,
            actual: 2
        }
    );
    let view = View::<2>::try_from(owner.view().transpose(0, 1)?)?;
    assert_eq!(view.strides(), &[1, 3]);
    let dynamic = DynView::from(view);
    assert_eq!(dynamic.strides(), &[1, 3]);
    assert_eq!(dynamic, owner.view().transpose(0, 1)?);
    Ok(())
}

#[test]
fn round_trips_keep_the_layout() -> TestResult {
    let ranked: Tensor<3, i32> =
        Tensor::from_fn([2, 3, 4], |[i, j, k]| (100 * i + 10 * j + k) as i32)?;
    let dynamic = ranked.clone().into_dyn();
    assert_eq!(
        (dynamic.shape(), dynamic.strides()),
        (&[2, 3, 4][..], &[12, 4, 1][..])
    );
    assert_eq!(dynamic.as_slice(), ranked.as_slice());
    assert_eq!(dynamic.clone().into_ranked::<3>()?, ranked);

    // A view with a base offset and non-row-major strides survives both conversions.
    let view = ranked.view().slice(2, 1..3)?.permute([2, 0, 1])?;
    let erased = view.into_dyn();
    assert_eq!(erased.shape(), view.shape());
    assert_eq!(erased.strides(), view.strides());
    assert_eq!(erased.base_offset(), 1);
    assert_eq!(erased.len(), 12);
    assert!(!erased.is_contiguous());
    assert_eq!(
        erased.offsets().collect::<Vec<_>>(),
        view.offsets().collect::<Vec<_>>()
    );
    assert_eq!(
        erased.iter().collect::<Vec<_>>(),
        view.iter().collect::<Vec<_>>()
    );
    let restored: View<3, i32> = erased.into_ranked()?;
    assert_eq!(
        (restored.shape(), restored.strides()),
        (view.shape(), view.strides())
    );
    assert_eq!(restored.base_offset(), view.base_offset());
    assert_eq!(restored.materialize()?, view.materialize()?);
    Ok(())
}

#[test]
fn a_rank_nine_tensor_works_dynamically() -> TestResult {
    let shape = vec![2, 1, 2, 1, 2, 1, 2, 1, 3];
    assert!(shape.len() > MAX_RANK);
    // Each value spells its coordinate in base 10.
    let owner = DynTensor::from_fn(shape.clone(), |index| {
        index
            .iter()
            .fold(0_u64, |number, &digit| 10 * number + digit as u64)
    })?;
    assert_eq!((owner.rank(), owner.len()), (9, 48));
    assert_eq!(owner.strides(), &[24, 24, 12, 12, 6, 6, 3, 3, 1]);
    assert_eq!(owner.get(&[1, 0, 1, 0, 0, 0, 1, 0, 2])?, &101_000_102);

    let view = owner.view();
    let reversed = view.permute(&[8, 7, 6, 5, 4, 3, 2, 1, 0])?;
    assert_eq!(reversed.shape(), &[3, 1, 2, 1, 2, 1, 2, 1, 2]);
    assert_eq!(reversed.strides(), &[1, 3, 3, 6, 6, 12, 12, 24, 24]);
    assert_eq!(reversed.get(&[2, 0, 1, 0, 0, 0, 1, 0, 1])?, &101_000_102);
    let swapped = view.transpose(0, 8)?;
    assert_eq!(swapped.get(&[2, 0, 1, 0, 0, 0, 1, 0, 1])?, &101_000_102);
    let sliced = view.slice(8, 1..3)?.slice(0, 1..2)?;
    assert_eq!(sliced.base_offset(), 25);
    assert_eq!(sliced.len(), 16);
    assert_eq!(sliced.iter().next(), Some(&100_000_001));

    let materialized = reversed.materialize()?;
    let flat = materialized.view().reshape(&[48])?;
    let expected: Vec<u64> = reversed.iter().copied().collect();
    assert_eq!(flat.iter().copied().collect::<Vec<_>>(), expected);
    assert_eq!(expected[..3], [0, 100_000_000, 1_000_000]);

    // Rank 9 also fits a ranked Tensor; only the typed rank helpers stop at 8.
    let ranked: Tensor<9, u64> = owner.clone().into_ranked()?;
    assert_eq!(ranked.get([1, 0, 1, 0, 0, 0, 1, 0, 2])?, &101_000_102);
    let ranked_view = ranked.view().permute([8, 7, 6, 5, 4, 3, 2, 1, 0])?;
    assert_eq!(ranked_view.into_dyn(), reversed);
    Ok(())
}

#[test]
fn dynamic_views_over_borrowed_buffers() -> TestResult {
    let data: Vec<f64> = (0..10).map(f64::from).collect();
    let view = DynView::from_parts(&data, vec![2, 3], vec![4, 1], 1)?;
    assert_eq!(
        view.iter().copied().collect::<Vec<_>>(),
        [1.0, 2.0, 3.0, 5.0, 6.0, 7.0]
    );
    assert!(!view.is_contiguous());
    assert_eq!(view.storage_offset(&[1, 2])?, 7);
    let mut out = DynTensor::from_vec(vec![2, 3], vec![0.0; 6])?;
    view.materialize_into(&mut out)?;
    assert_eq!(out.as_slice(), &[1.0, 2.0, 3.0, 5.0, 6.0, 7.0]);
    assert_eq!(
        DynView::from_parts(&data, vec![2, 3], vec![7, 1], 1).unwrap_err(),
        Error::ViewOutOfBounds {
            op: "View::from_parts",
            required_len: 1 + 7 + 2 + 1,
            available: 10
        }
    );
    Ok(())
}
