//! `par_map_binary`: an elementwise closure over two broadcast operands on
//! rayon's threads, for closures that need no order (`Fn + Sync`).

use super::map::{binary_core, broadcast_of};
use super::{check_output_shape, output_buffer, owner};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::borrow::AsArray;
use crate::tensor::array::storage::Readable;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::shape::rank::BroadcastRank;
use crate::tensor::traverse::alloc::try_filled_parallel;
use crate::tensor::traverse::simd::{threads_for_bytes, tuning};
use crate::tensor::traverse::zip::zip_blocks;

/// Threads for a zip writing `len` values: the memory-bound threshold on
/// its three streams (the closure's own cost is unknown, so it counts as
/// nothing beyond the bytes it reads and writes).
fn zip_threads<A, B, C>(len: usize) -> usize {
    let per_value = size_of::<A>() + size_of::<B>() + size_of::<C>();
    threads_for_bytes(len.saturating_mul(per_value), tuning())
}

/// [`map_binary`](super::map_binary) on rayon's threads: `f(left, right)`
/// for every element of the broadcast output, in contiguous blocks of the
/// output split over the current rayon pool (one block on the calling
/// thread for a small output, under about 1 MiB of traffic).
///
/// Shapes: `[L]` and `[M]` -> the broadcast shape (NumPy's rule, see
/// [`broadcast_shape`](super::broadcast_shape)), rank `max(L, M)` inferred
/// through [`BroadcastRank`]; no input is copied (broadcast axes are read
/// with stride 0). `f` runs exactly once per output element but in no
/// given order and on any thread, hence `Fn + Sync` where
/// `map_binary` takes an `FnMut` it calls in row-major order; each value
/// depends only on its own two inputs, so the result is the same for every
/// thread count, and equal to `map_binary`'s with the same `f`. On
/// threads the output is first filled with `C::default()` by the threads
/// that then write it (its fresh pages' first touch in parallel); on one
/// it is `map_binary`'s loop. ≈ ndarray's
/// `Zip::from(a).and(b).par_map_collect(f)`; PyTorch has no user closure
/// but the same work as `masked_fill` or `torch.where`.
///
/// # Errors
/// - [`Error::IncompatibleBroadcast`] (leftmost failing output axis);
/// - [`Error::ShapeOverflow`] for an overflowing output;
/// - [`Error::AllocationFailed`] if the output cannot be reserved.
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// // Causal attention scores: scale the kept ones, -inf above the diagonal.
/// let dots = Tensor::<3, f32>::from_vec([2, 2, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])?;
/// let keep = Tensor::from_vec([2, 2], vec![true, false, true, true])?;
/// let scores = par_map_binary(&dots, &keep, |s, k| if k { s * 0.5 } else { f32::NEG_INFINITY })?;
/// let inf = f32::NEG_INFINITY;
/// assert_eq!(scores.as_slice(), &[0.5, inf, 1.5, 2.0, 2.5, inf, 3.5, 4.0]);
/// assert_eq!(scores, map_binary(&dots, &keep, |s, k| if k { s * 0.5 } else { inf })?);
/// let wrong = Tensor::from_vec([3], vec![true; 3])?;
/// assert!(matches!(
///     par_map_binary(&dots, &wrong, |s, k| if k { s } else { inf }),
///     Err(Error::IncompatibleBroadcast { op: "par_map_binary", axis: 2, .. })
/// ));
/// # Ok::<(), Error>(())
/// ```
pub fn par_map_binary<L, M, O, A, B, C>(
    left: &(impl AsArray<L, A> + ?Sized),
    right: &(impl AsArray<M, B> + ?Sized),
    f: impl Fn(A, B) -> C + Sync,
) -> Result<ArrayBase<Vec<C>, O>, Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
    A: Copy + Sync,
    B: Copy + Sync,
    C: Copy + Default + Send + Sync,
{
    let op = "par_map_binary";
    let (left, right) = (left.as_array(), right.as_array());
    let (left, right) = (left.strided(), right.strided());
    let (shape, len) = broadcast_of::<O::Axes>(left.shape, right.shape, op)?;
    let threads = zip_threads::<A, B, C>(len);
    if threads <= 1 {
        // One block: `map_binary`'s loop, pushing into a reserved buffer
        // (no fill first).
        let mut values = output_buffer(len, op)?;
        binary_core(shape.as_slice(), left, right, f, &mut values);
        return owner(shape, values, op);
    }
    let mut values = try_filled_parallel(len, C::default(), threads).map_err(|failed| {
        Error::AllocationFailed {
            op,
            elements: failed.elements,
        }
    })?;
    zip_blocks(shape.as_slice(), left, right, &mut values, threads, f);
    owner(shape, values, op)
}

