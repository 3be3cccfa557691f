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
