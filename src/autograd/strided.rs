//! Buffer helpers of the backward rules: fallible allocation, the
//! broadcast-reverse sum, and the `[outer, axis, inner]` split of a shape.
//! Every loop here runs in row-major order, so sums have one fixed order.

use crate::error::Error;
use crate::tensor::DynTensor;

use super::Real;

const OP: &str = "autograd";

/// A zero-filled vector of `len` elements, reserved fallibly.
pub(crate) fn zeroed<T: Real>(len: usize) -> Result<Vec<T>, Error> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| Error::AllocationFailed {
            op: OP,
            elements: len,
        })?;
    v.resize(len, T::ZERO);
    Ok(v)
}

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
    let mut v = zeroed(t.as_slice().len())?;
    v.copy_from_slice(t.as_slice());
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
/// `t`'s row-major order (one fixed order).
pub(crate) fn sum_to<T: Real>(t: DynTensor<T>, shape: &[usize]) -> Result<DynTensor<T>, Error> {
    let full = t.shape().to_vec();
    if full == shape {
        return Ok(t);
    }
    let lead = full.len() - shape.len();
    // Strides of the target, 0 on stretched axes, for each axis of `full`.
    let mut strides = vec![0usize; full.len()];
    let mut stride = 1usize;
    for (k, &d) in shape.iter().enumerate().rev() {
        if d == full[lead + k] && d != 1 {
            strides[lead + k] = stride;
        }
        stride *= d;
    }
    let mut out = zeroed::<T>(count(shape)?)?;
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
