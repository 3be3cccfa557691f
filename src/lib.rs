//! # llm_from_scratch: a rank-typed tensor core
//!
//! The tensor layer a from-scratch decoder Transformer stands on: owned
//! row-major tensors, borrowed strided views, zero-copy view operations,
//! mutable views, NumPy broadcasting, exact reductions, matrix products,
//! gathers and a fused softmax, in `f64`, `f32`, `f16` and `bf16`, with the
//! rank in the type.
//!
//! ```
//! use llm_from_scratch::prelude::*;
//!
//! // GPT-2 split heads: [B, T, C] -> [B, T, H, D] -> [B, H, T, D], zero-copy.
//! let (b, t, h, d) = (1, 4, 2, 3);
//! let x = Tensor::from_fn([b, t, h * d], |[_, i, c]| (10 * i + c) as f64)?;
//! let heads = x.view().reshape([b, t, h, d])?.permute([0, 2, 1, 3])?;
//! assert_eq!(heads.shape(), &[1, 2, 4, 3]);
//! assert_eq!(heads.get([0, 1, 2, 0])?, &23.0); // token 2, head 1, lane 0 = channel 3
//!
//! // A stable softmax over the last axis: max kept, subtract, exp, sum kept, divide.
//! let scores: Tensor<2> = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 1.0, 1.0, 1.0])?;
//! let max = max_axis(&scores, 1, KeepDim)?;                  // [2, 1]
//! let e = sub(&scores, &max)?.exp()?;                        // the crate's exp
//! let z = sum_axis(&e, 1, KeepDim)?;                         // [2, 1]
//! let p = map_binary(&e, &z, |e, z| e / z)?;          // [2, 3]
//! assert!((sum_axis(&p, 1, RemoveDim)?.as_slice()[0] - 1.0).abs() < 1e-15);
//! assert_eq!(softmax_axis(&scores, 1)?, p); // the same, fused, bit for bit
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! ## What it guarantees
//!
//! | Guarantee | How | Where it is pinned |
//! |---|---|---|
//! | A rank mistake does not compile | the rank is a const parameter of every type; rank changes are typed tables ([`tensor::rank`]) | `ui-tests/` (trybuild), with the compiler's message |
//! | Views never copy | view operations return views of the same storage; only named operations allocate ([`materialize`](tensor::ArrayBase::materialize), the ops, [`Weights::get_as`][weights-get-as]) | [`LayoutTrace`](tensor::LayoutTrace) rows, `tests/` |
//! | No panics on bad input | every shape, axis, index, flag and file problem is one [`Error`] variant naming the operation called; shape arithmetic is overflow-checked; every allocation, internal scratch included, is fallible ([`Error::AllocationFailed`]) | `tests/front_door.rs`, `tests/view_ops_edges.rs` |
//! | Same bits everywhere | fixed summation trees and kernel orders: a result does not depend on the thread count, the SIMD level or the operand's layout | `tests/*bit_identical*`, [`with_kernel_tuning`](tensor::with_kernel_tuning) |
//! | Accurate | reductions and matmul accumulate in the element's accumulator ([`Element::Acc`](tensor::Element)): `f32` for `f16` / `bf16`, rounded once | NumPy / PyTorch fixtures in `tests/fixtures/` |
//! | Safe Rust | `#![forbid(unsafe_code)]`; SIMD through `pulp`, threads through `rayon`, the optional memory map in the `llm_from_scratch_mmap` workspace crate | this file |
//!
#![cfg_attr(
    feature = "safetensors",
    doc = "[weights-get-as]: tensor::weights::Weights::get_as"
)]
#![cfg_attr(
    not(feature = "safetensors"),
    doc = "[weights-get-as]: tensor::weights"
)]
//!
//! ## Where things live
//!
//! - **Types** ([`tensor`]): one generic [`ArrayBase<S, D>`](tensor::ArrayBase)
//!   over a storage `S` and dimensions `D`; [`Tensor`] (owner),
//!   [`View`] (shared borrow), [`ViewMut`]
//!   (exclusive borrow, an operand like any view), [`CellView`]
//!   (pieces of one mutable view written side by side), and the
//!   dynamic-rank [`DynTensor`] / [`DynView`] /
//!   [`DynViewMut`] with the same methods checked at run time.
//! - **View operations** (methods): `reshape`, `reshape_strided`, `split_axis`,
//!   `merge_axes`, `transpose`, `permute`, `slice`, `slice_step`, `select`,
//!   `chunk`, `split_at`, `insert_axis`, `squeeze`, `broadcast_to`, `axis_iter`.
//! - **Operations** ([`tensor::ops`], each a function, an `_into` form writing
//!   into a mutable view, and a method): [`map_unary`](tensor::ops::map_unary),
//!   [`map_binary`](tensor::ops::map_binary) (broadcasting; an `FnMut` in
//!   row-major order) and [`par_map_binary`](tensor::ops::par_map_binary)
//!   (an `Fn + Sync` on rayon's threads, the same values),
//!   [`unary`](tensor::ops::unary) with a [`Function`](tensor::ops::Function)
//!   (`x.exp()`, `x.ln()`, `x.tanh()`, `x.sigmoid()`, `x.silu()`,
//!   `x.gelu_tanh()`, `x.gelu_erf()`, `x.erf()`, `x.sqrt()`, `x.rsqrt()`,
//!   `x.recip()`, `x.neg()`, `x.abs()`, `x.square()`: the crate's own math,
//!   the same bits on every SIMD level), [`add`](tensor::ops::add),
//!   [`sub`](tensor::ops::sub), [`mul`](tensor::ops::mul),
//!   [`div`](tensor::ops::div) (broadcasting; in place on a mutable view:
//!   `add_assign`, ...),
//!   [`sum_axis`](tensor::ops::sum_axis), [`mean_axis`](tensor::ops::mean_axis),
//!   [`max_axis`](tensor::ops::max_axis), [`argmax_axis`](tensor::ops::argmax_axis),
//!   [`softmax_axis`](tensor::ops::softmax_axis),
//!   [`causal_softmax`](tensor::ops::causal_softmax),
//!   [`attention`](tensor::ops::attention) (scaled dot-product attention,
//!   the scores never stored),
//!   [`layer_norm`](tensor::ops::layer_norm), [`rms_norm`](tensor::ops::rms_norm)
//!   (fused, bit-identical to their compositions), [`matmul`](tensor::ops::matmul)
//!   (batched, broadcast batch axes), [`index_select`](tensor::ops::index_select),
//!   [`concat`](tensor::ops::concat), [`stack`](tensor::ops::stack),
//!   [`cast`](tensor::ops::cast).
//! - **Elements** ([`Element`](tensor::Element)): `f64`, `f32`,
//!   [`f16`](tensor::f16), [`bf16`](tensor::bf16); each names the type it
//!   accumulates in.
//! - **Checkpoints** ([`tensor::weights`], feature `safetensors`): views
//!   straight over a safetensors file in any float dtype, converting reads,
//!   a writer, a buffer read at the file's size or memory-mapped (feature `mmap`).
//! - **GGUF and quantized weights** ([`tensor::gguf`], [`tensor::quant`], on
//!   by default): a bounds-checked GGUF v2/v3 reader (typed metadata, tensor
//!   infos, tensors borrowed as views or `Q8_0` / `Q4_0` / `Q4_1` blocks),
//!   `dequantize`, and `x · Wᵀ` straight from the blocks
//!   ([`linear`](tensor::quant::linear)) or from `bf16` / `f16` weights
//!   ([`half_linear`](tensor::quant::half_linear)).
//! - **Training** ([`train`]): AdamW with `torch.optim.AdamW`'s update,
//!   PyTorch's global-norm gradient clipping, a warmup + cosine schedule.
//! - **Errors** ([`Error`]): one enum for the crate.
//!
//! ## Examples
//!
//! | Command | What it shows |
//! |---|---|
//! | `cargo run --release --example attention_heads` | GPT-2 attention's layouts at full size, every step's layout trace and copies, checked against plain loops |
//! | `cargo run --release --features safetensors --example gpt2` | a whole GPT-2 decoder with a KV cache on safetensors weights (F16 / BF16 / F32 / F64), checked against transformers, timed against the bandwidth bound |
//! | `cargo run --release --features safetensors --example minilm_attention` | a BERT encoder layer (all-MiniLM-L6-v2) checked against transformers |
//! | `cargo run --release --example train_gpt -- --corpus data/austen.txt --steps 1000 --plot loss.svg --sample 300` | training a GPT-2-style model on text: AdamW, clipping, warmup + cosine, checkpoints in Hugging Face's layout, resume, a loss plot, samples; also issue 23's check contract (`--init`, `--batches`, `--grads-out`, ...) |
//! | `cargo run --release --example gguf_info -- PATH.gguf` | a GGUF file's metadata and tensor types, and `linear`'s speed on its matrices |
//! | `cargo run --example 01_views` … `04_attention` | the view, broadcast / reduce, split-heads and attention steps one at a time |
#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![doc(test(attr(deny(warnings))))]

