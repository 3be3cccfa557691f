// The user squeezes "the" axis of a scalar loss. A rank-0 view has no axis
// to remove, so there is no rank-(-1) result.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let loss: Tensor<0> = Tensor::from_vec([], vec![2.5])?;
    let value = loss.view().squeeze(0)?;
    println!("{:?}", value.shape());
    Ok(())
}
