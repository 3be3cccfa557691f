//! The row kernels of `layer_norm` and `rms_norm`: each output row, which
//! already holds its input row (`traverse/last_axis.rs`), is normalized in
//! place with the composition's operations in the composition's order, so
//! every value gets the same operands and the same roundings:
//!
//! - LayerNorm: `mean = tree(x) / n`; `c_i = x_i - mean`;
//!   `var = tree(c_i · c_i) / n`; `s = sqrt(var + eps)`;
//!   `y_i = (c_i / s) · g_i + b_i` (a multiply and an add, two roundings).
//! - RMSNorm: `ms = tree(x_i · x_i) / n`; `r = sqrt(ms + eps)`;
//!   `y_i = (x_i / r) · g_i`.
//!
//! `tree` is the fixed summation tree of `sum_axis` (`reduce/tree.rs`):
//! the squares are made one leaf (128 values) at a time in a stack buffer
//! and their lane sums pushed into the tree's counter, so no pass needs
//! more memory than the row. `sqrt` and the other operations are IEEE
//! operations, correctly rounded on every instruction set.

use crate::tensor::float::Float;
use crate::tensor::ops::reduce::{Counter, LEAF, leaf_sums, tree_sum_in};
use crate::tensor::traverse::last_axis::RowKernel;

/// Which normalization, with its (dense, `[C]`) parameters and epsilon.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Norm<'p, F> {
    /// LayerNorm: centered by the mean, scaled by the biased variance,
    /// then `· gamma + beta`.
    Layer {
        gamma: &'p [F],
        beta: &'p [F],
        eps: F,
    },
    /// RMSNorm: scaled by the root mean square, then `· gamma`.
    Rms { gamma: &'p [F], eps: F },
}

/// The tree sum of the squares `x_i · x_i` of `values`.
#[inline(always)]
pub(crate) fn sum_squares<F: Float>(counter: &mut Counter<F>, values: &[F]) -> F {
    counter.reset();
    let mut leaf = [F::ZERO; LEAF];
    for chunk in values.chunks(LEAF) {
        for (square, &x) in leaf.iter_mut().zip(chunk) {
            *square = x * x;
        }
        counter.push(leaf_sums(&leaf[..chunk.len()]));
    }
    counter.finish()
}

impl<F: Float> RowKernel<F> for Norm<'_, F> {
    type Scratch = Counter<F>;

    fn scratch(&self) -> Counter<F> {
        Counter::new()
    }

    #[inline(always)]
    fn row(&self, counter: &mut Counter<F>, _row: usize, out: &mut [F]) {
        let n = F::from_usize(out.len());
        match *self {
            Norm::Layer { gamma, beta, eps } => {
                let mean = tree_sum_in(counter, out) / n;
                for x in out.iter_mut() {
                    *x = *x - mean;
                }
                let var = sum_squares(counter, out) / n;
                let s = (var + eps).sqrt();
                for ((y, &g), &b) in out.iter_mut().zip(gamma).zip(beta) {
                    *y = *y / s * g + b;
                }
            }
            Norm::Rms { gamma, eps } => {
                let ms = sum_squares(counter, out) / n;
                let r = (ms + eps).sqrt();
                for (y, &g) in out.iter_mut().zip(gamma) {
                    *y = *y / r * g;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::ops::reduce::tree_sum;

    fn row(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| f64::from((i * 37 % 101) as u32) * 0.173 - 7.5)
            .collect()
    }

    #[test]
    fn a_row_is_normalized_by_the_composition_steps() {
        for n in [1, 3, 127, 128, 129, 300, 1000] {
            let x = row(n);
            let gamma: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 * 0.01).collect();
            let beta: Vec<f64> = (0..n).map(|i| i as f64 * -0.02).collect();
            let eps = 1e-5;
            let nf = n as f64;
            // LayerNorm, step by step with the reference tree.
            let mean = tree_sum(&x) / nf;
            let c: Vec<f64> = x.iter().map(|&v| v - mean).collect();
            let var = tree_sum(&c.iter().map(|&v| v * v).collect::<Vec<_>>()) / nf;
            let s = (var + eps).sqrt();
            let want: Vec<f64> = (0..n).map(|i| c[i] / s * gamma[i] + beta[i]).collect();
            let mut out = x.clone();
            let layer = Norm::Layer {
                gamma: &gamma,
                beta: &beta,
                eps,
            };
            layer.row(&mut Counter::new(), 0, &mut out);
            assert_eq!(out, want, "layer n = {n}");
            // RMSNorm.
            let ms = tree_sum(&x.iter().map(|&v| v * v).collect::<Vec<_>>()) / nf;
            let r = (ms + eps).sqrt();
            let want: Vec<f64> = (0..n).map(|i| x[i] / r * gamma[i]).collect();
            let mut out = x.clone();
            Norm::Rms { gamma: &gamma, eps }.row(&mut Counter::new(), 0, &mut out);
            assert_eq!(out, want, "rms n = {n}");
        }
    }
}
