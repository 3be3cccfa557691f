// The user copies `transpose_axes::<0, 3>()` from 4-D attention code onto a
// rank-2 matrix. Axis 3 does not exist; the check fires at `cargo build`.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let m = Tensor::from_vec([2, 3], vec![0.0; 6])?;
    let t = m.view().transpose_axes::<0, 3>();
    println!("{:?}", t.shape());
    Ok(())
}
