// The user writes an axis list with a repeated axis (a typo for <0, 2, 1>).
// A permutation names every axis exactly once; checked at `cargo build`.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::from_vec([2, 3, 4], vec![0.0; 24])?;
    let p = x.view().permute_axes::<Axes3<0, 1, 1>>();
    println!("{:?}", p.shape());
    Ok(())
}
