//! Steps 2 and 3 of the softmax for one dense row, one vectorized pass
//! each: `e_j = exp(x_j - m)` with their fixed-tree sum `z`, then
//! `y_j = e_j / z`.
//!
//! The row is cut into the tree's leaves of [`LEAF`] values from its first
//! value (step 1 of `reduce/tree.rs`). Within a leaf the vectors are
//! visited in order; vector `c` holds the leaf's values `cW .. cW + W`
//! (`W` lanes), which are the virtual lanes `cW mod 16 ..` of the tree, so
//! it is added into accumulator `c mod (16 / W)`: each of the 16 lane sums
//! starts at +0.0 and adds its values in ascending order, exactly as
//! `leaf_sums`. A last partial vector (only in a row's last leaf) is added
//! lane by lane after the whole vectors. Every value is computed by the
//! same IEEE operations on every instruction set (the subtraction, the
//! crate's `exp`, the additions, the division), so the row is bit-identical
//! to the composition `(x - m).exp()`, `sum_axis`, divide (a NaN result
//! is NaN there too; its payload bits are unspecified, as everywhere in the
//! crate).
//!
//! It replaced a leaf-by-leaf loop (a dispatched `exp` call per 128 values,
//! the subtraction, lane sums and division at the baseline's width, and
//! the input copied to the output first): on GPT-2 small's scores `[1, 12,
//! 1024, 1024]` f32, one thread, interleaved runs on a 2-core Zen 4,
//! `softmax_axis_into` went from 19–21 ms to 11–14 ms and
//! `causal_softmax_into` from 25–29 ms to 18–20 ms.

use crate::tensor::float::Float;
use crate::tensor::lanes::{Lanes, lanes};
use crate::tensor::math::apply::{Lanewise, kernels};
use crate::tensor::math::{Math, V};
use crate::tensor::ops::reduce::{Counter, LEAF, TREE_LANES};
use crate::tensor::traverse::simd::Dispatch;
use pulp::{Simd, WithSimd};
use std::any::Any;

/// The softmax of one row from `m` on: `row[j]` becomes `e_j / z` with
/// `e_j = exp(x_j - m)` for `j < live` and `e_j = masked` for the rest (a
/// causal mask's `exp(-inf - m)`), and `z` the tree sum of all `e_j`. The
/// scores `x_j` are `source[j]` when a source is given (of the row's
/// length: the input row, so that it is read once and the output written
/// once), else `row[j]` itself (in place). Computed with `dispatch`'s
/// instruction set, the same bits on every one; `counter` is the caller's
/// reused tree.
pub(crate) fn exp_normalize<F: Float>(
    dispatch: Dispatch,
    counter: &mut Counter<F>,
    source: Option<&[F]>,
    row: &mut [F],
    live: usize,
    m: F,
    masked: F,
) {
    // `F` is `f32` or `f64` (`Float` is sealed): the kernel needs the
    // functions' constants (`Math`), which the public `Float` cannot name.
    let live = live.min(row.len());
    let counter: &mut dyn Any = counter;
    if let Some(counter) = counter.downcast_mut::<Counter<f32>>() {
        let operands = (
            source.map(F::as_f32),
            F::as_f32_mut(row),
            as_f32(m),
            as_f32(masked),
        );
        run_as(dispatch, counter, operands, live);
    } else if let Some(counter) = counter.downcast_mut::<Counter<f64>>() {
        let operands = (
            source.map(F::as_f64),
            F::as_f64_mut(row),
            as_f64(m),
            as_f64(masked),
        );
        run_as(dispatch, counter, operands, live);
    }
}

/// The source, the row, `m` and `masked` of [`exp_normalize`] seen as the
/// lane type `E` (each `Some` when `F` is `E`).
type Operands<'a, E> = (
    Option<Option<&'a [E]>>,
    Option<&'a mut [E]>,
    Option<E>,
    Option<E>,
);

/// [`exp_normalize`] once its operands are seen as `E`.
fn run_as<E: Math + Float>(
    dispatch: Dispatch,
    counter: &mut Counter<E>,
    (source, row, m, masked): Operands<'_, E>,
    live: usize,
) {
    if let (Some(row), Some(m), Some(masked)) = (row, m, masked) {
        dispatch.run(ExpNormalize {
            counter,
            source: source.flatten(),
            row,
            live,
            m,
            masked,
        });
    }
}

/// `x` as `f32` if `F` is `f32`.
fn as_f32<F: Lanes>(x: F) -> Option<f32> {
    F::as_f32(std::slice::from_ref(&x)).map(|x| x[0])
}

