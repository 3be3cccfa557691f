//! `matmul`: batched matrix products over strided views.

mod affine;
mod kernel;
mod product;

pub use affine::matmul_affine;
pub use kernel::MatmulStrategy;
pub(crate) use kernel::{Epilogue, PackedRight, matmul as product_kernel, matmul_packed};

use super::check_output_shape;
use super::widen::{into_narrowed, widen};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::rank::MatrixRank;
use product::{fresh_product, matmul_shape};

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
/// Numerics: each output element is one chain of fused multiply-adds over
/// ascending `k` starting from +0.0, `c = fma(a_k, b_k, c)` for
/// `k = 0, 1, …` (in Rust, `c = a.mul_add(b, c)`): every step rounds once
/// (IEEE 754 `fusedMultiplyAdd`), so hardware FMA (AVX2, AVX-512) and the
/// scalar fallback give the same bits. The result is therefore
/// bit-identical to that plain triple loop for every layout of the
/// operands, every CPU and every thread count (a NaN stays a NaN; its
/// payload bits are not specified by Rust). Unlike BLAS (ndarray `dot`,
/// NumPy, PyTorch), which also fuse but split and recombine the sum in an
/// order that depends on the tiling, the CPU and the threads, the last bit
/// here never does. `f16` / `bf16` operands are widened to `f32` and
/// accumulated in `f32` the same way.
/// `k = 0` gives +0.0 everywhere; an empty batch or `m`/`n = 0` gives an
/// empty output.
///
/// # Errors
/// In this order (NumPy checks the core extents before the batch axes):
/// 1. [`Error::RankTooSmall`] for a dynamic operand of rank below 2 (the
///    typed ranks do not compile);
/// 2. [`Error::MatmulInnerMismatch`] if the left's last extent differs from
///    the right's second-to-last;
/// 3. [`Error::IncompatibleBroadcast`] at the leftmost failing batch axis,
///    numbered as an axis of the output (batch axes come first);
/// 4. [`Error::ShapeOverflow`] if the output's element count overflows;
/// 5. [`Error::AllocationFailed`] if the output or a kernel's scratch
///    buffer cannot be reserved.
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
///     Err(llm_from_scratch::Error::MatmulInnerMismatch { op: "matmul", left_k: 3, right_k: 2 })
/// );
/// # Ok::<(), llm_from_scratch::Error>(())
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
pub fn matmul<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
) -> Result<ArrayBase<Vec<T>, O>, Error>
where
    L: Dimension + MatrixRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    let op = "matmul";
    let (left, right) = (left.as_array(), right.as_array());
    let (shape, len) = matmul_shape::<O::Axes>(left.layout.shape(), right.layout.shape(), op)?;
    fresh_product(left, right, shape, len, None, op)
}

/// [`matmul`] into a caller's tensor of shape `[batch.., m, n]`, reusing its
/// storage (every value is overwritten).
///
/// # Errors
/// As for [`matmul`] (no output allocation; a kernel's scratch buffer may
/// still fail with [`Error::AllocationFailed`]), then
/// [`Error::OutputShapeMismatch`] if `out` has another shape.
///
/// ```
/// use llm_from_scratch::prelude::*;
/// let a = Tensor::from_vec([1, 2], vec![1.0_f32, 2.0])?;
/// let b = Tensor::from_vec([2, 2], vec![3.0_f32, 4.0, 5.0, 6.0])?;
/// let mut out = Tensor::full([1, 2], f32::NAN)?;
/// matmul_into(&a, &b, &mut out)?;
/// assert_eq!(out.as_slice(), &[13.0, 16.0]);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn matmul_into<L, M, O, T: Element>(
    left: &(impl AsArray<L, T> + ?Sized),
    right: &(impl AsArray<M, T> + ?Sized),
    out: &mut ArrayBase<Vec<T>, O>,
) -> Result<(), Error>
where
    L: Dimension + MatrixRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
{
    let op = "matmul_into";
    let (left, right) = (left.as_array(), right.as_array());
    let (shape, _) = matmul_shape::<DynDims>(left.layout.shape(), right.layout.shape(), op)?;
    check_output_shape(shape.as_slice(), out.layout.shape(), op)?;
    let (left, right) = (widen(left, op)?, widen(right, op)?);
    let (left, right) = (left.view(), right.view());
    into_narrowed(&mut out.data, op, |out| {
        kernel::matmul(
            left.strided(),
            right.strided(),
            shape.as_slice(),
            out,
            None,
            op,
        )
    })
}

impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// [`matmul`] as a method: `[.., m, k] x [.., k, n] -> [batch.., m, n]`,
    /// batch axes broadcast.
    ///
    /// # Errors
    /// As for [`matmul`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([1, 2], vec![1.0, 2.0])?;
    /// let w = Tensor::from_vec([2, 2], vec![3.0, 4.0, 5.0, 6.0])?;
    /// assert_eq!(x.matmul(&w)?.as_slice(), &[13.0, 16.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn matmul<M: Dimension, O: Dimension>(
        &self,
        other: &(impl AsArray<M, S::Elem> + ?Sized),
    ) -> Result<ArrayBase<Vec<S::Elem>, O>, Error>
    where
        D: MatrixRank<M, Output = O>,
    {
        matmul(self, other)
    }
}
