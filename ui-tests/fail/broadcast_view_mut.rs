// The user broadcasts a mutable view of a bias to write every row at once.
// A broadcast view reads one stored value from many positions, so there is
// no mutable one: `broadcast_to` exists on `View` only.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut bias = Tensor::<1>::zeros([3])?;
    let mut rows = bias.view_mut().broadcast_to([2, 3])?;
    rows.fill(1.0);
    Ok(())
}
