//! Typed errors, one enum per layer (owner, view, operation), and the
//! crate-wide [`Error`](enum@Error) each of them converts into.
//!
//! Every message names the operation that failed and the numbers that made
//! it fail. The enums are `#[non_exhaustive]`: new operations add variants.

use thiserror::Error;

/// Errors of owned tensors and of the shape arithmetic underneath everything.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TensorError {
    /// A rank known only at run time differs from the one requested
    /// (`DynTensor::into_ranked`, `TryFrom`, a dynamic index of the wrong length).
    #[error("rank mismatch: expected rank {expected}, got rank {actual}")]
    RankMismatch {
        /// The rank the caller asked for.
        expected: usize,
        /// The rank the value actually has.
        actual: usize,
    },
    /// A shape's element count, a row-major stride or a storage offset does not fit in `usize`.
    #[error(
        "shape overflow: an element count, stride or offset of this shape does not fit in usize"
    )]
    ShapeOverflow,
    /// `from_vec` got a number of values different from the shape's element count.
    #[error("element count mismatch: the shape needs {expected} values, {actual} were given")]
    ElementCountMismatch {
        /// The shape's element count.
        expected: usize,
        /// The number of values supplied.
        actual: usize,
    },
    /// A coordinate lies outside its axis.
    #[error("index out of bounds: index {index} on axis {axis} of extent {dimension}")]
    IndexOutOfBounds {
        /// The offending axis.
        axis: usize,
        /// The coordinate given on that axis.
        index: usize,
        /// The axis extent.
        dimension: usize,
    },
    /// Reserving the storage of a new tensor failed (`try_reserve`).
    #[error("allocation failed: could not reserve storage for {elements} elements")]
    AllocationFailed {
        /// The number of elements that could not be reserved.
        elements: usize,
    },
}

