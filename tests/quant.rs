//! Block-quantized weights: `dequantize` against the Python package
//! `gguf` (`gguf.quants.dequantize`, committed by scripts/quant_fixture.py)
//! bit for bit; `linear` (`x · Wᵀ`) against a scalar model of its
//! documented order bit for bit, on every SIMD level and thread count and
//! for strided activations, and against an f64 reference within a bound.

#[path = "common/lane_model.rs"]
mod lane_model;

use lane_model::{Rng, tree};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::gguf::{Gguf, GgufTensor};
use llm_from_scratch::tensor::quant::{BLOCK_LEN, BlockFormat, Q4_0, Q4_1, Q8_0, QBlocks, linear};
use llm_from_scratch::tensor::weights::AlignedBytes;
use llm_from_scratch::tensor::{KernelTuning, SimdLevel, f16, with_kernel_tuning};
use proptest::prelude::*;

const LEVELS: [SimdLevel; 3] = [SimdLevel::Best, SimdLevel::Avx2, SimdLevel::Baseline];

fn fixture() -> (AlignedBytes, Vec<u8>) {
    let gguf = AlignedBytes::read("tests/fixtures/gguf/quant.gguf").expect("the fixture");
    let expected =
        std::fs::read("tests/fixtures/gguf/quant_expected.safetensors").expect("expected values");
    (gguf, expected)
}

/// The f32 (or f64, widened) values of `name` in the expected file.
fn expected_values(expected: &[u8], name: &str) -> (Vec<usize>, Vec<f64>) {
    let file = safetensors::SafeTensors::deserialize(expected).expect("safetensors");
    let tensor = file.tensor(name).expect(name);
    let values = match tensor.dtype() {
        safetensors::Dtype::F32 => tensor
            .data()
            .chunks_exact(4)
            .map(|b| f64::from(f32::from_le_bytes(b.try_into().unwrap())))
            .collect(),
        safetensors::Dtype::F64 => tensor
            .data()
            .chunks_exact(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect(),
        other => panic!("{other:?}"),
    };
    (tensor.shape().to_vec(), values)
}

#[test]
fn dequantize_equals_the_gguf_package_bit_for_bit() {
    let (bytes, expected) = fixture();
    let gguf = Gguf::parse(bytes.as_bytes()).unwrap();
    for name in ["f32", "f16", "q8_0", "q4_0", "q4_1"] {
        let tensor = gguf.tensor::<2>(name).unwrap();
        let values = tensor.dequantize().unwrap();
        let (shape, want) = expected_values(&expected, &format!("{name}.dequantized"));
        assert_eq!(values.shape().as_slice(), shape.as_slice(), "{name}");
        let got: Vec<u32> = values.as_slice().iter().map(|v| v.to_bits()).collect();
        let want: Vec<u32> = want.iter().map(|&v| (v as f32).to_bits()).collect();
        assert_eq!(got, want, "{name}");
    }
    // -0.0 from a negative scale survives (Q4_0 row 1 has d < 0).
    let q4_0 = gguf
        .blocks::<2, Q4_0>("q4_0")
        .unwrap()
        .dequantize()
        .unwrap();
    assert!(
        q4_0.as_slice()
            .iter()
            .any(|v| v.to_bits() == (-0.0f32).to_bits())
    );
}

#[test]
fn dequantized_rows_equal_the_rows_of_dequantize() {
    let (bytes, _) = fixture();
    let gguf = Gguf::parse(bytes.as_bytes()).unwrap();
    let w = gguf.blocks::<2, Q8_0>("q8_0").unwrap();
    let all = w.dequantize().unwrap();
    let rows = w.dequantize_rows(&[2, 0, 2]).unwrap();
    assert_eq!(rows.shape(), &[3, 64]);
    for (r, &i) in [2, 0, 2].iter().enumerate() {
        assert_eq!(
            rows.as_slice()[r * 64..(r + 1) * 64],
            all.as_slice()[i * 64..(i + 1) * 64]
        );
    }
    assert_eq!(w.dequantize_rows(&[]).unwrap().shape(), &[0, 64]);
}

/// The scalar model of `linear`: one output at a time, in the documented order.
fn model<F: BlockFormat>(x: &[f32], m: usize, w: &QBlocks<'_, 2, F>) -> Vec<f32> {
    let [n, k] = *w.shape();
    let per_row = k / BLOCK_LEN;
    let mut out = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut acc = [0.0f32; 16];
            let mut macc = 0.0f32;
            for b in 0..per_row {
                let block = &w.blocks()[j * per_row + b];
                let q = F::quants(block);
                let (d, mm) = F::scales(block);
                let xb = &x[i * k + b * BLOCK_LEN..i * k + (b + 1) * BLOCK_LEN];
                for l in 0..16 {
                    let p = q[l + 16].mul_add(xb[l + 16], q[l] * xb[l]);
                    acc[l] = d.mul_add(p, acc[l]);
                }
                let sx = tree(std::array::from_fn(|l| xb[l] + xb[l + 16]));
                macc = mm.mul_add(sx, macc);
            }
            out[i * n + j] = if F::HAS_MIN {
                tree(acc) + macc
            } else {
                tree(acc)
            };
        }
    }
    out
}

