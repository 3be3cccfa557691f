//! `concat`, `stack`, `index_select`: new tensors assembled from blocks of
//! existing ones (the KV cache's growth, a batch of rows, an embedding
//! lookup).
//!
//! Every check runs before the first value is copied, in the order each
//! function's `# Errors` section lists; the output is reserved with
//! `try_reserve` and written front to back in row-major order. Inputs may
//! have any layouts (transposed, sliced, broadcast with stride 0): each
//! block is read by the shared strided copy, nothing is materialized first.

mod kernel;

use super::{check_output_shape, output_buffer, owner};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::checked_len;
use crate::tensor::shape::rank::InsertAxis;
use crate::tensor::shape::transforms::check_larger;
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::sink::{Sink, SliceSink};

/// An input of `concat` / `stack`: a view of any dimension, rank-erased.
pub(crate) trait Source<T> {
    /// The checked layout and the storage it reads.
    fn source(&self) -> Strided<'_, '_, T>;
}

impl<T, D: Dimension> Source<T> for ArrayBase<&[T], D> {
    fn source(&self) -> Strided<'_, '_, T> {
        self.strided()
    }
}

/// How `concat` and `stack` join their inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Join {
    /// Along an existing axis; the other extents must agree.
    Concat,
    /// Along a new axis inserted at `axis` (0 ..= rank); all extents must agree.
    Stack,
}

impl Join {
    fn name(self, into: bool) -> &'static str {
        match (self, into) {
            (Join::Concat, false) => "concat",
            (Join::Concat, true) => "concat_into",
            (Join::Stack, false) => "stack",
            (Join::Stack, true) => "stack_into",
        }
    }
}

/// The checks of `concat` / `stack`, in order: an empty list, the axis
/// against the output's rank, then input by input (from the second) its
/// rank and its extents axis by axis against the first input's, then the
/// output's overflow. Returns the output shape and its element count.
fn join_shape<T, V: Source<T>, D: Dims>(
    inputs: &[V],
    axis: usize,
    join: Join,
    op: &'static str,
) -> Result<(D, usize), Error> {
    let first = inputs.first().ok_or(Error::EmptyInputList { op })?.source();
    let rank = first.shape.len();
    if join == Join::Stack {
        check_larger::<D>(rank, op)?;
    }
    let out_rank = if join == Join::Stack { rank + 1 } else { rank };
    if axis >= out_rank {
        return Err(Error::AxisOutOfBounds {
            op,
            axis,
            rank: out_rank,
        });
    }
    for (input, view) in inputs.iter().enumerate().skip(1) {
        let shape = view.source().shape;
        if shape.len() != rank {
            return Err(Error::ConcatRankMismatch {
                op,
                input,
                expected: rank,
                actual: shape.len(),
            });
        }
        for (a, (&actual, &expected)) in shape.iter().zip(first.shape).enumerate() {
            if actual != expected && !(join == Join::Concat && a == axis) {
                return Err(Error::ConcatShapeMismatch {
                    op,
                    input,
                    axis: a,
                    expected,
                    actual,
                });
            }
        }
    }
    let mut shape = D::zeros(out_rank);
    let out = shape.as_mut_slice();
    match join {
        Join::Concat => {
            out.copy_from_slice(first.shape);
            out[axis] = inputs.iter().try_fold(0_usize, |total, input| {
                total
                    .checked_add(input.source().shape[axis])
                    .ok_or(Error::ShapeOverflow { op })
            })?;
        }
        Join::Stack => {
            out[..axis].copy_from_slice(&first.shape[..axis]);
            out[axis] = inputs.len();
            out[axis + 1..].copy_from_slice(&first.shape[axis..]);
        }
    }
    let len = checked_len(shape.as_slice(), op)?;
    Ok((shape, len))
}

/// Checks, then joins into `sink` (which takes exactly `len` values).
fn join_run<T: Copy, V: Source<T>>(inputs: &[V], axis: usize, len: usize, sink: &mut impl Sink<T>) {
    if len > 0 {
        // Concat and stack both walk the first `axis` input axes as the outer ones.
        kernel::join(inputs, &inputs[0].source().shape[..axis], sink);
    }
}

