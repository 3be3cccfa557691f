//! The autograd rules against PyTorch autograd (tests/fixtures/autograd/,
//! written by scripts/autograd_fixture.py: every case's output and every
//! input's gradient for a seeded cotangent), and against central finite
//! differences in f64 on random shapes and strided layouts.

use std::collections::HashMap;
use std::path::Path;

use llm_from_scratch::autograd::{Tape, Var};
use llm_from_scratch::prelude::*;
use proptest::prelude::*;
use safetensors::{Dtype, SafeTensors};
use serde_json::Value;

type DVar<'t> = Var<'t, DynRank, f64>;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/autograd");

fn floats(st: &SafeTensors, key: &str) -> DynTensor<f64> {
    let t = st.tensor(key).unwrap_or_else(|e| panic!("{key}: {e}"));
    assert_eq!(t.dtype(), Dtype::F64, "{key}");
    let values = t
        .data()
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    DynTensor::from_vec(t.shape().to_vec(), values).expect("shape")
}

fn ints(st: &SafeTensors, key: &str) -> (Vec<usize>, Vec<usize>) {
    let t = st.tensor(key).unwrap_or_else(|e| panic!("{key}: {e}"));
    assert_eq!(t.dtype(), Dtype::I64, "{key}");
    let values = t
        .data()
        .chunks_exact(8)
        .map(|b| usize::try_from(i64::from_le_bytes(b.try_into().expect("8 bytes"))).expect("id"))
        .collect();
    (t.shape().to_vec(), values)
}

fn axis(v: &Value, rank: usize) -> usize {
    let a = v.as_i64().expect("axis");
    if a < 0 {
        (rank as i64 + a) as usize
    } else {
        a as usize
    }
}

fn usizes(v: &Value) -> Vec<usize> {
    v.as_array()
        .expect("list")
        .iter()
        .map(|x| x.as_u64().expect("int") as usize)
        .collect()
}

