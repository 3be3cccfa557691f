// Mistakes the type system cannot see are typed errors at run time, never
// panics: axis values out of range, a rank-0 reduction with KeepDim,
// incompatible extents, reshape of a non-contiguous view.
use llm_from_scratch::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let loss: Tensor<0> = Tensor::from_vec([], vec![2.5])?;
    assert_eq!(
        sum_axis(&loss.view(), 0, KeepDim),
        Err(TensorOpError::AxisOutOfBounds {
            op: "sum_axis",
            axis: 0,
            rank: 0
        })
    );

    let m = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    assert_eq!(
        m.view().transpose(0, 2).unwrap_err(),
        TensorViewError::AxisOutOfBounds {
            op: "transpose",
            axis: 2,
            rank: 2
        }
    );
    assert_eq!(
        m.view().permute([1, 1]).unwrap_err(),
        TensorViewError::DuplicateAxis { axis: 1 }
    );
    assert_eq!(
        m.get([0, 3]),
        Err(TensorError::IndexOutOfBounds {
            op: "get",
            axis: 1,
            index: 3,
            dimension: 3
        })
    );
    assert_eq!(
        max_axis(&m.view(), 2, RemoveDim),
        Err(TensorOpError::AxisOutOfBounds {
            op: "max_axis",
            axis: 2,
            rank: 2
        })
    );

    let bias = Tensor::from_vec([2], vec![10.0, 20.0])?;
    assert_eq!(
        map_binary(&m.view(), &bias.view(), |x, b| x + b),
        Err(TensorOpError::IncompatibleBroadcast {
            op: "map_binary",
            axis: 1,
            left_dimension: 3,
            right_dimension: 2
        })
    );
    assert_eq!(
        m.view().transpose(0, 1)?.reshape([6]).unwrap_err(),
        TensorViewError::NonContiguousReshape
    );
    Ok(())
}