/// Fresh-output `concat` / `stack` of views of dimension `D` into an owner of dimension `E`.
fn join_fresh<T: Copy, D: Dimension, E: Dimension>(
    inputs: &[ArrayBase<&[T], D>],
    axis: usize,
    join: Join,
) -> Result<ArrayBase<Vec<T>, E>, Error> {
    let op = join.name(false);
    let (shape, len) = join_shape::<T, _, E::Axes>(inputs, axis, join, op)?;
    let mut values = output_buffer(len, op)?;
    join_run(inputs, axis, len, &mut values);
    owner(shape, values, op)
}

/// `concat` / `stack` into a caller's owner.
fn join_into<T: Copy, D: Dimension, E: Dimension>(
    inputs: &[ArrayBase<&[T], D>],
    axis: usize,
    join: Join,
    out: &mut ArrayBase<Vec<T>, E>,
) -> Result<(), Error> {
    let op = join.name(true);
    let (shape, len) = join_shape::<T, _, DynDims>(inputs, axis, join, op)?;
    check_output_shape(shape.as_slice(), out.layout.shape(), op)?;
    join_run(inputs, axis, len, &mut SliceSink::new(&mut out.data));
    Ok(())
}

/// The checks of `index_select`, in order: the axis, every index (first
/// failing position), the output's overflow. Returns the output shape and
/// its element count.
fn select_shape<D: Dims>(
    shape: &[usize],
    axis: usize,
    indices: &[usize],
    op: &'static str,
) -> Result<(D, usize), Error> {
    let rank = shape.len();
    if axis >= rank {
        return Err(Error::AxisOutOfBounds { op, axis, rank });
    }
    let extent = shape[axis];
    if let Some((position, &index)) = indices.iter().enumerate().find(|(_, i)| **i >= extent) {
        return Err(Error::IndexSelectOutOfBounds {
            op,
            axis,
            position,
            index,
            extent,
        });
    }
    let mut out = D::from_slice(shape);
    out.as_mut_slice()[axis] = indices.len();
    let len = checked_len(out.as_slice(), op)?;
    Ok((out, len))
}

/// Joins views along an existing axis: the inputs one after the other.
///
/// Shapes: `[.., n_i, ..]` for every input (equal extents on every other
/// axis) -> `[.., n_0 + n_1 + .., ..]`, rank `R` kept; inputs of extent 0
/// along `axis` contribute nothing. Any layouts; the output is a new
/// row-major owner. ≈ PyTorch `torch.cat(tensors, dim)`, NumPy
/// `np.concatenate(arrays, axis)`, candle `Tensor::cat`. GPT-2's KV cache:
/// the past keys `[B, H, T, D]` and the new ones `[B, H, 1, D]` concatenated
/// on axis 2.
///
/// # Errors
/// Checked before anything is copied, in this order:
/// 1. [`Error::EmptyInputList`] for no inputs;
/// 2. [`Error::AxisOutOfBounds`] if `axis >= R` (always for rank 0);
/// 3. [`Error::ConcatShapeMismatch`] naming the first input (from
///    the second, in list order) and its first axis whose extent differs from
///    the first input's, the joined axis excepted;
/// 4. [`Error::ShapeOverflow`] if the joined
///    extent or the output's element count overflows;
/// 5. [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let past = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
/// let new = Tensor::from_vec([1, 2], vec![5.0, 6.0])?;
/// let keys = concat(&[past.view(), new.view()], 0)?; // [2, 2] + [1, 2] -> [3, 2]
/// assert_eq!((keys.shape(), keys.as_slice()), (&[3, 2], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0][..]));
/// // Along axis 1, with a transposed view: [2, 2] + [2, 1] -> [2, 3].
/// let wide = concat(&[past.view(), new.view().transpose(0, 1)?], 1)?;
/// assert_eq!(wide.as_slice(), &[1.0, 2.0, 5.0, 3.0, 4.0, 6.0]);
/// assert_eq!(
///     concat(&[past.view(), new.view()], 1),
///     Err(llm_from_scratch::Error::ConcatShapeMismatch { op: "concat", input: 1, axis: 0, expected: 2, actual: 1 })
/// );
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn concat<T: Copy, D: Dimension>(
    inputs: &[ArrayBase<&[T], D>],
    axis: usize,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    join_fresh(inputs, axis, Join::Concat)
}

