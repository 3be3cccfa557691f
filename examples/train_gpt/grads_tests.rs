//! The training step against PyTorch (tests/fixtures/train/{tiny,small}/,
//! scripts/train_fixture.py): step-0 loss within 1e-5 relative, every
//! gradient within 1e-5 of the largest |grad|, bit-identical for 1–3 threads.

use std::path::PathBuf;

use safetensors::SafeTensors;

use crate::checkpoint::{read_model, read_tensors};
use crate::model::loss_and_grads;
use crate::params::Params;

fn dir(case: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/train")
        .join(case)
}

fn ids(file: &SafeTensors, key: &str, count: usize) -> (Vec<usize>, Vec<usize>) {
    let t = file.tensor(key).expect(key);
    let shape = t.shape().to_vec();
    let v = t
        .data()
        .chunks_exact(8)
        .take(count)
        .map(|b| usize::try_from(i64::from_le_bytes(b.try_into().expect("8"))).expect("id"))
        .collect();
    (shape, v)
}

fn step0(case: &str, threads: usize) -> (f32, Params, Params, f32) {
    let d = dir(case);
    let (config, params) = read_model(&d.join("model.safetensors")).expect("model");
    let batches = std::fs::read(d.join("batches.safetensors")).expect("batches");
    let batches = SafeTensors::deserialize(&batches).expect("batches");
    let shape = batches.tensor("inputs").expect("inputs").shape().to_vec();
    let (b, t) = (shape[1], shape[2]);
    let (_, inputs) = ids(&batches, "inputs", b * t);
    let (_, targets) = ids(&batches, "targets", b * t);
    let (loss, grads) =
        loss_and_grads(&config, &params, &inputs, &targets, b, t, threads).expect("step");
    let (want, _) = read_tensors(&d.join("grads.safetensors")).expect("grads");
    let losses = std::fs::read(d.join("losses.safetensors")).expect("losses");
    let losses = SafeTensors::deserialize(&losses).expect("losses");
    let l0 = f32::from_le_bytes(
        losses.tensor("losses").expect("losses").data()[..4]
            .try_into()
            .expect("4"),
    );
    (loss, grads, want, l0)
}

fn check(case: &str) {
    let (loss, grads, want, l0) = step0(case, 1);
    assert!(
        ((loss - l0) / l0).abs() <= 1e-5,
        "{case}: loss {loss} vs PyTorch {l0}"
    );
    let largest = want
        .iter()
        .flat_map(|(_, t)| t.as_slice().iter())
        .fold(0f32, |m, v| m.max(v.abs()));
    assert_eq!(grads.len(), want.len());
    for ((name, g), (wname, w)) in grads.iter().zip(&want) {
        assert_eq!(name, wname);
        assert_eq!(g.shape(), w.shape(), "{name}");
        for (i, (a, b)) in g.as_slice().iter().zip(w.as_slice()).enumerate() {
            assert!(
                (a - b).abs() <= 1e-5 * largest,
                "{case} {name}[{i}]: {a} vs PyTorch {b} (largest {largest})"
            );
        }
    }
    for threads in [2, 3] {
        let (l, g, _, _) = step0(case, threads);
        assert_eq!(
            l.to_bits(),
            loss.to_bits(),
            "{case}: loss with {threads} threads"
        );
        for ((name, a), (_, b)) in g.iter().zip(&grads) {
            let same = a
                .as_slice()
                .iter()
                .zip(b.as_slice())
                .all(|(x, y)| x.to_bits() == y.to_bits());
            assert!(
                same,
                "{case} {name}: not bit-identical with {threads} threads"
            );
        }
    }
}

#[test]
fn tiny_step0_matches_pytorch_and_is_thread_count_independent() {
    check("tiny");
}

#[test]
fn small_step0_matches_pytorch_and_is_thread_count_independent() {
    check("small");
}

#[test]
fn bad_batches_are_typed_errors() {
    let d = dir("tiny");
    let (config, params) = read_model(&d.join("model.safetensors")).expect("model");
    let too_big = vec![config.vocab_size; 4];
    let ok = vec![0usize; 4];
    assert!(matches!(
        loss_and_grads(&config, &params, &too_big, &ok, 2, 2, 1),
        Err(llm_from_scratch::Error::IndexSelectOutOfBounds { .. })
    ));
    assert!(matches!(
        loss_and_grads(&config, &params, &ok, &too_big, 2, 2, 1),
        Err(llm_from_scratch::Error::IndexSelectOutOfBounds { .. })
    ));
    assert!(matches!(
        loss_and_grads(&config, &params, &ok[..3], &ok, 2, 2, 1),
        Err(llm_from_scratch::Error::ElementCountMismatch { .. })
    ));
}