/// Builds the case's output from its float inputs `xs` (leaves) and the file.
fn forward<'t>(case: &Value, st: &SafeTensors, xs: &[DVar<'t>]) -> Result<DVar<'t>, Error> {
    let p = &case["params"];
    let out_shape = usizes(&case["output"]["shape"]);
    let rank = xs.first().map_or(0, |x| x.shape().len());
    let op = case["op"].as_str().expect("op");
    let unary = |f| xs[0].map(f);
    Ok(match op {
        "add" => xs[0].add(&xs[1])?,
        "sub" => xs[0].sub(&xs[1])?,
        "mul" => xs[0].mul(&xs[1])?,
        "div" => xs[0].div(&xs[1])?,
        "neg" => unary(Function::Neg)?,
        "exp" => unary(Function::Exp)?,
        "ln" => unary(Function::Ln)?,
        "tanh" => unary(Function::Tanh)?,
        "sigmoid" => unary(Function::Sigmoid)?,
        "silu" => unary(Function::Silu)?,
        "gelu_tanh" => unary(Function::GeluTanh)?,
        "gelu_erf" => unary(Function::GeluErf)?,
        "sqrt" => unary(Function::Sqrt)?,
        "rsqrt" => unary(Function::Rsqrt)?,
        "recip" => unary(Function::Recip)?,
        "square" => unary(Function::Square)?,
        "sum" | "mean" | "max" | "amax" | "max_all" => {
            let (x, a) = match p.get("axis") {
                Some(a) if !a.is_null() => (xs[0], axis(a, rank)),
                _ => (
                    xs[0].reshape::<DynRank>(&[xs[0].shape().iter().product()])?,
                    0,
                ),
            };
            let y = match op {
                "sum" => x.sum_axis::<DynRank>(a)?,
                "mean" => x.mean_axis::<DynRank>(a)?,
                "max" => x.max_axis::<DynRank>(a)?,
                _ => x.amax_axis::<DynRank>(a)?,
            };
            y.reshape::<DynRank>(&out_shape)?
        }
        "softmax" => xs[0].softmax(axis(&p["axis"], rank))?,
        "log_softmax" => xs[0].log_softmax(axis(&p["axis"], rank))?,
        "cross_entropy" => {
            let (_, t) = ints(st, case["inputs"][1]["key"].as_str().expect("key"));
            xs[0].cross_entropy(&t)?.into_dyn()
        }
        "layer_norm" => xs[0].layer_norm(&xs[1], &xs[2], p["eps"].as_f64().expect("eps"))?,
        "rms_norm" => xs[0].rms_norm(&xs[1], p["eps"].as_f64().expect("eps"))?,
        "matmul" => {
            let t = |x: DVar<'t>| {
                let r = x.shape().len();
                x.transpose(r - 2, r - 1)
            };
            match p["transpose"].as_str() {
                Some("lhs") => t(xs[0])?.matmul(&xs[1])?,
                Some("rhs") => xs[0].matmul(&t(xs[1])?)?,
                _ => xs[0].matmul(&xs[1])?,
            }
        }
        "embedding" => {
            let (_, ids) = ints(st, case["inputs"][1]["key"].as_str().expect("key"));
            xs[0]
                .index_select(0, &ids)?
                .reshape::<DynRank>(&out_shape)?
        }
        "index_select" => {
            let (_, ids) = ints(st, case["inputs"][1]["key"].as_str().expect("key"));
            xs[0].index_select(axis(&p["axis"], rank), &ids)?
        }
        "concat" => Var::concat(xs, axis(&p["axis"], rank))?,
        "stack" => Var::stack::<DynRank>(xs, axis(&p["axis"], rank + 1))?,
        "permute" => xs[0].permute(&usizes(&p["perm"]))?,
        "transpose" => xs[0].transpose(axis(&p["axes"][0], rank), axis(&p["axes"][1], rank))?,
        "reshape" => match p.get("transpose_first") {
            Some(t) => xs[0].transpose(axis(&t[0], rank), axis(&t[1], rank))?,
            None => xs[0],
        }
        .reshape::<DynRank>(&usizes(&p["to"]))?,
        "narrow" => {
            let a = axis(&p["axis"], rank);
            xs[0].narrow(
                a,
                p["start"].as_u64().expect("start") as usize,
                p["length"].as_u64().expect("len") as usize,
            )?
        }
        "slice" => {
            let mut y = xs[0];
            for (a, r) in p["ranges"].as_array().expect("ranges").iter().enumerate() {
                let r = usizes(r);
                y = y.slice(a, r[0]..r[1], r[2])?;
            }
            y
        }
        "select" => xs[0].select::<DynRank>(
            axis(&p["axis"], rank),
            p["index"].as_u64().expect("index") as usize,
        )?,
        "unsqueeze" => xs[0].unsqueeze::<DynRank>(axis(&p["axis"], rank + 1))?,
        "squeeze" => match p.get("axis") {
            Some(a) if !a.is_null() => xs[0].squeeze::<DynRank>(axis(a, rank))?,
            _ => xs[0].reshape::<DynRank>(&out_shape)?,
        },
        "expand" => xs[0].broadcast_to::<DynRank>(&usizes(&p["to"]))?,
        other => panic!("no builder for op {other}"),
    })
}

fn close(name: &str, got: &[f64], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{name}: length");
    let scale = want.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rel * scale.max(w.abs()),
            "{name}[{i}]: got {g}, PyTorch {w} (scale {scale})"
        );
    }
}

