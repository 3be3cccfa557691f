// The user computes a broadcast shape and stores it in an array of the
// smaller operand's rank. The output has the larger rank.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out: [usize; 2] = broadcast_shape(&[2, 1, 3], &[4, 3])?;
    println!("{out:?}");
    Ok(())
}
