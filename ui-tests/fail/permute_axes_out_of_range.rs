// The user writes a rank-2 axis list that names axis 2, counting axes from 1.
// Axes count from 0; checked at `cargo build`.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let m = Tensor::from_vec([2, 3], vec![0.0; 6])?;
    let t = m.view().permute_axes::<Axes2<2, 1>>();
    println!("{:?}", t.shape());
    Ok(())
}
