//! Mutable views: writes land exactly where the layout says, through any
//! chain of transforms, and nowhere else.

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::ViewMut;
use llm_from_scratch::tensor::dynamic::DynTensor;

type TestResult = Result<(), Error>;

#[test]
fn each_head_of_a_cache_is_written_through_its_own_view() -> TestResult {
    // A [T, H, D] = [2, 3, 2] cache: the heads interleave in memory.
    let mut cache = Tensor::<3>::zeros([2, 3, 2])?;
    for (h, mut head) in cache.view_mut().axis_iter_mut(1)?.enumerate() {
        head.fill(h as f64 + 1.0); // [T, D] of head h
    }
    assert_eq!(
        cache.as_slice(),
        &[1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    );
    let (mut first, mut rest) = cache.view_mut().split_at_mut(1, 1)?;
    first.map_inplace(|x| -x);
    rest.zip_map_inplace(&Tensor::from_vec([2], vec![10.0, 20.0])?, |x, add| x + add)?;
    assert_eq!(
        cache.as_slice(),
        &[
            -1.0, -1.0, 12.0, 22.0, 13.0, 23.0, -1.0, -1.0, 12.0, 22.0, 13.0, 23.0
        ]
    );
    let backwards: Vec<f64> = cache
        .view_mut()
        .axis_chunks_iter_mut(0, 1)?
        .rev()
        .map(|chunk| chunk.get([0, 2, 1]).unwrap())
        .collect();
    assert_eq!(backwards, [23.0, 23.0]);
    Ok(())
}

#[test]
fn a_kv_cache_position_is_written_in_place() -> TestResult {
    // K stored transposed, [H, D, T_max]: position t is the column t of every head.
    let (heads, width, t_max) = (2, 3, 4);
    let mut k_cache = Tensor::<3>::zeros([heads, width, t_max])?;
    for t in 0..3 {
        let k_t = Tensor::from_fn([heads, width], |[h, d]| (100 * h + 10 * d + t) as f64)?;
        k_cache.view_mut().select(2, t)?.assign(&k_t)?;
    }
    for h in 0..heads {
        for d in 0..width {
            for t in 0..t_max {
                let want = if t < 3 {
                    (100 * h + 10 * d + t) as f64
                } else {
                    0.0
                };
                assert_eq!(k_cache.get([h, d, t])?, &want);
            }
        }
    }
    // The packed projection's three parts are written through one chunk each.
    let mut qkv = Tensor::<2>::zeros([2, 6])?;
    let [mut q, mut k, mut v] = qkv.view_mut().chunk::<3>(1)?;
    q.fill(1.0);
    k.fill(2.0);
    v.fill(3.0);
    assert_eq!(
        qkv.as_slice(),
        &[1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    );
    Ok(())
}

#[test]
fn mutable_views_reject_bad_input_with_typed_errors() -> TestResult {
    let mut x = Tensor::<2>::zeros([2, 3])?;
    let wrong = Tensor::from_vec([2], vec![1.0, 2.0])?;
    assert_eq!(
        x.view_mut().assign(&wrong),
        Err(TensorViewError::IncompatibleBroadcast {
            axis: 1,
            extent: 2,
            target: 3
        })
    );
    assert_eq!(
        x.view_mut().set([2, 0], 1.0),
        Err(TensorViewError::Tensor(TensorError::IndexOutOfBounds {
            axis: 0,
            index: 2,
            dimension: 2
        }))
    );
    let mut data = [0.0; 4];
    assert!(matches!(
        ViewMut::from_parts(&mut data, [2, 2], [1, 1], 0),
        Err(TensorViewError::OverlappingMutableView { .. })
    ));
    let mut d = DynTensor::zeros(vec![2, 2])?;
    let three = DynTensor::from_vec(vec![2, 1, 2], vec![0.0; 4])?;
    assert_eq!(
        d.view_mut().assign(&three.view()),
        Err(TensorViewError::BroadcastRankTooSmall {
            rank: 3,
            target_rank: 2
        })
    );
    Ok(())
}
