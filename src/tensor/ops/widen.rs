//! Operands and results of the numeric ops in their compute type: an
//! `f32` / `f64` array is read in place, a half-precision one is widened to
//! `f32` first, and results are rounded back to the caller's type.
//!
//! Widening copies only the storage span the operand's layout reaches (its
//! strides are kept), so a broadcast or sliced view of a large half tensor
//! widens a small buffer; the scratch is reserved fallibly. The kernels
//! then run exactly as for `f32`, so every numeric rule of `f32` (the order
//! of each sum, the max policy, bit-identity across layouts and threads)
//! holds for the widened values, and the result is rounded to the storage
//! type once at the end (to nearest, ties to even).

use super::output_buffer;
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::element::Element;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::traverse::alloc::try_filled;

/// An operand in its compute type `A`: the caller's view, or a widened copy
/// of the span it reads.
pub(crate) enum Widened<'a, A, D: Dimension> {
    /// The storage already is of the compute type.
    Borrowed(ArrayBase<&'a [A], D>),
    /// The reached span, widened; the same shape and strides.
    Owned {
        values: Vec<A>,
        layout: crate::tensor::shape::layout::Layout<D::Axes>,
    },
}

impl<A, D: Dimension> Widened<'_, A, D> {
    /// The operand as a view of the compute type.
    pub(crate) fn view(&self) -> ArrayBase<&'_ [A], D> {
        match self {
            Widened::Borrowed(view) => *view,
            Widened::Owned { values, layout } => ArrayBase {
                data: values,
                layout: *layout,
            },
        }
    }
}

/// `input` in its compute type, for the public function `op`.
///
/// # Errors
/// [`Error::AllocationFailed`] if the widened span cannot be reserved.
pub(crate) fn widen<'a, T: Element, D: Dimension>(
    input: ArrayBase<&'a [T], D>,
    op: &'static str,
) -> Result<Widened<'a, T::Acc, D>, Error> {
    if let Some(data) = T::as_acc(input.data) {
        return Ok(Widened::Borrowed(ArrayBase {
            data,
            layout: input.layout,
        }));
    }
    let mut layout = input.layout;
    let span = if layout.len == 0 {
        0..0
    } else {
        // Every reachable offset of a checked layout fits: no overflow.
        let last = layout
            .shape()
            .iter()
            .zip(layout.strides())
            .fold(layout.base_offset, |last, (&n, &s)| last + (n - 1) * s);
        layout.base_offset..last + 1
    };
    let mut values = output_buffer(span.len(), op)?;
    values.extend(input.data[span.clone()].iter().map(|&x| x.to_acc()));
    layout.base_offset -= span.start;
    Ok(Widened::Owned { values, layout })
}

/// A result computed in the compute type, rounded to `T` (the same buffer
/// when `T` is the compute type).
///
/// # Errors
/// [`Error::AllocationFailed`] if the rounded buffer cannot be reserved.
pub(crate) fn narrow<T: Element, D: Dimension>(
    result: ArrayBase<Vec<T::Acc>, D>,
    op: &'static str,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    let data = match T::from_acc_vec(result.data) {
        Ok(same) => same,
        Err(computed) => {
            let mut values = output_buffer(computed.len(), op)?;
            values.extend(computed.iter().map(|&x| T::from_acc(x)));
            values
        }
    };
    Ok(ArrayBase {
        data,
        layout: result.layout,
    })
}

/// Runs `compute` into `out`'s values as the compute type: in place when
/// `T` is the compute type, else into a scratch buffer rounded into `out`.
///
/// # Errors
/// `compute`'s error, or [`Error::AllocationFailed`] for the scratch.
pub(crate) fn into_narrowed<T: Element>(
    out: &mut [T],
    op: &'static str,
    compute: impl FnOnce(&mut [T::Acc]) -> Result<(), Error>,
) -> Result<(), Error> {
    if let Some(same) = T::as_acc_mut(out) {
        return compute(same);
    }
    let mut scratch =
        try_filled(out.len(), T::Acc::default()).map_err(|failed| Error::AllocationFailed {
            op,
            elements: failed.elements,
        })?;
    compute(&mut scratch)?;
    for (slot, &value) in out.iter_mut().zip(&scratch) {
        *slot = T::from_acc(value);
    }
    Ok(())
}
