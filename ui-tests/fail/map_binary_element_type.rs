// The user adds two f64 tensors but binds the result as f32: the closure
// decides the output element type, and f64 + f64 is f64. Convert in the
// closure (`|x, b| (x + b) as f32`) if f32 is really wanted.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::from_vec([2, 3], vec![1.0f64; 6])?;
    let bias = Tensor::from_vec([3], vec![0.5f64; 3])?;
    let y: Tensor<2, f32> = map_binary(&x.view(), &bias.view(), |x, b| x + b)?;
    println!("{:?}", y.shape());
    Ok(())
}