/// [`concat()`] into `out` (the joined shape), reusing its storage: a KV
/// cache can be rebuilt in place each step without allocating.
///
/// # Errors
/// As for [`concat()`] but no allocation, then
/// [`Error::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let a = Tensor::from_vec([1, 2], vec![1.0, 2.0])?;
/// let mut out = Tensor::zeros([2, 2])?;
/// concat_into(&[a.view(), a.view()], 0, &mut out)?; // [1, 2] + [1, 2] -> [2, 2]
/// assert_eq!(out.as_slice(), &[1.0, 2.0, 1.0, 2.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn concat_into<T: Copy, D: Dimension>(
    inputs: &[ArrayBase<&[T], D>],
    axis: usize,
    out: &mut ArrayBase<Vec<T>, D>,
) -> Result<(), Error> {
    join_into(inputs, axis, Join::Concat, out)
}

/// Joins views of one shape along a new axis inserted at `axis` (`0..=R`).
///
/// Shapes: `n` inputs of shape `[a_0, .., a_{R-1}]` -> `[a_0, .., n, ..,
/// a_{R-1}]` with `n` at position `axis`; the output rank `R + 1` is
/// inferred (`Rank<R>: InsertAxis`, so up to rank 7 inputs; above, use
/// `tensor::dynamic::stack`). Any layouts. ≈ PyTorch `torch.stack(tensors,
/// dim)`, NumPy `np.stack(arrays, axis)`, candle `Tensor::stack`.
///
/// # Errors
/// Checked before anything is copied, in this order:
/// 1. [`Error::EmptyInputList`] for no inputs;
/// 2. [`Error::AxisOutOfBounds`] if `axis > R` (`rank` in the
///    error is the output's, `R + 1`);
/// 3. [`Error::ConcatShapeMismatch`] naming the first input (from
///    the second) and its first input axis whose extent differs from the
///    first input's;
/// 4. [`Error::ShapeOverflow`] for an output
///    whose element count overflows;
/// 5. [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let a = Tensor::from_vec([2], vec![1.0, 2.0])?;
/// let b = Tensor::from_vec([2], vec![3.0, 4.0])?;
/// let rows = stack(&[a.view(), b.view()], 0)?; // 2 × [2] -> [2, 2]
/// assert_eq!(rows.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
/// let columns = stack(&[a.view(), b.view()], 1)?; // 2 × [2] -> [2, 2], interleaved
/// assert_eq!(columns.as_slice(), &[1.0, 3.0, 2.0, 4.0]);
/// assert_eq!(
///     stack(&[a.view(), b.view()], 2),
///     Err(llm_from_scratch::Error::AxisOutOfBounds { op: "stack", axis: 2, rank: 2 })
/// );
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn stack<T: Copy, D: Dimension + InsertAxis<Larger = E>, E: Dimension>(
    inputs: &[ArrayBase<&[T], D>],
    axis: usize,
) -> Result<ArrayBase<Vec<T>, E>, Error> {
    join_fresh(inputs, axis, Join::Stack)
}

/// [`stack`] into `out` (the stacked shape), reusing its storage.
///
/// # Errors
/// As for [`stack`] but no allocation, then
/// [`Error::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let a = Tensor::from_vec([2], vec![1.0, 2.0])?;
/// let mut out = Tensor::zeros([2, 3])?;
/// stack_into(&[a.view(), a.view(), a.view()], 1, &mut out)?; // 3 × [2] -> [2, 3]
/// assert_eq!(out.as_slice(), &[1.0, 1.0, 1.0, 2.0, 2.0, 2.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn stack_into<T: Copy, D: Dimension + InsertAxis<Larger = E>, E: Dimension>(
    inputs: &[ArrayBase<&[T], D>],
    axis: usize,
    out: &mut ArrayBase<Vec<T>, E>,
) -> Result<(), Error> {
    join_into(inputs, axis, Join::Stack, out)
}

