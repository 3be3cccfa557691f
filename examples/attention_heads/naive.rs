//! The independent reference: the same attention with plain nested loops
//! over the packed `qkv` values (`Vec<f64>`, index arithmetic, no views, no
//! tensor operations), so the pipeline is checked against code that shares
//! nothing with it but the formulas and the crate's numeric rules for one
//! value or one slice: `Function::Exp.eval` (the scalar model of its `exp`)
//! and `tree_sum` (the summation tree of `sum_axis`).

use llm_from_scratch::tensor::ops::{Function, tree_sum};

/// The packed projection `[B, T, 3C]` as a flat row-major slice, with its sizes.
#[derive(Debug, Clone, Copy)]
pub struct Naive<'a> {
    qkv: &'a [f64],
    batch: usize,
    seq: usize,
    heads: usize,
    head_width: usize,
}

/// Which third of the packed projection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// Queries, channels `0..C`.
    Q = 0,
    /// Keys, channels `C..2C`.
    K = 1,
    /// Values, channels `2C..3C`.
    V = 2,
}

/// The attention results on selected query rows `rows` (every key position
/// `0..T` each): per batch, per head, per selected row, in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct NaiveAttention {
    /// `Q·Kᵀ/√D` before masking, `[B, H, R, T]` for `R = rows.len()`.
    pub scores: Vec<f64>,
    /// Causal softmax probabilities, `[B, H, R, T]`: exactly 0 where `j > i`.
    pub probs: Vec<f64>,
    /// `P·V`, `[B, H, R, D]`.
    pub out: Vec<f64>,
    /// Heads merged, `[B, R, C]`.
    pub merged: Vec<f64>,
}

/// The rows `rows` of axis 2 of a row-major `[a, b, n, w]` buffer, as
/// `[a, b, rows.len(), w]`: picks out of a pipeline output the rows the
/// reference computed (index arithmetic only).
pub fn select_rows(values: &[f64], shape: [usize; 4], rows: &[usize]) -> Vec<f64> {
    let [outer, inner, n, w] = shape;
    assert_eq!(
        values.len(),
        outer * inner * n * w,
        "shape and values disagree"
    );
    let mut out = Vec::with_capacity(outer * inner * rows.len() * w);
    for group in 0..outer * inner {
        for &row in rows {
            let start = (group * n + row) * w;
            out.extend_from_slice(&values[start..start + w]);
        }
    }
    out
}

impl<'a> Naive<'a> {
    /// Wraps `qkv`, which must hold `B * T * 3 * H * D` values.
    pub fn new(qkv: &'a [f64], batch: usize, seq: usize, heads: usize, head_width: usize) -> Self {
        assert_eq!(
            qkv.len(),
            batch * seq * 3 * heads * head_width,
            "qkv has the wrong length"
        );
        Self {
            qkv,
            batch,
            seq,
            heads,
            head_width,
        }
    }

    /// `qkv[b, t, which * C + h * D + d]`.
    fn at(&self, b: usize, t: usize, which: Which, h: usize, d: usize) -> f64 {
        let c = self.heads * self.head_width;
        self.qkv[(b * self.seq + t) * 3 * c + which as usize * c + h * self.head_width + d]
    }

    /// One part as `[B, T, C]`.
    pub fn part(&self, which: Which) -> Vec<f64> {
        let mut out = Vec::new();
        for b in 0..self.batch {
            for t in 0..self.seq {
                for h in 0..self.heads {
                    for d in 0..self.head_width {
                        out.push(self.at(b, t, which, h, d));
                    }
                }
            }
        }
        out
    }

    /// One part split into heads, `[B, H, T, D]`.
    pub fn heads(&self, which: Which) -> Vec<f64> {
        let mut out = Vec::new();
        for b in 0..self.batch {
            for h in 0..self.heads {
                for t in 0..self.seq {
                    for d in 0..self.head_width {
                        out.push(self.at(b, t, which, h, d));
                    }
                }
            }
        }
        out
    }

    /// The keys with sequence and width exchanged, `[B, H, D, T]`.
    pub fn keys_transposed(&self) -> Vec<f64> {
        let mut out = Vec::new();
        for b in 0..self.batch {
            for h in 0..self.heads {
                for d in 0..self.head_width {
                    for t in 0..self.seq {
                        out.push(self.at(b, t, Which::K, h, d));
                    }
                }
            }
        }
        out
    }

    /// Causal attention for the query rows `rows` (each `< T`) over all `T`
    /// keys: dot products as fused multiply-adds (`mul_add`) from +0.0 in
    /// ascending index order (the order `matmul` promises), each times
    /// `1/√D` (GPT-2's `w * rsqrt(D)`; Vaswani et al. 2017), then the
    /// keys `j > i` set to `-inf` (GPT-2's `mask_attn_weights`) and the
    /// stable softmax `exp(s - max) / sum` with the crate's `exp` and
    /// summation tree, so a masked key's probability is `exp(-inf) / sum`,
    /// exactly 0.
    ///
    /// The scale is the rounded reciprocal `1/√D`, one multiplication, as
    /// the pipeline's `matmul_affine(Q, Kᵀ, 1/√D)` applies it: for `D = 64`
    /// it is 1/8, exact, and the same as dividing by `√D`; for other `D` a
    /// division by `√D` could differ from it in the last bit (one rounding of
    /// the score), which `verify.rs`'s 1e-12 would absorb at these
    /// magnitudes but the unit tests' bit-for-bit comparison would not. The
    /// scale is computed here from `D` alone, not taken from the pipeline.
    pub fn attention(&self, rows: &[usize]) -> NaiveAttention {
        let (seq, heads, width) = (self.seq, self.heads, self.head_width);
        let alpha = 1.0 / (width as f64).sqrt();
        let mut result = NaiveAttention {
            scores: Vec::new(),
            probs: Vec::new(),
            out: Vec::new(),
            merged: vec![0.0; self.batch * rows.len() * heads * width],
        };
        for b in 0..self.batch {
            for h in 0..heads {
                for (r, &i) in rows.iter().enumerate() {
                    let mut row = vec![f64::NEG_INFINITY; seq];
                    for (j, slot) in row.iter_mut().enumerate() {
                        let mut dot = 0.0;
                        for d in 0..width {
                            let (q, k) =
                                (self.at(b, i, Which::Q, h, d), self.at(b, j, Which::K, h, d));
                            dot = q.mul_add(k, dot);
                        }
                        result.scores.push(dot * alpha);
                        if j <= i {
                            *slot = dot * alpha;
                        }
                    }
                    let max = row
                        .iter()
                        .fold(f64::NEG_INFINITY, |m, &s| if s > m { s } else { m });
                    // The crate's `exp` (its scalar model) and the fixed
                    // tree of `sum_axis`, so the fused softmax matches bit for bit.
                    let exps: Vec<f64> = row.iter().map(|&s| Function::Exp.eval(s - max)).collect();
                    let total = tree_sum(&exps);
                    let probs: Vec<f64> = exps.iter().map(|&e| e / total).collect();
                    for d in 0..width {
                        let mut acc = 0.0;
                        for (j, &p) in probs.iter().enumerate() {
                            acc = p.mul_add(self.at(b, j, Which::V, h, d), acc);
                        }
                        result.out.push(acc);
                        result.merged[((b * rows.len() + r) * heads + h) * width + d] = acc;
                    }
                    result.probs.extend(probs);
                }
            }
        }
        result
    }
}
