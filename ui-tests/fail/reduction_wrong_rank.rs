// The user removes axis 1 of a [B, T, C] tensor but annotates the result
// as if the rank were kept. RemoveDim on rank 3 gives a Tensor<2>.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::from_vec([2, 3, 4], vec![1.0; 24])?;
    let pooled: Tensor<3> = mean_axis(&x.view(), 1, RemoveDim)?;
    println!("{:?}", pooled.shape());
    Ok(())
}
