//! Operations: broadcasting, elementwise maps, the named elementwise
//! functions and arithmetic, single-axis reductions, matrix products,
//! gathers and the fused softmax. Each one is one generic
//! function (for generic code), an `_into` form that writes into a caller's
//! owner so hot loops reuse buffers, and a method of every readable array
//! with the same name and rules (`x.sum_axis(1, KeepDim)?`, `x.matmul(&w)?`).
//!
//! Operands are `&impl AsArray<D, T>`: owners, views and exclusive mutable
//! views alike, of a typed rank or a dynamic one. Output dimensions are
//! computed by the traits of [`crate::tensor::rank`] and inferred at the
//! call site: `sum_axis(&v3, 1, RemoveDim)?` is a `Tensor<2>`,
//! `map_binary(&tokens2, &bias1, f)?` a `Tensor<2>`, and the same calls on
//! `DynView`s (with `keep_dim: bool`) give `DynTensor`s.
//!
//! # Element types
//!
//! Maps, views, copies and the gathers take any `Copy` element. The
//! numeric operations (the named functions and arithmetic below,
//! reductions, `argmax_axis`, `softmax_axis`, `matmul`) take the float [`Element`]s `f16`, `bf16`, `f32`
//! and `f64` and return the caller's type: `f32` and `f64` are computed in
//! place; `f16` and `bf16` operands are widened to `f32` (the stored span
//! each one reads, in fallible scratch), computed by the same `f32` kernels
//! with the same rules, and the result is rounded to the half type once
//! (as PyTorch does on the CPU). [`cast`] converts between them.
//!
//! # Named elementwise operations
//!
//! [`unary`] applies one [`Function`] of the crate's own math (`exp`,
//! `ln`, `tanh`, `sigmoid`, `silu`, `gelu_tanh`, `gelu_erf`, `erf`,
//! `sqrt`, `rsqrt`, `recip`, `neg`, `abs`, `square`) to every value, and
//! every readable array has the same as a method named after the function
//! (`x.exp()?`, `h.gelu_tanh()?`). [`add`], [`sub`], [`mul`] and [`div`]
//! combine two operands after NumPy broadcasting (also `x.add(&y)?`, ...),
//! and the in-place forms `add_assign`, `sub_assign`, `mul_assign`,
//! `div_assign` write a mutable view (`x.view_mut().add_assign(&attn)?`,
//! the residual add), broadcasting the right-hand side to its shape.
//! All run SIMD code on contiguous data, are split over threads when large,
//! and give the same bits for every SIMD level, thread count and layout.
//! A new function is one [`Function`] variant, its lane code in the math
//! module, and one method.
//!
//! # Data movement and fused operations
//!
//! [`concat()`] / [`stack`] join views (the KV cache, a batch), [`index_select`]
//! picks positions along an axis (the embedding lookup), [`argmax_axis`]
//! finds the position `max_axis` keeps (greedy decoding) and
//! [`softmax_axis`] is the stable softmax fused (one read of the input, one
//! write of the output), bit-identical to its four-call composition, and
//! [`causal_softmax`] the same under a causal mask (never built);
//! [`layer_norm`] and [`rms_norm`] normalize the last axis the same way
//! (fused, bit-identical to their compositions of `mean_axis`, `sub`,
//! `square`, `div`, `mul`, `add`). Every check runs before the first value
//! is written.
//!
//! # Reductions
//!
//! Shapes, for `sum_axis`, `mean_axis` and `max_axis`: `[.., n, ..]` -> `[.., ..]` with [`RemoveDim`]
//! (rank `R - 1`, inferred; does not compile for `R = 0`) or `[.., 1, ..]`
//! with [`KeepDim`] (rank `R`, NumPy `keepdims=True`).
//!
//! Numerics: a sum (and a mean, the sum divided by `n`) adds each output
//! group by a fixed pairwise tree whose shape depends only on the axis
//! length `n`: leaves of 128 consecutive values, 16 lanes per leaf (lane
//! `j` sums the leaf's values at indices `≡ j mod 16`, ascending from
//! +0.0), leaves combined lane by lane as a binary counter (a perfect
//! binary tree for `2^a` leaves), the 16 lanes folded by halving
//! (`a_j + a_{j+8}`, then 4, 2, 1). The error grows like `log2(n) · eps`
//! (pairwise summation, Higham 1993), so the f32 mean of 2^25 ones is
//! exactly 1.0; [`tree_sum`] is the same tree over a slice. A max keeps
//! the first NaN, else the earliest of the largest values. Results are
//! bit-identical for every thread count, SIMD level (AVX-512, AVX2,
//! baseline) and layout of the same logical values (contiguous,
//! transposed, sliced); a NaN made by arithmetic stays NaN, its payload
//! bits unspecified by Rust. NumPy sums in another order (pairwise with 8
//! partial sums on contiguous axes, sequential on others), so sums of three
//! or more values may differ from NumPy's in the last bits.
//!
//! Errors, in this order: [`Error::AxisOutOfBounds`] if `axis >= R`
//! (always for a rank-0 view), then for mean and max an axis of extent 0
//! ([`Error::EmptyMeanAxis`], [`Error::EmptyMaxAxis`]), then
//! [`Error::AllocationFailed`]; the `_into` variants allocate nothing and
//! return [`Error::OutputShapeMismatch`] for an output of another shape.
//! Every error names the function called (`sum_axis`, `sum_axis_into`, ...).
//!
//! [`RemoveDim`]: crate::tensor::RemoveDim
//! [`KeepDim`]: crate::tensor::KeepDim
//! [`Error::AxisOutOfBounds`]: crate::Error::AxisOutOfBounds
//! [`Error::EmptyMeanAxis`]: crate::Error::EmptyMeanAxis
//! [`Error::EmptyMaxAxis`]: crate::Error::EmptyMaxAxis
//! [`Error::AllocationFailed`]: crate::Error::AllocationFailed
//! [`Error::OutputShapeMismatch`]: crate::Error::OutputShapeMismatch

