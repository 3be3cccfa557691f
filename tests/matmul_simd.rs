//! The matmul kernel's SIMD and threaded paths against the naive ascending
//! loop, bit for bit: every instruction set the CPU offers (the best, AVX2
//! only, the scalar baseline), on 1, 2 and 3 threads (with the work
//! threshold lowered so that small products are split too), over random
//! layouts (permuted storage order, padding, offsets, a stride-0 axis,
//! broadcast batch axes) and sizes that cross every block edge of the kernel:
//! rows past the register tile and the row blocks (384 rows, 24 when `k`
//! is one slice), columns past the vector tiles and the 1024-column
//! blocks, `k` past the slices (128 deep, 512 for at most 128 columns),
//! and the one-to-four-row decode path.

#[path = "common/matmul_reference.rs"]
mod reference;

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::ops::matmul_affine;
use llm_from_scratch::tensor::{Float, KernelTuning, SimdLevel, dynamic, with_kernel_tuning};
use proptest::prelude::*;
use reference::{Bits, Layout, bits, naive, operands_of, wiggle};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const LEVELS: [SimdLevel; 3] = [SimdLevel::Best, SimdLevel::Avx2, SimdLevel::Baseline];
const THREADS: [usize; 3] = [1, 2, 3];

/// Runs `body` on a fresh pool of `threads` threads with the kernels limited
/// to `simd` and every product, however small, eligible for splitting.
fn under<R: Send>(
    simd: SimdLevel,
    threads: usize,
    body: impl FnOnce() -> R + Send,
) -> Result<R, rayon::ThreadPoolBuildError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let tuning = KernelTuning {
        simd,
        parallel_min_flops: 0,
    };
    Ok(pool.install(|| with_kernel_tuning(tuning, body)))
}

/// The dynamic op under every instruction set and thread count equals the
/// naive loop (shape and bits).
fn agree_everywhere<F: Float + Bits>(
    left: &Layout,
    right: &Layout,
    convert: fn(f64) -> F,
) -> TestResult {
    let (left_data, right_data) = (left.storage(convert), right.storage(convert));
    let (a, b) = (left.view(&left_data), right.view(&right_data));
    let expected = naive(&a, &b);
    for simd in LEVELS {
        for threads in THREADS {
            let out = under(simd, threads, || dynamic::matmul(&a, &b))??;
            let got = (out.shape().to_vec(), bits(out.as_slice()));
            assert!(
                got == expected,
                "{simd:?} on {threads} threads differs from the naive loop for {:?} x {:?}",
                a.shape(),
                b.shape()
            );
        }
    }
    Ok(())
}

