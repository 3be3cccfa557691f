//! The fused network operations: log-softmax, mean cross-entropy, layer
//! norm and RMSNorm. No single crate kernel computes these, so the forward
//! values are one row-major loop per row (sums in axis order).

use crate::error::Error;
use crate::tensor::{Dimension, DynTensor, Rank};

use super::node::Op;
use super::{Real, Var, check_rank, rows, strided};

/// `max` and `ln Σ exp(x - max)` of `row` (strided by `stride`, `n` entries).
pub(crate) fn log_sum_exp<T: Real>(x: &[T], start: usize, n: usize, stride: usize) -> T {
    let mut max = T::neg_infinity();
    for j in 0..n {
        max = max.max(x[start + j * stride]);
    }
    let mut sum = T::ZERO;
    for j in 0..n {
        sum = sum + (x[start + j * stride] - max).exp();
    }
    max + sum.ln()
}

/// `(mean, 1/sqrt(var + eps))` of one row: layer norm's statistics, biased
/// variance (PyTorch's), each sum in index order; RMSNorm's (`center`
/// false) take the mean as 0.
pub(crate) fn row_stat<T: Real>(row: &[T], eps: T, center: bool) -> (T, T) {
    let cf = T::from_usize(row.len());
    let mean = if center {
        row.iter().fold(T::ZERO, |s, &v| s + v) / cf
    } else {
        T::ZERO
    };
    let var = row
        .iter()
        .fold(T::ZERO, |s, &v| s + (v - mean) * (v - mean))
        / cf;
    (mean, T::one() / (var + eps).sqrt())
}

fn last_axis(shape: &[usize], op: &'static str) -> Result<usize, Error> {
    shape.last().copied().ok_or(Error::RankTooSmall {
        op,
        rank: 0,
        minimum: 1,
    })
}

fn check_weight(shape: &[usize], c: usize, op: &'static str) -> Result<(), Error> {
    if shape == [c] {
        Ok(())
    } else {
        Err(Error::OutputShapeMismatch {
            op,
            expected: vec![c],
            actual: shape.to_vec(),
        })
    }
}

