// Happy path: generic code over the rank R with the documented bounds.
// The output ranks S and O are inferred from the bounds at each call site.
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::{BroadcastRank, Rank, ReduceDim, RemoveAxis};

/// Sums the last axis of a view of any rank 1..=8.
fn sum_last<const R: usize, const S: usize>(v: &View<'_, R>) -> Result<Tensor<S>, TensorOpError>
where
    Rank<R>: RemoveAxis<Smaller = Rank<S>>,
{
    sum_axis(v, R - 1, RemoveDim)
}

/// Adds a bias of rank M to activations of rank L (broadcasting).
fn add_bias<const L: usize, const M: usize, const O: usize>(
    x: &View<'_, L>,
    bias: &View<'_, M>,
) -> Result<Tensor<O>, TensorOpError>
where
    Rank<L>: BroadcastRank<Rank<M>, Output = Rank<O>>,
{
    map_binary(x, bias, |x, b| x + b)
}

/// The mean over `axis`, keeping or removing it as the caller's marker says.
fn mean_over<const R: usize, const S: usize, K>(
    v: &View<'_, R>,
    axis: usize,
    keep: K,
) -> Result<Tensor<S>, TensorOpError>
where
    K: ReduceDim<Rank<R>, Output = Rank<S>>,
{
    mean_axis(v, axis, keep)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let rows = sum_last(&x.view())?; // Tensor<1>, inferred
    assert_eq!((rows.shape(), rows.as_slice()), (&[2], &[6.0, 15.0][..]));
    let total = sum_last(&rows.view())?; // Tensor<0>
    assert_eq!(total.as_slice(), &[21.0]);

    let bias = Tensor::from_vec([3], vec![10.0, 20.0, 30.0])?;
    let y = add_bias(&x.view(), &bias.view())?; // Tensor<2>
    assert_eq!(y.as_slice(), &[11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    let scalar: Tensor<0> = Tensor::from_vec([], vec![0.5])?;
    let z = add_bias(&scalar.view(), &x.view())?; // rank 0 broadcasts to anything
    assert_eq!(z.shape(), &[2, 3]);
    assert_eq!(z.as_slice()[5], 6.5);

    let kept = mean_over(&x.view(), 0, KeepDim)?; // [1, 3]
    assert_eq!(
        (kept.shape(), kept.as_slice()),
        (&[1, 3], &[2.5, 3.5, 4.5][..])
    );
    let removed = mean_over(&x.view(), 1, RemoveDim)?; // [2]
    assert_eq!(removed.as_slice(), &[2.0, 5.0]);

    // Any readable array is an operand: a mutable view too.
    let mut w = x.clone();
    let mut w_mut = w.view_mut();
    w_mut.map_inplace(|v| 2.0 * v);
    assert_eq!(sum_last(&w_mut.view())?.as_slice(), &[12.0, 30.0]);
    assert_eq!(sum_axis(&w_mut, 1, RemoveDim)?.as_slice(), &[12.0, 30.0]);
    Ok(())
}