/// Errors of borrowed views and their zero-copy transforms.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TensorViewError {
    /// A shape, index or allocation error of the layer below.
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// `reshape` asked for a different element count.
    #[error("reshape: the view holds {current} elements, the requested shape holds {requested}")]
    ReshapeElementCountMismatch {
        /// The view's element count.
        current: usize,
        /// The requested shape's element count.
        requested: usize,
    },
    /// `reshape` of a view that is not row-major contiguous; call `materialize` first.
    #[error(
        "reshape: the view is not row-major contiguous; reshape never copies, call materialize() first"
    )]
    NonContiguousReshape,
    /// A runtime axis list (`DynView::permute`) has the wrong length.
    #[error("permute: the axis list has {actual} entries, the view has rank {expected}")]
    PermutationLengthMismatch {
        /// The view's rank.
        expected: usize,
        /// The length of the axis list given.
        actual: usize,
    },
    /// An axis list names the same axis twice.
    #[error("permute: axis {axis} appears more than once")]
    DuplicateAxis {
        /// The repeated axis (its second occurrence, scanning left to right).
        axis: usize,
    },
    /// An axis argument is not below the rank.
    #[error("axis {axis} is out of bounds for a view of rank {rank}")]
    AxisOutOfBounds {
        /// The axis given.
        axis: usize,
        /// The view's rank.
        rank: usize,
    },
    /// `slice` with `start > end`.
    #[error("slice: on axis {axis} the start {start} is after the end {end}")]
    SliceStartAfterEnd {
        /// The sliced axis.
        axis: usize,
        /// Range start.
        start: usize,
        /// Range end.
        end: usize,
    },
    /// `slice` whose end passes the axis extent.
    #[error("slice: on axis {axis} the end {end} is past the extent {dimension}")]
    SliceEndOutOfBounds {
        /// The sliced axis.
        axis: usize,
        /// Range end.
        end: usize,
        /// The axis extent.
        dimension: usize,
    },
    /// `View::from_parts` / `from_slice`: some reachable offset lies outside the borrowed data.
    #[error(
        "view out of bounds: the layout needs {required_len} elements of storage, the data holds {available}"
    )]
    ViewOutOfBounds {
        /// One past the largest offset the layout reaches.
        required_len: usize,
        /// The length of the borrowed data.
        available: usize,
    },
    /// `DynView::from_parts`: `strides` does not have one entry per axis of `shape`.
    #[error("from_parts: the shape has {rank} axes but {strides} strides were given")]
    StridesLengthMismatch {
        /// The shape's rank.
        rank: usize,
        /// The number of strides given.
        strides: usize,
    },
    /// `split_axis`: the two requested extents do not multiply to the axis's extent.
    #[error("split_axis: axis {axis} has extent {extent}, which does not split into {requested:?}")]
    SplitAxisMismatch {
        /// The axis being split.
        axis: usize,
        /// Its extent.
        extent: usize,
        /// The requested `[outer, inner]` extents.
        requested: [usize; 2],
    },
    /// `merge_axes`: `axis` and `axis + 1` are not chained in memory.
    #[error(
        "merge_axes: axes {axis} and {} (extents {extents:?}, strides {strides:?}) are not adjacent in memory: stride {} is not {} * {}; materialize() first",
        axis + 1, strides[0], strides[1], extents[1]
    )]
    NonMergeableAxes {
        /// The first of the two axes.
        axis: usize,
        /// The extents of `axis` and `axis + 1`.
        extents: [usize; 2],
        /// The strides of `axis` and `axis + 1`.
        strides: [usize; 2],
    },
    /// `reshape_strided`: the new shape needs a copy under PyTorch's `view`
    /// rule. The view's axes `axes[0]..=axes[1]` (the first and last of
    /// extent above 1) are one run in memory (their strides chain) holding
    /// `elements` values, and the requested shape's axes, multiplied from
    /// the right, pass that count without meeting it.
    #[error(
        "reshape_strided: axes {}..={} of the view are one run of {elements} elements in memory, and no run of consecutive requested axes holds exactly {elements} (PyTorch's view rule); materialize() first",
        axes[0], axes[1]
    )]
    NonStrideCompatibleReshape {
        /// The first and the last axis of the view's run, inclusive.
        axes: [usize; 2],
        /// The number of elements in that run.
        elements: usize,
    },
    /// `squeeze` of an axis whose extent is not 1.
    #[error("squeeze: axis {axis} has extent {extent}, only an extent-1 axis can be removed")]
    SqueezeNonUnitAxis {
        /// The axis given.
        axis: usize,
        /// Its extent.
        extent: usize,
    },
    /// `broadcast_to` a shape of lower rank (dynamic views; the ranked API does not compile).
    #[error(
        "broadcast_to: a rank-{rank} view cannot be broadcast to rank {target_rank}; broadcasting never removes axes"
    )]
    BroadcastRankTooSmall {
        /// The view's rank.
        rank: usize,
        /// The target shape's rank.
        target_rank: usize,
    },
    /// `broadcast_to` (NumPy's rule): an extent that is neither equal to the target's nor 1.
    #[error(
        "broadcast_to: output axis {axis} would stretch extent {extent} to {target}; only extent 1 (or a missing axis) broadcasts"
    )]
    IncompatibleBroadcast {
        /// The leftmost failing axis of the (right-aligned) target shape.
        axis: usize,
        /// The view's extent there.
        extent: usize,
        /// The target extent there.
        target: usize,
    },
    /// `slice_step` with a step of 0.
    #[error("slice_step: the step on axis {axis} is 0; it must be at least 1")]
    ZeroSliceStep {
        /// The sliced axis.
        axis: usize,
    },
    /// `chunk::<N>`: the axis's extent is not a multiple of `N`.
    #[error("chunk: axis {axis} of extent {extent} does not split into {chunks} equal parts")]
    UnevenChunk {
        /// The axis given.
        axis: usize,
        /// Its extent.
        extent: usize,
        /// The requested number of parts.
        chunks: usize,
    },
    /// `axis_chunks_iter` with a chunk size of 0.
    #[error("axis_chunks_iter: the chunk size on axis {axis} is 0; it must be at least 1")]
    ZeroChunkSize {
        /// The axis given.
        axis: usize,
    },
    /// A mutable view whose layout may reach one stored value from two
    /// coordinates. The check is sufficient, not exact: it accepts layouts
    /// whose axes, sorted by stride, each step over the span of the smaller
    /// ones, and refuses every other (so some interleaved layouts that do
    /// not overlap are refused too).
    #[error(
        "mutable view: the layout (shape {shape:?}, strides {strides:?}) may reach a stored value twice (its axes, sorted by stride, do not each step past the smaller ones); a mutable view must not overlap itself"
    )]
    OverlappingMutableView {
        /// The shape given.
        shape: Vec<usize>,
        /// The strides given.
        strides: Vec<usize>,
    },
    /// `materialize_into` got an output tensor of another shape.
    #[error("materialize_into: the output has shape {actual:?}, the view has shape {expected:?}")]
    OutputShapeMismatch {
        /// The view's shape.
        expected: Vec<usize>,
        /// The output tensor's shape.
        actual: Vec<usize>,
    },
    /// From an ndarray view (feature `ndarray`): an axis that is stepped
    /// along runs backwards. Strides here are `usize`, so there are no
    /// reversed views.
    #[cfg(feature = "ndarray")]
    #[error(
        "from ndarray: axis {axis} has the negative stride {stride}; strides here are usize (no reversed views): copy it with .as_standard_layout() first"
    )]
    NegativeStride {
        /// The first axis (of extent > 1) with a negative stride.
        axis: usize,
        /// Its stride, in elements.
        stride: isize,
    },
    /// From an ndarray view (feature `ndarray`): its elements (broadcast
    /// axes aside) are not one contiguous run of memory, so safe code cannot
    /// borrow them as one slice.
    #[cfg(feature = "ndarray")]
    #[error(
        "from ndarray: the view (shape {shape:?}, strides {strides:?}) is not contiguous in memory, so safe code cannot borrow its storage as one slice: copy it with .as_standard_layout() first"
    )]
    NotContiguousInMemory {
        /// The ndarray view's shape.
        shape: Vec<usize>,
        /// The ndarray view's strides, in elements.
        strides: Vec<isize>,
    },
    /// To ndarray (feature `ndarray`): ndarray refused the layout. It holds
    /// at most `isize::MAX` elements (counting non-zero extents only, so a
    /// huge broadcast or an empty `[usize::MAX, 0]` does not fit) and spans
    /// at most `isize::MAX` elements and bytes of memory.
    #[cfg(feature = "ndarray")]
    #[error(
        "to ndarray: the layout (shape {shape:?}, strides {strides:?}) exceeds ndarray's limits (isize::MAX elements, counting non-zero extents, and isize::MAX bytes of span)"
    )]
    NdarrayLimitExceeded {
        /// The view's shape.
        shape: Vec<usize>,
        /// The view's strides, in elements.
        strides: Vec<usize>,
    },
}

