//! Cases 9 to 11: `matmul` vs ndarray, candle-core (f32, `compare/candle.rs`)
//! and the naive ordered triple loop, on one thread (the global pool has
//! one, see `main`) and on two (`ours_2t`, the timing loop on a local pool
//! of two, timed by the wall clock: [`timed_on_two`]), and one decode step.

use super::candle;
use super::harness::*;
use criterion::Criterion;
use llm_from_scratch::prelude::*;
use ndarray::linalg::general_mat_mul;
use ndarray::{Array2, Array3, Axis};

/// An operand of the naive loop: `[batch, rows, cols]` read through
/// `(batch, row, col)` strides (a transposed view is just other strides).
#[derive(Clone, Copy)]
pub(crate) struct Strided<'a, T> {
    data: &'a [T],
    strides: [usize; 3],
}

/// The naive ordered triple loop over `batches` batches of `[m, k] x [k, n]`:
/// per output element, ascending `k` from +0.0, one fused multiply-add
/// (`mul_add`) per step: the order `matmul` promises.
pub(crate) fn naive_matmul<T: Elem>(
    a: Strided<'_, T>,
    b: Strided<'_, T>,
    [batches, m, k, n]: [usize; 4],
) -> Vec<T> {
    let mut out = Vec::with_capacity(batches * m * n);
    let ([ab, ai, ak], [bb, bk, bj]) = (a.strides, b.strides);
    for batch in 0..batches {
        for i in 0..m {
            for j in 0..n {
                let (mut x, mut y) = (batch * ab + i * ai, batch * bb + j * bj);
                let mut acc = T::ZERO;
                for _ in 0..k {
                    acc = a.data[x].mul_add(b.data[y], acc);
                    x += ak;
                    y += bk;
                }
                out.push(acc);
            }
        }
    }
    out
}

/// Ours equals the naive loop bit for bit, and ndarray within rounding.
pub(crate) fn check_matmul<T: Elem>(ours: &[T], naive: &[T], ndarray: &[T], k: usize) {
    assert_eq!(ours.len(), naive.len());
    let bits = |v: &[T]| v.iter().map(|x| x.bits()).collect::<Vec<_>>();
    assert!(bits(ours) == bits(naive), "matmul not bit-exact");
    check_close(ours, ndarray, k, "ndarray");
}

/// Side of the square matmul cases.
pub(crate) const MM: usize = 512;

/// Case 9: `[512, 512] x [512, 512]`, the right operand dense (`ab`) or the
/// transposed view of a dense matrix (`abt`): ours, ndarray `dot`, naive.
pub(crate) fn matmul_square<T: Elem>(c: &mut Criterion) {
    let left_values = values::<T>(2 * MM * MM);
    let (left_values, right_values) = left_values.split_at(MM * MM);
    let a = Tensor::from_vec([MM, MM], left_values.to_vec()).unwrap();
    let b = Tensor::from_vec([MM, MM], right_values.to_vec()).unwrap();
    let a_nd = Array2::from_shape_vec((MM, MM), left_values.to_vec()).unwrap();
    let b_nd = Array2::from_shape_vec((MM, MM), right_values.to_vec()).unwrap();
    let naive_a = Strided {
        data: a.as_slice(),
        strides: [0, MM, 1],
    };
    for transposed in [false, true] {
        let (name, naive_b) = if transposed {
            // b[k, j] = data[j * MM + k]: the naive loop's inner dot product is contiguous.
            let strides = [0, 1, MM];
            (format!("matmul512_t/{}", T::NAME), strides)
        } else {
            (format!("matmul512/{}", T::NAME), [0, MM, 1])
        };
        let naive_b = Strided {
            data: b.as_slice(),
            strides: naive_b,
        };
        let right = || {
            if transposed {
                b.view().transpose(0, 1).unwrap()
            } else {
                b.view()
            }
        };
        let nd = || {
            if transposed {
                a_nd.dot(&b_nd.t())
            } else {
                a_nd.dot(&b_nd)
            }
        };
        let ours: Tensor<2, T> = matmul(&a.view(), &right()).unwrap();
        check_matmul(
            ours.as_slice(),
            &naive_matmul(naive_a, naive_b, [1, MM, MM, MM]),
            nd().as_standard_layout().as_slice().unwrap(),
            MM,
        );
        let mut g = group(c, &name, 1000);
        timed(&mut g, &name, "ours", || -> Tensor<2, T> {
            matmul(&a.view(), &right()).unwrap()
        });
        timed_on_two(&mut g, &name, "ours_2t", || -> Tensor<2, T> {
            matmul(&a.view(), &right()).unwrap()
        });
        if T::NAME == "f32" && !transposed {
            // How `ours_2t` was timed up to 2026-12-07: the bench thread
            // enters the pool on every call (a worker's wake-up, then its own).
            timed(&mut g, &name, "ours_2t_call", || -> Tensor<2, T> {
                TWO.install(|| matmul(&a.view(), &right()).unwrap())
            });
        }
        timed(&mut g, &name, "ndarray", nd);
        if !transposed {
            let shape: &[usize] = &[MM, MM];
            let (left, right) = ((left_values, shape), (right_values, shape));
            candle::compare(&mut g, &name, left, right, ours.as_slice(), MM);
        }
        timed(&mut g, &name, "naive", || {
            naive_matmul(naive_a, naive_b, [1, MM, MM, MM])
        });
        g.finish();
    }
}

