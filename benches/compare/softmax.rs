//! The fused `softmax_axis` against its five-call composition and ndarray,
//! and `index_select` against a plain loop.
//!
//! softmax: over the last axis of GPT-2 small's attention scores
//! `[12, 1024, 1024]` (f32 and f64), causally masked as GPT-2 feeds them to
//! the softmax (about half the scores are -inf), and unmasked. `composition` is `max_axis` (KeepDim)
//! -> `sub(x, m)` -> `.exp()` (the crate's) -> `sum_axis` (KeepDim) -> `div(e, z)`,
//! which ours equals bit for bit (checked before timing); `ndarray` is its
//! idiomatic equivalent (`a - max` into a new array, `mapv_inplace(exp)`,
//! `sum_axis`, `/=` in place: one full-size allocation, like ours).
//! `_2t`: the same on a local pool of two threads (wall clock), the
//! composition included (its reductions split, its maps do not).
//! index_select: the embedding lookup, 1024 token rows of GPT-2's `[50257, 768]` f32
//! table; `loop` extends a reserved `Vec` with each row's slice.

use super::harness::*;
use super::table::{Row, row};
use criterion::Criterion;
use llm_from_scratch::prelude::*;
use ndarray::{Array3, Axis};

/// The attention scores' shape: heads, queries, keys.
const SCORES: [usize; 3] = [12, 1024, 1024];
/// GPT-2's vocabulary and width, and the tokens looked up.
const VOCAB: usize = 50257;
const WIDTH: usize = 768;
const TOKENS: usize = 1024;

/// The five-call composition the fused op replaces.
fn composition<T: Elem>(scores: &Tensor<3, T>) -> Tensor<3, T> {
    let m = max_axis(scores, 2, KeepDim).unwrap();
    let e = sub(scores, &m).unwrap().exp().unwrap();
    let z = sum_axis(&e, 2, KeepDim).unwrap();
    div(&e, &z).unwrap()
}

/// ndarray's idiomatic stable softmax over the last axis.
fn ndarray_softmax<T: Elem>(scores: &Array3<T>) -> Array3<T> {
    let m = scores
        .map_axis(Axis(2), |row| row.fold(T::neg_infinity(), |m, &x| m.max(x)))
        .insert_axis(Axis(2));
    let mut e = scores - &m;
    e.mapv_inplace(|x| x.exp());
    let z = e.sum_axis(Axis(2)).insert_axis(Axis(2));
    e /= &z;
    e
}

/// `softmax/{f32,f64}`: ours, ours_into, composition, ndarray, on
/// causally masked scores (key `j > i` is -inf, as GPT-2's attention feeds
/// the softmax), or on the same scores unmasked (`softmax_unmasked/..`).
pub(crate) fn softmax<T: Elem>(c: &mut Criterion, masked: bool) {
    let kind = if masked {
        "softmax"
    } else {
        "softmax_unmasked"
    };
    let name = format!("{kind}/{}", T::NAME);
    let mut g = group(c, &name, 3000);
    let len = SCORES.iter().product();
    let scores: Vec<T> = (0..len)
        .map(|i| {
            let (query, key) = ((i / SCORES[2]) % SCORES[1], i % SCORES[2]);
            if masked && key > query {
                T::neg_infinity()
            } else {
                T::value(i)
            }
        })
        .collect();
    let owner = Tensor::from_vec(SCORES, scores.clone()).unwrap();
    let array = Array3::from_shape_vec((SCORES[0], SCORES[1], SCORES[2]), scores).unwrap();
    let fused = softmax_axis(&owner, 2).unwrap();
    let bits = |v: &[T]| v.iter().map(|x| x.bits()).collect::<Vec<_>>();
    assert!(
        bits(fused.as_slice()) == bits(composition(&owner).as_slice()),
        "softmax_axis is not bit-identical to the composition"
    );
    let reference = ndarray_softmax(&array);
    let worst = fused
        .as_slice()
        .iter()
        .zip(reference.iter())
        .map(|(a, b)| (a.as_f64() - b.as_f64()).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-5, "ndarray's softmax disagrees by {worst}");
    timed(&mut g, &name, "ours", || softmax_axis(&owner, 2).unwrap());
    timed_on_two(&mut g, &name, "ours_2t", || {
        softmax_axis(&owner, 2).unwrap()
    });
    let mut out = Tensor::zeros(SCORES).unwrap();
    timed(&mut g, &name, "ours_into", || {
        softmax_axis_into(&owner, 2, &mut out).unwrap();
        out.as_slice()[7]
    });
    timed_on_two(&mut g, &name, "ours_into_2t", || {
        softmax_axis_into(&owner, 2, &mut out).unwrap();
        out.as_slice()[7]
    });
    timed(&mut g, &name, "composition", || composition(&owner));
    // Its maps stay on the calling thread; its reductions take the two.
    timed_on_two(&mut g, &name, "composition_2t", || composition(&owner));
    timed(&mut g, &name, "ndarray", || ndarray_softmax(&array));
    g.finish();
}

