// The user splits heads with a four-axis shape but keeps a rank-3 binding.
// The new rank comes from the length of the shape array.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::from_vec([1, 4, 6], vec![0.0; 24])?;
    let heads: View<'_, 3> = x.view().reshape([1, 4, 2, 3])?;
    println!("{:?}", heads.shape());
    Ok(())
}
