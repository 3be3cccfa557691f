//! The crate's one error type, [`Error`](enum@Error): one variant per
//! failure kind, across owners, views, operations and weight files.
//!
//! Every message starts with the operation the caller called (`softmax_axis`,
//! `assign`, `reshape`, ...) and gives the numbers that made it fail. A
//! variant that several operations can raise carries that operation's name
//! in its `op` field; a variant only one operation raises names it in its
//! message. The enum is `#[non_exhaustive]`: new operations add variants.
//!
//! The names `TensorError`, `TensorViewError` and `TensorOpError` of the
//! earlier three-layer design are aliases of this type, so signatures such
//! as `Result<View<'_, 2>, TensorViewError>` keep compiling. Patterns that
//! matched a layer wrapper (`TensorViewError::Tensor(..)`) match the inner
//! variant directly now.
//!
//! This file imports nothing from the crate: every other module may use it.

use thiserror::Error;

/// Every error of this crate. See the [module docs](self) for the rules.
///
/// ```
/// use llm_from_scratch::prelude::*;
///
/// fn last_token_logits(hidden: &Tensor<2>, wte: &Tensor<2>) -> Result<Tensor<2>, llm_from_scratch::Error> {
///     let t = hidden.shape()[0];
///     let last = hidden.view().slice(0, t - 1..t)?;              // a view error
///     let logits = matmul(&last, &wte.view().transpose(0, 1)?)?; // an op error
///     let _check = logits.get([0, 0])?;                          // an index error
///     Ok(logits)
/// }
/// let hidden = Tensor::from_vec([2, 2], vec![1.0, 0.0, 0.0, 1.0])?;
/// let wte = Tensor::from_vec([3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// assert_eq!(last_token_logits(&hidden, &wte)?.as_slice(), &[2.0, 4.0, 6.0]);
/// assert_eq!(
///     hidden.view().softmax_axis(2).unwrap_err().to_string(),
///     "softmax_axis: axis 2 is out of bounds for rank 2"
/// );
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Error {
    // ---- shapes, coordinates and storage (every layer) ----
    /// A value's rank differs from the one requested: `into_ranked::<R>()`,
    /// `TryFrom`, or a dynamic coordinate of the wrong length (`get`, `set`,
    /// `storage_offset`).
    #[error("{op}: expected rank {expected}, got rank {actual}")]
    RankMismatch {
        /// The operation called.
        op: &'static str,
        /// The rank the caller asked for.
        expected: usize,
        /// The rank the value actually has.
        actual: usize,
    },
    /// A dynamic-rank operand has fewer axes than the operation needs
    /// (`matmul` needs rank 2; the ranked API refuses it at compile time).
    #[error(
        "{op}: an operand of rank {rank} was given, at least rank {minimum} is needed; reshape a unit axis in first"
    )]
    RankTooSmall {
        /// The operation called.
        op: &'static str,
        /// The operand's rank.
        rank: usize,
        /// The smallest rank the operation takes.
        minimum: usize,
    },
    /// A dynamic shape or axis list longer than the dynamic rank limit
    /// (`MAX_DYN_RANK` = 32, NumPy 1.x's `NPY_MAXDIMS`), or a transform that
    /// would make one (`unsqueeze`, `split_axis`, `stack` of a rank-32 view).
    #[error("{op}: rank {rank} is above the dynamic rank limit {maximum}")]
    RankTooLarge {
        /// The operation called.
        op: &'static str,
        /// The rank given or asked for.
        rank: usize,
        /// The limit.
        maximum: usize,
    },
    /// An element count, a row-major stride or a storage offset of the shape
    /// involved does not fit in `usize` (checked even behind a zero extent).
    #[error("{op}: shape overflow: an element count, stride or offset does not fit in usize")]
    ShapeOverflow {
        /// The operation called.
        op: &'static str,
    },
    /// A number of values differs from the shape's element count
    /// (`from_vec`, `into_shape`).
    #[error("{op}: the shape needs {expected} values, {actual} were given")]
    ElementCountMismatch {
        /// The operation called.
        op: &'static str,
        /// The shape's element count.
        expected: usize,
        /// The number of values supplied.
        actual: usize,
    },
    /// A coordinate lies outside its axis (`get`, `set`, `select`, `storage_offset`).
    #[error("{op}: index {index} on axis {axis} of extent {dimension} is out of bounds")]
    IndexOutOfBounds {
        /// The operation called.
        op: &'static str,
        /// The offending axis.
        axis: usize,
        /// The coordinate given on that axis.
        index: usize,
        /// The axis extent.
        dimension: usize,
    },
    /// An axis argument is not below the rank it applies to (for `stack` and
    /// `unsqueeze`, the rank of the output, which has one axis more).
    #[error("{op}: axis {axis} is out of bounds for rank {rank}")]
    AxisOutOfBounds {
        /// The operation called.
        op: &'static str,
        /// The axis given.
        axis: usize,
        /// The rank it was checked against.
        rank: usize,
    },
    /// Broadcasting (NumPy's rule): the right-aligned extents differ and
    /// neither is 1. For `broadcast_to`, `assign` and `zip_map_inplace` the
    /// left extent is the source's and the right one the target's.
    #[error(
        "{op}: output axis {axis} pairs extent {left_dimension} with {right_dimension}; broadcasting needs them equal or one of them 1"
    )]
    IncompatibleBroadcast {
        /// The operation called.
        op: &'static str,
        /// The leftmost failing axis of the right-aligned output.
        axis: usize,
        /// The left (source) extent there, 1 where that operand lacks the axis.
        left_dimension: usize,
        /// The right (target) extent there, 1 where that operand lacks the axis.
        right_dimension: usize,
    },
    /// A dynamic `broadcast_to` (or a dynamic `assign` source) has more axes
    /// than its target: broadcasting never removes axes.
    #[error(
        "{op}: a rank-{rank} view cannot be broadcast to rank {target_rank}; broadcasting never removes axes"
    )]
    BroadcastRankTooSmall {
        /// The operation called.
        op: &'static str,
        /// The source's rank.
        rank: usize,
        /// The target's rank.
        target_rank: usize,
    },
    /// Reserving storage failed (`try_reserve`): an output, a new owner or
    /// a kernel's scratch buffer. Never an abort.
    #[error("{op}: could not reserve storage for {elements} elements")]
    AllocationFailed {
        /// The operation called.
        op: &'static str,
        /// The number of elements that could not be reserved.
        elements: usize,
    },
    /// An `_into` variant got an output of another shape.
    #[error("{op}: the result has shape {expected:?}, the output has shape {actual:?}")]
    OutputShapeMismatch {
        /// The operation called.
        op: &'static str,
        /// The shape the operation produces.
        expected: Vec<usize>,
        /// The shape of the caller's output.
        actual: Vec<usize>,
    },

    // ---- views and their zero-copy transforms ----
    /// `reshape` / `reshape_strided` asked for a different element count.
    #[error("{op}: the view holds {current} elements, the requested shape holds {requested}")]
    ReshapeElementCountMismatch {
        /// The operation called.
        op: &'static str,
        /// The view's element count.
        current: usize,
        /// The requested shape's element count.
        requested: usize,
    },
    /// `reshape` of a view that is not row-major contiguous; call
    /// `materialize` first (or `reshape_strided`, PyTorch's `view` rule).
    #[error(
        "reshape: the view is not row-major contiguous; reshape never copies, call materialize() first"
    )]
    NonContiguousReshape,
    /// A dynamic `permute` axis list has the wrong length.
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
    /// `slice` / `slice_step` with `start > end`.
    #[error("{op}: on axis {axis} the start {start} is after the end {end}")]
    SliceStartAfterEnd {
        /// The operation called.
        op: &'static str,
        /// The sliced axis.
        axis: usize,
        /// Range start.
        start: usize,
        /// Range end.
        end: usize,
    },
    /// `slice`, `slice_step` or `split_at` past the axis extent.
    #[error("{op}: on axis {axis} the end {end} is past the extent {dimension}")]
    SliceEndOutOfBounds {
        /// The operation called.
        op: &'static str,
        /// The sliced axis.
        axis: usize,
        /// Range end (for `split_at`, the split index).
        end: usize,
        /// The axis extent.
        dimension: usize,
    },
    /// `from_slice` / `from_parts`: some reachable offset lies outside the borrowed data.
    #[error(
        "{op}: the layout needs {required_len} elements of storage, the data holds {available}"
    )]
    ViewOutOfBounds {
        /// The operation called.
        op: &'static str,
        /// One past the largest offset the layout reaches.
        required_len: usize,
        /// The length of the borrowed data.
        available: usize,
    },
    /// Dynamic `from_parts`: `strides` does not have one entry per axis of `shape`.
    #[error("{op}: the shape has {rank} axes but {strides} strides were given")]
    StridesLengthMismatch {
        /// The operation called.
        op: &'static str,
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
        "ViewMut::from_parts: the layout (shape {shape:?}, strides {strides:?}) may reach a stored value twice (its axes, sorted by stride, do not each step past the smaller ones); a mutable view must not overlap itself"
    )]
    OverlappingMutableView {
        /// The shape given.
        shape: Vec<usize>,
        /// The strides given.
        strides: Vec<usize>,
    },
    /// From an ndarray view (feature `ndarray`): an axis that is stepped
    /// along runs backwards. Strides here are `usize`, so there are no
    /// reversed views.
    #[error(
        "View::try_from(ArrayView): axis {axis} has the negative stride {stride}; strides here are usize (no reversed views): copy it with .as_standard_layout() first"
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
    #[error(
        "View::try_from(ArrayView): the view (shape {shape:?}, strides {strides:?}) is not contiguous in memory, so safe code cannot borrow its storage as one slice: copy it with .as_standard_layout() first"
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
    #[error(
        "to_ndarray: the layout (shape {shape:?}, strides {strides:?}) exceeds ndarray's limits (isize::MAX elements, counting non-zero extents, and isize::MAX bytes of span)"
    )]
    NdarrayLimitExceeded {
        /// The view's shape.
        shape: Vec<usize>,
        /// The view's strides, in elements.
        strides: Vec<usize>,
    },

    // ---- operations ----
    /// `mean_axis` over an axis of extent 0 (the mean of nothing is undefined).
    #[error("{op}: axis {axis} has extent 0, the mean of no values is undefined")]
    EmptyMeanAxis {
        /// The operation called.
        op: &'static str,
        /// The reduced axis.
        axis: usize,
    },
    /// `max_axis` or `argmax_axis` over an axis of extent 0.
    #[error("{op}: axis {axis} has extent 0, the maximum of no values is undefined")]
    EmptyMaxAxis {
        /// The operation called.
        op: &'static str,
        /// The reduced axis.
        axis: usize,
    },
    /// `matmul`: the contracted extents differ (`[.., m, k] x [.., k, n]`).
    #[error(
        "{op}: the left operand's last extent {left_k} differs from the right operand's second-to-last extent {right_k}"
    )]
    MatmulInnerMismatch {
        /// The operation called.
        op: &'static str,
        /// `k` of the left operand (its last axis).
        left_k: usize,
        /// `k` of the right operand (its second-to-last axis).
        right_k: usize,
    },
    /// `attention`: two operands disagree on an extent they share, the
    /// query's and the key's row width `d` (their last axes), or the key's
    /// and the value's number of rows `T_k` (their second-to-last axes).
    #[error("{op}: the {left} has {left_extent} {quantity}, the {right} {right_extent}")]
    AttentionMismatch {
        /// The operation called.
        op: &'static str,
        /// What differs: `"values per row"` or `"rows"`.
        quantity: &'static str,
        /// The first operand: `"query"` or `"key"`.
        left: &'static str,
        /// Its extent.
        left_extent: usize,
        /// The second operand: `"key"` or `"value"`.
        right: &'static str,
        /// Its extent.
        right_extent: usize,
    },
    /// `linear` (`x · Wᵀ`): `x`'s last extent differs from `W`'s last extent.
    #[error("{op}: x has {x_k} values per row, the weight's rows have {w_k}")]
    LinearInnerMismatch {
        /// The operation called.
        op: &'static str,
        /// `k` of `x` (its last axis).
        x_k: usize,
        /// `k` of `W` (its last axis: `W` is `[out, in]`).
        w_k: usize,
    },
    /// `layer_norm` / `rms_norm`: a parameter (`gamma` or `beta`) is not of
    /// shape `[C]` for the normalized (last) axis of extent `C`.
    #[error(
        "{op}: {param} has shape {actual:?}, but the normalized axis {axis} has extent {extent}, so it must have shape [{extent}]"
    )]
    NormParamMismatch {
        /// The operation called.
        op: &'static str,
        /// The parameter (`"gamma"` or `"beta"`).
        param: &'static str,
        /// The normalized axis (the input's last).
        axis: usize,
        /// Its extent `C`.
        extent: usize,
        /// The parameter's shape.
        actual: Vec<usize>,
    },
    /// `concat` or `stack` got an empty list of inputs (there is no shape to take).
    #[error("{op}: the input list is empty, so there is no shape to take the output's from")]
    EmptyInputList {
        /// The operation called.
        op: &'static str,
    },
    /// `concat` / `stack`: an input's extent differs from the first input's on
    /// an axis where they must agree (every axis but the joined one for
    /// `concat`, every axis for `stack`).
    #[error(
        "{op}: input {input} has extent {actual} on axis {axis}, input 0 has {expected}; concat needs equal extents on every axis but the joined one, stack on every axis"
    )]
    ConcatShapeMismatch {
        /// The operation called.
        op: &'static str,
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
    #[error("{op}: input {input} has rank {actual}, input 0 has rank {expected}")]
    ConcatRankMismatch {
        /// The operation called.
        op: &'static str,
        /// The position of the offending input in the list (1 or more).
        input: usize,
        /// The first input's rank.
        expected: usize,
        /// The offending input's rank.
        actual: usize,
    },
    /// An argument outside what the operation supports (autograd: operands
    /// from different tapes, a function without a derivative).
    #[error("{op}: {message}")]
    InvalidArgument {
        /// The operation called.
        op: &'static str,
        /// What is wrong.
        message: String,
    },
    /// `Var::backward`: the output is not a scalar (one element); use
    /// `backward_with` and a cotangent of the output's shape.
    #[error("{op}: the output has shape {shape:?}, backward needs a single element")]
    BackwardNotScalar {
        /// The operation called.
        op: &'static str,
        /// The output's shape.
        shape: Vec<usize>,
    },
    /// `Grads::get`: the gradients came from `Var::backward_leaves`, which
    /// frees every intermediate node's gradient once it has been used, and
    /// `var` is an intermediate node (neither a leaf nor a constant); use
    /// `Var::backward` to keep them all.
    #[error(
        "{op}: node {node} is an intermediate node, and backward_leaves kept only the leaves' gradients"
    )]
    GradientNotRetained {
        /// The operation called.
        op: &'static str,
        /// The node's position on its tape.
        node: usize,
    },
    /// `index_select`: an entry of `indices` is not below the extent of the
    /// selected axis (e.g. a token id outside the vocabulary of an embedding).
    #[error(
        "{op}: indices[{position}] = {index} is out of bounds for axis {axis} of extent {extent}"
    )]
    IndexSelectOutOfBounds {
        /// The operation called.
        op: &'static str,
        /// The selected axis.
        axis: usize,
        /// Where the offending index sits in the `indices` list.
        position: usize,
        /// The offending index.
        index: usize,
        /// The extent of the selected axis.
        extent: usize,
    },

    // ---- weight files ----
    /// A weights file is not valid in its format (truncated, corrupt header,
    /// bad offsets, hostile counts).
    #[error("{format}: the file is not valid: {message}")]
    InvalidFile {
        /// The format: `"safetensors"`, `"gguf"`.
        format: &'static str,
        /// What is wrong.
        message: String,
    },
    /// No tensor of that name in the file.
    #[error("no tensor named `{name}` in the file")]
    MissingTensor {
        /// The requested name.
        name: String,
    },
    /// A tensor's element type is not the requested one.
    #[error("{op}: the tensor holds {actual}, but {expected} was requested")]
    WrongDtype {
        /// The operation called.
        op: &'static str,
        /// The requested element type (e.g. `F32`).
        expected: String,
        /// The stored element type.
        actual: String,
    },
    /// A tensor's byte length does not match its shape and element type.
    #[error("{op}: the tensor has {actual_bytes} bytes, its shape needs {expected_bytes}")]
    ByteLengthMismatch {
        /// The operation called.
        op: &'static str,
        /// Bytes its shape and element type need.
        expected_bytes: usize,
        /// Bytes the file gives it.
        actual_bytes: usize,
    },
    /// A tensor's values cannot be borrowed as the requested element type:
    /// they do not start at a multiple of its alignment in the buffer (a
    /// buffer not read through `AlignedBytes`, or a file whose writer did not
    /// pad), or the host is big-endian while files are little-endian.
    /// `Weights::get_as` copies such a tensor instead.
    #[error("{op}: the {dtype} values cannot be borrowed: {reason}; Weights::get_as copies them")]
    NotBorrowable {
        /// The operation called.
        op: &'static str,
        /// The requested element type (e.g. `F32`).
        dtype: String,
        /// Why: the misaligned address, or the host's byte order.
        reason: String,
    },
    /// Two tensors of one name given to a checkpoint writer.
    #[error("{op}: a tensor named `{name}` was already added")]
    DuplicateTensor {
        /// The operation called.
        op: &'static str,
        /// The repeated name.
        name: String,
    },
    /// Reading or writing a file failed.
    #[error("{op}: {path}: {message}")]
    Io {
        /// The operation called.
        op: &'static str,
        /// The file.
        path: String,
        /// The I/O error's kind.
        kind: std::io::ErrorKind,
        /// The I/O error's message.
        message: String,
    },
    /// A GGUF file does not start with the magic bytes `GGUF`.
    #[error("gguf: the file starts with {found:?}, not the magic bytes `GGUF`")]
    GgufBadMagic {
        /// The first four bytes.
        found: [u8; 4],
    },
    /// A GGUF version this reader does not read (it reads 2 and 3, whose
    /// layouts are the same; version 1 had 32-bit counts).
    #[error(
        "gguf: version {version} is not supported (2 and 3 are; a byte-swapped number means a big-endian file)"
    )]
    GgufUnsupportedVersion {
        /// The version field.
        version: u32,
    },
    /// A GGUF file ends inside a field.
    #[error(
        "gguf: the file ends inside {what}: {needed} bytes needed at offset {offset}, {available} left"
    )]
    GgufTruncated {
        /// The field being read (e.g. "the key of metadata entry 3").
        what: String,
        /// Its byte offset in the file.
        offset: usize,
        /// The bytes it needs.
        needed: usize,
        /// The bytes left in the file from `offset`.
        available: usize,
    },
    /// A GGUF count or length that the rest of the file cannot hold (each
    /// item needs at least `min_item_bytes`): refused before allocating.
    #[error(
        "gguf: {what} claims {count} items of at least {min_item_bytes} bytes, but only {available} bytes are left"
    )]
    GgufCountTooLarge {
        /// The count's field.
        what: String,
        /// The count the file claims.
        count: u64,
        /// The fewest bytes one item takes.
        min_item_bytes: usize,
        /// The bytes left in the file.
        available: usize,
    },
    /// A GGUF metadata value type this reader does not know, or an array of
    /// arrays (which ggml's reader refuses too).
    #[error("gguf: {what} has value type {value_type}, which is not supported")]
    GgufUnknownValueType {
        /// The value's field.
        what: String,
        /// The type id (0..=12 are GGUF's; 9, an array, cannot nest).
        value_type: u32,
    },
    /// A GGUF string (key, tensor name or value) is not UTF-8.
    #[error("gguf: {what} is not valid UTF-8")]
    GgufInvalidUtf8 {
        /// The string's field.
        what: String,
    },
    /// A GGUF metadata key or tensor name that appears twice.
    #[error("gguf: the {what} `{name}` appears twice")]
    GgufDuplicateName {
        /// `"metadata key"` or `"tensor name"`.
        what: &'static str,
        /// The repeated name.
        name: String,
    },
    /// `general.alignment` is not a power of two that fits in `u32`.
    #[error("gguf: general.alignment is {alignment}, it must be a power of two")]
    GgufBadAlignment {
        /// The value in the file.
        alignment: u64,
    },
    /// A metadata key that is not in the file.
    #[error("{op}: no metadata key `{key}` in the file")]
    MissingMetadata {
        /// The operation called.
        op: &'static str,
        /// The requested key.
        key: String,
    },
    /// A metadata value of another type than the one requested.
    #[error("{op}: metadata `{key}` holds {actual}, but {expected} was requested")]
    MetadataTypeMismatch {
        /// The operation called.
        op: &'static str,
        /// The key.
        key: String,
        /// The requested type (e.g. `u32`, `array of string`).
        expected: &'static str,
        /// The stored type.
        actual: &'static str,
    },
    /// A GGUF tensor's element type id that this reader does not know (so
    /// its byte length is unknown).
    #[error("gguf: unknown tensor type id {type_id}")]
    GgufUnknownTensorType {
        /// The type id in the tensor info.
        type_id: u32,
    },
    /// A GGUF tensor type the crate knows but cannot compute with yet.
    #[error(
        "{op}: tensors of type {type_name} are not supported yet (F32, F16, BF16, Q8_0, Q4_0 and Q4_1 are)"
    )]
    UnsupportedTensorType {
        /// The operation called.
        op: &'static str,
        /// The ggml type name (e.g. `Q4_K`).
        type_name: &'static str,
    },
    /// A GGUF tensor with more axes than ggml allows (4).
    #[error("gguf: the tensor has {n_dims} dimensions, at most {maximum} are allowed")]
    GgufTooManyDims {
        /// The tensor info's dimension count.
        n_dims: u32,
        /// The limit (ggml's `GGML_MAX_DIMS`).
        maximum: u32,
    },
    /// A row of a block-quantized tensor that is not a whole number of blocks.
    #[error("{op}: a row of {row_len} values is not a whole number of {block_len}-value blocks")]
    PartialBlock {
        /// The operation called.
        op: &'static str,
        /// The row length (the last axis, GGUF's first dimension).
        row_len: usize,
        /// The values per block.
        block_len: usize,
    },
    /// A GGUF tensor's data offset that is not a multiple of the file's alignment.
    #[error("gguf: the data offset {offset} is not a multiple of the alignment {alignment}")]
    GgufMisalignedTensor {
        /// The offset, from the start of the data section.
        offset: u64,
        /// The file's alignment.
        alignment: usize,
    },
    /// A GGUF tensor's bytes that run past the end of the file.
    #[error(
        "gguf: the tensor's {bytes} bytes at data offset {offset} run past the data section's {data_len} bytes"
    )]
    GgufTensorOutOfBounds {
        /// The offset, from the start of the data section.
        offset: u64,
        /// Its byte length (`u64::MAX` when it overflows).
        bytes: u64,
        /// The data section's length.
        data_len: usize,
    },
    /// An error about one named tensor of a file: the name, then what went
    /// wrong with it (a wrong dtype or rank, a byte length, an allocation).
    #[error("tensor `{name}`: {source}")]
    InTensor {
        /// The tensor's name in the file.
        name: String,
        /// What went wrong with it.
        source: Box<Error>,
    },

    // ---- tokenizer (feature `gguf`) ----
    /// `Tokenizer::new`: a tokenizer model or pre-tokenizer this crate does not implement.
    #[error("Tokenizer::new: {key} `{name}` is not supported (supported: {supported})")]
    UnsupportedTokenizer {
        /// The GGUF key: `tokenizer.ggml.model` or `tokenizer.ggml.pre`.
        key: &'static str,
        /// Its value.
        name: String,
        /// The values that are supported.
        supported: &'static str,
    },
    /// `Tokenizer::new`: more tokens than `u32` ids can name.
    #[error("Tokenizer::new: {tokens} tokens, ids are u32 so at most 4294967295 fit")]
    VocabularyTooLarge {
        /// The number of tokens given.
        tokens: usize,
    },
    /// `Tokenizer::new`: the token types are neither empty nor one per token.
    #[error("Tokenizer::new: {types} token types were given for {tokens} tokens")]
    TokenTypesLengthMismatch {
        /// The number of tokens.
        tokens: usize,
        /// The number of token types.
        types: usize,
    },
    /// `Tokenizer::new`: a token type outside GGUF's `0..=6`.
    #[error("Tokenizer::new: token {id} has the type {value}, GGUF's token types are 0..=6")]
    UnknownTokenType {
        /// The token id.
        id: u32,
        /// Its type value.
        value: i32,
    },
    /// A token id past the vocabulary (`decode`, or a special id given to `Tokenizer::new`).
    #[error("{op}: token id {id} is not below the vocabulary size {vocab_size}")]
    TokenIdOutOfRange {
        /// The operation called.
        op: &'static str,
        /// The id.
        id: u32,
        /// The number of tokens.
        vocab_size: usize,
    },
    /// `Tokenizer::new`: a merge that is not `"left right"` with both sides non-empty.
    #[error("Tokenizer::new: merge {index} `{merge}` is not two tokens separated by a space")]
    MalformedMerge {
        /// The merge's position (its rank).
        index: usize,
        /// The merge.
        merge: String,
    },
    /// `Tokenizer::new`: a merge's left, right or joined token is not in the vocabulary.
    #[error(
        "Tokenizer::new: merge {index} `{merge}` names the token `{token}`, which is not in the vocabulary"
    )]
    UnknownMergeToken {
        /// The merge's position (its rank).
        index: usize,
        /// The merge.
        merge: String,
        /// The missing token.
        token: String,
    },
    /// `encode`: a byte of the text that no token spells alone.
    #[error(
        "encode: the byte {byte:#04x} at offset {offset} of the text has no token in the vocabulary"
    )]
    UnencodableByte {
        /// The byte.
        byte: u8,
        /// Its offset in the text, in bytes.
        offset: usize,
    },
    /// `render_chat` on a tokenizer whose spec had no chat template.
    #[error("render_chat: the tokenizer has no chat template (no tokenizer.chat_template key)")]
    MissingChatTemplate,
    /// A chat template that does not compile or fails to render.
    #[error("{op}: chat template: {message}")]
    ChatTemplate {
        /// The operation called.
        op: &'static str,
        /// MiniJinja's message.
        message: String,
    },

    // ---- training (`train`: optimizer, clipping, schedule) ----
    /// Two named-tensor lists that must pair one to one (parameters and
    /// their gradients, parameters and an optimizer's saved state) have
    /// different lengths.
    #[error("{op}: {expected} parameters, but {actual} {what} were given")]
    ParameterCountMismatch {
        /// The operation called.
        op: &'static str,
        /// What the second list holds (`"gradients"`, `"state entries"`).
        what: &'static str,
        /// The number of parameters.
        expected: usize,
        /// The length of the second list.
        actual: usize,
    },
    /// Entry `index` of a paired list names another tensor than the
    /// parameter at that position (the lists pair by position and name).
    #[error("{op}: parameter {index} is `{expected}`, but the {what} there is `{actual}`")]
    ParameterNameMismatch {
        /// The operation called.
        op: &'static str,
        /// What the second list holds (`"gradient"`, `"state entry"`).
        what: &'static str,
        /// The position in both lists.
        index: usize,
        /// The parameter's name.
        expected: String,
        /// The name found in the second list.
        actual: String,
    },
    /// A gradient (or a saved moment) has another shape than its parameter.
    #[error(
        "{op}: parameter `{name}` has shape {expected:?} but is paired with a tensor of shape {actual:?}"
    )]
    ParameterShapeMismatch {
        /// The operation called.
        op: &'static str,
        /// The parameter's name.
        name: String,
        /// The parameter's shape.
        expected: Vec<usize>,
        /// The paired tensor's shape (a gradient's, a moment's).
        actual: Vec<usize>,
    },
    /// A hyperparameter outside its valid range (PyTorch's optimizers raise
    /// `ValueError` for the same values).
    #[error("{op}: {name} must be {rule}, got {value}")]
    InvalidHyperparameter {
        /// The operation called.
        op: &'static str,
        /// The hyperparameter (`"lr"`, `"beta1"`, `"eps"`, ...).
        name: &'static str,
        /// The rule it breaks, as a phrase (`"in [0, 1)"`).
        rule: &'static str,
        /// The value given, as printed by `{}`.
        value: String,
    },
}

impl Error {
    /// `self` about the tensor `name` of a file (see [`Error::InTensor`]).
    pub(crate) fn in_tensor(self, name: &str) -> Self {
        Error::InTensor {
            name: name.to_owned(),
            source: Box::new(self),
        }
    }
}

/// The owner layer's name for [`Error`](enum@Error) in the earlier three-enum design.
pub type TensorError = Error;

/// The view layer's name for [`Error`](enum@Error) in the earlier three-enum design.
pub type TensorViewError = Error;

/// The operation layer's name for [`Error`](enum@Error) in the earlier three-enum design.
pub type TensorOpError = Error;