mod arith;
mod attention;
mod broadcast;
mod cast;
mod gather;
mod map;
mod matmul;
mod norm;
mod par_map;
mod reduce;
mod softmax;
mod unary;
mod widen;

pub use arith::{add, add_into, div, div_into, mul, mul_into, sub, sub_into};
pub use attention::{AttentionMask, attention};
pub use broadcast::{ShapeRef, broadcast_shape};
pub use cast::cast;
pub use gather::{concat, concat_into, index_select, index_select_into, stack, stack_into};
pub use map::{map_binary, map_binary_into, map_unary, map_unary_into};
pub use matmul::{MatmulStrategy, matmul, matmul_affine, matmul_into};
pub use norm::{layer_norm, layer_norm_into, rms_norm, rms_norm_into};
pub use par_map::{par_map_binary, par_map_binary_into};
pub use reduce::{argmax_axis, argmax_axis_into, tree_sum};
pub use reduce::{max_axis, max_axis_into, mean_axis, mean_axis_into, sum_axis, sum_axis_into};
pub use softmax::{causal_softmax, causal_softmax_into, softmax_axis, softmax_axis_into};
pub use unary::{Function, unary, unary_into};

use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::element::Element;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::layout::Layout;
use crate::tensor::traverse::alloc::{try_buffer, try_filled, try_zeroed};

/// An output buffer for `elements` values of the operation `op`, reserved
/// with `try_reserve`.
pub(crate) fn output_buffer<T>(elements: usize, op: &'static str) -> Result<Vec<T>, Error> {
    try_buffer(elements).map_err(|failed| Error::AllocationFailed {
        op,
        elements: failed.elements,
    })
}

/// `elements` zeros (`+0.0`) for an output that `threads` threads will
/// write in disjoint blocks. On two or more threads the allocator zeroes
/// it ([`try_zeroed`]), so the first touch of a fresh buffer's pages (its
/// page faults) happens in the writing threads, in parallel; on one thread
/// it is filled first ([`try_filled`]): faults taken in one tight loop
/// cost less than the same faults spread through a kernel (a fresh 48 MiB
/// `causal_softmax` on one thread: 29 ms filled first, 40 ms zeroed).
/// The zero goes through [`std::hint::black_box`] so that the fill stays
/// the compiler's vector store loop: as a known constant it became a call
/// to `memset`, whose `rep stosb` takes a fresh buffer's page faults
/// slower (a fresh 48 MiB `add` on one thread: 25–27 ms, 23–25 with the
/// loop, the same as before zeroed outputs).
///
/// # Errors
/// [`Error::AllocationFailed`] of `op` if the values cannot be reserved.
pub(crate) fn output_zeroed<T: Element>(
    elements: usize,
    threads: usize,
    op: &'static str,
) -> Result<Vec<T>, Error> {
    let values = if threads <= 1 {
        try_filled(elements, std::hint::black_box(T::zeroed()))
    } else {
        try_zeroed(elements)
    };
    values.map_err(|failed| Error::AllocationFailed {
        op,
        elements: failed.elements,
    })
}

/// `OutputShapeMismatch` of `op` unless the caller's output has the expected shape.
pub(crate) fn check_output_shape(
    expected: &[usize],
    actual: &[usize],
    op: &'static str,
) -> Result<(), Error> {
    if expected == actual {
        Ok(())
    } else {
        Err(Error::OutputShapeMismatch {
            op,
            expected: expected.to_vec(),
            actual: actual.to_vec(),
        })
    }
}

/// A new owner of `values` laid out row-major in the checked `shape`.
pub(crate) fn owner<E: Dimension, T>(
    shape: E::Axes,
    values: Vec<T>,
    op: &'static str,
) -> Result<ArrayBase<Vec<T>, E>, Error> {
    let layout = Layout::row_major(shape, op)?;
    debug_assert_eq!(layout.len, values.len());
    Ok(ArrayBase {
        data: values,
        layout,
    })
}
