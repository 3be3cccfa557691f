// The user passes an unbatched [T, C] view to a function written for
// batched [B, T, C] input. The rank is part of the type.
use llm_from_scratch::prelude::*;

fn last_token(x: &View<'_, 3>) -> usize {
    x.shape()[1] - 1
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tokens = Tensor::from_vec([4, 8], vec![0.0; 32])?;
    println!("{}", last_token(&tokens.view()));
    Ok(())
}
