//! Buffer helpers of the backward rules: fallible allocation, the
//! broadcast-reverse sum, and the `[outer, axis, inner]` split of a shape.
//! Every loop here runs in row-major order, so sums have one fixed order.

use crate::error::Error;
use crate::tensor::DynTensor;

use super::Real;
use super::rows::zeroed;

const OP: &str = "autograd";

/// The element count of `shape`, overflow-checked.
pub(crate) fn count(shape: &[usize]) -> Result<usize, Error> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or(Error::ShapeOverflow { op: OP })
}

/// A zero tensor of `shape`.
pub(crate) fn zeros<T: Real>(shape: &[usize]) -> Result<DynTensor<T>, Error> {
    DynTensor::from_vec(shape.to_vec(), zeroed(count(shape)?)?)
}

/// A contiguous copy of `t`.
pub(crate) fn copy<T: Real>(t: &DynTensor<T>) -> Result<DynTensor<T>, Error> {
    let values = t.as_slice();
    let mut v = Vec::new();
    v.try_reserve_exact(values.len())
        .map_err(|_| Error::AllocationFailed {
            op: OP,
            elements: values.len(),
        })?;
    v.extend_from_slice(values);
    DynTensor::from_vec(t.shape().to_vec(), v)
}

/// A tensor of `shape` over `values` (whose count the caller checked).
pub(crate) fn tensor<T: Real>(shape: &[usize], values: Vec<T>) -> Result<DynTensor<T>, Error> {
    DynTensor::from_vec(shape.to_vec(), values)
}

/// `(outer, extent, inner)` of `shape` split at `axis`.
pub(crate) fn split3(shape: &[usize], axis: usize) -> Result<(usize, usize, usize), Error> {
    let extent = *shape.get(axis).ok_or(Error::AxisOutOfBounds {
        op: OP,
        axis,
        rank: shape.len(),
    })?;
    Ok((count(&shape[..axis])?, extent, count(&shape[axis + 1..])?))
}

/// `t` (of a broadcast shape) summed back to `shape`: the gradient of a
/// broadcast operand, summed over its stretched and missing leading axes in
/// `t`'s row-major order (one fixed order), starting from `+0`. A copy when
/// the shapes are equal; [`sum_to_owned`] moves `t` then.
///
/// When every stretched axis comes before the kept ones (a bias `[N, C]`
/// to `[C]`, a mask `[B, H, T, T]` to `[T, T]`, a scalar), whole rows are
/// added in row order: the same additions in the same order as the general
/// odometer walk, so the same bits.
pub(crate) fn sum_to<T: Real>(t: &DynTensor<T>, shape: &[usize]) -> Result<DynTensor<T>, Error> {
    let full = t.shape();
    if full == shape {
        return copy(t);
    }
    let lead = full
        .len()
        .checked_sub(shape.len())
        .ok_or(Error::RankMismatch {
            op: OP,
            expected: full.len(),
            actual: shape.len(),
        })?;
    let mut kept = shape.len();
    while kept > 0 && shape[kept - 1] == full[lead + kept - 1] {
        kept -= 1;
    }
    let mut out = zeroed::<T>(count(shape)?)?;
    if shape[..kept].iter().all(|&d| d == 1) {
        let inner = out.len();
        if inner > 0 {
            for row in t.as_slice().chunks_exact(inner) {
                for (o, &v) in out.iter_mut().zip(row) {
                    *o = *o + v;
                }
            }
        }
        return tensor(shape, out);
    }
    // Strides of the target, 0 on stretched axes, for each axis of `full`.
    let mut strides = vec![0usize; full.len()];
    let mut stride = 1usize;
    for (k, &d) in shape.iter().enumerate().rev() {
        if d == full[lead + k] && d != 1 {
            strides[lead + k] = stride;
        }
        stride *= d;
    }
    let mut index = vec![0usize; full.len()];
    let mut offset = 0usize;
    for &v in t.as_slice() {
        out[offset] = out[offset] + v;
        // Odometer step over `full`, keeping `offset` in step.
        for k in (0..full.len()).rev() {
            index[k] += 1;
            offset += strides[k];
            if index[k] < full[k] {
                break;
            }
            offset -= strides[k] * index[k];
            index[k] = 0;
        }
    }
    tensor(shape, out)
}

/// [`sum_to`] of an owned `t`: `t` itself when it has `shape` already.
pub(crate) fn sum_to_owned<T: Real>(
    t: DynTensor<T>,
    shape: &[usize],
) -> Result<DynTensor<T>, Error> {
    if t.shape() == shape {
        Ok(t)
    } else {
        sum_to(&t, shape)
    }
}
