// The user writes a generic "sum the last axis" helper over any rank R but
// forgets the rank bound that says R - 1 exists and what it is.
use llm_from_scratch::prelude::*;

fn sum_last<const R: usize, const S: usize>(v: &View<'_, R>) -> Result<Tensor<S>, TensorOpError> {
    sum_axis(v, R - 1, RemoveDim)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let t = Tensor::from_vec([2, 3], vec![1.0; 6])?;
    let s: Tensor<1> = sum_last(&t.view())?;
    println!("{:?}", s.shape());
    Ok(())
}
