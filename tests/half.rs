//! `f16` and `bf16`: conversions bit for bit against NumPy and PyTorch, and
//! the numeric ops (computed in `f32`, rounded once) against an `f64`
//! reference of the same rounded inputs (`scripts/half_fixture.py`,
//! `tests/fixtures/half/`).

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::{bf16, f16};
use safetensors::SafeTensors;

const CONVERSIONS: &[u8] = include_bytes!("fixtures/half/conversions.safetensors");
const COMPUTE: &[u8] = include_bytes!("fixtures/half/compute.safetensors");

/// A fixture tensor's shape and raw little-endian bytes.
fn raw<'a>(file: &'a SafeTensors<'a>, name: &str) -> (Vec<usize>, &'a [u8]) {
    let tensor = file
        .tensor(name)
        .unwrap_or_else(|_| panic!("fixture tensor {name}"));
    (tensor.shape().to_vec(), tensor.data())
}

fn u16s(bytes: &[u8]) -> Vec<u16> {
    bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect()
}
fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}
fn f64s(bytes: &[u8]) -> Vec<f64> {
    bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

/// The same bits, or both NaN (NaN payloads differ between libraries).
fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn every_half_pattern_widens_exactly_as_numpy_and_pytorch() {
    let file = SafeTensors::deserialize(CONVERSIONS).unwrap();
    let numpy = f32s(raw(&file, "f16_to_f32_numpy").1);
    let torch = f32s(raw(&file, "f16_to_f32_torch").1);
    let torch_bf = f32s(raw(&file, "bf16_to_f32_torch").1);
    for bits in 0..=u16::MAX {
        let i = usize::from(bits);
        let h = f16::from_bits(bits).to_acc();
        assert!(
            same_f32(h, numpy[i]) && same_f32(h, torch[i]),
            "f16 {bits:#06x}"
        );
        let b = bf16::from_bits(bits).to_acc();
        assert!(same_f32(b, torch_bf[i]), "bf16 {bits:#06x}");
        // Widening is exact: through f64 too.
        assert!(same_f32(f16::from_bits(bits).to_f64() as f32, h));
    }
}

#[test]
fn narrowing_from_f32_rounds_to_nearest_even_like_numpy_and_pytorch() -> Result<(), Error> {
    let file = SafeTensors::deserialize(CONVERSIONS).unwrap();
    let inputs = f32s(raw(&file, "f32_inputs").1);
    let numpy = u16s(raw(&file, "f32_to_f16_numpy").1);
    let torch = u16s(raw(&file, "f32_to_f16_torch").1);
    let torch_bf = u16s(raw(&file, "f32_to_bf16_torch").1);
    // Element by element, and through the `cast` op on a strided view.
    for (i, &x) in inputs.iter().enumerate() {
        assert_eq!(f16::from_acc(x).to_bits(), numpy[i], "f16 of {x:e}");
        assert_eq!(numpy[i], torch[i]);
        assert_eq!(bf16::from_acc(x).to_bits(), torch_bf[i], "bf16 of {x:e}");
    }
    let n = inputs.len();
    let column = Tensor::from_vec([n, 1], inputs)?;
    let transposed = column.view().transpose(0, 1)?; // [1, n], strides [1, 1]
    let halves: Tensor<2, f16> = transposed.cast()?;
    let bits: Vec<u16> = halves.as_slice().iter().map(|h| h.to_bits()).collect();
    assert_eq!(bits, numpy);
    let brains = cast::<bf16, _, _>(&column)?;
    let bits: Vec<u16> = brains.as_slice().iter().map(|h| h.to_bits()).collect();
    assert_eq!(bits, torch_bf);
    Ok(())
}

#[test]
fn narrowing_from_f64_rounds_once() -> Result<(), Error> {
    let file = SafeTensors::deserialize(CONVERSIONS).unwrap();
    let inputs = f64s(raw(&file, "f64_inputs").1);
    let exact = u16s(raw(&file, "f64_to_f16_exact").1);
    let numpy = u16s(raw(&file, "f64_to_f16_numpy").1);
    let via_f32 = u16s(raw(&file, "f64_to_f16_via_f32").1);
    let exact_bf = u16s(raw(&file, "f64_to_bf16_exact").1);
    assert_eq!(exact, numpy, "NumPy rounds float64 to float16 once");
    let t = Tensor::from_vec([inputs.len()], inputs.clone())?;
    let halves: Vec<u16> = t
        .cast::<f16>()?
        .as_slice()
        .iter()
        .map(|h| h.to_bits())
        .collect();
    let brains: Vec<u16> = t
        .cast::<bf16>()?
        .as_slice()
        .iter()
        .map(|h| h.to_bits())
        .collect();
    assert_eq!(halves, exact);
    assert_eq!(brains, exact_bf);
    // The fixture's hard cases: rounding through f32 by nearest would differ.
    let double = (0..inputs.len())
        .filter(|&i| via_f32[i] != exact[i])
        .count();
    assert!(double > 1000, "{double} double-rounding cases");
    Ok(())
}

#[test]
fn nans_stay_nans() -> Result<(), Error> {
    let file = SafeTensors::deserialize(CONVERSIONS).unwrap();
    let nans32 = Tensor::from_vec([64], f32s(raw(&file, "nan_f32_inputs").1))?;
    let nans64 = Tensor::from_vec([64], f64s(raw(&file, "nan_f64_inputs").1))?;
    assert!(nans32.cast::<f16>()?.as_slice().iter().all(|h| h.is_nan()));
    assert!(nans32.cast::<bf16>()?.as_slice().iter().all(|h| h.is_nan()));
    assert!(nans64.cast::<f16>()?.as_slice().iter().all(|h| h.is_nan()));
    assert!(nans64.cast::<bf16>()?.as_slice().iter().all(|h| h.is_nan()));
    let patterns = u16s(raw(&file, "f16_nan_bits").1);
    assert!(
        patterns
            .iter()
            .all(|&b| f16::from_bits(b).to_acc().is_nan())
    );
    Ok(())
}

/// A half-precision fixture tensor as a dynamic owner of `T`.
fn tensor<T: Element + HalfBits>(file: &SafeTensors<'_>, name: &str) -> DynTensor<T> {
    let (shape, bytes) = raw(file, name);
    let values = u16s(bytes).into_iter().map(T::from_bits).collect();
    DynTensor::from_vec(shape, values).expect("a fixture shape")
}

/// An f32 reference tensor.
fn reference(file: &SafeTensors<'_>, name: &str) -> DynTensor<f32> {
    let (shape, bytes) = raw(file, name);
    DynTensor::from_vec(shape, f32s(bytes)).expect("a fixture shape")
}

trait HalfBits: Copy {
    fn from_bits(bits: u16) -> Self;
    fn bits(self) -> u16;
}
impl HalfBits for f16 {
    fn from_bits(bits: u16) -> Self {
        f16::from_bits(bits)
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
}
impl HalfBits for bf16 {
    fn from_bits(bits: u16) -> Self {
        bf16::from_bits(bits)
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
}

/// `ours` (computed in f32, rounded once) against the f64 reference: each
/// value is the reference rounded to `T`, or its neighbour when the
/// reference lies within f32 rounding of a tie; returns how many are
/// neighbours.
fn check_rounded<T: Element<Acc = f32> + HalfBits>(
    ours: &DynTensor<T>,
    reference: &DynTensor<f32>,
    what: &str,
) -> usize {
    assert_eq!(ours.shape(), reference.shape(), "{what}");
    let mut neighbours = 0;
    for (&got, &want) in ours.as_slice().iter().zip(reference.as_slice()) {
        let rounded = T::from_acc(want);
        if got.bits() == rounded.bits() {
            continue;
        }
        neighbours += 1;
        // One unit in the last place of T at the reference.
        let step = (T::from_bits(rounded.bits() + 1).to_acc() - rounded.to_acc()).abs();
        let off = (got.to_acc() - want).abs();
        assert!(
            off <= step,
            "{what}: {got:?} vs reference {want} (step {step})"
        );
    }
    neighbours
}

fn ops_on_half_inputs<T: Element<Acc = f32> + HalfBits>(prefix: &str) -> Result<(), Error> {
    let file = SafeTensors::deserialize(COMPUTE).unwrap();
    let mut neighbours = 0;
    let mut values = 0;
    for name in ["a", "b"] {
        let input: DynTensor<T> = tensor(&file, &format!("{prefix}.{name}"));
        for axis in 0..input.rank() {
            let key = |op: &str| format!("{prefix}.{name}.{op}.{axis}.ref");
            let sum = sum_axis(&input, axis, false)?;
            neighbours += check_rounded(&sum, &reference(&file, &key("sum")), "sum");
            let mean = input.mean_axis(axis, false)?;
            neighbours += check_rounded(&mean, &reference(&file, &key("mean")), "mean");
            // The maximum selects a stored value: exact.
            let max = max_axis(&input.view(), axis, false)?;
            assert_eq!(
                check_rounded(&max, &reference(&file, &key("amax")), "max"),
                0
            );
            values += 3 * sum.len();
        }
        let last = input.rank() - 1;
        let softmax = input.softmax_axis(last)?;
        let want = reference(&file, &format!("{prefix}.{name}.softmax.ref"));
        neighbours += check_rounded(&softmax, &want, "softmax");
        values += softmax.len();
    }
    let x: DynTensor<T> = tensor(&file, &format!("{prefix}.x"));
    let y: DynTensor<T> = tensor(&file, &format!("{prefix}.y"));
    let product = matmul(&x, &y.view())?;
    neighbours += check_rounded(
        &product,
        &reference(&file, &format!("{prefix}.matmul.ref")),
        "matmul",
    );
    values += product.len();
    // Nearly every value is the reference's correct rounding.
    assert!(
        neighbours * 50 <= values,
        "{neighbours} of {values} off by one unit"
    );
    Ok(())
}

#[test]
fn f16_ops_compute_in_f32_and_round_once() -> Result<(), Error> {
    ops_on_half_inputs::<f16>("f16")
}

#[test]
fn bf16_ops_compute_in_f32_and_round_once() -> Result<(), Error> {
    ops_on_half_inputs::<bf16>("bf16")
}

#[test]
fn half_results_equal_the_f32_computation_rounded() -> Result<(), Error> {
    // The widened path is the f32 path: same bits as computing by hand.
    let x = Tensor::from_fn([3, 17], |[i, j]| {
        f16::from_f32((i * 17 + j) as f32 / 7.0 - 3.0)
    })?;
    let wide: Tensor<2, f32> = x.cast()?;
    let sums = x.sum_axis(1, RemoveDim)?;
    let want: Vec<f16> = wide
        .sum_axis(1, RemoveDim)?
        .as_slice()
        .iter()
        .map(|&s| f16::from_f32(s))
        .collect();
    assert_eq!(sums.as_slice(), &want[..]);
    let mut out = Tensor::<2, f16>::zeros([3, 17])?;
    softmax_axis_into(&x.view().slice(1, 0..17)?, 1, &mut out)?;
    let want: Tensor<2, f16> = wide.softmax_axis(1)?.cast()?;
    assert_eq!(out, want);
    // A broadcast half view (stride 0) computes as its f32 twin.
    let row = x.view().select(0, 2)?; // [17]
    let rows = row.broadcast_to([1024, 17])?;
    let want: Tensor<2, f16> = wide
        .view()
        .select(0, 2)?
        .broadcast_to([1024, 17])?
        .softmax_axis(1)?
        .cast()?;
    assert_eq!(rows.softmax_axis(1)?, want);
    Ok(())
}
