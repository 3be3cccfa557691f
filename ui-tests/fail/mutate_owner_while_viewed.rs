// The user takes a transposed view, then writes into the owner while the
// view is still used. A view borrows its owner: no aliasing mutation.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut k = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let kt = k.view().transpose(0, 1)?;
    *k.get_mut([0, 0])? = 100.0;
    println!("{}", kt.get([0, 0])?);
    Ok(())
}