#[test]
fn every_fixture_case_matches_pytorch_autograd() {
    let text = std::fs::read_to_string(Path::new(DIR).join("cases.json")).expect("cases.json");
    let cases: Value = serde_json::from_str(&text).expect("json");
    let mut files: HashMap<String, Vec<u8>> = HashMap::new();
    let mut checked = 0;
    for case in cases["cases"].as_array().expect("cases") {
        let file = case["file"].as_str().expect("file").to_string();
        let bytes = files
            .entry(file.clone())
            .or_insert_with(|| std::fs::read(Path::new(DIR).join(&file)).expect("file"));
        let st = SafeTensors::deserialize(bytes).expect("safetensors");
        let name = case["case"].as_str().expect("case");
        let tape = Tape::<f64>::new();
        let inputs: Vec<&Value> = case["inputs"].as_array().expect("inputs").iter().collect();
        let float_inputs: Vec<&Value> = inputs
            .iter()
            .copied()
            .filter(|i| i["dtype"] == "F64")
            .collect();
        let xs: Vec<DVar> = float_inputs
            .iter()
            .map(|i| {
                // 0-d inputs are stored with shape [1]; the case lists the true shape.
                let x = floats(&st, i["key"].as_str().expect("key")).into_vec();
                tape.leaf(DynTensor::from_vec(usizes(&i["shape"]), x).expect("x"))
                    .expect("leaf")
            })
            .collect();
        let y = forward(case, &st, &xs).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want_y = floats(&st, case["output"]["key"].as_str().expect("key"));
        assert_eq!(
            y.shape(),
            usizes(&case["output"]["shape"]),
            "{name}: output shape"
        );
        close(
            &format!("{name}.y"),
            y.value().expect("y").as_slice(),
            want_y.as_slice(),
            1e-12,
        );
        // A 0-d tensor may be stored with shape [1]: the cotangent takes y's shape.
        let dy = floats(&st, case["cotangent"].as_str().expect("dy")).into_vec();
        let dy = DynTensor::from_vec(y.shape(), dy).expect("dy");
        let grads = y
            .backward_with(&dy)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (x, i) in xs.iter().zip(&float_inputs) {
            let key = i["grad"].as_str().expect("grad");
            let want = floats(&st, key);
            let got = grads.get(x).expect("grad");
            assert_eq!(got.shape(), usizes(&i["shape"]).as_slice(), "{key}: shape");
            close(key, got.as_slice(), want.as_slice(), 1e-12);
        }
        checked += 1;
    }
    assert_eq!(checked, cases["cases"].as_array().expect("cases").len());
}

#[test]
fn typed_errors_not_panics() {
    let tape = Tape::<f64>::new();
    let x = tape
        .leaf(Tensor::from_vec([2, 3], vec![0.0; 6]).expect("x"))
        .expect("leaf");
    assert!(matches!(x.backward(), Err(Error::BackwardNotScalar { .. })));
    assert!(matches!(
        x.cross_entropy(&[0, 3]),
        Err(Error::IndexSelectOutOfBounds {
            index: 3,
            extent: 3,
            ..
        })
    ));
    assert!(matches!(
        x.cross_entropy(&[0]),
        Err(Error::ElementCountMismatch { .. })
    ));
    let other = Tape::<f64>::new();
    let z = other
        .leaf(Tensor::from_vec([2, 3], vec![0.0; 6]).expect("z"))
        .expect("leaf");
    assert!(matches!(x.add(&z), Err(Error::InvalidArgument { .. })));
    assert!(matches!(
        x.map(Function::Abs),
        Err(Error::InvalidArgument { .. })
    ));
}

/// Σ w · f(x) for a fixed weight `w`: the scalar the finite differences probe.
fn probe(x: &Tensor<3, f64>, perm: [usize; 3], w: &[f64]) -> Result<(f64, Vec<f64>), Error> {
    let tape = Tape::<f64>::new();
    // A strided leaf: the permuted view of `x`.
    let v = tape.leaf(x.view().permute(perm)?)?;
    let shape = v.shape();
    let last = shape.len() - 1;
    let h = v
        .map(Function::GeluTanh)?
        .softmax(last)?
        .mul(&v.narrow(last, 0, shape[last])?)?
        .transpose(0, 1)?;
    let h = h.layer_norm(
        &tape.leaf(Tensor::from_vec([shape[last]], w[..shape[last]].to_vec())?)?,
        &tape.leaf(Tensor::from_vec([shape[last]], vec![0.1; shape[last]])?)?,
        1e-5,
    )?;
    let n: usize = shape.iter().product();
    let flat = h.reshape::<Rank<1>>(&[n])?;
    let weights = tape.leaf(Tensor::from_vec([n], w[..n].to_vec())?)?;
    let y = flat.mul(&weights)?.sum_axis::<Rank<0>>(0)?;
    let value = y.value()?.as_slice()[0];
    let g = y.backward()?.get(&v)?;
    // Back to x's layout: the inverse permutation of the view's gradient.
    let mut inverse = [0usize; 3];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i;
    }
    Ok((value, g.view().permute(inverse)?.materialize()?.into_vec()))
}