/// Random blocks of format `F` for `rows × k` values: finite scales, random quants.
fn random_blocks<F: BlockFormat>(rng: &mut Rng, rows: usize, k: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..rows * k / BLOCK_LEN {
        let start = bytes.len();
        bytes.extend(f16::from_f32(rng.unit() * 0.1).to_le_bytes());
        if F::HAS_MIN {
            bytes.extend(f16::from_f32(rng.unit()).to_le_bytes());
        }
        while bytes.len() < start + F::BLOCK_BYTES {
            bytes.push(rng.next() as u8);
        }
    }
    bytes
}

fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

fn check_format<F: BlockFormat>(seed: u64) {
    let mut rng = Rng(seed);
    for &(m, n, k) in &[
        (1, 1, 32),
        (1, 40, 64),
        (3, 17, 96),
        (5, 33, 576),
        (9, 20, 128),
        (0, 3, 32),
        (2, 0, 64),
    ] {
        let bytes = random_blocks::<F>(&mut rng, n, k);
        let w = QBlocks::<2, F>::from_bytes([n, k], &bytes).unwrap();
        let x = Tensor::<2, f32>::from_fn([m, k], |_| rng.unit()).unwrap();
        let want = bits(&model(x.as_slice(), m, &w));
        // The same values, stored transposed: a strided operand.
        let xt = Tensor::<2, f32>::from_fn([k, m], |[c, r]| *x.get([r, c]).unwrap()).unwrap();
        for simd in LEVELS {
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let tuning = KernelTuning {
                    simd,
                    parallel_min_flops: 0,
                };
                let (y, yt) = pool.install(|| {
                    with_kernel_tuning(tuning, || {
                        let strided = xt.view().transpose(0, 1).unwrap();
                        (linear(&x, &w).unwrap(), linear(&strided, &w).unwrap())
                    })
                });
                let what = format!("{} m={m} n={n} k={k} {simd:?} {threads} threads", F::NAME);
                assert_eq!(y.shape(), &[m, n], "{what}");
                assert_eq!(bits(y.as_slice()), want, "{what}");
                assert_eq!(bits(yt.as_slice()), want, "{what}, strided x");
            }
        }
    }
}

/// `linear` of `x` `[m, k]` with the blocks `bytes` (`n` rows) on `simd`
/// with `threads` threads, every product sent to the threads.
fn linear_on<F: BlockFormat>(
    x: &Tensor<2, f32>,
    bytes: &[u8],
    n: usize,
    simd: SimdLevel,
    threads: usize,
) -> Vec<u32> {
    let k = x.shape()[1];
    let w = QBlocks::<2, F>::from_bytes([n, k], bytes).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let tuning = KernelTuning {
        simd,
        parallel_min_flops: 0,
    };
    pool.install(|| with_kernel_tuning(tuning, || bits(linear(x, &w).unwrap().as_slice())))
}

/// Random blocks of `F` from proptest's bytes: the scales any finite `f16`
/// (subnormals and signed zeros included; infinities and NaN, whose
/// payloads Rust leaves unspecified, replaced by their bits minus the
/// exponent's top bit), the quantized bytes as drawn.
fn blocks_from<F: BlockFormat>(raw: &[u8], count: usize) -> Vec<u8> {
    let mut bytes = raw[..count * F::BLOCK_BYTES].to_vec();
    let scales = if F::HAS_MIN { 2 } else { 1 };
    for block in bytes.chunks_exact_mut(F::BLOCK_BYTES) {
        for s in 0..scales {
            if block[2 * s + 1] & 0x7C == 0x7C {
                block[2 * s + 1] &= !0x40;
            }
        }
    }
    bytes
}

