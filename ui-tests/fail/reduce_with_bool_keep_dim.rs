// The user ports code from the dynamic API (`keep_dim: bool`) to the ranked
// one and passes `true`. The ranked reductions take a marker type instead.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scores = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 1.0, 1.0, 1.0])?;
    let max = max_axis(&scores.view(), 1, true)?;
    println!("{:?}", max.shape());
    Ok(())
}
