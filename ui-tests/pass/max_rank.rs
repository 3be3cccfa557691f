// Rank 8 (MAX_RANK) still has typed broadcasting and reductions; rank 9
// goes through the dynamic API with the same semantics.
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::{MAX_RANK, dynamic};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(MAX_RANK, 8);
    let data: Vec<f64> = (0..256).map(f64::from).collect();
    let v8 = View::from_slice(&data, [2; 8])?;
    let bias = Tensor::from_vec([2], vec![0.5, -0.5])?;
    let y = map_binary(&v8, &bias.view(), |x, b| x + b)?; // Tensor<8>
    assert_eq!(y.shape(), &[2; 8]);
    assert_eq!(&y.as_slice()[..4], &[0.5, 0.5, 2.5, 2.5]);
    let s = sum_axis(&v8, 0, RemoveDim)?; // Tensor<7>
    assert_eq!(s.shape(), &[2; 7]);
    assert_eq!(s.as_slice()[0], 128.0); // 0 + 128

    let data9: Vec<f64> = (0..512).map(f64::from).collect();
    let v9 = View::from_slice(&data9, [2; 9])?.into_dyn();
    let s9 = dynamic::sum_axis(&v9, 8, false)?;
    assert_eq!(s9.shape(), &[2; 8]);
    assert_eq!(&s9.as_slice()[..3], &[1.0, 5.0, 9.0]);
    let y9 = dynamic::map_binary(&v9, &bias.view().into_dyn(), |x, b| x + b)?;
    assert_eq!(y9.shape(), &[2; 9]);
    assert_eq!(&y9.as_slice()[510..], &[510.5, 510.5]);
    Ok(())
}
