// The user asks for zero chunks of the packed projection. `N` is a
// compile-time count, so `chunk::<0>` fails the build (not `cargo check`).
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let qkv = Tensor::<3>::zeros([1, 4, 24])?;
    let parts: [View<'_, 3>; 0] = qkv.view().chunk::<0>(2)?;
    println!("{}", parts.len());
    Ok(())
}
