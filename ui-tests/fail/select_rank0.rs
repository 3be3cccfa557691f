// The user indexes a scalar as if it were a vector (`x[0]` of a 0-d
// array). A rank-0 view has no axis to fix a coordinate on.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let loss: Tensor<0> = Tensor::from_vec([], vec![2.5])?;
    let first = loss.view().select(0, 0)?;
    println!("{:?}", first.shape());
    Ok(())
}
