//! `matmul`: batched matrix products over strided views.

mod kernel;

use super::{check_output_shape, output_buffer};
use crate::tensor::array::owned::Tensor;
use crate::tensor::array::view::AsView;
use crate::tensor::error::TensorOpError;
use crate::tensor::float::Float;
use crate::tensor::shape::broadcast::broadcast_into;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::layout::checked_len;
use crate::tensor::shape::rank::{MatrixRank, Rank};
use crate::tensor::traverse::Strided;

/// Rank-erased shape check shared by the ranked and dynamic APIs, for
/// operand shapes of rank at least 2 each and an `out_shape` of the larger
/// rank. Writes `[batch.., m, n]` and returns its element count.
///
/// Order (NumPy's: its gufunc checks core dimensions before it broadcasts
/// the loop dimensions): the contracted extents, then the batch axes
/// (compatibility over all axes, then overflow), then the full output's overflow.
pub(crate) fn matmul_shape(
    left: &[usize],
    right: &[usize],
    out_shape: &mut [usize],
) -> Result<usize, TensorOpError> {
    let (left_rank, right_rank, rank) = (left.len(), right.len(), out_shape.len());
    debug_assert!(left_rank >= 2 && right_rank >= 2 && rank == left_rank.max(right_rank));
    let (left_k, right_k) = (left[left_rank - 1], right[right_rank - 2]);
    if left_k != right_k {
        return Err(TensorOpError::MatmulInnerMismatch { left_k, right_k });
    }
    broadcast_into(
        &left[..left_rank - 2],
        &right[..right_rank - 2],
        &mut out_shape[..rank - 2],
    )?;
    out_shape[rank - 2] = left[left_rank - 2];
    out_shape[rank - 1] = right[right_rank - 1];
    Ok(checked_len(out_shape)?)
}

/// Checks the shapes, reserves the output with `try_reserve` and multiplies.
pub(crate) fn matmul_fresh<F: Float, D: Dims>(
    left: Strided<'_, '_, F>,
    right: Strided<'_, '_, F>,
) -> Result<(D, Vec<F>), TensorOpError> {
    let mut shape = D::zeros(left.shape.len().max(right.shape.len()));
    let len = matmul_shape(left.shape, right.shape, shape.as_mut_slice())?;
    let mut values = output_buffer(len)?;
    values.resize(len, F::ZERO);
    kernel::matmul(left, right, shape.as_slice(), &mut values);
    Ok((shape, values))
}

/// Checks the shapes and multiplies into a caller's output of shape `out_shape`.
pub(crate) fn matmul_into_core<F: Float>(
    left: Strided<'_, '_, F>,
    right: Strided<'_, '_, F>,
    out_shape: &[usize],
    out: &mut [F],
) -> Result<(), TensorOpError> {
    let mut shape = DynDims::zeros(left.shape.len().max(right.shape.len()));
    matmul_shape(left.shape, right.shape, shape.as_mut_slice())?;
    check_output_shape(shape.as_slice(), out_shape)?;
    kernel::matmul(left, right, out_shape, out);
    Ok(())
}