/// `(batch shape, m, k, n)` regimes, each crossing the edges of one part of
/// the kernel while keeping the naive reference cheap.
fn sizes() -> impl Strategy<Value = (Vec<usize>, usize, usize, usize)> {
    let batch = || proptest::collection::vec(1..=3_usize, 0..=2);
    prop_oneof![
        // The decode path: 1 to 4 rows, columns past several vector widths.
        2 => (batch(), 1..=4_usize, 1..=300_usize, 1..=200_usize),
        // Row tiles (6 rows), thread tasks and 24-row blocks (k in one
        // slice), the later blocks reusing the first one's panels.
        2 => (batch(), 5..=400_usize, 1..=24_usize, 1..=70_usize),
        // k past a 512-deep slice (at most 128 columns).
        1 => (Just(vec![]), 5..=14_usize, 500..=600_usize, 1..=70_usize),
        // k past one and two 128-deep slices (more than 128 columns).
        1 => (Just(vec![]), 5..=14_usize, 120..=300_usize, 129..=200_usize),
        // Columns past the 1024-column block.
        1 => (Just(vec![]), 5..=9_usize, 1..=6_usize, 1000..=1100_usize),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_path_is_bit_identical_to_the_naive_loop_f64((left, right) in operands_of(sizes())) {
        agree_everywhere::<f64>(&left, &right, |x| x)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
    }

    #[test]
    fn every_path_is_bit_identical_to_the_naive_loop_f32((left, right) in operands_of(sizes())) {
        agree_everywhere::<f32>(&left, &right, |x| x as f32)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
}

/// A product of `m × k` by `k × n` on every path, the right operand stored
/// transposed (`x · Wᵀ`, a view with row stride 1) and row-major.
fn both_right_layouts_everywhere<F: Float + Bits>(
    [m, k, n]: [usize; 3],
    convert: fn(f64) -> F,
) -> TestResult {
    let a = Tensor::from_fn([m, k], |[i, p]| convert(wiggle(i * 7919 + p * 104_729)))?;
    let w = Tensor::from_fn([n, k], |[j, p]| convert(wiggle(j * 31 + p * 1_000_003 + 5)))?;
    let w_t = w.view().transpose(0, 1)?;
    let row_major = w_t.materialize()?;
    let expected = naive(&a.view().into_dyn(), &w_t.into_dyn()).1;
    for simd in LEVELS {
        for threads in THREADS {
            for right in [w_t, row_major.view()] {
                let out = under(simd, threads, || matmul(&a.view(), &right))??;
                assert!(
                    bits(out.as_slice()) == expected,
                    "{simd:?} on {threads} threads: [{m}, {k}] x [{k}, {n}] with strides {:?}",
                    right.strides()
                );
            }
        }
    }
    Ok(())
}

/// [`both_right_layouts_everywhere`] for each `[m, k, n]` of `sizes`, in
/// `f32` and in `f64`.
fn in_f32_and_f64(sizes: &[[usize; 3]]) -> TestResult {
    for &size in sizes {
        both_right_layouts_everywhere::<f32>(size, |x| x as f32)?;
        both_right_layouts_everywhere::<f64>(size, |x| x)?;
    }
    Ok(())
}

#[test]
fn every_block_edge() -> TestResult {
    // 97 rows: 16 full 6-row tiles and one of 1, in 24-row blocks (k = 20
    // is one slice);
    // [391, 130, 130]: past a 384-row block by one tile and one row, k
    // past a 128-deep slice by 2 (on one thread; a row split's blocks are
    // 198 and 193 rows on 2 threads), each row block packing its panels;
    // k = 513 at 33 columns: one 512-deep slice and one more step;
    // n = 1030: past a 1024-column block by less than one vector;
    // [9, 1060, 1030]: eight slices and one of 36 in each column block;
    // [60, 64, 1030]: k in one slice, so 24-row blocks (24, 24 and 12),
    // the later ones reusing the first one's panels;
    // [400, 600, 100]: at most 128 columns, so 512-deep slices (512 and
    // 88), in two row blocks that share the panels;
    // [70, 260, 700]: 70 rows split by rows, one block per thread (36 and
    // 34 rows on 2 threads, 24, 24 and 22 on 3), each block packing its
    // own right panels (a prompt's columns split instead, each range
    // packed by its one thread).
    in_f32_and_f64(&[
        [97, 20, 70],
        [391, 130, 130],
        [7, 513, 33],
        [7, 9, 1030],
        [9, 1060, 1030],
        [60, 64, 1030],
        [400, 600, 100],
        [70, 260, 700],
    ])
}

#[test]
fn short_last_tiles_of_rows_read_in_place() -> TestResult {
    // Left rows read in place end with a 2-row tile when 1 or 2 rows are
    // left of the 6-row tile, a 4-row one for 3 or 4 (AVX-512 and AVX2),
    // and the scalar 4-row tile ends with a 2-row one for 1 or 2: rows
    // 7 to 11 and a 32-row prompt, k in one slice or (300 at 130
    // columns) past two 128-deep ones, n past a vector tile, on every
    // thread count.
    in_f32_and_f64(&[
        [7, 20, 70],
        [8, 300, 70],
        [9, 20, 130],
        [10, 300, 70],
        [11, 20, 70],
        [32, 300, 130],
    ])
}

#[test]
fn a_packed_left_operand_splits_by_rows_too() -> TestResult {
    // A left operand whose columns are not contiguous (a transposed view)
    // is packed into 6-row panels instead of read in place, in every block
    // of a row split: 70 rows on 2 and 3 threads, k past two 128-deep
    // slices; 97 rows ending with a 1-row packed panel; 391 rows past a
    // 384-row block and k past a 128-deep slice, each block and slice
    // packed from its own first row and column.
    for [m, k, n] in [[70, 260, 700], [97, 20, 70], [391, 130, 130]] {
        let stored = Tensor::from_fn([k, m], |[p, i]| wiggle(i * 7919 + p * 104_729))?;
        let a = stored.view().transpose(0, 1)?;
        let b = Tensor::from_fn([k, n], |[p, j]| wiggle(j * 31 + p * 1_000_003 + 5))?;
        let expected = naive(&a.into_dyn(), &b.view().into_dyn()).1;
        for simd in LEVELS {
            for threads in THREADS {
                let out = under(simd, threads, || matmul(&a, &b.view()))??;
                assert!(
                    bits(out.as_slice()) == expected,
                    "{simd:?} on {threads} threads: [{m}, {k}] (transposed) x [{k}, {n}]"
                );
            }
        }
    }
    Ok(())
}

#[test]
fn one_to_four_rows_split_over_columns_or_rows() -> TestResult {
    // One matrix of 1 to 4 rows: on several threads one row splits into
    // column ranges, more rows split by row; k past one staged block.
    for m in 1..=4 {
        both_right_layouts_everywhere::<f32>([m, 300, 333], |x| x as f32)?;
        both_right_layouts_everywhere::<f64>([m, 70, 200], |x| x)?;
    }
    // One row against x·Wᵀ with k a multiple of 16: whole 16-column blocks
    // transposed in registers and consumed at once (AVX-512, f32), the
    // rest of the columns staged; 300 columns split over threads.
    for size in [[1, 96, 77], [1, 768, 300]] {
        both_right_layouts_everywhere::<f32>(size, |x| x as f32)?;
    }
    Ok(())
}

#[test]
fn a_prompt_splits_its_columns_over_the_threads() -> TestResult {
    // 5 to 64 rows (a prompt) on 2 or 3 threads split the columns into
    // 64-aligned ranges, one per thread, each a one-thread product of every
    // row: 200 columns on 3 threads are ranges of 128 and 72 (a ragged
    // panel in the last), 1030 past a 1024-column block; 65 rows and 127
    // columns (too narrow to split) split by rows. With the scale and bias
    // epilogue, whose bias is sliced per range.
    for size in [
        [32, 300, 200],
        [64, 20, 1030],
        [5, 40, 128],
        [65, 30, 200],
        [32, 50, 127],
    ] {
        both_right_layouts_everywhere::<f32>(size, |x| x as f32)?;
        both_right_layouts_everywhere::<f64>(size, |x| x)?;
        affine_everywhere::<f32>(1, size, 0.125, |x| x as f32)?;
        affine_everywhere::<f64>(2, size, -0.3, |x| x)?;
    }
    Ok(())
}

#[test]
fn large_products_split_by_default_and_agree() -> TestResult {
    // 2 · 3 · 100 · 140 · 120 flops is above the default threshold, so this
    // splits over the pool's threads with the default settings.
    let a = Tensor::from_fn([3, 100, 140], |[h, i, p]| {
        wiggle(h * 7 + i * 7919 + p * 104_729)
    })?;
    let b = Tensor::from_fn([3, 140, 120], |[h, p, j]| {
        wiggle(h * 5 + j * 31 + p * 65_537)
    })?;
    let expected = naive(&a.view().into_dyn(), &b.view().into_dyn()).1;
    for threads in THREADS {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()?;
        let out = pool.install(|| matmul(&a.view(), &b.view()))?;
        assert!(bits(out.as_slice()) == expected, "{threads} threads");
    }
    Ok(())
}

#[test]
fn a_transposed_key_cache_gives_the_scores_of_a_row_major_one() -> TestResult {
    // Decoding with a key cache: `q [H, 1, D] x Kᵀ`, with the cache stored
    // `[H, T_max, D]` (read through a transposed view) or already transposed
    // `[H, D, T_max]` (read along its rows), both sliced to `T` positions.
    let (heads, t_max, t, d) = (3, 80, 67, 16);
    let q = Tensor::from_fn([heads, 1, d], |[h, _, c]| wiggle(h * 131 + c))?;
    let cache = Tensor::from_fn([heads, t_max, d], |[h, s, c]| {
        wiggle(h * 1_000_003 + s * 977 + c + 11)
    })?;
    let cache_t = cache.view().transpose(1, 2)?.materialize()?;
    let k_t_view = cache.view().slice(1, 0..t)?.transpose(1, 2)?;
    let k_t_stored = cache_t.view().slice(2, 0..t)?;
    let expected = naive(&q.view().into_dyn(), &k_t_view.into_dyn()).1;
    for simd in LEVELS {
        for threads in THREADS {
            let (from_view, from_stored) = under(simd, threads, || {
                (matmul(&q.view(), &k_t_view), matmul(&q.view(), &k_t_stored))
            })?;
            assert!(
                bits(from_view?.as_slice()) == expected,
                "{simd:?}, {threads}"
            );
            assert!(
                bits(from_stored?.as_slice()) == expected,
                "{simd:?}, {threads}"
            );
        }
    }
    Ok(())
}

/// `matmul_affine` under every instruction set and thread count equals its
/// scalar model: the naive chain `c`, then `c · alpha`, then `+ bias[j]`.
fn affine_everywhere<F: Float + Bits>(
    batch: usize,
    [m, k, n]: [usize; 3],
    alpha: F,
    convert: fn(f64) -> F,
) -> TestResult {
    let a = Tensor::from_fn([batch, m, k], |[h, i, p]| {
        convert(wiggle(h * 65_537 + i * 7919 + p * 104_729))
    })?;
    let w = Tensor::from_fn([n, k], |[j, p]| convert(wiggle(j * 31 + p * 1_000_003 + 5)))?;
    let bias = Tensor::from_fn([n], |[j]| convert(wiggle(j * 17 + 3)))?;
    let w_t = w.view().transpose(0, 1)?;
    let (_, chains) = naive(&a.view().into_dyn(), &w_t.into_dyn());
    let expected: Vec<u64> = chains
        .iter()
        .enumerate()
        .map(|(at, &c)| {
            let c: F = from_bits(c);
            (c * alpha + bias.as_slice()[at % n]).bits()
        })
        .collect();
    let row_major = w_t.materialize()?;
    for simd in LEVELS {
        for threads in THREADS {
            for right in [w_t, row_major.view()] {
                let out: Tensor<3, F> = under(simd, threads, || {
                    matmul_affine(&a, &right, alpha, Some(bias.view()))
                })??;
                assert!(
                    bits(out.as_slice()) == expected,
                    "{simd:?} on {threads} threads: {batch} x [{m}, {k}] x [{k}, {n}]"
                );
            }
        }
    }
    Ok(())
}

/// A value of `F` from the bits [`bits`] gave.
fn from_bits<F: Float + Bits>(bits: u64) -> F {
    if size_of::<F>() == 4 {
        F::round_from_f64(f64::from(f32::from_bits(bits as u32)))
    } else {
        F::round_from_f64(f64::from_bits(bits))
    }
}

#[test]
fn the_scale_and_bias_epilogue_is_the_composition_bit_for_bit() -> TestResult {
    // The decode path (2 rows), 24-row blocks, two 384-row blocks of two
    // k slices (391 rows), a batch of 4 folded into one 52-row product,
    // k = 0, a second 1024-column block and many k slices: the epilogue
    // runs once per finished value on each.
    for (batch, size) in [
        (1, [2, 300, 333]),
        (1, [97, 20, 70]),
        (1, [391, 130, 130]),
        (4, [13, 40, 24]),
        (1, [7, 0, 9]),
    ] {
        affine_everywhere::<f32>(batch, size, 0.125, |x| x as f32)?;
        affine_everywhere::<f64>(batch, size, -0.3, |x| x)?;
        affine_everywhere::<f32>(batch, size, 1.0, |x| x as f32)?;
    }
    affine_everywhere::<f32>(1, [9, 1060, 1030], 0.125, |x| x as f32)
}

#[test]
fn a_half_precision_affine_product_is_the_f32_one_rounded_once() -> TestResult {
    use llm_from_scratch::tensor::f16;
    let value = |seed: usize| f16::from_f64(wiggle(seed));
    let a = Tensor::from_fn([5, 40], |[i, p]| value(i * 41 + p))?;
    let w = Tensor::from_fn([6, 40], |[j, p]| value(j * 43 + p + 7))?;
    let b = Tensor::from_fn([1], |_| value(99))?; // broadcast to every column
    let wide = |t: &[f16]| t.iter().map(|x| x.to_f32()).collect::<Vec<_>>();
    let (a32, w32) = (
        Tensor::from_vec([5, 40], wide(a.as_slice()))?,
        Tensor::from_vec([6, 40], wide(w.as_slice()))?,
    );
    let b32 = Tensor::from_vec([1], wide(b.as_slice()))?;
    let half: Tensor<2, f16> = matmul_affine(
        &a,
        &w.view().transpose(0, 1)?,
        f16::from_f32(0.5),
        Some(b.view()),
    )?;
    let full: Tensor<2, f32> =
        matmul_affine(&a32, &w32.view().transpose(0, 1)?, 0.5, Some(b32.view()))?;
    let rounded: Vec<f16> = full.as_slice().iter().map(|&x| f16::from_f32(x)).collect();
    assert_eq!(half.as_slice(), &rounded[..]);
    Ok(())
}