/// `index_select/f32`: ours, ours_into and the plain loop.
pub(crate) fn index_select_rows(c: &mut Criterion) {
    let name = "index_select/f32";
    let mut g = group(c, name, 1500);
    let table = Tensor::from_vec([VOCAB, WIDTH], values::<f32>(VOCAB * WIDTH)).unwrap();
    // Token ids spread over the whole table (a fixed pseudo-random walk).
    let ids: Vec<usize> = (0..TOKENS)
        .map(|i| (i * 7919 + 13) * 104_729 % VOCAB)
        .collect();
    let plain_loop = || {
        let data = table.as_slice();
        let mut out = Vec::with_capacity(TOKENS * WIDTH);
        for &id in &ids {
            out.extend_from_slice(&data[id * WIDTH..(id + 1) * WIDTH]);
        }
        out
    };
    let ours = index_select(&table, 0, &ids).unwrap();
    assert_eq!(ours.as_slice(), plain_loop().as_slice());
    // The loop first, so any warm-up advantage goes to the reference.
    timed(&mut g, name, "loop", plain_loop);
    timed(&mut g, name, "ours", || {
        index_select(&table, 0, &ids).unwrap()
    });
    let mut out = Tensor::zeros([TOKENS, WIDTH]).unwrap();
    timed(&mut g, name, "ours_into", || {
        index_select_into(&table, 0, &ids, &mut out).unwrap();
        out.as_slice()[7]
    });
    g.finish();
}

/// The report rows of the softmax and index_select cases (the reference
/// column `memcpy|nv` shows the composition / the loop for them).
pub(crate) fn rows() -> Vec<Row> {
    let mut rows = Vec::new();
    for t in ["f32", "f64"] {
        rows.push(row(
            &format!("softmax unmasked {t} vs composition"),
            &format!("softmax_unmasked/{t}"),
            "ours",
            "composition",
            None,
            &format!("softmax_unmasked_{t}_vs_composition"),
        ));
        let group = format!("softmax/{t}");
        rows.push(row(
            &format!("softmax {t} vs composition"),
            &group,
            "ours",
            "composition",
            Some(0.5),
            &format!("softmax_{t}_vs_composition"),
        ));
        rows.push(row(
            &format!("softmax {t} vs ndarray"),
            &group,
            "ours",
            "ndarray",
            None,
            &format!("softmax_{t}_vs_ndarray"),
        ));
        rows.push(row(
            &format!("softmax_into {t} vs composition"),
            &group,
            "ours_into",
            "composition",
            None,
            &format!("softmax_into_{t}_vs_composition"),
        ));
    }
    rows.push(row(
        "index_select 1024 rows f32",
        "index_select/f32",
        "ours",
        "loop",
        Some(1.0),
        "index_select_f32_vs_loop",
    ));
    rows.push(row(
        "index_select_into f32 vs loop",
        "index_select/f32",
        "ours_into",
        "loop",
        None,
        "index_select_into_f32_vs_loop",
    ));
    rows
}
