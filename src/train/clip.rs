//! Global-norm gradient clipping: PyTorch's
//! `torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type=2)`.

use super::chunks::for_each_chunk;
use super::pairing::Named;
use crate::error::Error;
use crate::tensor::Float;
use crate::tensor::traverse::simd::{threads_for_bytes, tuning};
use rayon::prelude::*;

/// Elements per block of a tensor's sum of squares. Blocks are summed one
/// after another, each block's elements in order, so the sum (and every
/// clipped gradient) has the same bits for every thread count.
const BLOCK: usize = 1 << 12;

/// What [`clip_grad_norm`] measured and did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipReport<T> {
    /// The total 2-norm of all gradients before clipping, in `T` (what
    /// PyTorch returns).
    pub total_norm: T,
    /// `min(max_norm / (total_norm + 1e-6), 1)`, the factor applied.
    pub coef: T,
    /// Whether `coef < 1`, i.e. the gradients were scaled.
    pub clipped: bool,
}

/// The total 2-norm of all gradients, as PyTorch forms it: each tensor's
/// norm rounded to `T` (`torch._foreach_norm`), then the norm of those norms
/// (`vector_norm(stack(norms))`). Squares are summed in `f64` (one rounding
/// to `T` per norm), in a fixed order: blocks of 4096 elements in sequence,
/// each block into 8 interleaved partial sums.
///
/// PyTorch sums an `f32` tensor's squares in its own vectorized order, so
/// the two norms can differ in the last bit or two of `f32`.
///
/// ```
/// use llm_from_scratch::DynTensor;
/// use llm_from_scratch::train::grad_norm;
/// let grads = vec![
///     ("a".to_string(), DynTensor::from_vec(vec![2], vec![3.0_f32, 0.0])?),
///     ("b".to_string(), DynTensor::from_vec(vec![1], vec![4.0_f32])?),
/// ];
/// assert_eq!(grad_norm(&grads), 5.0);
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn grad_norm<T: Float>(grads: &[Named<T>]) -> T {
    let blocks = grads.iter().enumerate().flat_map(|(index, (_, grad))| {
        grad.as_slice()
            .chunks(BLOCK)
            .map(move |block| (index, block))
    });
    // The block sums arrive in order, tensor after tensor: each tensor's
    // are added from +0.0, its norm rounded to `T` and squared into the
    // total. An empty tensor has no blocks; its norm, 0, would add +0.0.
    let mut total = 0.0_f64;
    let mut current: Option<(usize, f64)> = None;
    let mut add = |(index, block): (usize, f64)| {
        let sum = match current {
            Some((open, sum)) if open == index => sum,
            other => {
                if let Some((_, sum)) = other {
                    total += squared_norm::<T>(sum);
                }
                0.0
            }
        };
        current = Some((index, sum + block));
    };
    // One parallel region for every tensor's blocks when the work is worth
    // the threads and the list can be reserved; else in order on this
    // thread. Every sum is formed the same way either way.
    let elements: usize = grads.iter().map(|(_, g)| g.as_slice().len()).sum();
    let count = elements.div_ceil(BLOCK) + grads.len();
    let (mut list, mut sums) = (Vec::new(), Vec::new());
    if threads_for_bytes(elements.saturating_mul(size_of::<T>()), tuning()) > 1
        && list.try_reserve_exact(count).is_ok()
        && sums.try_reserve_exact(count).is_ok()
    {
        list.extend(blocks);
        list.into_par_iter()
            .map(|(index, block)| (index, block_sum(block)))
            .collect_into_vec(&mut sums);
        sums.into_iter().for_each(&mut add);
    } else {
        blocks
            .map(|(index, block)| (index, block_sum(block)))
            .for_each(&mut add);
    }
    if let Some((_, sum)) = current {
        total += squared_norm::<T>(sum);
    }
    T::round_from_f64(total.sqrt())
}

/// A tensor's norm from its sum of squares, rounded to `T` (as
/// `torch._foreach_norm` returns it), squared again in `f64`.
fn squared_norm<T: Float>(sum: f64) -> f64 {
    let wide = T::round_from_f64(sum.sqrt()).widen_to_f64();
    wide * wide
}

