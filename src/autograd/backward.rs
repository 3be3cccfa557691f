//! The backward rules, one match arm per [`Op`] (formulas as PyTorch's
//! `tools/autograd/derivatives.yaml`). Sums run sequentially in row-major
//! order; the kernels called (`matmul`, `mul`, ...) split work by outputs, so
//! gradients are bit-identical for every thread count.

use crate::error::Error;
use crate::tensor::DynTensor;
use crate::tensor::ops::{self, Function};

use super::Real;
use super::nn::row_stats;
use super::node::{Node, Op};
use super::strided::{self, split3, sum_to, zeroed};

type Slots<T> = Vec<Option<DynTensor<T>>>;

/// Gradients of the scalar node `out` with respect to every node up to it.
pub(crate) fn run<T: Real>(nodes: &[Node<T>], out: usize) -> Result<Slots<T>, Error> {
    let value = &nodes[out].value;
    if value.as_slice().len() != 1 {
        return Err(Error::BackwardNotScalar {
            op: "Var::backward",
            shape: value.shape().to_vec(),
        });
    }
    let seed = DynTensor::from_vec(value.shape().to_vec(), vec![T::one()])?;
    run_seeded(nodes, out, seed)
}

/// Gradients of `Σ out · seed` with respect to every node up to `out`.
pub(crate) fn run_seeded<T: Real>(
    nodes: &[Node<T>],
    out: usize,
    seed: DynTensor<T>,
) -> Result<Slots<T>, Error> {
    if seed.shape() != nodes[out].value.shape() {
        return Err(Error::OutputShapeMismatch {
            op: "Var::backward_with",
            expected: nodes[out].value.shape().to_vec(),
            actual: seed.shape().to_vec(),
        });
    }
    let mut grads: Slots<T> = Vec::new();
    grads
        .try_reserve_exact(out + 1)
        .map_err(|_| Error::AllocationFailed {
            op: "Var::backward",
            elements: out + 1,
        })?;
    grads.resize_with(out + 1, || None);
    grads[out] = Some(seed);
    for id in (0..=out).rev() {
        let Some(dy) = grads[id].take() else {
            continue;
        };
        rule(nodes, id, &dy, &mut grads)?;
        grads[id] = Some(dy);
    }
    Ok(grads)
}

/// Adds `g` into the gradient slot of node `id` (elementwise, in order).
fn accumulate<T: Real>(grads: &mut Slots<T>, id: usize, g: DynTensor<T>) {
    match &mut grads[id] {
        slot @ None => *slot = Some(g),
        Some(existing) => {
            for (e, &v) in existing.as_mut_slice().iter_mut().zip(g.as_slice()) {
                *e = *e + v;
            }
        }
    }
}

fn shape_of<T>(nodes: &[Node<T>], id: usize) -> Vec<usize> {
    nodes[id].value.shape().to_vec()
}

/// `dy · f'(x)` elementwise, with `y = f(x)` at hand.
fn unary_rule<T: Real>(
    function: Function,
    x: &DynTensor<T>,
    y: &DynTensor<T>,
    dy: &DynTensor<T>,
) -> Result<DynTensor<T>, Error> {
    let half = T::round_from_f64(0.5);
    let one = T::one();
    let erf = match function {
        Function::GeluErf => {
            let mut scaled = zeroed::<T>(x.as_slice().len())?;
            let r = T::round_from_f64(std::f64::consts::FRAC_1_SQRT_2);
            for (s, &v) in scaled.iter_mut().zip(x.as_slice()) {
                *s = v * r;
            }
            Some(ops::unary(
                &strided::tensor(x.shape(), scaled)?,
                Function::Erf,
            )?)
        }
        _ => None,
    };
    let mut out = zeroed::<T>(x.as_slice().len())?;
    let c = T::round_from_f64((2.0 / std::f64::consts::PI).sqrt());
    let k = T::round_from_f64(0.044715);
    let inv_sqrt_2pi = T::round_from_f64(1.0 / (2.0 * std::f64::consts::PI).sqrt());
    for (idx, o) in out.iter_mut().enumerate() {
        let (xv, yv, g) = (x.as_slice()[idx], y.as_slice()[idx], dy.as_slice()[idx]);
        let d = match function {
            Function::Exp => yv,
            Function::Ln => one / xv,
            Function::Tanh => one - yv * yv,
            Function::Sigmoid => yv * (one - yv),
            Function::Silu => {
                let s = one / (one + (-xv).exp());
                s * (one + xv * (one - s))
            }
            Function::GeluTanh => {
                let t = (c * (xv + k * xv * xv * xv)).tanh();
                let three = T::round_from_f64(3.0);
                half * (one + t) + half * xv * (one - t * t) * c * (one + three * k * xv * xv)
            }
            Function::GeluErf => {
                let e = erf.as_ref().map_or(T::ZERO, |e| e.as_slice()[idx]);
                half * (one + e) + xv * inv_sqrt_2pi * (-half * xv * xv).exp()
            }
            Function::Sqrt => half / yv,
            Function::Rsqrt => -half * yv / xv,
            Function::Recip => -(yv * yv),
            Function::Square => xv + xv,
            _ => -one, // Neg (`Var::map` admits no other function)
        };
        *o = g * d;
    }
    strided::tensor(x.shape(), out)
}

