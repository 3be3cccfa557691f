// The user indexes a [T, C] matrix as if it still had a batch axis:
// a coordinate must have exactly one entry per axis.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let logits = Tensor::from_vec([2, 3], vec![0.1, 0.2, 0.7, 0.3, 0.3, 0.4])?;
    let p = logits.get([0, 1, 2])?;
    println!("{p}");
    Ok(())
}