/// A second chain: batched matmul with a transposed operand, division,
/// RMSNorm, log-softmax, a max, an embedding lookup and the fused
/// cross-entropy, on a permuted (strided) leaf.
fn probe2(x: &Tensor<3, f64>, perm: [usize; 3], w: &[f64]) -> Result<(f64, Vec<f64>), Error> {
    let tape = Tape::<f64>::new();
    let v = tape.leaf(x.view().permute(perm)?)?;
    let s = v.shape();
    let (a, b) = (s[0], s[1]);
    let gram = v.matmul(&v.transpose(1, 2)?)?; // [a, b, b]
    let one = tape.leaf(Tensor::from_vec([], vec![1.5])?)?;
    let denom = one.add(&gram.map(Function::Square)?)?;
    let q = gram.div(&denom)?;
    let q = q.rms_norm(&tape.leaf(Tensor::from_vec([b], w[..b].to_vec())?)?, 1e-5)?;
    let q = q.log_softmax(1)?.add(&v.amax_axis::<Rank<3>>(2)?)?;
    let rows = q.reshape::<Rank<2>>(&[a * b, b])?;
    let picked = rows.index_select(0, &(0..a * b).rev().chain(0..1).collect::<Vec<_>>())?;
    let targets: Vec<usize> = (0..=a * b).map(|r| r % b).collect();
    let y = picked.cross_entropy(&targets)?;
    let value = y.value()?.as_slice()[0];
    let g = y.backward()?.get(&v)?;
    let mut inverse = [0usize; 3];
    for (i, &p) in perm.iter().enumerate() {
        inverse[p] = i;
    }
    Ok((value, g.view().permute(inverse)?.materialize()?.into_vec()))
}

type Probe = fn(&Tensor<3, f64>, [usize; 3], &[f64]) -> Result<(f64, Vec<f64>), Error>;