/// `x` as `f64` if `F` is `f64`.
fn as_f64<F: Lanes>(x: F) -> Option<f64> {
    F::as_f64(std::slice::from_ref(&x)).map(|x| x[0])
}

/// The body of [`exp_normalize`] for one lane type (`live <= row.len()`).
struct ExpNormalize<'a, E> {
    counter: &'a mut Counter<E>,
    source: Option<&'a [E]>,
    row: &'a mut [E],
    live: usize,
    m: E,
    masked: E,
}

impl<E: Math + Float> WithSimd for ExpNormalize<'_, E> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let Self {
            counter,
            source,
            row,
            live,
            m,
            masked,
        } = self;
        row[live..].fill(masked);
        counter.reset();
        for (index, leaf) in row.chunks_mut(LEAF).enumerate() {
            let first = index * LEAF;
            let leaf_live = live.saturating_sub(first).min(leaf.len());
            let sums = match source {
                Some(source) => {
                    let scores = &source[first..first + leaf.len()];
                    exp_leaf::<E, S>(simd, scores, leaf, leaf_live, m)
                }
                None => {
                    let mut scores = [<E as Float>::ZERO; LEAF];
                    scores[..leaf.len()].copy_from_slice(leaf);
                    exp_leaf::<E, S>(simd, &scores[..leaf.len()], leaf, leaf_live, m)
                }
            };
            counter.push(sums);
        }
        let z = E::splat(simd, counter.finish());
        let (vectors, tail) = E::as_mut_vectors::<S>(row);
        for v in vectors {
            *v = <E as Lanes>::div(simd, *v, z);
        }
        if !tail.is_empty() {
            let v = <E as Lanes>::div(simd, E::load_partial(simd, tail), z);
            E::store_partial(simd, tail, v);
        }
    }
}

/// `exp(x - m)` of a leaf's first `live` scores into `leaf` (whose other
/// values are final already), returning the leaf's 16 lane sums.
/// (Plain functions, not closures: a closure is not compiled with the
/// dispatched instruction set, and its intrinsics became calls.)
#[inline(always)]
fn exp_leaf<E: Math + Float, S: Simd>(
    simd: S,
    scores: &[E],
    leaf: &mut [E],
    live: usize,
    m: E,
) -> [E; TREE_LANES] {
    let width = lanes::<E, S>();
    let m = E::splat(simd, m);
    let mut partial = [<E as Float>::ZERO; TREE_LANES];
    let (xs, x_tail) = E::as_vectors::<S>(scores);
    let (vectors, tail) = E::as_mut_vectors::<S>(leaf);
    let start = vectors.len() * width;
    // Vectors per round of 16 virtual lanes, a constant of each
    // instruction set (pulp's vectors hold 1 to 16 lanes).
    let v = (xs, vectors);
    match TREE_LANES / width {
        1 => vector_sums::<E, S, 1>(simd, v, live, m, &mut partial),
        2 => vector_sums::<E, S, 2>(simd, v, live, m, &mut partial),
        4 => vector_sums::<E, S, 4>(simd, v, live, m, &mut partial),
        8 => vector_sums::<E, S, 8>(simd, v, live, m, &mut partial),
        _ => vector_sums::<E, S, 16>(simd, v, live, m, &mut partial),
    }
    if !tail.is_empty() {
        // Only a row's last leaf has one; its values come after every whole
        // vector's, so each lane still adds in ascending order.
        let mut values = [<E as Float>::ZERO; TREE_LANES];
        let e = shifted_exp::<E, S>(simd, E::load_partial(simd, x_tail), m);
        E::store_partial(simd, &mut values[..tail.len()], e);
        let live_here = live.saturating_sub(start).min(tail.len());
        tail[..live_here].copy_from_slice(&values[..live_here]);
        for (k, &e) in tail.iter().enumerate() {
            let lane = (start + k) % TREE_LANES;
            partial[lane] = partial[lane] + e;
        }
    }
    partial
}

/// A leaf's whole vectors of scores and of outputs.
type Pairs<'a, E, S> = (&'a [V<E, S>], &'a mut [V<E, S>]);