/// [`par_map_binary`] into a caller's owner of the broadcast shape,
/// reusing its storage (no allocation, no fill).
///
/// # Errors
/// As for [`par_map_binary`] (but no allocation), and
/// [`Error::OutputShapeMismatch`] if `out` does not have the broadcast shape.
///
/// ```
/// use llm_from_scratch::{prelude::*, Error};
/// let x = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
/// let mut out = Tensor::<2>::zeros([2, 3])?;
/// par_map_binary_into(&x, &bias, |a, b| a + b, &mut out)?; // [2,3] + [3] -> [2,3]
/// assert_eq!(out.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
/// let mut wrong = Tensor::<2>::zeros([3, 2])?;
/// assert!(matches!(
///     par_map_binary_into(&x, &bias, |a, b| a + b, &mut wrong),
///     Err(Error::OutputShapeMismatch { op: "par_map_binary_into", .. })
/// ));
/// # Ok::<(), Error>(())
/// ```
pub fn par_map_binary_into<L, M, O, A, B, C>(
    left: &(impl AsArray<L, A> + ?Sized),
    right: &(impl AsArray<M, B> + ?Sized),
    f: impl Fn(A, B) -> C + Sync,
    out: &mut ArrayBase<Vec<C>, O>,
) -> Result<(), Error>
where
    L: Dimension + BroadcastRank<M, Output = O>,
    M: Dimension,
    O: Dimension,
    A: Copy + Sync,
    B: Copy + Sync,
    C: Copy + Send,
{
    let op = "par_map_binary_into";
    let (left, right) = (left.as_array(), right.as_array());
    let (left, right) = (left.strided(), right.strided());
    let (shape, len) = broadcast_of::<DynDims>(left.shape, right.shape, op)?;
    check_output_shape(shape.as_slice(), out.layout.shape(), op)?;
    let threads = zip_threads::<A, B, C>(len);
    zip_blocks(shape.as_slice(), left, right, &mut out.data, threads, f);
    Ok(())
}

/// [`par_map_binary`] as a method of every readable array.
impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Copy + Sync,
{
    /// [`par_map_binary`] as a method: `f(self, other)` after broadcasting,
    /// on rayon's threads.
    ///
    /// # Errors
    /// As for [`par_map_binary`].
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let bias = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// assert_eq!(x.par_map_binary(&bias, |a, b| a + b)?.as_slice(), &[11.0, 22.0, 13.0, 24.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn par_map_binary<M, O, U, C>(
        &self,
        other: &(impl AsArray<M, U> + ?Sized),
        f: impl Fn(S::Elem, U) -> C + Sync,
    ) -> Result<ArrayBase<Vec<C>, O>, Error>
    where
        D: BroadcastRank<M, Output = O>,
        M: Dimension,
        O: Dimension,
        U: Copy + Sync,
        C: Copy + Default + Send + Sync,
    {
        par_map_binary(self, other, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;

    /// Every layout and broadcast of a causal mask against scores, on one
    /// and two threads, against `map_binary` (the ordered scalar model)
    /// bit for bit; large enough to be split into blocks.
    #[test]
    fn equals_map_binary_on_every_layout_and_thread_count() {
        let (h, t) = (3, 256); // 1.8 MB of traffic: above the threads threshold
        let dots = Tensor::<3, f32>::from_fn([h, t, t], |[a, i, j]| {
            ((a * 31 + i * 7 + j * 13) % 101) as f32 / 7.0 - 5.0
        })
        .unwrap();
        let keep = Tensor::<2, bool>::from_fn([t, t], |[i, j]| j <= i).unwrap();
        let f = |s: f32, k: bool| if k { s * 0.125 } else { f32::NEG_INFINITY };
        let transposed = dots.view().transpose(1, 2).unwrap();
        let keep_t = keep.view().transpose(0, 1).unwrap();
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let dense = map_binary(&dots, &keep, f).unwrap();
                assert_eq!(par_map_binary(&dots, &keep, f).unwrap(), dense);
                let strided = map_binary(&transposed, &keep_t, f).unwrap();
                assert_eq!(par_map_binary(&transposed, &keep_t, f).unwrap(), strided);
                let dynamic = dots.view().into_dyn();
                let from_dyn: DynTensor<f32> =
                    par_map_binary(&dynamic, &keep.view().into_dyn(), f).unwrap();
                assert_eq!(from_dyn.as_slice(), dense.as_slice());
                let mut out = Tensor::<3, f32>::zeros([h, t, t]).unwrap();
                par_map_binary_into(&dots, &keep, f, &mut out).unwrap();
                assert_eq!(out, dense);
            });
        }
    }

    #[test]
    fn bad_shapes_are_typed_errors() {
        let x = Tensor::<2, f32>::zeros([2, 3]).unwrap();
        let y = Tensor::<1, f32>::zeros([2]).unwrap();
        assert!(matches!(
            par_map_binary(&x, &y, |a, b| a + b),
            Err(Error::IncompatibleBroadcast {
                op: "par_map_binary",
                axis: 1,
                left_dimension: 3,
                right_dimension: 2
            })
        ));
        let empty = Tensor::<2, f32>::zeros([0, 3]).unwrap();
        let none: Tensor<2, f32> =
            par_map_binary(&empty, &x.view().slice(0, 0..1).unwrap(), |a, b| a + b).unwrap();
        assert_eq!(none.shape(), &[0, 3]);
    }
}
