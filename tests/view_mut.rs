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
    for (h, mut head) in cache.view_mut().axis_iter(1)?.enumerate() {
        head.fill(h as f64 + 1.0); // [T, D] of head h
    }
    assert_eq!(
        cache.as_slice(),
        &[1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    );
    let (mut first, mut rest) = cache.view_mut().split_at(1, 1)?;
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
        .axis_chunks_iter(0, 1)?
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
        Err(Error::IncompatibleBroadcast {
            op: "assign",
            axis: 1,
            left_dimension: 2,
            right_dimension: 3
        })
    );
    assert_eq!(
        x.view_mut().set([2, 0], 1.0),
        Err(Error::IndexOutOfBounds {
            op: "set",
            axis: 0,
            index: 2,
            dimension: 2
        })
    );
    let mut data = [0.0; 4];
    assert!(matches!(
        ViewMut::from_parts(&mut data, [2, 2], [1, 1], 0),
        Err(Error::OverlappingMutableView { .. })
    ));
    let mut d = DynTensor::zeros(vec![2, 2])?;
    let three = DynTensor::from_vec(vec![2, 1, 2], vec![0.0; 4])?;
    assert_eq!(
        d.view_mut().assign(&three.view()),
        Err(Error::BroadcastRankTooSmall {
            op: "assign",
            rank: 3,
            target_rank: 2
        })
    );
    Ok(())
}

#[test]
fn an_exclusive_mutable_view_after_transforms_is_an_operand() -> TestResult {
    // [2, 3, 4] -> columns 1..3 of every row, transposed: the same layout
    // as a view and as an exclusive mutable view.
    let mut x = Tensor::from_fn([2, 3, 4], |[b, i, j]| (100 * b + 10 * i + j) as f64)?;
    let want = x.view().slice(2, 1..3)?.transpose(1, 2)?.materialize()?;
    let sums = sum_axis(&want, 2, RemoveDim)?;
    let w = Tensor::from_fn([3, 2], |[i, j]| (i + 2 * j) as f64)?;
    let products = matmul(&want, &w)?;
    let mut m = x.view_mut().slice(2, 1..3)?.transpose(1, 2)?; // [2, 2, 3]
    assert_eq!((m.shape(), m.strides()), (&[2, 2, 3], &[12, 1, 4]));
    assert_eq!(m.materialize()?, want);
    assert_eq!(sum_axis(&m, 2, RemoveDim)?, sums);
    assert_eq!(m.sum_axis(2, RemoveDim)?, sums);
    assert_eq!(matmul(&m, &w)?, products);
    assert_eq!(m.view().materialize()?, want);
    // What is written through it is what the operations read, without a copy.
    m.map_inplace(|v| -v);
    assert_eq!(sum_axis(&m, 2, RemoveDim)?, map_unary(&sums, |s: f64| -s)?);
    assert_eq!(
        map_binary(&m.reborrow(), &want, |a, b| a + b)?,
        Tensor::<3>::zeros([2, 2, 3])?
    );
    let dynamic = m.into_dyn();
    assert_eq!(
        sum_axis(&dynamic, 2, false)?.as_slice(),
        map_unary(&sums, |s: f64| -s)?.as_slice()
    );
    assert_eq!(x.get([1, 2, 2])?, &-122.0);
    assert_eq!(x.get([1, 2, 3])?, &123.0); // outside the slice
    Ok(())
}

#[test]
fn split_pieces_are_cell_views_that_read_and_split_further() -> TestResult {
    let mut x = Tensor::from_fn([2, 4], |[i, j]| (10 * i + j) as f64)?;
    let cells = x.view_mut().into_cells();
    let (left, right) = cells.split_at(1, 2)?; // two [2, 2] pieces, interleaved
    let [mut a, mut b] = right.transpose(0, 1)?.chunk::<2>(0)?; // columns 2 and 3
    assert_eq!(left.materialize()?.as_slice(), &[0.0, 1.0, 10.0, 11.0]);
    assert_eq!(a.materialize()?.as_slice(), &[2.0, 12.0]);
    assert_eq!((a.get([0, 1])?, b.get([0, 0])?), (12.0, 3.0));
    a.fill(-1.0);
    b.set([0, 1], 99.0)?;
    assert_eq!(left.get([1, 1])?, 11.0);
    assert_eq!(x.as_slice(), &[0.0, 1.0, -1.0, 3.0, 10.0, 11.0, -1.0, 99.0]);
    Ok(())
}
