//! The backward rules, one match arm per [`Op`] (formulas as PyTorch's
//! `tools/autograd/derivatives.yaml`). Sums run sequentially in row-major
//! order, except the norm rule's weight gradients (a fixed tree of row
//! blocks, see `norm_rule`); the kernels called (`matmul`, `mul`, ...) and
//! the rules' own loops (`rows`) split work by outputs, so gradients are
//! bit-identical for every thread count.

use rayon::prelude::*;

use crate::error::Error;
use crate::tensor::DynTensor;
use crate::tensor::ops::{self, Function};

use super::Real;
use super::derivatives::unary_rule;
use super::nn::row_stat;
use super::node::{Node, Op};
use super::rows::{add_in_place, for_each_rows, threads_for, zeroed};
use super::strided::{self, split3, sum_to, sum_to_owned};

type Slots<T> = Vec<Option<DynTensor<T>>>;

/// The gradient slots and which nodes need one: a node needs a gradient
/// when it is a leaf or depends on one (constants and what depends on
/// constants alone do not), so rules skip the rest.
struct Acc<T> {
    grads: Slots<T>,
    live: Vec<bool>,
    /// Elements of the gradient buffers held now, and the most so far.
    held: usize,
    peak: usize,
}

/// A backward pass's gradients by node and the most gradient elements
/// it held at once (slots only, not a rule's temporaries).
pub(crate) struct Pass<T> {
    pub(crate) grads: Slots<T>,
    pub(crate) peak: usize,
}

/// Which gradients a backward pass hands back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// Every node's (what `Var::backward` promises).
    All,
    /// The leaves' only: an intermediate node's gradient is dropped as
    /// soon as its rule has passed it on to the node's inputs.
    Leaves,
}

/// Gradients of the scalar node `out` with respect to every node up to it.
pub(crate) fn run<T: Real>(nodes: &[Node<T>], out: usize, keep: Keep) -> Result<Pass<T>, Error> {
    let value = &nodes[out].value;
    if value.as_slice().len() != 1 {
        return Err(Error::BackwardNotScalar {
            op: "Var::backward",
            shape: value.shape().to_vec(),
        });
    }
    let seed = DynTensor::from_vec(value.shape().to_vec(), vec![T::one()])?;
    run_seeded(nodes, out, seed, keep)
}

/// Gradients of `Σ out · seed` with respect to every node up to `out`.
pub(crate) fn run_seeded<T: Real>(
    nodes: &[Node<T>],
    out: usize,
    seed: DynTensor<T>,
    keep: Keep,
) -> Result<Pass<T>, Error> {
    if seed.shape() != nodes[out].value.shape() {
        return Err(Error::OutputShapeMismatch {
            op: "Var::backward_with",
            expected: nodes[out].value.shape().to_vec(),
            actual: seed.shape().to_vec(),
        });
    }
    let failed = |_| Error::AllocationFailed {
        op: "Var::backward",
        elements: out + 1,
    };
    let mut grads: Slots<T> = Vec::new();
    grads.try_reserve_exact(out + 1).map_err(failed)?;
    grads.resize_with(out + 1, || None);
    let mut live: Vec<bool> = Vec::new();
    live.try_reserve_exact(out + 1).map_err(failed)?;
    for node in &nodes[..=out] {
        let mut any = matches!(node.op, Op::Leaf);
        node.op.for_each_input(|i| any |= live[i]);
        live.push(any);
    }
    let held = seed.as_slice().len();
    grads[out] = Some(seed);
    let mut acc = Acc {
        grads,
        live,
        held,
        peak: held,
    };
    for id in (0..=out).rev() {
        if !acc.live[id] {
            continue;
        }
        let Some(dy) = acc.grads[id].take() else {
            continue;
        };
        rule(nodes, id, &dy, &mut acc)?;
        if keep == Keep::All || matches!(nodes[id].op, Op::Leaf) {
            acc.grads[id] = Some(dy);
        } else {
            acc.held -= dy.as_slice().len();
        }
    }
    Ok(Pass {
        grads: acc.grads,
        peak: acc.peak,
    })
}

impl<T: Real> Acc<T> {
    /// Whether node `id` needs a gradient.
    fn wants(&self, id: usize) -> bool {
        self.live[id]
    }