/// The batched matrix product of two views: `[.., m, k] x [.., k, n] -> [batch.., m, n]`.
///
/// Shapes: the last two axes of each operand are a matrix; the contracted
/// extents `k` must be equal (no equal-or-one rule there). The leading
/// (batch) axes broadcast by NumPy's rule (right-aligned, missing axes are
/// 1, 1 yields to the other extent), so the output rank `O = max(L, M)` is
/// inferred. Ranks below 2 do not compile: `reshape` a unit axis in
/// (`v.reshape([1, k])?`). ≈ NumPy `matmul` / `@` and PyTorch `torch.matmul`
/// on operands of rank ≥ 2. GPT-2 attention: scores `Q · Kᵀ`,
/// `[B, H, T, D] x [B, H, D, T] -> [B, H, T, T]`, with `Kᵀ` the zero-copy
/// view `k.transpose(2, 3)?`, then `P · V`, `[B, H, T, T] x [B, H, T, D] -> [B, H, T, D]`.
///
/// Any strided view is read as it is (transposed, sliced, broadcast with
/// stride 0): nothing is materialized; packing into small internal scratch
/// panels is the kernel's business.
///
/// Numerics: each output element accumulates its `k` products in ascending
/// `k` order starting from +0.0, with a separate multiply and add (no fused
/// multiply-add): `((+0.0 + a₀·b₀) + a₁·b₁) + …`. The result is therefore
/// bit-identical to the naive triple loop for every layout of the operands
/// (a NaN stays a NaN; its payload bits are not specified by Rust). Unlike
/// BLAS (ndarray `dot`, NumPy), which reassociate and fuse freely, the last
/// bit never depends on the layout, the tiling or the CPU.
/// `k = 0` gives +0.0 everywhere; an empty batch or `m`/`n = 0` gives an
/// empty output.
///
/// # Errors
/// In this order (NumPy checks the core extents before the batch axes):
/// 1. [`TensorOpError::MatmulInnerMismatch`] if the left's last extent
///    differs from the right's second-to-last;
/// 2. [`TensorOpError::IncompatibleBroadcast`] at the leftmost failing batch
///    axis, numbered as an axis of the output (batch axes come first);
/// 3. `TensorOpError::Tensor(TensorError::ShapeOverflow)` if the output's
///    element count overflows;
/// 4. [`TensorOpError::OutputAllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let a = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let b = Tensor::from_vec([3, 2], vec![7.0, 8.0, 9.0, 10.0, 11.0, 12.0])?;
/// let c = matmul(&a, &b)?; // [2, 3] x [3, 2] -> [2, 2]
/// assert_eq!(c.as_slice(), &[58.0, 64.0, 139.0, 154.0]);
///
/// // Attention scores against the transposed key, zero-copy: [T, D] x [D, T].
/// let k = Tensor::from_vec([2, 3], vec![1.0, 0.0, 0.0, 0.0, 1.0, 1.0])?;
/// let scores = matmul(&a, &k.view().transpose(0, 1)?)?;
/// assert_eq!(scores.as_slice(), &[1.0, 5.0, 4.0, 11.0]);
///
/// // Batch axes broadcast: [2, 1, 2, 3] x [4, 3, 2] -> [2, 4, 2, 2].
/// let many = Tensor::from_fn([2, 1, 2, 3], |[b, _, i, j]| (b + i + j) as f64)?;
/// let heads = Tensor::from_fn([4, 3, 2], |[h, i, j]| (h * i + j) as f64)?;
/// assert_eq!(matmul(&many, &heads)?.shape(), &[2, 4, 2, 2]);
///
/// assert_eq!(
///     matmul(&a, &a),
///     Err(TensorOpError::MatmulInnerMismatch { left_k: 3, right_k: 2 })
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A vector is not a matrix: ranks 0 and 1 do not compile.
///
/// ```compile_fail,E0277
/// use llm_from_scratch::prelude::*;
/// let v = Tensor::from_vec([3], vec![1.0, 2.0, 3.0]).unwrap();
/// let m = Tensor::from_vec([3, 1], vec![1.0, 2.0, 3.0]).unwrap();
/// let _ = matmul(&v, &m); // error: `matmul` needs two operands of rank 2 to 8
/// ```
pub fn matmul<const L: usize, const M: usize, const O: usize, F: Float>(
    left: &(impl AsView<L, F> + ?Sized),
    right: &(impl AsView<M, F> + ?Sized),
) -> Result<Tensor<O, F>, TensorOpError>
where
    Rank<L>: MatrixRank<Rank<M>, Output = Rank<O>>,
{
    let (left, right) = (left.as_view(), right.as_view());
    let (shape, values) = matmul_fresh::<F, [usize; O]>(left.strided(), right.strided())?;
    Ok(Tensor::from_vec(shape, values)?)
}

/// [`matmul`] into a caller's tensor of shape `[batch.., m, n]`, reusing its
/// storage (every value is overwritten).
///
/// # Errors
/// As for [`matmul`] (but no allocation), then
/// [`TensorOpError::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let a = Tensor::from_vec([1, 2], vec![1.0_f32, 2.0])?;
/// let b = Tensor::from_vec([2, 2], vec![3.0_f32, 4.0, 5.0, 6.0])?;
/// let mut out = Tensor::full([1, 2], f32::NAN)?;
/// matmul_into(&a, &b, &mut out)?;
/// assert_eq!(out.as_slice(), &[13.0, 16.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn matmul_into<const L: usize, const M: usize, const O: usize, F: Float>(
    left: &(impl AsView<L, F> + ?Sized),
    right: &(impl AsView<M, F> + ?Sized),
    out: &mut Tensor<O, F>,
) -> Result<(), TensorOpError>
where
    Rank<L>: MatrixRank<Rank<M>, Output = Rank<O>>,
{
    let (left, right) = (left.as_view(), right.as_view());
    let shape = *out.shape();
    matmul_into_core(left.strided(), right.strided(), &shape, out.as_mut_slice())
}