/// `Σ x²` of one block in `f64`, into 8 partial sums (element `i` into
/// sum `i % 8`, combined in order): 8 independent additions in flight
/// instead of one chain. A tensor's blocks are then summed in order, from
/// +0.0: a fixed tree for any thread count.
fn block_sum<T: Float>(block: &[T]) -> f64 {
    let square = |x: T| {
        let x = x.widen_to_f64();
        x * x
    };
    let mut lanes = [0.0_f64; 8];
    let (whole, tail) = block.split_at(block.len() - block.len() % 8);
    for group in whole.chunks_exact(8) {
        for (lane, &x) in lanes.iter_mut().zip(group) {
            *lane += square(x);
        }
    }
    for (lane, &x) in lanes.iter_mut().zip(tail) {
        *lane += square(x);
    }
    lanes.iter().fold(0.0, |sum, &lane| sum + lane)
}

/// Scales all gradients together so their total 2-norm is at most
/// `max_norm`, with PyTorch's rule:
///
/// ```text
/// total = ‖(‖g₁‖, ‖g₂‖, …)‖₂                     (see grad_norm)
/// coef  = min(max_norm / (total + 1e-6), 1)      clamp(max=1.0), in T
/// g    *= coef                                    every gradient
/// ```
///
/// PyTorch multiplies by the clamped `coef` always; a factor of exactly 1
/// leaves every value's bits unchanged, so this skips that multiplication.
/// `max_norm / (total + 1e-6)` is PyTorch's `float / tensor`, which it
/// evaluates as `reciprocal(total + 1e-6) * max_norm`; so does this. A NaN
/// or infinite gradient gives a NaN or zero `coef`, as in PyTorch with
/// `error_if_nonfinite=False`.
///
/// # Errors
/// [`Error::InvalidHyperparameter`] for a `max_norm` that is not finite and
/// positive (the gradients are left as they are).
///
/// ```
/// use llm_from_scratch::DynTensor;
/// use llm_from_scratch::train::clip_grad_norm;
/// let mut grads = vec![("w".to_string(), DynTensor::from_vec(vec![2], vec![3.0_f64, 4.0])?)];
/// let report = clip_grad_norm(&mut grads, 1.0)?;
/// assert_eq!(report.total_norm, 5.0);
/// assert!(report.clipped && (report.coef - 1.0 / (5.0 + 1e-6)).abs() < 1e-15);
/// assert!((grads[0].1.as_slice()[1] - 0.8).abs() < 1e-6);
/// let again = clip_grad_norm(&mut grads, 10.0)?; // below the limit: unchanged
/// assert_eq!((again.coef, again.clipped), (1.0, false));
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
pub fn clip_grad_norm<T: Float>(
    grads: &mut [Named<T>],
    max_norm: f64,
) -> Result<ClipReport<T>, Error> {
    if !(max_norm.is_finite() && max_norm > 0.0) {
        return Err(Error::InvalidHyperparameter {
            op: "clip_grad_norm",
            name: "max_norm",
            rule: "finite and > 0",
            value: max_norm.to_string(),
        });
    }
    let total_norm = grad_norm(grads);
    let raw = (total_norm + T::round_from_f64(1e-6)).recip() * T::round_from_f64(max_norm);
    // torch.clamp(max=1.0): NaN stays NaN.
    let coef = if raw > T::one() { T::one() } else { raw };
    let clipped = coef < T::one();
    if coef != T::one() {
        let scale = |block: &mut [T]| block.iter_mut().for_each(|g| *g = *g * coef);
        let elements: usize = grads.iter().map(|(_, g)| g.as_slice().len()).sum();
        let count = elements.div_ceil(BLOCK) + grads.len();
        let blocks = grads
            .iter_mut()
            .flat_map(|(_, grad)| grad.as_mut_slice().chunks_mut(BLOCK));
        for_each_chunk(
            blocks,
            count,
            elements.saturating_mul(2 * size_of::<T>()),
            scale,
        );
    }
    Ok(ClipReport {
        total_norm,
        coef,
        clipped,
    })
}