pub mod autograd;
pub mod error;
pub mod tensor;
#[cfg(feature = "gguf")]
pub mod tokenizer;
pub mod train;

pub use error::{Error, TensorError, TensorOpError, TensorViewError};
pub use tensor::{
    ArrayBase, AsArray, AsView, CellView, DynCellView, DynTensor, DynView, DynViewMut, Tensor,
    View, ViewMut,
};

/// Everything a model file usually needs: the types, the traits, the
/// markers and the ops.
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::error::{Error, TensorError, TensorOpError, TensorViewError};
    #[doc(no_inline)]
    pub use crate::tensor::ops::{
        AttentionMask, argmax_axis, argmax_axis_into, attention, cast, causal_softmax,
        causal_softmax_into, concat, concat_into, index_select, index_select_into, layer_norm,
        layer_norm_into, par_map_binary, par_map_binary_into, rms_norm, rms_norm_into,
        softmax_axis, softmax_axis_into, stack, stack_into,
    };
    #[doc(no_inline)]
    pub use crate::tensor::ops::{
        Function, add, add_into, div, div_into, mul, mul_into, sub, sub_into, unary, unary_into,
    };
    #[doc(no_inline)]
    pub use crate::tensor::ops::{
        broadcast_shape, map_binary, map_binary_into, map_unary, map_unary_into, matmul,
        matmul_affine, matmul_into, max_axis, max_axis_into, mean_axis, mean_axis_into, sum_axis,
        sum_axis_into,
    };
    #[doc(no_inline)]
    pub use crate::tensor::{
        ArrayBase, AsArray, AsView, Axes1, Axes2, Axes3, Axes4, Axes5, Axes6, Axes7, Axes8,
        AxisList, BroadcastRank, CellView, Dimension, DynCellView, DynRank, DynTensor, DynView,
        DynViewMut, Element, Float, InsertAxis, KeepDim, LayoutTrace, MatrixRank, Rank, RankAtMost,
        ReduceDim, RemoveAxis, RemoveDim, Tensor, View, ViewMut, copying_transpose,
    };
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
