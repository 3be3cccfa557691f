// The user adds a unit axis to a rank-8 view. The typed ranks stop at
// MAX_RANK = 8, so a rank-9 result needs the dynamic API.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = vec![1.0; 256];
    let big = View::from_slice(&data, [2, 2, 2, 2, 2, 2, 2, 2])?;
    let bigger = big.unsqueeze(0)?;
    println!("{:?}", bigger.shape());
    Ok(())
}
