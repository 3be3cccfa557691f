// The user sums a scalar loss "over axis 0" and asks for the axis to be
// removed. A rank-0 tensor has no axis, so there is no rank-(-1) result.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let loss: Tensor<0> = Tensor::from_vec([], vec![2.5])?;
    let total = sum_axis(&loss.view(), 0, RemoveDim)?;
    println!("{total:?}");
    Ok(())
}