    /// Adds `g` into the gradient slot of node `id` (elementwise, in order).
    fn add(&mut self, id: usize, g: DynTensor<T>) {
        if !self.live[id] {
            return;
        }
        match &mut self.grads[id] {
            slot @ None => {
                self.held += g.as_slice().len();
                self.peak = self.peak.max(self.held);
                *slot = Some(g);
            }
            Some(existing) => add_in_place(existing.as_mut_slice(), g.as_slice()),
        }
    }

    /// Adds `dy` summed to node `id`'s `shape` (a broadcast's gradient),
    /// negated if `negate`, with no temporary when the shapes are equal and
    /// the slot exists.
    fn add_reduced(
        &mut self,
        id: usize,
        dy: &DynTensor<T>,
        shape: &[usize],
        negate: bool,
    ) -> Result<(), Error> {
        if !self.live[id] {
            return Ok(());
        }
        match &mut self.grads[id] {
            Some(existing) if existing.shape() == dy.shape() && !negate => {
                add_in_place(existing.as_mut_slice(), dy.as_slice());
            }
            _ => {
                let mut g = sum_to(dy, shape)?;
                if negate {
                    g.as_mut_slice().iter_mut().for_each(|v| *v = -*v);
                }
                self.add(id, g);
            }
        }
        Ok(())
    }

    /// The slot of node `id`, zeros of `shape` if it had none, and whether
    /// it was new (so a rule may copy into it instead of adding).
    fn slot(&mut self, id: usize, shape: &[usize]) -> Result<(&mut DynTensor<T>, bool), Error> {
        let fresh = self.grads[id].is_none();
        if fresh {
            let zeros = strided::zeros(shape)?;
            self.held += zeros.as_slice().len();
            self.peak = self.peak.max(self.held);
            self.grads[id] = Some(zeros);
        }
        match &mut self.grads[id] {
            Some(g) => Ok((g, fresh)),
            None => Err(Error::ShapeOverflow {
                op: "Var::backward",
            }),
        }
    }
}

fn shape_of<T>(nodes: &[Node<T>], id: usize) -> Vec<usize> {
    nodes[id].value.shape().to_vec()
}