fn check_random<F: BlockFormat>(
    m: usize,
    n: usize,
    per_row: usize,
    raw: &[u8],
    x: &[f32],
) -> Result<(), TestCaseError> {
    let k = per_row * BLOCK_LEN;
    let bytes = blocks_from::<F>(raw, n * per_row);
    let w = QBlocks::<2, F>::from_bytes([n, k], &bytes).unwrap();
    let x = Tensor::<2, f32>::from_vec([m, k], x[..m * k].to_vec()).unwrap();
    let want = bits(&model(x.as_slice(), m, &w));
    for simd in LEVELS {
        for threads in [1, 2] {
            let got = linear_on::<F>(&x, &bytes, n, simd, threads);
            prop_assert_eq!(
                &got,
                &want,
                "{} m={} n={} k={} {:?} {}",
                F::NAME,
                m,
                n,
                k,
                simd,
                threads
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The kernel equals its scalar model bit for bit on random blocks
    /// (every scale pattern but inf / NaN), random activations, both the
    /// decode grouping (m < 4: four weight rows per pass, with remainders)
    /// and the prefill one, on every SIMD level and on one or two threads.
    #[test]
    fn linear_equals_the_scalar_model_on_random_blocks(
        m in 1_usize..7,
        n in 1_usize..24,
        per_row in 1_usize..6,
        raw in proptest::collection::vec(any::<u8>(), 23 * 5 * 34),
        x in proptest::collection::vec(-4.0_f32..4.0, 6 * 5 * 32),
    ) {
        check_random::<Q8_0>(m, n, per_row, &raw, &x)?;
        check_random::<Q4_0>(m, n, per_row, &raw, &x)?;
        check_random::<Q4_1>(m, n, per_row, &raw, &x)?;
    }
}

#[test]
fn linear_q8_0_equals_its_scalar_model_everywhere() {
    check_format::<Q8_0>(1);
}

#[test]
fn linear_q4_0_equals_its_scalar_model_everywhere() {
    check_format::<Q4_0>(2);
}

#[test]
fn linear_q4_1_equals_its_scalar_model_everywhere() {
    check_format::<Q4_1>(3);
}

#[test]
fn linear_is_close_to_the_f64_product_of_the_dequantized_weights() {
    let (bytes, expected) = fixture();
    let gguf = Gguf::parse(bytes.as_bytes()).unwrap();
    for name in ["q8_0", "q4_0", "q4_1"] {
        let w = gguf.tensor::<2>(name).unwrap();
        let [n, k] = w.shape();
        let (_, x) = expected_values(&expected, &format!("x.{k}"));
        let x = Tensor::from_vec([3, k], x.iter().map(|&v| v as f32).collect()).unwrap();
        let y = w.linear(&x).unwrap();
        let (_, want) = expected_values(&expected, &format!("{name}.linear"));
        let (_, dense) = expected_values(&expected, &format!("{name}.dequantized"));
        for i in 0..3 {
            for j in 0..n {
                // |error| <= (k + 4) · eps · Σ|w x| (a dot product's bound, with slack
                // for the offset term of Q4_1, Higham §3.1).
                let scale: f64 = (0..k)
                    .map(|c| (dense[j * k + c] * f64::from(*x.get([i, c]).unwrap())).abs())
                    .sum();
                let bound = (k as f64 + 4.0) * f64::from(f32::EPSILON) * scale.max(1.0);
                let error = (f64::from(y.as_slice()[i * n + j]) - want[i * n + j]).abs();
                assert!(error <= bound, "{name} [{i}, {j}]: {error} > {bound}");
            }
        }
    }
    let w = gguf.tensor::<2>("q4_1").unwrap();
    let GgufTensor::Q4_1(blocks) = w else {
        panic!()
    };
    let wrong = linear(&Tensor::<2, f32>::zeros([1, 32]).unwrap(), &blocks).unwrap_err();
    assert_eq!(
        wrong.to_string(),
        "linear: x has 32 values per row, the weight's rows have 64"
    );
}

#[test]
fn float_tensors_multiply_like_matmul() {
    let (bytes, _) = fixture();
    let gguf = Gguf::parse(bytes.as_bytes()).unwrap();
    let w = gguf.tensor::<2>("f32").unwrap(); // [3, 5]
    let x = Tensor::<2, f32>::from_fn([2, 5], |[i, c]| (i * 5 + c) as f32 * 0.25).unwrap();
    let dense = w.dequantize().unwrap();
    let want = matmul(&x, &dense.view().transpose(0, 1).unwrap()).unwrap();
    assert_eq!(w.linear(&x).unwrap(), want);
    let h = gguf.tensor::<2>("f16").unwrap(); // [2, 8]
    let x = Tensor::<2, f32>::full([1, 8], 1.0).unwrap();
    let want = matmul(&x, &h.dequantize().unwrap().view().transpose(0, 1).unwrap()).unwrap();
    assert_eq!(h.linear(&x).unwrap(), want);
}
