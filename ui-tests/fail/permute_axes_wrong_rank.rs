// The user applies a three-axis list to a rank-4 [B, T, H, D] view
// (forgetting the batch axis). The marker must have one axis per view axis.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::from_vec([1, 3, 2, 4], vec![0.0; 24])?;
    let heads = x.view().permute_axes::<Axes3<1, 0, 2>>();
    println!("{:?}", heads.shape());
    Ok(())
}