/// Errors of broadcasting, elementwise maps, reductions and matrix products.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TensorOpError {
    /// A shape arithmetic error of the layer below (e.g. `ShapeOverflow` of a broadcast shape).
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// Broadcasting (NumPy's rule): the aligned extents differ and neither is 1.
    #[error(
        "broadcast: output axis {axis} pairs extent {left_dimension} (left) with {right_dimension} (right); they must be equal or one of them 1"
    )]
    IncompatibleBroadcast {
        /// The leftmost failing axis of the right-aligned output.
        axis: usize,
        /// The left operand's extent there (1 if the left operand lacks that axis).
        left_dimension: usize,
        /// The right operand's extent there (1 if the right operand lacks that axis).
        right_dimension: usize,
    },
    /// A reduction axis is not below the rank.
    #[error("reduction: axis {axis} is out of bounds for rank {rank}")]
    ReductionAxisOutOfBounds {
        /// The axis given.
        axis: usize,
        /// The input's rank.
        rank: usize,
    },
    /// `mean_axis` over an axis of extent 0 (the mean of nothing is undefined).
    #[error("mean_axis: axis {axis} has extent 0, the mean of no values is undefined")]
    EmptyMeanAxis {
        /// The reduced axis.
        axis: usize,
    },
    /// `max_axis` or `argmax_axis` over an axis of extent 0 (the maximum of nothing is undefined).
    #[error(
        "max_axis / argmax_axis: axis {axis} has extent 0, the maximum of no values is undefined"
    )]
    EmptyMaxAxis {
        /// The reduced axis.
        axis: usize,
    },
    /// Reserving the output buffer failed (`try_reserve`).
    #[error("output allocation failed: could not reserve {elements} elements")]
    OutputAllocationFailed {
        /// The output's element count.
        elements: usize,
    },
    /// An `_into` variant got an output tensor of another shape.
    #[error(
        "output shape mismatch: the result has shape {expected:?}, the output tensor {actual:?}"
    )]
    OutputShapeMismatch {
        /// The shape the operation produces.
        expected: Vec<usize>,
        /// The shape of the caller's output tensor.
        actual: Vec<usize>,
    },
    /// `matmul`: the contracted extents differ (`[.., m, k] x [.., k, n]`).
    #[error(
        "matmul: the left operand's last extent {left_k} differs from the right operand's second-to-last extent {right_k}"
    )]
    MatmulInnerMismatch {
        /// `k` of the left operand (its last axis).
        left_k: usize,
        /// `k` of the right operand (its second-to-last axis).
        right_k: usize,
    },
    /// Dynamic `matmul` with an operand of rank below 2.
    #[error("matmul: operand ranks must be at least 2, got {rank}; reshape a unit axis in first")]
    MatmulRankTooSmall {
        /// The offending operand's rank.
        rank: usize,
    },
    /// `concat`, `stack` or `index_select` got an axis that is not below the
    /// output's rank (for `stack` the output has one axis more than the inputs).
    #[error("{op}: axis {axis} is out of bounds for an output of rank {rank}")]
    AxisOutOfBounds {
        /// The operation: `"concat"`, `"stack"` or `"index_select"`.
        op: &'static str,
        /// The axis given.
        axis: usize,
        /// The output's rank.
        rank: usize,
    },
    /// `concat` or `stack` got an empty list of inputs (there is no shape to take).
    #[error(
        "concat / stack: the input list is empty, so there is no shape to take the output's from"
    )]
    EmptyInputList,
    /// `concat` / `stack`: an input's extent differs from the first input's on
    /// an axis where they must agree (every axis but the joined one for
    /// `concat`, every axis for `stack`).
    #[error(
        "concat / stack: input {input} has extent {actual} on axis {axis}, input 0 has {expected}; concat needs equal extents on every axis but the joined one, stack on every axis"
    )]
    ConcatShapeMismatch {
        /// The position of the offending input in the list (1 or more).
        input: usize,
        /// The input axis whose extents differ.
        axis: usize,
        /// The first input's extent on that axis.
        expected: usize,
        /// The offending input's extent on that axis.
        actual: usize,
    },
    /// Dynamic `concat` / `stack`: an input's rank differs from the first input's.
    #[error("concat / stack: input {input} has rank {actual}, input 0 has rank {expected}")]
    ConcatRankMismatch {
        /// The position of the offending input in the list (1 or more).
        input: usize,
        /// The first input's rank.
        expected: usize,
        /// The offending input's rank.
        actual: usize,
    },
    /// `index_select`: an index is not below the extent of the selected axis
    /// (e.g. a token id outside the vocabulary of an embedding table).
    #[error(
        "index_select: indices[{position}] = {index} is out of bounds for axis {axis} of extent {extent}"
    )]
    IndexSelectOutOfBounds {
        /// The selected axis.
        axis: usize,
        /// Where the offending index sits in the `indices` list.
        position: usize,
        /// The offending index.
        index: usize,
        /// The extent of the selected axis.
        extent: usize,
    },
}

