//! `attention` is bit-identical to its composition, `matmul_affine(q, kᵀ,
//! scale)` -> `causal_softmax` (or `softmax_axis` without a mask) ->
//! `matmul(p, v)`, each of which is checked against its own scalar model
//! elsewhere: on random shapes (query blocks cut at 64 rows), batch axes
//! broadcast between the operands (grouped-query attention), strided
//! layouts (permuted, padded, stepped, stride-0), offsets, tricky values
//! (NaN, ±inf, ties, overflowing exponents), in f32 and f64, through every
//! form (ranked, dynamic, method), for every thread count and SIMD level.
//! Also: non-finite values behind the mask (NaN there, as in the
//! composition), the empty cases, half precision, and the typed errors.
//! NaN results match any NaN.

mod common;
#[path = "data_ops/layout.rs"]
mod layout;
#[path = "common/tuning.rs"]
mod tuning;
#[path = "data_ops/values.rs"]
mod values;

use common::with_rank;
use layout::Layout;
use layout::mix;
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::dynamic::{self, DynTensor, DynView};
use llm_from_scratch::tensor::{bf16, f16};
use proptest::prelude::*;
use tuning::{LEVELS, under};
use values::{Elem, canonical};

/// The composition `attention` fuses, on dynamic views.
fn composed<F: Elem>(
    q: &DynView<'_, F>,
    k: &DynView<'_, F>,
    v: &DynView<'_, F>,
    scale: F,
    mask: AttentionMask,
) -> Result<DynTensor<F>, Error> {
    let rank = k.rank();
    let scores = matmul_affine(q, &k.transpose(rank - 2, rank - 1)?, scale, None)?;
    let probabilities = match mask {
        AttentionMask::Full => dynamic::softmax_axis(&scores, rank - 1)?,
        AttentionMask::Causal { offset } => causal_softmax(&scores, offset)?,
    };
    matmul(&probabilities, v)
}

type Run<F> = (String, Result<(Vec<usize>, Vec<F>), Error>);

fn forms<F: Elem, D: Dimension>(
    api: &str,
    [q, k, v]: [ArrayBase<&[F], D>; 3],
    scale: F,
    mask: AttentionMask,
) -> Vec<Run<F>> {
    let pair = |t: ArrayBase<Vec<F>, D>| (t.shape().as_ref().to_vec(), t.into_vec());
    vec![
        (
            api.to_string(),
            attention(&q, &k, &v, scale, mask).map(pair),
        ),
        (
            format!("{api} method"),
            q.attention(&k, &v, scale, mask).map(pair),
        ),
    ]
}

