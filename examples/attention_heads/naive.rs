//! The independent reference: the same attention with plain nested loops
//! over the packed `qkv` values (`Vec<f64>`, index arithmetic, no views, no
//! crate operations), so the pipeline is checked against code that shares
//! nothing with it but the formulas.

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

/// The attention results on a prefix of `ta` positions.
#[derive(Debug, Clone, PartialEq)]
pub struct NaiveAttention {
    /// `Q·Kᵀ/√D` before masking, `[B, H, ta, ta]`.
    pub scores: Vec<f64>,
    /// Scores with `-inf` where `j > i`, `[B, H, ta, ta]`.
    pub masked: Vec<f64>,
    /// Row maxima of `masked`, `[B, H, ta]`.
    pub max: Vec<f64>,
    /// `exp(masked - max)`, `[B, H, ta, ta]`.
    pub exps: Vec<f64>,
    /// Row sums of `exps`, `[B, H, ta]`.
    pub sums: Vec<f64>,
    /// Causal softmax probabilities, `[B, H, ta, ta]`.
    pub probs: Vec<f64>,
    /// `P·V`, `[B, H, ta, D]`.
    pub out: Vec<f64>,
    /// Heads merged, `[B, ta, C]`.
    pub merged: Vec<f64>,
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

    /// Causal attention over the first `ta` positions: sums from +0.0 in
    /// ascending index order, the stable softmax `exp(s - max) / sum`.
    pub fn attention(&self, ta: usize) -> NaiveAttention {
        let (heads, width) = (self.heads, self.head_width);
        let scale = (width as f64).sqrt();
        let mut result = NaiveAttention {
            scores: Vec::new(),
            masked: Vec::new(),
            max: Vec::new(),
            exps: Vec::new(),
            sums: Vec::new(),
            probs: Vec::new(),
            out: Vec::new(),
            merged: vec![0.0; self.batch * ta * heads * width],
        };
        for b in 0..self.batch {
            for h in 0..heads {
                for i in 0..ta {
                    let mut row = vec![f64::NEG_INFINITY; ta];
                    for (j, slot) in row.iter_mut().enumerate() {
                        let mut dot = 0.0;
                        for d in 0..width {
                            dot += self.at(b, i, Which::Q, h, d) * self.at(b, j, Which::K, h, d);
                        }
                        result.scores.push(dot / scale);
                        if j <= i {
                            *slot = dot / scale;
                        }
                    }
                    let max = row
                        .iter()
                        .fold(f64::NEG_INFINITY, |m, &s| if s > m { s } else { m });
                    let exps: Vec<f64> = row.iter().map(|&s| (s - max).exp()).collect();
                    let total = exps.iter().fold(0.0, |acc, &e| acc + e);
                    let probs: Vec<f64> = exps.iter().map(|&e| e / total).collect();
                    result.masked.extend(&row);
                    result.max.push(max);
                    result.exps.extend(&exps);
                    result.sums.push(total);
                    for d in 0..width {
                        let mut acc = 0.0;
                        for (j, &p) in probs.iter().enumerate() {
                            acc += p * self.at(b, j, Which::V, h, d);
                        }
                        result.out.push(acc);
                        result.merged[((b * ta + i) * heads + h) * width + d] = acc;
                    }
                    result.probs.extend(probs);
                }
            }
        }
        result
    }
}