/// Attention scores: `[H, T, D] x [H, D, T]`, GPT-2 small.
pub(crate) const ATTN: [usize; 3] = [12, 1024, 64];
/// Batches the naive attention loop is timed on; its time is scaled by
/// `12 / NAIVE_BATCHES` (about 1 s per full iteration otherwise).
pub(crate) const NAIVE_BATCHES: usize = 2;

/// Case 10: batched `[12, 1024, 64] x [12, 64, 1024]`: ours, ndarray
/// `general_mat_mul` per batch into one output, naive (on 2 batches, scaled).
pub(crate) fn matmul_attention<T: Elem>(c: &mut Criterion) {
    let [h, t, d] = ATTN;
    let all = values::<T>(2 * h * t * d);
    let (left_values, right_values) = all.split_at(h * t * d);
    let a = Tensor::from_vec([h, t, d], left_values.to_vec()).unwrap();
    let b = Tensor::from_vec([h, d, t], right_values.to_vec()).unwrap();
    let a_nd = Array3::from_shape_vec((h, t, d), left_values.to_vec()).unwrap();
    let b_nd = Array3::from_shape_vec((h, d, t), right_values.to_vec()).unwrap();
    let naive_a = Strided {
        data: a.as_slice(),
        strides: [t * d, d, 1],
    };
    let naive_b = Strided {
        data: b.as_slice(),
        strides: [d * t, t, 1],
    };
    let nd = || {
        let mut out = Array3::<T>::zeros((h, t, t));
        for batch in 0..h {
            general_mat_mul(
                T::one(),
                &a_nd.index_axis(Axis(0), batch),
                &b_nd.index_axis(Axis(0), batch),
                T::ZERO,
                &mut out.index_axis_mut(Axis(0), batch),
            );
        }
        out
    };
    let ours: Tensor<3, T> = matmul(&a.view(), &b.view()).unwrap();
    check_matmul(
        ours.as_slice(),
        &naive_matmul(naive_a, naive_b, [h, t, d, t]),
        nd().as_slice().unwrap(),
        d,
    );
    let name = format!("matmul_attn/{}", T::NAME);
    let mut g = group(c, &name, 1500);
    timed(&mut g, &name, "ours", || -> Tensor<3, T> {
        matmul(&a.view(), &b.view()).unwrap()
    });
    // The kernel alone: a reused output, so no page faults (96 MiB of f64).
    let mut out = Tensor::zeros([h, t, t]).unwrap();
    timed(&mut g, &name, "ours_into", || {
        matmul_into(&a.view(), &b.view(), &mut out).unwrap();
        out.as_slice()[t]
    });
    timed_on_two(&mut g, &name, "ours_into_2t", || {
        matmul_into(&a.view(), &b.view(), &mut out).unwrap();
        out.as_slice()[t]
    });
    timed_on_two(&mut g, &name, "ours_2t", || -> Tensor<3, T> {
        matmul(&a.view(), &b.view()).unwrap()
    });
    timed(&mut g, &name, "ndarray", nd);
    let (left, right) = (
        (left_values, &[h, t, d][..]),
        (right_values, &[h, d, t][..]),
    );
    candle::compare(&mut g, &name, left, right, ours.as_slice(), d);
    timed(&mut g, &name, "naive", || {
        naive_matmul(naive_a, naive_b, [NAIVE_BATCHES, t, d, t])
    });
    g.finish();
    // Scale the subset to all 12 batches (a per-batch cost, same shapes).
    if let Some(samples) = TIMES.lock().unwrap().get_mut(&format!("{name}/naive")) {
        let scale = h as f64 / NAIVE_BATCHES as f64;
        for (cpu, wall) in samples.iter_mut() {
            *cpu *= scale;
            *wall *= scale;
        }
    }
}

/// One decode step of GPT-2 small: heads, cached positions, head size.
pub(crate) const DECODE: [usize; 3] = [12, 1024, 64];