fn every_form<F: Elem>(views: [DynView<'_, F>; 3], scale: F, mask: AttentionMask) -> Vec<Run<F>> {
    let mut runs = forms("dynamic", views, scale, mask);
    with_rank!(views[0].rank(), [2 3 4], |R| {
        let ranked: [View<'_, R, F>; 3] = views.map(|v| v.into_ranked().expect("rank"));
        runs.extend(forms("ranked", ranked, scale, mask));
    });
    runs
}

/// One drawn case: the three operands' layouts and how to fill them.
#[derive(Debug, Clone)]
struct Case {
    layouts: [Layout; 3],
    seed: u64,
    mask: AttentionMask,
    /// Queries and keys may hold NaN (besides ±inf, ties, huge values).
    nan: bool,
    /// Queries and keys are plain finite values instead: nearly every
    /// row of tricky scores of a hundred keys holds an infinity and gives
    /// a NaN row, behind which a wrong score or product would hide.
    tame: bool,
}

impl Case {
    /// The owners: tricky queries and keys, finite values.
    fn owners<F: Elem>(&self) -> [DynTensor<F>; 3] {
        let [q, k, v] = &self.layouts;
        let finite = |i: usize| {
            let h = mix(self.seed ^ 0xa77e, i);
            <F as Elem>::from_f64((h % 4001) as f64 / 200.0 - 10.0)
        };
        // Values: finite, or (one case in four) tricky, so that a NaN or
        // an infinity sits behind the mask now and then.
        let v = if self.seed.is_multiple_of(4) {
            values::owner::<F>(v, self.seed ^ 2, !self.nan, None)
        } else {
            v.owner(finite)
        };
        if self.tame {
            let tame = |seed: u64| {
                move |i: usize| <F as Elem>::from_f64((mix(seed, i) % 2001) as f64 / 500.0 - 2.0)
            };
            return [q.owner(tame(self.seed)), k.owner(tame(self.seed ^ 1)), v];
        }
        [
            values::owner::<F>(q, self.seed, !self.nan, None),
            values::owner::<F>(k, self.seed ^ 1, !self.nan, None),
            v,
        ]
    }

    fn check<F: Elem>(&self) {
        let owners = self.owners::<F>();
        let [q, k, v] = [0, 1, 2].map(|i| self.layouts[i].view(&owners[i]));
        let scale = F::from_f64(0.37);
        let want = composed(&q, &k, &v, scale, self.mask).expect("composition");
        for (what, run) in every_form([q, k, v], scale, self.mask) {
            let (shape, values) = run.unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(shape, want.shape(), "{what}");
            assert_eq!(
                canonical(&values),
                canonical(want.as_slice()),
                "{what} {} {:?}",
                F::NAME,
                self.mask
            );
        }
    }
}

/// Random cases: batch axes `0..=2` of extent `1..=3`, each operand's
/// batch extent possibly 1 (broadcast); `T_q`, `T_k` up to `max_rows`.
fn case(max_rows: usize) -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((1_usize..=3, 0_u8..3), 0..=2),
        0..=max_rows,
        0..=max_rows,
        0_usize..=6,
        0_usize..=4,
        prop::option::of(0_usize..=5),
        any::<u64>(),
        any::<bool>(),
    )
        .prop_flat_map(|(batch, queries, keys, depth, width, offset, seed, nan)| {
            // Which operand keeps each batch axis whole: 0, 1, 2, or all (3+).
            let extents = |operand: u8| -> Vec<usize> {
                batch
                    .iter()
                    .map(|&(n, only)| if only == operand || n == 1 { n } else { 1 })
                    .collect()
            };
            let shape = |operand: u8, rows: usize, cols: usize| {
                let mut shape = extents(operand);
                shape.extend([rows, cols]);
                shape
            };
            let mask = match offset {
                None => AttentionMask::Full,
                Some(offset) => AttentionMask::Causal { offset },
            };
            (
                layout::layout(shape(0, queries, depth)),
                layout::layout(shape(1, keys, depth)),
                layout::layout(shape(2, keys, width)),
                Just(seed),
                Just(mask),
                Just(nan),
            )
        })
        .prop_map(|(q, k, v, seed, mask, nan)| Case {
            layouts: [q, k, v],
            seed,
            mask,
            nan,
            tame: false,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn f64_equals_the_composition(case in case(9)) {
        case.check::<f64>();
    }

    #[test]
    fn f32_equals_the_composition(case in case(9)) {
        case.check::<f32>();
    }

    #[test]
    fn threads_and_simd_levels_give_the_same_bits(
        case in case(9),
        threads in 1_usize..=3,
        level in 0_usize..3,
    ) {
        let owners = case.owners::<f32>();
        let [q, k, v] = [0, 1, 2].map(|i| case.layouts[i].view(&owners[i]));
        let run = || {
            canonical(attention(&q, &k, &v, 0.5, case.mask).expect("attention").as_slice())
        };
        let reference = run();
        prop_assert_eq!(under(LEVELS[level], threads, run), reference);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Several blocks of 64 query rows, the mask edge inside a block, long
    /// key rows (several softmax leaves), on 1 to 3 threads.
    #[test]
    fn blocks_of_query_rows_equal_the_composition(
        queries in 1_usize..=150,
        extra in 0_usize..=90,
        offset in prop::option::of(0_usize..=40),
        transposed in any::<bool>(),
        threads in 1_usize..=3,
        seed in any::<u64>(),
    ) {
        let (depth, width) = (7, 5);
        let keys = queries + extra;
        let mask = offset.map_or(AttentionMask::Full, |offset| AttentionMask::Causal { offset });
        let key_layout = if transposed {
            Layout::permuted(&[2, keys, depth], &[0, 2, 1])
        } else {
            Layout::dense(&[2, keys, depth])
        };
        let case = Case {
            layouts: [
                Layout::dense(&[2, queries, depth]),
                key_layout,
                Layout::permuted(&[2, keys, width], &[1, 0, 2]),
            ],
            seed,
            mask,
            nan: false,
            tame: true,
        };
        case.check::<f32>();
        let owners = case.owners::<f64>();
        let [q, k, v] = [0, 1, 2].map(|i| case.layouts[i].view(&owners[i]));
        let run = || canonical(attention(&q, &k, &v, 0.125, mask).expect("attention").as_slice());
        prop_assert_eq!(under(LEVELS[0], threads, run), run());
    }
}

/// Heads wider than one `k` slice of `Q · Kᵀ` (150 > 128), more value
/// columns than a narrow product (130 > 128: 128-deep slices of `P · V`,
/// three panels each), several 64-row blocks per head, and key and value
/// heads shared by three query heads: each thread packs a head's keys and
/// values once for all its blocks. The composition's bits, on every
/// instruction set and 1 to 3 threads.
#[test]
fn wide_heads_and_shared_key_value_heads_equal_the_composition() {
    let causal = AttentionMask::Causal { offset: 500 };
    for (mask, keys) in [(AttentionMask::Full, 260), (causal, 700)] {
        let case = Case {
            layouts: [
                Layout::dense(&[3, 200, 150]),
                Layout::permuted(&[1, keys, 150], &[1, 0, 2]),
                Layout::permuted(&[1, keys, 130], &[1, 0, 2]),
            ],
            seed: 7,
            mask,
            nan: false,
            tame: true,
        };
        case.check::<f32>();
        case.check::<f64>();
        let owners = case.owners::<f32>();
        let [q, k, v] = [0, 1, 2].map(|i| case.layouts[i].view(&owners[i]));
        let run = || {
            canonical(
                attention(&q, &k, &v, 0.125, mask)
                    .expect("attention")
                    .as_slice(),
            )
        };
        let reference = run();
        for (level, threads) in [(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)] {
            assert_eq!(
                under(LEVELS[level], threads, run),
                reference,
                "{threads} threads"
            );
        }
    }
}

#[test]
fn a_prompt_a_cache_step_and_shared_key_value_heads() {
    let t = 5;
    let q = Tensor::from_fn([2, t, 3], |[h, i, d]| ((h + 2 * i + d) % 5) as f64 * 0.25).unwrap();
    let k = Tensor::from_fn([2, t, 3], |[h, j, d]| ((3 * h + j * d) % 7) as f64 * 0.5).unwrap();
    let v = Tensor::from_fn([2, t, 2], |[h, j, e]| (h * 10 + j * 2 + e) as f64).unwrap();
    let causal = AttentionMask::Causal { offset: 0 };
    let prompt = attention(&q, &k, &v, 0.5, causal).unwrap();
    // The first query of each head sees only the first key: its value row.
    for h in 0..2 {
        let first = prompt.view().select(0, h).unwrap().select(0, 0).unwrap();
        assert_eq!(
            first.materialize().unwrap().as_slice(),
            v.view()
                .select(0, h)
                .unwrap()
                .select(0, 0)
                .unwrap()
                .materialize()
                .unwrap()
                .as_slice()
        );
    }
    // A decode step: the last query against the whole cache (offset T_k - 1)
    // is the last row of the prompt's result.
    let last = q.view().slice(1, t - 1..t).unwrap();
    let step = attention(&last, &k, &v, 0.5, AttentionMask::Causal { offset: t - 1 }).unwrap();
    assert_eq!(
        step.as_slice(),
        prompt
            .view()
            .slice(1, t - 1..t)
            .unwrap()
            .materialize()
            .unwrap()
            .as_slice()
    );
    // Without a mask the last query sees the same keys as under the causal one.
    let full = attention(&last, &k, &v, 0.5, AttentionMask::Full).unwrap();
    assert_eq!(full, step);
    // Grouped-query attention: 4 query heads in 2 groups share 2 key /
    // value heads through a stride-0 axis, the same as repeating them.
    let grouped_q =
        Tensor::from_fn([2, 2, t, 3], |[g, r, i, d]| ((g + r + i * d) % 4) as f64).unwrap();
    let shared_k: View<'_, 4> = k.view().unsqueeze(1).unwrap(); // [2, 1, T, 3]
    let shared_v: View<'_, 4> = v.view().unsqueeze(1).unwrap();
    let grouped = attention(&grouped_q, &shared_k, &shared_v, 0.5, causal).unwrap();
    let repeated_k = shared_k
        .broadcast_to([2, 2, t, 3])
        .unwrap()
        .materialize()
        .unwrap();
    let repeated_v = shared_v
        .broadcast_to([2, 2, t, 2])
        .unwrap()
        .materialize()
        .unwrap();
    assert_eq!(grouped.shape(), &[2, 2, t, 2]);
    assert_eq!(
        grouped,
        attention(&grouped_q, &repeated_k, &repeated_v, 0.5, causal).unwrap()
    );
}

#[test]
fn a_non_finite_value_behind_the_mask_gives_the_compositions_nan() {
    // The composition multiplies a masked key's zero probability by its
    // value (0 · inf = NaN); attention scans for such rows and does the same.
    let q = Tensor::from_fn([2, 70, 1], |[h, i, _]| (h + i % 3) as f32).unwrap();
    let k = Tensor::from_fn([2, 80, 1], |[_, j, _]| (j % 5) as f32 * 0.5).unwrap();
    let mut v = Tensor::from_fn([2, 80, 2], |[h, j, e]| (h + j + e) as f32).unwrap();
    *v.get_mut([0, 75, 1]).unwrap() = f32::INFINITY; // behind every query of head 0
    *v.get_mut([1, 3, 0]).unwrap() = f32::NAN; // seen by queries 3.. of head 1
    // Seen by the last query block of head 1, behind the first block's
    // keys: the blocks share packed values, and this row is found there.
    *v.get_mut([1, 66, 1]).unwrap() = f32::INFINITY;
    let causal = AttentionMask::Causal { offset: 0 };
    let fused = attention(&q, &k, &v, 1.0, causal).unwrap();
    let want = composed(
        &q.view().into_dyn(),
        &k.view().into_dyn(),
        &v.view().into_dyn(),
        1.0,
        causal,
    )
    .unwrap();
    assert_eq!(canonical(fused.as_slice()), canonical(want.as_slice()));
    // Head 0: column 1 is NaN in every row (0 · inf), column 0 finite.
    let head = fused.view().select(0, 0).unwrap();
    assert!(head.select(1, 1).unwrap().iter().all(|x| x.is_nan()));
    assert!(head.select(1, 0).unwrap().iter().all(|x| x.is_finite()));
    // Head 1, column 1: NaN (0 · inf) for the queries before key 66, the
    // first block's included, and +inf from query 66 on.
    let column: Vec<f32> = fused
        .view()
        .select(0, 1)
        .unwrap()
        .select(1, 1)
        .unwrap()
        .iter()
        .copied()
        .collect();
    assert!(column[..66].iter().all(|x| x.is_nan()));
    assert!(column[66..].iter().all(|&x| x == f32::INFINITY));
    // Every visible score -inf: NaN, as in the composition and PyTorch.
    let q = Tensor::from_vec([1, 1], vec![f32::NEG_INFINITY]).unwrap();
    let k = Tensor::from_vec([1, 1], vec![1.0_f32]).unwrap();
    assert!(attention(&q, &k, &k, 1.0, causal).unwrap().as_slice()[0].is_nan());
}

#[test]
fn empty_axes_give_the_compositions_shapes_and_zeros() {
    let causal = AttentionMask::Causal { offset: 0 };
    // No keys: an empty softmax times an empty value matrix is zeros.
    let q = Tensor::<3, f64>::full([2, 3, 4], 1.0).unwrap();
    let k = Tensor::<3, f64>::zeros([2, 0, 4]).unwrap();
    let v = Tensor::<3, f64>::zeros([2, 0, 5]).unwrap();
    let out = attention(&q, &k, &v, 1.0, AttentionMask::Full).unwrap();
    assert_eq!((out.shape(), out.as_slice()), (&[2, 3, 5], &[0.0; 30][..]));
    // Width 0: every score 0, the values averaged uniformly.
    let q = Tensor::<2, f64>::zeros([2, 0]).unwrap();
    let k = Tensor::<2, f64>::zeros([4, 0]).unwrap();
    let v = Tensor::from_vec([4, 1], vec![1.0, 2.0, 3.0, 6.0]).unwrap();
    assert_eq!(
        attention(&q, &k, &v, 1.0, AttentionMask::Full)
            .unwrap()
            .as_slice(),
        &[3.0, 3.0]
    );
    assert_eq!(
        attention(&q, &k, &v, 1.0, causal).unwrap().as_slice(),
        &[1.0, 1.5]
    );
    // No queries, no value columns: empty outputs.
    let none = Tensor::<2, f64>::zeros([0, 2]).unwrap();
    let keys = Tensor::<2, f64>::zeros([3, 2]).unwrap();
    assert_eq!(
        attention(&none, &keys, &keys, 1.0, causal).unwrap().shape(),
        &[0, 2]
    );
    let thin = Tensor::<2, f64>::zeros([3, 0]).unwrap();
    assert_eq!(
        attention(&keys, &keys, &thin, 1.0, causal).unwrap().shape(),
        &[3, 0]
    );
}

#[test]
fn half_precision_is_the_f32_result_rounded_once() {
    let q = Tensor::from_fn([3, 70, 8], |[h, i, d]| {
        ((h * 7 + i * 3 + d) % 11) as f32 / 4.0 - 1.0
    })
    .unwrap();
    let k = Tensor::from_fn([3, 90, 8], |[h, j, d]| {
        ((h + j * 5 + d * 3) % 13) as f32 / 5.0 - 1.0
    })
    .unwrap();
    let v = Tensor::from_fn([3, 90, 4], |[h, j, e]| ((h + j + e * 7) % 9) as f32 - 4.0).unwrap();
    let mask = AttentionMask::Causal { offset: 20 };
    let narrow = |t: &Tensor<3, f32>| (t.cast::<bf16>().unwrap(), t.cast::<f16>().unwrap());
    let ((qb, qh), (kb, kh), (vb, vh)) = (narrow(&q), narrow(&k), narrow(&v));
    let wide = |t: &Tensor<3, bf16>| t.cast::<f32>().unwrap();
    let want = attention(&wide(&qb), &wide(&kb), &wide(&vb), 0.25, mask).unwrap();
    let got = attention(&qb, &kb, &vb, bf16::from_f32(0.25), mask).unwrap();
    assert_eq!(got, want.cast::<bf16>().unwrap());
    let wide = |t: &Tensor<3, f16>| t.cast::<f32>().unwrap();
    let want = attention(&wide(&qh), &wide(&kh), &wide(&vh), 0.25, mask).unwrap();
    let got = attention(&qh, &kh, &vh, f16::from_f32(0.25), mask).unwrap();
    assert_eq!(got, want.cast::<f16>().unwrap());
}

#[test]
fn a_chain_that_underflows_to_minus_zero_keeps_the_compositions_sign() {
    // Row 1 sees two keys whose products underflow to -0.0; the
    // composition then adds the masked third key's 0 · v, which makes the
    // sum +0.0 when v has a positive sign. attention skips that key and
    // must agree.
    let tiny = -f32::from_bits(1);
    let q = Tensor::from_vec([2, 1], vec![0.0_f32, 0.0]).unwrap();
    let k = Tensor::from_vec([3, 1], vec![0.0_f32; 3]).unwrap();
    for (last, want) in [(1.0_f32, 0.0_f32), (-1.0, -0.0), (0.0, 0.0), (-0.0, -0.0)] {
        let v = Tensor::from_vec([3, 1], vec![tiny, tiny, last]).unwrap();
        let causal = AttentionMask::Causal { offset: 0 };
        let fused = attention(&q, &k, &v, 1.0, causal).unwrap();
        let scores = matmul_affine(&q, &k.view().transpose(0, 1).unwrap(), 1.0, None).unwrap();
        let composed = matmul(&causal_softmax(&scores, 0).unwrap(), &v).unwrap();
        assert_eq!(
            fused.as_slice()[1].to_bits(),
            want.to_bits(),
            "masked value {last}"
        );
        assert_eq!(canonical(fused.as_slice()), canonical(composed.as_slice()));
    }
}

#[test]
fn keys_no_buffer_can_hold_are_an_error_not_a_panic() {
    // A stride-0 key / value of 2^59 (or 2^61) rows: the composition's
    // scores overflow; attention's block of scores cannot be allocated.
    let zero = [0.0_f32];
    for (rows, keys) in [(64, 1_usize << 59), (8, 1 << 61), (2, 1 << 61)] {
        let q = Tensor::<2, f32>::zeros([rows, 1]).unwrap();
        let kv = View::from_parts(&zero, [keys, 1], [0, 0], 0).unwrap();
        for mask in [AttentionMask::Full, AttentionMask::Causal { offset: keys }] {
            assert!(
                matches!(
                    attention(&q, &kv, &kv, 1.0, mask),
                    Err(Error::AllocationFailed {
                        op: "attention",
                        ..
                    })
                ),
                "{rows} x {keys}"
            );
        }
    }
    // An infinite stride-0 value of 2^56 rows behind the mask: every block
    // must include all its rows, far more than a thread may pack (a
    // wrapped packed size once made the call loop instead of failing).
    let inf = [f32::INFINITY];
    let q = Tensor::<2, f32>::zeros([65, 129]).unwrap();
    let k = View::from_parts(&zero, [1 << 56, 129], [0, 0], 0).unwrap();
    let v = View::from_parts(&inf, [1 << 56, 253], [0, 0], 0).unwrap();
    assert!(matches!(
        attention(&q, &k, &v, 1.0, AttentionMask::Causal { offset: 0 }),
        Err(Error::AllocationFailed {
            op: "attention",
            ..
        })
    ));
    // A -0.0 chain before 2^40 skipped keys of a stride-0 value: one row is
    // read to decide its sign (the value is negative: -0.0 stays).
    let tiny = [-f32::from_bits(1)];
    let q = Tensor::<2, f32>::zeros([1, 1]).unwrap();
    let k = View::from_parts(&zero, [1 << 40, 1], [0, 0], 0).unwrap();
    let v = View::from_parts(&tiny, [1 << 40, 1], [0, 0], 0).unwrap();
    let out = attention(&q, &k, &v, 1.0, AttentionMask::Causal { offset: 1 }).unwrap();
    assert_eq!(out.as_slice()[0].to_bits(), (-0.0_f32).to_bits());
    // Causal with few visible keys reads one row of a stride-0 value.
    let q = Tensor::<2, f32>::zeros([2, 1]).unwrap();
    let kv = View::from_parts(&zero, [1 << 40, 1], [0, 0], 0).unwrap();
    let out = attention(&q, &kv, &kv, 1.0, AttentionMask::Causal { offset: 0 }).unwrap();
    assert_eq!(out.as_slice(), &[0.0, 0.0]);
}

#[test]
fn bad_operands_are_typed_errors_in_order() {
    let full = AttentionMask::Full;
    let q = Tensor::<3>::zeros([2, 3, 4]).unwrap();
    let k = Tensor::<3>::zeros([2, 5, 4]).unwrap();
    let v = Tensor::<3>::zeros([2, 5, 6]).unwrap();
    assert_eq!(
        attention(&q, &k, &v, 1.0, full).unwrap().shape(),
        &[2, 3, 6]
    );
    let narrow_k = Tensor::<3>::zeros([2, 5, 3]).unwrap();
    let error = attention(&q, &narrow_k, &v, 1.0, full).unwrap_err();
    assert_eq!(
        error.to_string(),
        "attention: the query has 4 values per row, the key 3"
    );
    let short_v = Tensor::<3>::zeros([2, 4, 6]).unwrap();
    assert_eq!(
        attention(&q, &k, &short_v, 1.0, full),
        Err(Error::AttentionMismatch {
            op: "attention",
            quantity: "rows",
            left: "key",
            left_extent: 5,
            right: "value",
            right_extent: 4
        })
    );
    let three_heads = Tensor::<3>::zeros([3, 5, 4]).unwrap();
    assert_eq!(
        attention(&q, &three_heads, &v, 1.0, full),
        Err(Error::IncompatibleBroadcast {
            op: "attention",
            axis: 0,
            left_dimension: 2,
            right_dimension: 3
        })
    );
    let three_v = Tensor::<3>::zeros([3, 5, 6]).unwrap();
    assert_eq!(
        attention(&q, &k, &three_v, 1.0, full),
        Err(Error::IncompatibleBroadcast {
            op: "attention",
            axis: 0,
            left_dimension: 2,
            right_dimension: 3
        })
    );
    // The width is checked before the batch axes, as matmul does.
    assert!(matches!(
        attention(&q, &Tensor::<3>::zeros([3, 5, 1]).unwrap(), &v, 1.0, full),
        Err(Error::AttentionMismatch {
            quantity: "values per row",
            left_extent: 4,
            right_extent: 1,
            ..
        })
    ));
    // Dynamic operands of different ranks: the axis is the output's.
    let (dq, dk, dv) = (
        DynTensor::<f64>::zeros(&[2, 3, 2]).unwrap(),
        DynTensor::<f64>::zeros(&[4, 3, 2]).unwrap(),
        DynTensor::<f64>::zeros(&[5, 1, 3, 4]).unwrap(),
    );
    assert_eq!(
        attention(&dq, &dk, &dv, 1.0, full),
        Err(Error::IncompatibleBroadcast {
            op: "attention",
            axis: 1,
            left_dimension: 2,
            right_dimension: 4
        })
    );
    assert_eq!(
        attention(&dq, &dq, &dv, 1.0, full).unwrap().shape(),
        &[5, 2, 3, 4]
    );
    // A dynamic operand of rank 1 (a ranked one does not compile).
    let vector = DynTensor::<f64>::zeros(&[4]).unwrap();
    let matrix = DynTensor::<f64>::zeros(&[5, 4]).unwrap();
    assert_eq!(
        attention(&vector, &matrix, &matrix, 1.0, full),
        Err(Error::RankTooSmall {
            op: "attention",
            rank: 1,
            minimum: 2
        })
    );
    // An output no memory holds: a [2^61, 1, 2] broadcast query.
    let data = [0.5_f64; 2];
    let many = View::from_parts(&data, [1 << 61, 1, 2], [0, 0, 1], 0).unwrap();
    let one = View::from_parts(&data, [1, 1, 2], [0, 2, 1], 0).unwrap();
    assert_eq!(
        attention(&many, &one, &one, 1.0, full).map(|t| t.len()),
        Err(Error::AllocationFailed {
            op: "attention",
            elements: 1 << 62
        })
    );
}
