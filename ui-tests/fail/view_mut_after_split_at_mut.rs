// The user splits a mutable view of a KV cache into the filled part and
// the rest, then keeps writing through the whole view. `split_at` takes
// the view by value, so two mutable views never alias.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut cache = Tensor::<2>::zeros([4, 3])?;
    let whole = cache.view_mut();
    let (mut filled, mut rest) = whole.split_at(0, 2)?;
    filled.fill(1.0);
    rest.fill(0.0);
    let mut again = whole;
    again.fill(2.0);
    Ok(())
}
