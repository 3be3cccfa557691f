// A rank that is only known at run time (e.g. read from a checkpoint header)
// is not a compile error: `into_ranked` returns a typed `RankMismatch`.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let header_shape = vec![2, 3];
    let d = DynTensor::from_vec(header_shape, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;

    let wrong = d.clone().into_ranked::<3>();
    assert_eq!(
        wrong,
        Err(TensorError::RankMismatch {
            op: "into_ranked",
            expected: 3,
            actual: 2
        })
    );
    assert_eq!(
        wrong.unwrap_err().to_string(),
        "into_ranked: expected rank 3, got rank 2"
    );

    let view_wrong: Result<View<'_, 1>, _> = d.view().into_ranked();
    assert_eq!(
        view_wrong.unwrap_err(),
        TensorError::RankMismatch {
            op: "into_ranked",
            expected: 1,
            actual: 2
        }
    );

    let m: Tensor<2> = d.into_ranked()?;
    assert_eq!(m.get([1, 2])?, &6.0);
    let back: Result<Tensor<2>, _> = Tensor::try_from(m.into_dyn());
    assert_eq!(back?.shape(), &[2, 3]);
    Ok(())
}
