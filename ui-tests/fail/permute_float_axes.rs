// The user passes float axis numbers to `permute` (as if they were values).
// Axes are `usize` indices.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let m = Tensor::from_vec([2, 3], vec![0.0; 6])?;
    let t = m.view().permute([1.0, 0.0])?;
    println!("{:?}", t.shape());
    Ok(())
}
