// The user reduces a rank-9 view with RemoveDim. The typed rank table
// only goes up to MAX_RANK = 8; rank 9 needs the dynamic API.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let data = vec![1.0; 512];
    let big = View::from_slice(&data, [2, 2, 2, 2, 2, 2, 2, 2, 2])?;
    let s = sum_axis(&big, 8, RemoveDim)?;
    println!("{:?}", s.shape());
    Ok(())
}
