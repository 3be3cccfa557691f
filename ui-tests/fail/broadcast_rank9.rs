// The user views a buffer with nine axes and adds a bias. Typed
// broadcasting stops at MAX_RANK = 8; rank 9 needs the dynamic API.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = vec![1.0; 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2 * 2];
    let big = View::from_slice(&data, [2, 2, 2, 2, 2, 2, 2, 2, 2])?;
    let bias = Tensor::from_vec([2], vec![0.5, -0.5])?;
    let out = map_binary(&big, &bias.view(), |x, b| x + b)?;
    println!("{:?}", out.shape());
    Ok(())
}