/// Case 11: one decode step, the scores `q [H, 1, D] x Kᵀ` and the mix
/// `P [H, 1, T] x V [H, T, D]`: ours with the key cache stored transposed
/// (`[H, D, T]`, `ours`) and row-major (`[H, T, D]` read through a
/// transposed view, `ours_kview`), the plain loops a hand-written decoder
/// uses (a dot product per position, then `out += p · v` per position),
/// and ndarray's `general_mat_mul` per head.
pub(crate) fn decode_step<T: Elem>(c: &mut Criterion) {
    let [h, t, d] = DECODE;
    let all = values::<T>(h * d + 2 * h * t * d + h * t);
    let (q_values, rest) = all.split_at(h * d);
    let (k_values, rest) = rest.split_at(h * t * d);
    let (v_values, p_values) = rest.split_at(h * t * d);
    let q = Tensor::from_vec([h, 1, d], q_values.to_vec()).unwrap();
    let k = Tensor::from_vec([h, t, d], k_values.to_vec()).unwrap();
    let k_t = k.view().transpose(1, 2).unwrap().materialize().unwrap();
    let v = Tensor::from_vec([h, t, d], v_values.to_vec()).unwrap();
    let p = Tensor::from_vec([h, 1, t], p_values.to_vec()).unwrap();
    let ours = || -> (Tensor<3, T>, Tensor<3, T>) {
        let scores = matmul(&q.view(), &k_t.view()).unwrap();
        (scores, matmul(&p.view(), &v.view()).unwrap())
    };
    let ours_kview = || -> (Tensor<3, T>, Tensor<3, T>) {
        let scores = matmul(&q.view(), &k.view().transpose(1, 2).unwrap()).unwrap();
        (scores, matmul(&p.view(), &v.view()).unwrap())
    };
    let plain = || {
        let mut scores = vec![T::ZERO; h * t];
        for (head, row) in scores.chunks_exact_mut(t).enumerate() {
            let q = &q_values[head * d..(head + 1) * d];
            for (position, score) in row.iter_mut().enumerate() {
                let key = &k_values[(head * t + position) * d..][..d];
                let mut acc = T::ZERO;
                for (&x, &y) in q.iter().zip(key) {
                    acc = x.mul_add(y, acc);
                }
                *score = acc;
            }
        }
        let mut mixed = vec![T::ZERO; h * d];
        for (head, out) in mixed.chunks_exact_mut(d).enumerate() {
            for position in 0..t {
                let weight = p_values[head * t + position];
                let value = &v_values[(head * t + position) * d..][..d];
                for (o, &x) in out.iter_mut().zip(value) {
                    *o = weight.mul_add(x, *o);
                }
            }
        }
        (scores, mixed)
    };
    let q_nd = Array3::from_shape_vec((h, 1, d), q_values.to_vec()).unwrap();
    let k_nd = Array3::from_shape_vec((h, t, d), k_values.to_vec()).unwrap();
    let v_nd = Array3::from_shape_vec((h, t, d), v_values.to_vec()).unwrap();
    let p_nd = Array3::from_shape_vec((h, 1, t), p_values.to_vec()).unwrap();
    let nd = || {
        let mut scores = Array3::<T>::zeros((h, 1, t));
        let mut mixed = Array3::<T>::zeros((h, 1, d));
        for head in 0..h {
            general_mat_mul(
                T::one(),
                &q_nd.index_axis(Axis(0), head),
                &k_nd.index_axis(Axis(0), head).t(),
                T::ZERO,
                &mut scores.index_axis_mut(Axis(0), head),
            );
            general_mat_mul(
                T::one(),
                &p_nd.index_axis(Axis(0), head),
                &v_nd.index_axis(Axis(0), head),
                T::ZERO,
                &mut mixed.index_axis_mut(Axis(0), head),
            );
        }
        (scores, mixed)
    };
    let (plain_scores, plain_mixed) = plain();
    let (nd_scores, nd_mixed) = nd();
    for (scores, mixed) in [ours(), ours_kview()] {
        check_matmul(
            scores.as_slice(),
            &plain_scores,
            nd_scores.as_slice().unwrap(),
            d,
        );
        check_matmul(
            mixed.as_slice(),
            &plain_mixed,
            nd_mixed.as_slice().unwrap(),
            t,
        );
    }
    let name = format!("decode/{}", T::NAME);
    let mut g = group(c, &name, 1000);
    timed(&mut g, &name, "ours", ours);
    timed(&mut g, &name, "ours_kview", ours_kview);
    timed_on_two(&mut g, &name, "ours_2t", ours);
    timed(&mut g, &name, "ndarray", nd);
    timed(&mut g, &name, "naive", plain);
    g.finish();
}
