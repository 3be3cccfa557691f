// The user materializes a [B, H, T, D] view into a flat buffer tensor.
// `materialize_into` keeps the rank; reshape the view first if it is contiguous.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::from_vec([1, 2, 3, 4], vec![0.0; 24])?;
    let mut flat: Tensor<1> = Tensor::zeros([24])?;
    x.view()
        .permute([0, 2, 1, 3])?
        .materialize_into(&mut flat)?;
    println!("{:?}", flat.shape());
    Ok(())
}