/// Any error of this crate: each layer's enum converts into it with `?`, so
/// model code can return one error type.
///
/// ```
/// use llm_from_scratch::prelude::*;
///
/// fn last_token_logits(hidden: &Tensor<2>, wte: &Tensor<2>) -> Result<Tensor<2>, llm_from_scratch::Error> {
///     let t = hidden.shape()[0];
///     let last = hidden.view().slice(0, t - 1..t)?;       // a view error
///     let logits = matmul(&last, &wte.view().transpose(0, 1)?)?; // an op error
///     let _check = logits.get([0, 0])?;                    // a tensor error
///     Ok(logits)
/// }
/// let hidden = Tensor::from_vec([2, 2], vec![1.0, 0.0, 0.0, 1.0])?;
/// let wte = Tensor::from_vec([3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// assert_eq!(last_token_logits(&hidden, &wte)?.as_slice(), &[2.0, 4.0, 6.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    /// An owner or shape error.
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// A view or view-transform error.
    #[error(transparent)]
    View(#[from] TensorViewError),
    /// An operation error (broadcast, map, reduction, matmul, ...).
    #[error(transparent)]
    Op(#[from] TensorOpError),
    /// A safetensors weights error.
    #[cfg(feature = "safetensors")]
    #[error(transparent)]
    Weights(#[from] crate::tensor::weights::WeightsError),
}
