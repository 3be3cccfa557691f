// The user "broadcasts" a [B, T, C] activation to [T, C], hoping to drop
// the batch axis. Broadcasting adds leading axes; it never removes one.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x = Tensor::<3>::zeros([1, 4, 8])?;
    let flat = x.view().broadcast_to([4, 8])?;
    println!("{:?}", flat.shape());
    Ok(())
}
