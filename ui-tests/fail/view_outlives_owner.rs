// The user returns a view of a tensor created inside the function. A view
// borrows its owner; return the Tensor (or a materialized copy) instead.
use llm_from_scratch::prelude::*;

fn causal_mask(t: usize) -> View<'static, 2> {
    let mask =
        Tensor::from_fn([t, t], |[i, j]| if j > i { f64::NEG_INFINITY } else { 0.0 }).unwrap();
    mask.view()
}

fn main() {
    println!("{:?}", causal_mask(4).shape());
}
