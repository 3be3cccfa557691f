// The user adds a [C] bias to [B, T, C] activations and expects a matrix
// back. Broadcasting keeps the larger rank: the result is a Tensor<3>.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::from_vec([2, 3, 4], vec![1.0; 24])?;
    let bias = Tensor::from_vec([4], vec![0.5; 4])?;
    let y: Tensor<2> = map_binary(&x.view(), &bias.view(), |x, b| x + b)?;
    println!("{:?}", y.shape());
    Ok(())
}