impl<'t, D: Dimension, T: Real> Var<'t, D, T> {
    /// Log-softmax over `axis` (`torch.log_softmax`): `x - max - ln Σ exp(x - max)`.
    /// Gradient `dy - softmax · Σ_axis dy`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`]; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![0.0, 0.0])?)?;
    /// let y = x.log_softmax(0)?.value()?;
    /// assert!((y.as_slice()[0] + 2f64.ln()).abs() < 1e-15);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn log_softmax(&self, axis: usize) -> Result<Var<'t, D, T>, Error> {
        let a = self.id;
        self.record(Op::LogSoftmax(a, axis), |n| {
            let x = &n[a].value;
            let (outer, len, inner) = strided::split3(x.shape(), axis)?;
            let xs = x.as_slice();
            let mut out = rows::zeroed::<T>(xs.len())?;
            for o in 0..outer {
                for i in 0..inner {
                    let start = o * len * inner + i;
                    let lse = log_sum_exp(xs, start, len, inner);
                    for j in 0..len {
                        out[start + j * inner] = xs[start + j * inner] - lse;
                    }
                }
            }
            strided::tensor(x.shape(), out)
        })
    }

    /// Mean cross-entropy of logits `[N, V]` against class ids `targets`
    /// (`F.cross_entropy(logits, targets)`, reduction `mean`): a scalar
    /// `mean_n (logsumexp(x_n) - x_n[t_n])`, fused with the log-softmax.
    /// Gradient `dy · (softmax(x) - onehot(t)) / N`.
    ///
    /// # Errors
    /// [`Error::RankMismatch`] unless the logits have rank 2;
    /// [`Error::ElementCountMismatch`] if `targets.len() != N`;
    /// [`Error::IndexSelectOutOfBounds`] for a target `≥ V`;
    /// [`Error::EmptyMeanAxis`] if `N = 0`; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([1, 2], vec![0.0, 0.0])?)?;
    /// let loss = x.cross_entropy(&[1])?;
    /// assert!((loss.value()?.as_slice()[0] - 2f64.ln()).abs() < 1e-15);
    /// assert!(matches!(x.cross_entropy(&[2]), Err(Error::IndexSelectOutOfBounds { .. })));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn cross_entropy(&self, targets: &[usize]) -> Result<Var<'t, Rank<0>, T>, Error> {
        let op = "Var::cross_entropy";
        let shape = self.shape();
        check_rank::<Rank<2>>(shape.len(), op)?;
        let (rows, vocab) = (shape[0], shape[1]);
        if targets.len() != rows {
            return Err(Error::ElementCountMismatch {
                op,
                expected: rows,
                actual: targets.len(),
            });
        }
        if rows == 0 {
            return Err(Error::EmptyMeanAxis { op, axis: 0 });
        }
        if let Some((position, &index)) = targets.iter().enumerate().find(|(_, t)| **t >= vocab) {
            return Err(Error::IndexSelectOutOfBounds {
                op,
                axis: 1,
                position,
                index,
                extent: vocab,
            });
        }
        let a = self.id;
        self.record(Op::CrossEntropy(a, targets.to_vec()), |n| {
            let xs = n[a].value.as_slice();
            let mut total = T::ZERO;
            for (r, &t) in targets.iter().enumerate() {
                let lse = log_sum_exp(xs, r * vocab, vocab, 1);
                total = total + (lse - xs[r * vocab + t]);
            }
            DynTensor::from_vec(Vec::new(), vec![total / T::from_usize(rows)])
        })
    }

    /// Layer norm over the last axis (`F.layer_norm(x, (C,), w, b, eps)`, Ba
    /// et al. 2016): `(x - mean) / sqrt(var + eps) · w + b`, biased variance.
    ///
    /// # Errors
    /// [`Error::RankTooSmall`] for a scalar; [`Error::OutputShapeMismatch`] if
    /// `weight` or `bias` is not `[C]`; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 3.0])?)?;
    /// let w = tape.leaf(Tensor::from_vec([2], vec![1.0, 1.0])?)?;
    /// let b = tape.leaf(Tensor::from_vec([2], vec![0.0, 0.0])?)?;
    /// let y = x.layer_norm(&w, &b, 0.0)?.value()?;
    /// assert_eq!(y.as_slice(), &[-1.0, 1.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn layer_norm<W: Dimension>(
        &self,
        weight: &Var<'t, W, T>,
        bias: &Var<'t, W, T>,
        eps: f64,
    ) -> Result<Var<'t, D, T>, Error> {
        self.norm(weight, Some(bias), eps, "Var::layer_norm")
    }

    /// RMSNorm over the last axis (Zhang and Sennrich 2019):
    /// `x / sqrt(mean(x²) + eps) · w`.
    ///
    /// # Errors
    /// As [`Var::layer_norm`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![1.0, -1.0])?)?;
    /// let w = tape.leaf(Tensor::from_vec([2], vec![2.0, 2.0])?)?;
    /// assert_eq!(x.rms_norm(&w, 0.0)?.value()?.as_slice(), &[2.0, -2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn rms_norm<W: Dimension>(
        &self,
        weight: &Var<'t, W, T>,
        eps: f64,
    ) -> Result<Var<'t, D, T>, Error> {
        self.norm(weight, None, eps, "Var::rms_norm")
    }

    fn norm<W: Dimension>(
        &self,
        weight: &Var<'t, W, T>,
        bias: Option<&Var<'t, W, T>>,
        eps: f64,
        op: &'static str,
    ) -> Result<Var<'t, D, T>, Error> {
        self.same_tape(weight)?;
        let c = last_axis(&self.shape(), op)?;
        check_weight(&weight.shape(), c, op)?;
        if let Some(b) = bias {
            self.same_tape(b)?;
            check_weight(&b.shape(), c, op)?;
        }
        let (x, w, b) = (self.id, weight.id, bias.map(|b| b.id));
        let node = match b {
            Some(b) => Op::LayerNorm(x, w, b, eps),
            None => Op::RmsNorm(x, w, eps),
        };
        self.record(node, |n| {
            let xv = &n[x].value;
            let xs = xv.as_slice();
            let ws = n[w].value.as_slice();
            let bias = b.map(|b| n[b].value.as_slice());
            let (c, eps) = (c.max(1), T::round_from_f64(eps));
            let mut out = rows::zeroed::<T>(xs.len())?;
            let threads = rows::threads_for::<T>(2 * xs.len());
            rows::for_each_rows(&mut out, c, threads, |range, block| {
                for (r, o) in range.zip(block.chunks_exact_mut(c)) {
                    let row = &xs[r * c..][..c];
                    let (mean, rstd) = row_stat(row, eps, bias.is_some());
                    for k in 0..c {
                        let shift = bias.map_or(T::ZERO, |b| b[k]);
                        o[k] = (row[k] - mean) * rstd * ws[k] + shift;
                    }
                }
            });
            strided::tensor(xv.shape(), out)
        })
    }
}