/// The whole vectors of a leaf (scores, outputs), summed into `partial`'s
/// 16 lanes through `K` vector accumulators (`K` vectors make one round of
/// 16 lanes, so vector `c` goes to accumulator `c mod K`).
#[inline(always)]
fn vector_sums<E: Math + Float, S: Simd, const K: usize>(
    simd: S,
    (xs, vectors): Pairs<'_, E, S>,
    live: usize,
    m: E::Vector<S>,
    partial: &mut [E; TREE_LANES],
) {
    let width = lanes::<E, S>();
    let mut sums = [E::splat(simd, <E as Float>::ZERO); K];
    let mut rounds = vectors.chunks_exact_mut(K);
    let mut x_rounds = xs.chunks_exact(K);
    let mut start = 0;
    for (round, x_round) in (&mut rounds).zip(&mut x_rounds) {
        for ((sum, v), &x) in sums.iter_mut().zip(round).zip(x_round) {
            let e = exp_vector::<E, S>(simd, x, v, start, live, m);
            *sum = <E as Lanes>::add(simd, *sum, e);
            start += width;
        }
    }
    let rest = rounds.into_remainder().iter_mut().zip(x_rounds.remainder());
    for (sum, (v, &x)) in sums.iter_mut().zip(rest) {
        let e = exp_vector::<E, S>(simd, x, v, start, live, m);
        *sum = <E as Lanes>::add(simd, *sum, e);
        start += width;
    }
    for (lanes, sum) in partial.chunks_exact_mut(width).zip(sums) {
        E::store_partial(simd, lanes, sum);
    }
}

/// `exp(x - m)` lane-wise.
#[inline(always)]
fn shifted_exp<E: Math, S: Simd>(simd: S, x: E::Vector<S>, m: E::Vector<S>) -> E::Vector<S> {
    <kernels::Exp as Lanewise>::apply::<E, S>(simd, <E as Lanes>::sub(simd, x, m))
}

/// The output vector `v` of a leaf, from its value `start`, of scores `x`:
/// `exp(x - m)` in the lanes before `live`, the rest kept (already final).
/// Returns it.
#[inline(always)]
fn exp_vector<E: Math + Float, S: Simd>(
    simd: S,
    x: E::Vector<S>,
    v: &mut E::Vector<S>,
    start: usize,
    live: usize,
    m: E::Vector<S>,
) -> E::Vector<S> {
    let width = lanes::<E, S>();
    if start + width <= live {
        *v = shifted_exp::<E, S>(simd, x, m);
    } else if start < live {
        // Straddles `live` (once per masked row): through two arrays.
        let mut values = [<E as Float>::ZERO; TREE_LANES];
        E::store_partial(simd, &mut values[..width], shifted_exp::<E, S>(simd, x, m));
        let mut kept = [<E as Float>::ZERO; TREE_LANES];
        E::store_partial(simd, &mut kept[..width], *v);
        values[live - start..width].copy_from_slice(&kept[live - start..width]);
        *v = E::load_partial(simd, &values[..width]);
    }
    *v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::math::apply::Function;
    use crate::tensor::ops::tree_sum;
    use crate::tensor::traverse::simd::SimdLevel;

    /// The scalar model: `exp(x - m)` by the one-lane exp before `live`,
    /// `masked` after, the tree sum of `tree_sum`, one division each.
    fn model<F: Float>(row: &[F], live: usize, m: F, masked: F) -> Vec<F> {
        let e: Vec<F> = row
            .iter()
            .enumerate()
            .map(|(j, &x)| {
                if j < live {
                    Function::Exp.eval(x - m)
                } else {
                    masked
                }
            })
            .collect();
        let z = tree_sum(&e);
        e.iter().map(|&e| e / z).collect()
    }

    /// Every length to 300 (each tail, each straddling vector, up to three
    /// leaves) and live counts around the vector widths, on every level:
    /// the model's bits. Values of many magnitudes, so that a lane sum in
    /// another order would round differently.
    fn check<F: Float>(from_f64: impl Fn(f64) -> F) {
        let values: Vec<F> = (0..300)
            .map(|i| from_f64(f64::from((i * 7919) % 613) * 0.021 - 6.0))
            .collect();
        let bits = |v: &[F]| {
            v.iter()
                .map(|x| x.widen_to_f64().to_bits())
                .collect::<Vec<_>>()
        };
        for level in [SimdLevel::Baseline, SimdLevel::Avx2, SimdLevel::Best] {
            let dispatch = Dispatch::new(level);
            let counter = &mut Counter::new();
            for n in 1..=values.len() {
                let row = &values[..n];
                let m = from_f64(1.5);
                for live in [n, n / 2, n.saturating_sub(1), n.saturating_sub(9), 1, 0] {
                    let masked = from_f64(if live == n { 0.0 } else { 1e-3 });
                    let mut out = row.to_vec();
                    exp_normalize(dispatch, counter, None, &mut out, live, m, masked);
                    let want = model(row, live, m, masked);
                    assert_eq!(bits(&out), bits(&want), "{level:?} n {n} live {live}");
                }
            }
        }
    }

    #[test]
    fn rows_equal_the_scalar_model_on_every_level() {
        check::<f32>(|x| x as f32);
        check::<f64>(|x| x);
    }
}
