// The user calls the 2-D `copying_transpose` on a [B, T, C] tensor.
// For higher ranks, pick two axes: `view().transpose(a, b)?.materialize()?`.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::from_vec([2, 3, 4], vec![0.0; 24])?;
    let xt = copying_transpose(&x)?;
    println!("{:?}", xt.shape());
    Ok(())
}
