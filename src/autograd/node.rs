//! The recorded operations: one enum variant per backward rule, holding the
//! input node numbers and what the rule needs besides the stored values.

use crate::tensor::DynTensor;
use crate::tensor::ops::Function;

/// One tape entry: the forward value (contiguous, row-major) and its op.
#[derive(Debug)]
pub(crate) struct Node<T> {
    pub(crate) value: DynTensor<T>,
    pub(crate) op: Op,
}

/// The operation that produced a node; inputs are node numbers.
///
/// Every variant's rule is in `backward.rs`, with its source.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Op {
    /// A parameter or an input: no rule.
    Leaf,
    /// A value that needs no gradient (a mask, a scale): no rule, and no
    /// rule computes a gradient for it or for what depends on it alone.
    Constant,
    /// `a + b`, NumPy broadcasting.
    Add(usize, usize),
    /// `a - b`, NumPy broadcasting.
    Sub(usize, usize),
    /// `a · b`, NumPy broadcasting.
    Mul(usize, usize),
    /// `a / b`, NumPy broadcasting.
    Div(usize, usize),
    /// A named elementwise function.
    Unary(usize, Function),
    /// `a @ b` (batched, batch axes broadcast).
    Matmul(usize, usize),
    /// A permutation of the axes (transpose included): `perm[i]` is the input
    /// axis that becomes output axis `i`.
    Permute(usize, Vec<usize>),
    /// Same elements, another shape (reshape, split/merge, (un)squeeze).
    Reshape(usize),
    /// `start..end` step `step` on `axis` (narrow and slice).
    Slice {
        /// The input node.
        input: usize,
        /// The sliced axis.
        axis: usize,
        /// First kept entry.
        start: usize,
        /// Step between kept entries (≥ 1).
        step: usize,
    },
    /// Index `index` of `axis`, the axis removed.
    Select(usize, usize, usize),
    /// A broadcast (NumPy's rule) to the output's shape.
    BroadcastTo(usize),
    /// Inputs joined along `axis`.
    Concat(Vec<usize>, usize),
    /// Rows `indices` of `axis` (an embedding lookup on axis 0).
    IndexSelect(usize, usize, Vec<usize>),
    /// Sum over `axis` (the output keeps or drops it).
    Sum(usize, usize),
    /// Mean over `axis`.
    Mean(usize, usize),
    /// Maximum over `axis`, gradient to the first maximum (`torch.max(x, dim)`).
    MaxFirst(usize, usize),
    /// Maximum over `axis`, gradient split evenly among ties (`torch.amax`).
    MaxEven(usize, usize),
    /// Softmax over `axis`.
    Softmax(usize, usize),
    /// Log-softmax over `axis`.
    LogSoftmax(usize, usize),
    /// Mean cross-entropy of logits `[N, V]` against `targets` (a scalar).
    CrossEntropy(usize, Vec<usize>),
    /// Layer norm over the last axis: input, weight, bias, epsilon as `f64`.
    LayerNorm(usize, usize, usize, f64),
    /// RMSNorm over the last axis: input, weight, epsilon as `f64`.
    RmsNorm(usize, usize, f64),
}

impl Op {
    /// Calls `f` with every input node, in order (none for leaves and
    /// constants).
    pub(crate) fn for_each_input(&self, mut f: impl FnMut(usize)) {
        match self {
            Op::Leaf | Op::Constant => {}
            &Op::Add(a, b) | &Op::Sub(a, b) | &Op::Mul(a, b) | &Op::Div(a, b) => {
                f(a);
                f(b);
            }
            &Op::Matmul(a, b) => {
                f(a);
                f(b);
            }
            &Op::Unary(a, _)
            | &Op::Permute(a, _)
            | &Op::Reshape(a)
            | &Op::Slice { input: a, .. }
            | &Op::Select(a, ..)
            | &Op::BroadcastTo(a)
            | &Op::IndexSelect(a, ..)
            | &Op::Sum(a, _)
            | &Op::Mean(a, _)
            | &Op::MaxFirst(a, _)
            | &Op::MaxEven(a, _)
            | &Op::Softmax(a, _)
            | &Op::LogSoftmax(a, _)
            | &Op::CrossEntropy(a, _) => f(a),
            Op::Concat(ids, _) => ids.iter().copied().for_each(f),
            &Op::LayerNorm(x, w, b, _) => {
                f(x);
                f(w);
                f(b);
            }
            &Op::RmsNorm(x, w, _) => {
                f(x);
                f(w);
            }
        }
    }
}