/// Picks positions along one axis, in the order (and with the repeats) of
/// `indices`: the embedding lookup.
///
/// Shapes: `[.., n, ..]` -> `[.., indices.len(), ..]`, rank `R` kept;
/// output position `k` on `axis` holds input position `indices[k]`. An
/// empty `indices` gives an empty output. Any layout. ≈ PyTorch
/// `torch.index_select(input, dim, index)`, NumPy `np.take(a, indices,
/// axis)`, candle `Tensor::index_select`. GPT-2's token embedding: rows
/// `ids` of `wte` `[V, C]` -> `[T, C]`.
///
/// # Errors
/// Checked before anything is copied, in this order:
/// 1. [`Error::AxisOutOfBounds`] if `axis >= R` (always for rank 0);
/// 2. [`Error::IndexSelectOutOfBounds`] for the first index (in
///    list order) that is not below the axis's extent, with its position in
///    `indices` (NumPy's `take` and PyTorch raise too; NumPy's `mode='clip'`
///    / `'wrap'` are not offered);
/// 3. [`Error::ShapeOverflow`] for an output
///    whose element count overflows;
/// 4. [`Error::AllocationFailed`].
///
/// ```
/// use llm_from_scratch::prelude::*;
/// // A vocabulary of 4 tokens, width 2.
/// let wte = Tensor::from_fn([4, 2], |[v, c]| (10 * v + c) as f64)?;
/// let x = index_select(&wte, 0, &[3, 0, 3])?; // [4, 2] -> [3, 2]
/// assert_eq!(x.as_slice(), &[30.0, 31.0, 0.0, 1.0, 30.0, 31.0]);
/// assert_eq!(
///     index_select(&wte, 0, &[1, 7]),
///     Err(llm_from_scratch::Error::IndexSelectOutOfBounds { op: "index_select", axis: 0, position: 1, index: 7, extent: 4 })
/// );
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn index_select<D: Dimension, T: Copy>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    indices: &[usize],
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    let op = "index_select";
    let input = input.as_array();
    let input = input.strided();
    let (shape, len) = select_shape::<D::Axes>(input.shape, axis, indices, op)?;
    let mut values = output_buffer(len, op)?;
    if len > 0 {
        kernel::select(input, axis, indices, &mut values);
    }
    owner(shape, values, op)
}

/// [`index_select`] into `out` (the selected shape), reusing its storage.
///
/// # Errors
/// As for [`index_select`] but no allocation, then
/// [`Error::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let wte = Tensor::from_fn([4, 2], |[v, c]| (10 * v + c) as f32)?;
/// let mut x = Tensor::zeros([2, 2])?;
/// index_select_into(&wte, 0, &[2, 1], &mut x)?; // tokens 2, 1 -> [2, 2]
/// assert_eq!(x.as_slice(), &[20.0, 21.0, 10.0, 11.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn index_select_into<D: Dimension, T: Copy>(
    input: &(impl AsArray<D, T> + ?Sized),
    axis: usize,
    indices: &[usize],
    out: &mut ArrayBase<Vec<T>, D>,
) -> Result<(), Error> {
    let op = "index_select_into";
    let input = input.as_array();
    let input = input.strided();
    let (shape, len) = select_shape::<DynDims>(input.shape, axis, indices, op)?;
    check_output_shape(shape.as_slice(), out.layout.shape(), op)?;
    if len > 0 {
        kernel::select(input, axis, indices, &mut SliceSink::new(&mut out.data));
    }
    Ok(())
}

impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Copy,
{
    /// [`index_select`] as a method: the positions `indices` along `axis`.
    ///
    /// # Errors
    /// As for [`index_select`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let wte = Tensor::from_fn([3, 2], |[v, c]| (10 * v + c) as f64)?;
    /// assert_eq!(wte.index_select(0, &[2, 2])?.as_slice(), &[20.0, 21.0, 20.0, 21.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn index_select(
        &self,
        axis: usize,
        indices: &[usize],
    ) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        index_select(self, axis, indices)
    }
}
