// The user sums token counts stored as i64. Reductions are defined for
// f32 and f64 only (their exact summation order is an IEEE float promise);
// convert with `map_unary(&v, |c| c as f64)?` first.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let counts: Tensor<2, i64> = Tensor::from_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
    let per_row = sum_axis(&counts.view(), 1, RemoveDim)?;
    println!("{:?}", per_row.shape());
    Ok(())
}
