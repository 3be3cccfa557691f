//! `layer_norm` and `rms_norm`: the normalizations of Transformer blocks
//! over the last axis, fused (one read of the input, one write of the
//! output, nothing allocated but the output), bit-identical to their
//! compositions of the crate's ops.
//!
//! The shared part lives here: the checks (in this order: a rank of at
//! least 1, each parameter's shape `[C]`, the output's overflow, then for
//! `_into` the output's shape), the parameters made dense in the compute
//! type, and the threaded run over rows (`traverse/last_axis.rs`). The
//! row kernels are in `kernel.rs`; each public operation is one file.

mod kernel;
mod layer_norm;
mod rms_norm;

pub use layer_norm::{layer_norm, layer_norm_into};
pub use rms_norm::{rms_norm, rms_norm_into};

use super::widen::{into_narrowed, narrow, widen};
use super::{check_output_shape, output_buffer, output_zeroed, owner};
use crate::error::Error;
use crate::tensor::array::base::{ArrayBase, DynView};
use crate::tensor::element::Element;
use crate::tensor::float::Float;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::Dims;
use crate::tensor::shape::layout::checked_len;
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::last_axis::for_each_row;
use crate::tensor::traverse::simd::{self, Dispatch};
use kernel::Norm;
use std::borrow::Cow;

/// The parameters of a norm call as rank-erased views: `gamma`, and
/// `beta` for LayerNorm.
#[derive(Clone, Copy)]
pub(crate) struct Params<'a, T> {
    pub(crate) gamma: DynView<'a, T>,
    pub(crate) beta: Option<DynView<'a, T>>,
}

/// The checks of a norm (the public function `op`): rank >= 1, `gamma`
/// then `beta` of shape `[C]` for the last extent `C`, the output's
/// overflow. Returns the output's element count.
fn norm_len<T>(shape: &[usize], params: Params<'_, T>, op: &'static str) -> Result<usize, Error> {
    let rank = shape.len();
    let Some(axis) = rank.checked_sub(1) else {
        return Err(Error::RankTooSmall {
            op,
            rank,
            minimum: 1,
        });
    };
    let extent = shape[axis];
    let named = [("gamma", Some(params.gamma)), ("beta", params.beta)];
    for (param, view) in named {
        if let Some(view) = view.filter(|view| view.shape() != [extent]) {
            return Err(Error::NormParamMismatch {
                op,
                param,
                axis,
                extent,
                actual: view.shape().to_vec(),
            });
        }
    }
    checked_len(shape, op)
}

/// A `[C]` parameter as a dense slice: borrowed when it is stored so,
/// else gathered from its strided view into fallible scratch.
fn dense<'a, A: Copy>(view: DynView<'a, A>, op: &'static str) -> Result<Cow<'a, [A]>, Error> {
    let n = view.shape()[0];
    if n == 0 {
        return Ok(Cow::Borrowed(&[]));
    }
    let (stride, base) = (view.strides()[0], view.layout.base_offset);
    if stride == 1 || n <= 1 {
        return Ok(Cow::Borrowed(&view.data[base..base + n]));
    }
    let mut values = output_buffer(n, op)?;
    values.extend((0..n).map(|i| view.data[base + i * stride]));
    Ok(Cow::Owned(values))
}

/// Work of a norm per value against the thread threshold: it is memory
/// bound (each value read and written once, the other passes in L1), so
/// the threads start where the copies' do (~1 MiB of traffic).
fn norm_threads<F>(len: usize) -> usize {
    let bytes = len.saturating_mul(2 * size_of::<F>());
    simd::threads_for_bytes(bytes, simd::tuning())
}

/// A checked norm call ready to run: its input, parameters and settings
/// in the compute type.
struct Ready<'a, 's, F> {
    input: Strided<'a, 's, F>,
    norm: Norm<'a, F>,
    threads: usize,
    dispatch: Dispatch,
}

impl<F: Float> Ready<'_, '_, F> {
    /// Normalizes every row of the input into `out` (its element count).
    fn write(&self, out: &mut [F]) {
        for_each_row(self.input, out, self.threads, self.dispatch, &self.norm);
    }
}

/// Checks a norm call (the public function `op`; `out`, the shape of the
/// caller's output for `_into`), widens its operands and hands them ready
/// to `body` with the output's element count.
fn prepared<T: Element, D: Dimension, R>(
    input: ArrayBase<&[T], D>,
    params: Params<'_, T>,
    eps: f64,
    out: Option<&[usize]>,
    op: &'static str,
    body: impl FnOnce(&Ready<'_, '_, T::Acc>, usize) -> Result<R, Error>,
) -> Result<R, Error> {
    let len = norm_len(input.layout.shape(), params, op)?;
    if let Some(out) = out {
        check_output_shape(input.layout.shape(), out, op)?;
    }
    let widened = widen(input, op)?;
    let gamma = widen(params.gamma, op)?;
    let gamma = dense(gamma.view(), op)?;
    let beta = params.beta.map(|beta| widen(beta, op)).transpose()?;
    let beta = beta
        .as_ref()
        .map(|beta| dense(beta.view(), op))
        .transpose()?;
    let eps = <T::Acc as Element>::from_f64(eps);
    let norm = match &beta {
        Some(beta) => Norm::Layer {
            gamma: &gamma,
            beta,
            eps,
        },
        None => Norm::Rms { gamma: &gamma, eps },
    };
    let view = widened.view();
    let ready = Ready {
        input: view.strided(),
        norm,
        threads: norm_threads::<T::Acc>(len),
        dispatch: Dispatch::new(simd::tuning().simd),
    };
    body(&ready, len)
}

/// A norm of `input` over its last axis into a new owner (the public
/// function `op`).
pub(crate) fn fresh<T: Element, D: Dimension>(
    input: ArrayBase<&[T], D>,
    params: Params<'_, T>,
    eps: f64,
    op: &'static str,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    prepared(input, params, eps, None, op, |ready, len| {
        let mut values = output_zeroed(len, ready.threads, op)?;
        ready.write(&mut values);
        let shape = D::Axes::from_slice(ready.input.shape);
        narrow(owner(shape, values, op)?, op)
    })
}

/// A norm of `input` over its last axis into `out` (the public function `op`).
pub(crate) fn into<T: Element, D: Dimension>(
    input: ArrayBase<&[T], D>,
    params: Params<'_, T>,
    eps: f64,
    out: &mut ArrayBase<Vec<T>, D>,
    op: &'static str,
) -> Result<(), Error> {
    let shape = D::Axes::from_slice(out.layout.shape());
    prepared(
        input,
        params,
        eps,
        Some(shape.as_slice()),
        op,
        |ready, _| {
            into_narrowed(&mut out.data, op, |values| {
                ready.write(values);
                Ok(())
            })
        },
    )
}
