//! Global-norm gradient clipping: PyTorch's
//! `torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type=2)`.

use super::pairing::Named;
use crate::error::Error;
use crate::tensor::Float;
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
    let squares: f64 = grads
        .iter()
        .map(|(_, grad)| {
            let norm = T::round_from_f64(sum_of_squares(grad.as_slice()).sqrt());
            let wide = norm.widen_to_f64();
            wide * wide
        })
        .fold(0.0, |sum, square| sum + square);
    T::round_from_f64(squares.sqrt())
}

/// `Σ x²` in `f64`: blocks summed in parallel, each into 8 partial sums
/// (element `i` into sum `i % 8`, combined in order), then the block sums
/// in order: a fixed tree for any thread count, with 8 independent
/// additions in flight instead of one chain.
fn sum_of_squares<T: Float>(values: &[T]) -> f64 {
    let square = |x: T| {
        let x = x.widen_to_f64();
        x * x
    };
    let blocks: Vec<f64> = values
        .par_chunks(BLOCK)
        .map(|block| {
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
        })
        .collect();
    blocks.iter().fold(0.0, |sum, &block| sum + block)
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
        for (_, grad) in grads.iter_mut() {
            grad.as_mut_slice()
                .par_chunks_mut(BLOCK)
                .for_each(|block| block.iter_mut().for_each(|g| *g = *g * coef));
        }
    }
    Ok(ClipReport {
        total_norm,
        coef,
        clipped,
    })
}
