// The user counts axes from 1 and asks for `transpose_axes::<2, 1>()` to
// swap the two axes of a matrix. Axes count from 0: rank 2 has axes 0 and 1.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let m = Tensor::from_vec([2, 3], vec![0.0; 6])?;
    let t = m.view().transpose_axes::<2, 1>();
    println!("{:?}", t.shape());
    Ok(())
}