/// Runs the rule of node `id` with cotangent `dy`, accumulating into its inputs.
fn rule<T: Real>(
    nodes: &[Node<T>],
    id: usize,
    dy: &DynTensor<T>,
    acc: &mut Acc<T>,
) -> Result<(), Error> {
    let y = &nodes[id].value;
    let value = |i: usize| &nodes[i].value;
    match &nodes[id].op {
        Op::Leaf | Op::Constant => {}
        &Op::Add(a, b) => {
            acc.add_reduced(a, dy, value(a).shape(), false)?;
            acc.add_reduced(b, dy, value(b).shape(), false)?;
        }
        &Op::Sub(a, b) => {
            acc.add_reduced(a, dy, value(a).shape(), false)?;
            acc.add_reduced(b, dy, value(b).shape(), true)?;
        }
        &Op::Mul(a, b) => {
            if acc.wants(a) {
                let da = ops::mul(dy, value(b))?;
                acc.add(a, sum_to_owned(da, value(a).shape())?);
            }
            if acc.wants(b) {
                let db = ops::mul(dy, value(a))?;
                acc.add(b, sum_to_owned(db, value(b).shape())?);
            }
        }
        &Op::Div(a, b) => {
            if acc.wants(a) {
                let da = ops::div(dy, value(b))?;
                acc.add(a, sum_to_owned(da, value(a).shape())?);
            }
            if acc.wants(b) {
                let db = ops::unary(&ops::div(&ops::mul(dy, y)?, value(b))?, Function::Neg)?;
                acc.add(b, sum_to_owned(db, value(b).shape())?);
            }
        }
        &Op::Unary(a, function) => {
            let dx = unary_rule(function, value(a), y, dy)?;
            acc.add(a, dx);
        }
        &Op::Matmul(a, b) => {
            let (va, vb) = (value(a), value(b));
            let (ra, rb) = (va.shape().len(), vb.shape().len());
            if acc.wants(a) {
                let da = ops::matmul(dy, &vb.view().transpose(rb - 2, rb - 1)?)?;
                acc.add(a, sum_to_owned(da, va.shape())?);
            }
            if acc.wants(b) {
                let db = ops::matmul(&va.view().transpose(ra - 2, ra - 1)?, dy)?;
                acc.add(b, sum_to_owned(db, vb.shape())?);
            }
        }
        Op::Permute(a, perm) => {
            let mut inverse = vec![0usize; perm.len()];
            for (i, &p) in perm.iter().enumerate() {
                inverse[p] = i;
            }
            acc.add(*a, dy.view().permute(&inverse)?.materialize()?);
        }
        &Op::Reshape(a) => {
            let dx = dy.view().reshape(shape_of(nodes, a))?.materialize()?;
            acc.add(a, dx);
        }
        &Op::BroadcastTo(a) => {
            acc.add_reduced(a, dy, value(a).shape(), false)?;
        }
        &Op::Slice {
            input,
            axis,
            start,
            step,
        } => {
            if acc.wants(input) {
                scatter_slice(acc, input, value(input).shape(), dy, axis, start, step)?;
            }
        }
        &Op::Select(a, axis, index) => {
            let shape = shape_of(nodes, a);
            let mut kept = shape.clone();
            kept[axis] = 1;
            if acc.wants(a) {
                let dy = strided::tensor(&kept, strided::copy(dy)?.into_vec())?;
                scatter_slice(acc, a, &shape, &dy, axis, index, 1)?;
            }
        }
        Op::Concat(ids, axis) => {
            let mut offset = 0usize;
            for &p in ids {
                let len = value(p).shape()[*axis];
                let part = dy
                    .view()
                    .slice(*axis, offset..offset + len)?
                    .materialize()?;
                acc.add(p, part);
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
            acc.add(*a, strided::tensor(&shape, dx)?);
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
            acc.add(a, strided::tensor(&shape, dx)?);
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
            acc.add(a, strided::tensor(&shape, dx)?);
        }
        &Op::Softmax(a, axis) | &Op::LogSoftmax(a, axis) => {
            let log = matches!(nodes[id].op, Op::LogSoftmax(..));
            let shape = y.shape().to_vec();
            let (outer, n, inner) = split3(&shape, axis)?;
            let (ys, d) = (y.as_slice(), dy.as_slice());
            let mut dx = zeroed::<T>(ys.len())?;
            let threads = threads_for::<T>(3 * ys.len());
            debug_assert_eq!(ys.len(), outer * n * inner);
            for_each_rows(&mut dx, n * inner, threads, |rows, dx| {
                for (local, o) in rows.enumerate() {
                    for i in 0..inner {
                        let at = |j: usize| (o * n + j) * inner + i;
                        let mut s = T::ZERO;
                        for j in 0..n {
                            s = s + if log { d[at(j)] } else { d[at(j)] * ys[at(j)] };
                        }
                        for j in 0..n {
                            let k = at(j);
                            dx[(local * n + j) * inner + i] = if log {
                                d[k] - ys[k].exp() * s
                            } else {
                                ys[k] * (d[k] - s)
                            };
                        }
                    }
                }
            });
            acc.add(a, strided::tensor(&shape, dx)?);
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
            acc.add(*a, strided::tensor(&shape_of(nodes, *a), dx)?);
        }
        &Op::LayerNorm(x, w, b, eps) => norm_rule(nodes, dy, x, w, Some(b), eps, acc)?,
        &Op::RmsNorm(x, w, eps) => norm_rule(nodes, dy, x, w, None, eps, acc)?,
    }
    Ok(())
}

/// Adds `dy` into node `id`'s gradient (of `shape`) at entries
/// `start + j·step` of `axis`, in place (copied into a new zero slot).
fn scatter_slice<T: Real>(
    acc: &mut Acc<T>,
    id: usize,
    shape: &[usize],
    dy: &DynTensor<T>,
    axis: usize,
    start: usize,
    step: usize,
) -> Result<(), Error> {
    let (outer, n_in, inner) = split3(shape, axis)?;
    let n_out = dy.shape()[axis];
    let (slot, fresh) = acc.slot(id, shape)?;
    let d = dy.as_slice();
    debug_assert_eq!(d.len(), outer * n_out * inner);
    let threads = threads_for::<T>(3 * d.len());
    // With step 1 the slice of one outer index is one run of
    // `n_out · inner` values (a narrow of the last axis would otherwise be
    // runs of one value each).
    let (runs, run_len, run_step) = if step == 1 {
        (1, n_out * inner, 0)
    } else {
        (n_out, inner, step * inner)
    };
    for_each_rows(slot.as_mut_slice(), n_in * inner, threads, |rows, dx| {
        for (local, o) in rows.enumerate() {
            for j in 0..runs {
                let src = &d[(o * runs + j) * run_len..][..run_len];
                let dst = &mut dx[(local * n_in + start) * inner + j * run_step..][..run_len];
                if fresh {
                    dst.copy_from_slice(src);
                } else {
                    for (t, &s) in dst.iter_mut().zip(src) {
                        *t = *t + s;
                    }
                }
            }
        }
    });
    Ok(())
}

/// Rows per block of the norm rule's weight and bias gradients.
const NORM_ROWS: usize = 32;

/// Layer norm (with `bias`) or RMSNorm (without) over the last axis:
/// `dx = rstd (ĝ - mean ĝ - x̂ mean(ĝ x̂))` with `ĝ = dy · w` (RMSNorm: no
/// `mean ĝ` term), `dw = Σ_rows dy · x̂`, `db = Σ_rows dy`.
///
/// The sums over rows form a fixed two-level tree: each block of
/// [`NORM_ROWS`] rows is summed in row order from zero, then the blocks'
/// sums in block order. Blocks (with their rows of `dx`) go to the threads
/// when the rule's traffic is large; the tree is the same for any count.
fn norm_rule<T: Real>(
    nodes: &[Node<T>],
    dy: &DynTensor<T>,
    x: usize,
    w: usize,
    b: Option<usize>,
    eps: f64,
    acc: &mut Acc<T>,
) -> Result<(), Error> {
    let xv = &nodes[x].value;
    let c = xv.shape().last().copied().unwrap_or(1).max(1);
    let (xs, ws, d) = (xv.as_slice(), nodes[w].value.as_slice(), dy.as_slice());
    let eps = T::round_from_f64(eps);
    let cf = T::from_usize(c);
    let mut dx = zeroed::<T>(xs.len())?;
    let blocks = (xs.len() / c).div_ceil(NORM_ROWS);
    // Per block: its `dw` sums, then its `db` sums, then scratch for x̂.
    let mut parts = zeroed::<T>(blocks.checked_mul(3 * c).ok_or(Error::ShapeOverflow {
        op: "Var::backward",
    })?)?;
    let block = |(index, (dx, part)): (usize, (&mut [T], &mut [T]))| {
        let (dw, rest) = part.split_at_mut(c);
        let (db, xhat) = rest.split_at_mut(c);
        for (local, dx) in dx.chunks_exact_mut(c).enumerate() {
            let r = index * NORM_ROWS + local;
            let (row, g) = (&xs[r * c..][..c], &d[r * c..][..c]);
            let (mean, rstd) = row_stat(row, eps, b.is_some());
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
                dx[k] = rstd * (g[k] * ws[k] - m1 - xhat[k] * m2);
            }
        }
    };
    if threads_for::<T>(3 * xs.len()) > 1 {
        dx.par_chunks_mut(NORM_ROWS * c)
            .zip(parts.par_chunks_exact_mut(3 * c))
            .enumerate()
            .for_each(block);
    } else {
        dx.chunks_mut(NORM_ROWS * c)
            .zip(parts.chunks_exact_mut(3 * c))
            .enumerate()
            .for_each(block);
    }
    let mut dw = zeroed::<T>(c)?;
    let mut db = zeroed::<T>(c)?;
    for part in parts.chunks_exact(3 * c) {
        for k in 0..c {
            dw[k] = dw[k] + part[k];
            db[k] = db[k] + part[c + k];
        }
    }
    acc.add(x, strided::tensor(xv.shape(), dx)?);
    acc.add(w, strided::tensor(&[c], dw)?);
    if let Some(b) = b {
        acc.add(b, strided::tensor(&[c], db)?);
    }
    Ok(())
}
