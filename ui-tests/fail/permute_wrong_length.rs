// The user permutes a rank-3 [B, T, C] view with a two-axis list, as if
// `permute` took only the axes to swap. The list must name all three axes.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::from_vec([2, 3, 4], vec![0.0; 24])?;
    let swapped = x.view().permute([1, 0])?;
    println!("{:?}", swapped.shape());
    Ok(())
}