/// Runs the rule of node `id` with cotangent `dy`, accumulating into its inputs.
fn rule<T: Real>(
    nodes: &[Node<T>],
    id: usize,
    dy: &DynTensor<T>,
    grads: &mut Slots<T>,
) -> Result<(), Error> {
    let y = &nodes[id].value;
    let value = |i: usize| &nodes[i].value;
    match &nodes[id].op {
        Op::Leaf => {}
        &Op::Add(a, b) => {
            accumulate(grads, a, sum_to(strided::copy(dy)?, &shape_of(nodes, a))?);
            accumulate(grads, b, sum_to(strided::copy(dy)?, &shape_of(nodes, b))?);
        }
        &Op::Sub(a, b) => {
            accumulate(grads, a, sum_to(strided::copy(dy)?, &shape_of(nodes, a))?);
            let neg = ops::unary(dy, Function::Neg)?;
            accumulate(grads, b, sum_to(neg, &shape_of(nodes, b))?);
        }
        &Op::Mul(a, b) => {
            let da = ops::mul(dy, value(b))?;
            let db = ops::mul(dy, value(a))?;
            accumulate(grads, a, sum_to(da, &shape_of(nodes, a))?);
            accumulate(grads, b, sum_to(db, &shape_of(nodes, b))?);
        }
        &Op::Div(a, b) => {
            let da = ops::div(dy, value(b))?;
            let db = ops::unary(&ops::div(&ops::mul(dy, y)?, value(b))?, Function::Neg)?;
            accumulate(grads, a, sum_to(da, &shape_of(nodes, a))?);
            accumulate(grads, b, sum_to(db, &shape_of(nodes, b))?);
        }
        &Op::Unary(a, function) => {
            let dx = unary_rule(function, value(a), y, dy)?;
            accumulate(grads, a, dx);
        }
        &Op::Matmul(a, b) => {
            let (va, vb) = (value(a), value(b));
            let (ra, rb) = (va.shape().len(), vb.shape().len());
            let da = ops::matmul(dy, &vb.view().transpose(rb - 2, rb - 1)?)?;
            let db = ops::matmul(&va.view().transpose(ra - 2, ra - 1)?, dy)?;
            accumulate(grads, a, sum_to(da, &shape_of(nodes, a))?);
            accumulate(grads, b, sum_to(db, &shape_of(nodes, b))?);
        }
        Op::Permute(a, perm) => {
            let mut inverse = vec![0usize; perm.len()];
            for (i, &p) in perm.iter().enumerate() {
                inverse[p] = i;
            }
            accumulate(grads, *a, dy.view().permute(&inverse)?.materialize()?);
        }
        &Op::Reshape(a) => {
            let dx = dy.view().reshape(shape_of(nodes, a))?.materialize()?;
            accumulate(grads, a, dx);
        }
        &Op::BroadcastTo(a) => {
            accumulate(grads, a, sum_to(strided::copy(dy)?, &shape_of(nodes, a))?);
        }
        &Op::Slice {
            input,
            axis,
            start,
            step,
        } => {
            let dx = scatter_slice(&shape_of(nodes, input), dy, axis, start, step)?;
            accumulate(grads, input, dx);
        }
        &Op::Select(a, axis, index) => {
            let shape = shape_of(nodes, a);
            let mut kept = shape.clone();
            kept[axis] = 1;
            let dy = dy.view().reshape(kept)?.materialize()?;
            accumulate(grads, a, scatter_slice(&shape, &dy, axis, index, 1)?);
        }
        Op::Concat(ids, axis) => {
            let mut offset = 0usize;
            for &p in ids {
                let len = value(p).shape()[*axis];
                let part = dy
                    .view()
                    .slice(*axis, offset..offset + len)?
                    .materialize()?;
                accumulate(grads, p, part);
                offset += len;
            }
        }
        Op::IndexSelect(a, axis, indices) => {
            let shape = shape_of(nodes, *a);
            let (outer, n_in, inner) = split3(&shape, *axis)?;
            let mut dx = zeroed::<T>(strided::count(&shape)?)?;
            let d = dy.as_slice();
            for o in 0..outer {
                for (j, &r) in indices.iter().enumerate() {
                    let src = &d[(o * indices.len() + j) * inner..][..inner];
                    let dst = &mut dx[(o * n_in + r) * inner..][..inner];
                    for (t, &s) in dst.iter_mut().zip(src) {
                        *t = *t + s;
                    }
                }
            }
            accumulate(grads, *a, strided::tensor(&shape, dx)?);
        }
        &Op::Sum(a, axis) | &Op::Mean(a, axis) => {
            let shape = shape_of(nodes, a);
            let (outer, n, inner) = split3(&shape, axis)?;
            let scale = match nodes[id].op {
                Op::Mean(..) => T::one() / T::from_usize(n),
                _ => T::one(),
            };
            let mut dx = zeroed::<T>(strided::count(&shape)?)?;
            for o in 0..outer {
                for j in 0..n {
                    for i in 0..inner {
                        dx[(o * n + j) * inner + i] = dy.as_slice()[o * inner + i] * scale;
                    }
                }
            }
            accumulate(grads, a, strided::tensor(&shape, dx)?);
        }
        &Op::MaxFirst(a, axis) | &Op::MaxEven(a, axis) => {
            let even = matches!(nodes[id].op, Op::MaxEven(..));
            let x = value(a);
            let shape = x.shape().to_vec();
            let (outer, n, inner) = split3(&shape, axis)?;
            let mut dx = zeroed::<T>(strided::count(&shape)?)?;
            let xs = x.as_slice();
            for o in 0..outer {
                for i in 0..inner {
                    let m = y.as_slice()[o * inner + i];
                    let at = |j: usize| (o * n + j) * inner + i;
                    let ties = (0..n).filter(|&j| xs[at(j)] == m).count();
                    let g = dy.as_slice()[o * inner + i];
                    if even {
                        let share = g / T::from_usize(ties.max(1));
                        for j in (0..n).filter(|&j| xs[at(j)] == m) {
                            dx[at(j)] = share;
                        }
                    } else if let Some(j) = (0..n).find(|&j| xs[at(j)] == m) {
                        dx[at(j)] = g;
                    }
                }
            }
            accumulate(grads, a, strided::tensor(&shape, dx)?);
        }
        &Op::Softmax(a, axis) | &Op::LogSoftmax(a, axis) => {
            let log = matches!(nodes[id].op, Op::LogSoftmax(..));
            let shape = y.shape().to_vec();
            let (outer, n, inner) = split3(&shape, axis)?;
            let (ys, d) = (y.as_slice(), dy.as_slice());
            let mut dx = zeroed::<T>(ys.len())?;
            for o in 0..outer {
                for i in 0..inner {
                    let at = |j: usize| (o * n + j) * inner + i;
                    let mut s = T::ZERO;
                    for j in 0..n {
                        s = s + if log { d[at(j)] } else { d[at(j)] * ys[at(j)] };
                    }
                    for j in 0..n {
                        let k = at(j);
                        dx[k] = if log {
                            d[k] - ys[k].exp() * s
                        } else {
                            ys[k] * (d[k] - s)
                        };
                    }
                }
            }
            accumulate(grads, a, strided::tensor(&shape, dx)?);
        }
        Op::CrossEntropy(a, targets) => {
            let p = ops::softmax_axis(value(*a), 1)?;
            let vocab = p.shape()[1];
            let scale = dy.as_slice()[0] / T::from_usize(targets.len());
            let mut dx = p.into_vec();
            for (r, &t) in targets.iter().enumerate() {
                dx[r * vocab + t] = dx[r * vocab + t] - T::one();
            }
            for v in &mut dx {
                *v = *v * scale;
            }
            accumulate(grads, *a, strided::tensor(&shape_of(nodes, *a), dx)?);
        }
        &Op::LayerNorm(x, w, b, eps) => norm_rule(nodes, dy, x, w, Some(b), eps, grads)?,
        &Op::RmsNorm(x, w, eps) => norm_rule(nodes, dy, x, w, None, eps, grads)?,
    }
    Ok(())
}

