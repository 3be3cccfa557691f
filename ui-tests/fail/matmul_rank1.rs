// The user projects one token's embedding x [C] through a weight matrix
// W [C, N], writing `matmul(x, W)` as NumPy's `x @ W` would (NumPy promotes a
// 1-D operand to a row and drops that axis again). `matmul` takes matrices
// only: a rank-1 view has no `[m, k]` axes, so this does not compile; the
// fix is `x.view().reshape([1, 4])?` (one row), which copies nothing.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let x: Tensor<1> = Tensor::from_vec([4], vec![0.5, -1.0, 2.0, 0.25])?;
    let w: Tensor<2> = Tensor::from_fn([4, 3], |[i, j]| (i * 3 + j) as f64)?;
    let projected = matmul(&x.view(), &w.view())?;
    println!("{:?}", projected.shape());
    Ok(())
}