fn finite_differences(
    probe: Probe,
    shape: [usize; 3],
    perm: [usize; 3],
    seed: u64,
) -> Result<(), TestCaseError> {
    let [a, b, c] = shape;
    let n = a * b * c;
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let xs: Vec<f64> = (0..n).map(|_| next()).collect();
    let w: Vec<f64> = (0..n.max(8)).map(|_| next()).collect();
    let x = Tensor::from_vec(shape, xs.clone()).expect("x");
    let (_, grad) = probe(&x, perm, &w).expect("probe");
    let eps = 1e-5;
    for k in 0..n {
        let f = |d: f64| {
            let mut v = xs.clone();
            v[k] += d;
            probe(&Tensor::from_vec(shape, v).expect("x"), perm, &w)
                .expect("probe")
                .0
        };
        // Richardson's extrapolation of two central differences (steps h
        // and h/2): the h² terms cancel, leaving O(h⁴). A plain central
        // difference at h = 1e-5 is off by ~1e-6 relative where the third
        // derivative is large (an rms_norm of a near-zero row: 48.04623 against
        // the exact 48.04629, which h → 0 approaches).
        let central = |h: f64| (f(h) - f(-h)) / (2.0 * h);
        let numeric = (4.0 * central(eps / 2.0) - central(eps)) / 3.0;
        prop_assert!(
            (numeric - grad[k]).abs() <= 1e-6 * (1.0 + numeric.abs()),
            "k {k}: numeric {numeric} vs {}",
            grad[k]
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn central_differences_agree_on_strided_views(
        a in 1usize..4, b in 1usize..4, c in 2usize..5,
        perm in prop::sample::select(vec![[0, 1, 2], [2, 0, 1], [1, 2, 0], [0, 2, 1]]),
        seed in 0u64..1000,
    ) {
        finite_differences(probe, [a, b, c], perm, seed)?;
        finite_differences(probe2, [a, b, c], perm, seed)?;
    }
}

#[path = "common/tuning.rs"]
mod tuning;

/// Every gradient of a chain through the rules with their own loops (the
/// norms' row-block tree, softmax over an inner and the last axis, the
/// scatter of a narrow, a GELU's derivative, accumulation) as bits.
fn gradient_bits(leaves_only: bool) -> Result<Vec<Vec<u64>>, Error> {
    let tape = Tape::<f64>::new();
    let wiggle = |i: usize| ((i * 7919 % 1009) as f64 / 1009.0 - 0.5) * 3.0;
    // 150 rows of 8: five blocks of the norm rule's 32 rows, the last short.
    let x = tape.leaf(Tensor::from_fn([3, 50, 8], |[a, b, c]| {
        wiggle(a * 400 + b * 8 + c)
    })?)?;
    let w = tape.leaf(Tensor::from_fn([4], |[c]| 1.0 + 0.1 * c as f64)?)?;
    let bias = tape.leaf(Tensor::from_fn([4], |[c]| 0.05 * c as f64)?)?;
    let g = tape.leaf(Tensor::from_fn([8], |[c]| 0.9 + 0.03 * c as f64)?)?;
    let h = x.map(Function::GeluTanh)?.softmax(1)?.add(&x)?;
    let left = h.narrow(2, 0, 4)?.layer_norm(&w, &bias, 1e-5)?;
    let right = h.narrow(2, 4, 4)?.layer_norm(&w, &bias, 1e-5)?.softmax(2)?;
    let y = Var::concat(&[left.mul(&right)?, h.narrow(2, 2, 4)?], 2)?
        .rms_norm(&g, 1e-6)?
        .mul(&x)?
        .sum_axis::<Rank<2>>(2)?
        .sum_axis::<Rank<1>>(1)?
        .sum_axis::<Rank<0>>(0)?;
    let grads = if leaves_only {
        let grads = y.backward_leaves()?;
        assert!(matches!(
            grads.get(&h),
            Err(Error::GradientNotRetained { .. })
        ));
        assert!(grads.peak_bytes() < y.backward()?.peak_bytes());
        grads
    } else {
        y.backward()?
    };
    let bits = |t: Vec<f64>| t.into_iter().map(f64::to_bits).collect::<Vec<u64>>();
    Ok(vec![
        bits(grads.get(&x)?.into_vec()),
        bits(grads.get(&w)?.into_vec()),
        bits(grads.get(&bias)?.into_vec()),
        bits(grads.get(&g)?.into_vec()),
    ])
}

#[test]
fn gradients_are_bit_identical_for_every_thread_count_split_and_keep() -> Result<(), Error> {
    // The reference: default settings on one thread (every loop in order).
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build();
    let one = pool.expect("a pool").install(|| gradient_bits(false))?;
    // Freeing the intermediate gradients changes no bit of the leaves'.
    assert!(gradient_bits(true)? == one, "backward_leaves");
    for simd in tuning::LEVELS {
        for threads in [1, 2, 3] {
            let split = tuning::under(simd, threads, || gradient_bits(threads == 2))?;
            assert!(
                split == one,
                "{simd:?} on {threads} threads, every loop split"
            );
        }
    }
    Ok(())
}

#[test]
fn gradients_answer_only_for_their_own_tape_and_keep_constants_as_zeros() -> Result<(), Error> {
    let tape = Tape::<f64>::new();
    let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 2.0])?)?;
    let c = tape.constant(Tensor::from_vec([2], vec![3.0, 4.0])?)?;
    let h = x.mul(&c)?;
    let loss = h.sum_axis::<Rank<0>>(0)?;
    // Another tape with a leaf at every node number of the first.
    let other = Tape::<f64>::new();
    let strangers: Vec<_> = (0..4)
        .map(|_| other.leaf(Tensor::from_vec([2], vec![0.0, 0.0])?))
        .collect::<Result<_, _>>()?;
    for grads in [loss.backward()?, loss.backward_leaves()?] {
        assert_eq!(grads.get(&x)?.as_slice(), &[3.0, 4.0]);
        assert_eq!(grads.get(&c)?.as_slice(), &[0.0, 0.0]); // not differentiated
        for stranger in &strangers {
            assert!(matches!(
                grads.get(stranger),
                Err(Error::InvalidArgument { .. })
            ));
        }
    }
    assert!(matches!(
        loss.backward_leaves()?.get(&h),
        Err(Error::GradientNotRetained { node: 2, .. })
    ));
    Ok(())
}