/// `dx` of shape `shape`, zero but for `dy` at entries `start + j·step` of `axis`.
fn scatter_slice<T: Real>(
    shape: &[usize],
    dy: &DynTensor<T>,
    axis: usize,
    start: usize,
    step: usize,
) -> Result<DynTensor<T>, Error> {
    let (outer, n_in, inner) = split3(shape, axis)?;
    let n_out = dy.shape()[axis];
    let mut dx = zeroed::<T>(strided::count(shape)?)?;
    let d = dy.as_slice();
    for o in 0..outer {
        for j in 0..n_out {
            let src = &d[(o * n_out + j) * inner..][..inner];
            dx[(o * n_in + start + j * step) * inner..][..inner].copy_from_slice(src);
        }
    }
    strided::tensor(shape, dx)
}

/// Layer norm (with `bias`) or RMSNorm (without) over the last axis:
/// `dx = rstd (ĝ - mean ĝ - x̂ mean(ĝ x̂))` with `ĝ = dy · w` (RMSNorm: no
/// `mean ĝ` term), `dw = Σ_rows dy · x̂`, `db = Σ_rows dy`.
fn norm_rule<T: Real>(
    nodes: &[Node<T>],
    dy: &DynTensor<T>,
    x: usize,
    w: usize,
    b: Option<usize>,
    eps: f64,
    grads: &mut Slots<T>,
) -> Result<(), Error> {
    let xv = &nodes[x].value;
    let c = xv.shape().last().copied().unwrap_or(1).max(1);
    let (xs, ws, d) = (xv.as_slice(), nodes[w].value.as_slice(), dy.as_slice());
    let stats = row_stats(xs, c, T::round_from_f64(eps), b.is_some());
    let cf = T::from_usize(c);
    let mut dx = zeroed::<T>(xs.len())?;
    let mut dw = zeroed::<T>(c)?;
    let mut db = zeroed::<T>(c)?;
    let mut xhat = zeroed::<T>(c)?;
    for (r, &(mean, rstd)) in stats.iter().enumerate() {
        let (row, g) = (&xs[r * c..][..c], &d[r * c..][..c]);
        let (mut m1, mut m2) = (T::ZERO, T::ZERO);
        for k in 0..c {
            xhat[k] = (row[k] - mean) * rstd;
            let gh = g[k] * ws[k];
            m1 = m1 + gh;
            m2 = m2 + gh * xhat[k];
            dw[k] = dw[k] + g[k] * xhat[k];
            db[k] = db[k] + g[k];
        }
        let (m1, m2) = (if b.is_some() { m1 / cf } else { T::ZERO }, m2 / cf);
        for k in 0..c {
            dx[r * c + k] = rstd * (g[k] * ws[k] - m1 - xhat[k] * m2);
        }
    }
    accumulate(grads, x, strided::tensor(xv.shape(), dx)?);
    accumulate(grads, w, strided::tensor(&[c], dw)?);
    if let Some(b) = b {
        accumulate(grads, b, strided::tensor(&[c], db)?);
    }
    Ok(())
}
