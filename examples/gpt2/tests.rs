//! The example's own checks (run by `cargo test --features safetensors
//! --example gpt2`): the cached decoder against transformers' logits, and
//! every bad input as a typed error with a sentence, never a panic.

use crate::args;
use crate::config::Config;
use crate::generate::{Keep, generate};
use crate::model::{Gpt2, KvCache};
use crate::verify::{fixture_dir, verify, verify_dir};
use crate::weights::{ModelError, Params, Storage, config_of};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};

fn fixture_bytes() -> AlignedBytes {
    AlignedBytes::read(fixture_dir().join("model.safetensors")).expect("the committed fixture")
}

/// The fixture's tensors re-serialized with `edit` applied to each
/// `(name, dtype, shape, bytes)`; `None` drops the tensor.
fn edited(
    edit: impl Fn(&str, Dtype, Vec<usize>, Vec<u8>) -> Option<(Dtype, Vec<usize>, Vec<u8>)>,
) -> AlignedBytes {
    let original = fixture_bytes();
    let tensors = SafeTensors::deserialize(original.as_bytes()).expect("a valid fixture");
    let mut kept = Vec::new();
    for (name, view) in tensors.tensors() {
        if let Some(parts) = edit(
            &name,
            view.dtype(),
            view.shape().to_vec(),
            view.data().to_vec(),
        ) {
            kept.push((name, parts));
        }
    }
    let views: Vec<(String, TensorView<'_>)> = kept
        .iter()
        .map(|(name, (dtype, shape, bytes))| {
            (
                name.clone(),
                TensorView::new(*dtype, shape.clone(), bytes).expect("consistent"),
            )
        })
        .collect();
    AlignedBytes::from_bytes(&safetensors::serialize(views, None).expect("serializable"))
}

fn load_error(buffer: &AlignedBytes) -> ModelError {
    let weights = match Weights::parse(buffer.as_bytes()) {
        Ok(weights) => weights,
        Err(error) => return ModelError::File(error),
    };
    let config = Config {
        layers: 2,
        heads: 4,
        width: 64,
        context: 64,
        vocab: 1000,
    };
    match Params::<f32>::from_file(&weights, config) {
        Ok(_) => panic!("the edited file loaded"),
        Err(error) => error,
    }
}

#[test]
fn the_cached_decoder_matches_transformers_in_f32_and_f64() {
    let f32_run = verify::<f32>(Storage::Compute).expect("the fixture runs");
    assert!(f32_run.max_error <= 1e-4, "f32: {:e}", f32_run.max_error);
    assert!(f32_run.same_tokens);
    let f64_run = verify::<f64>(Storage::Compute).expect("the fixture runs");
    // f64 against transformers run in float64: only summation order differs.
    assert!(f64_run.max_error <= 1e-9, "f64: {:e}", f64_run.max_error);
    assert!(f64_run.same_tokens);
}

#[test]
fn f32_parameters_are_views_of_the_file() {
    let buffer = fixture_bytes();
    let weights = Weights::parse(buffer.as_bytes()).expect("valid");
    let config = config_of(&weights, 4).expect("the fixture's shapes");
    assert_eq!(
        config,
        Config {
            layers: 2,
            heads: 4,
            width: 64,
            context: 64,
            vocab: 1000
        }
    );
    let params = Params::<f32>::from_file(&weights, config).expect("loads");
    assert_eq!(params.copied_bytes, 0);
    let wte = params.matrix("wte.weight");
    let file = buffer.as_bytes().as_ptr_range();
    assert!(
        file.contains(&(wte.storage().as_ptr() as *const u8)),
        "wte borrows the file's buffer"
    );
}

#[test]
fn bad_weights_name_the_tensor() {
    let missing = edited(|name, dtype, shape, bytes| {
        (name != "transformer.h.1.mlp.c_fc.bias").then_some((dtype, shape, bytes))
    });
    assert!(
        matches!(load_error(&missing), ModelError::Missing { name } if name == "h.1.mlp.c_fc.bias")
    );

    let misshaped = edited(|name, dtype, shape, bytes| {
        Some(if name == "transformer.h.0.attn.c_attn.weight" {
            (dtype, vec![192, 64], bytes)
        } else {
            (dtype, shape, bytes)
        })
    });
    let error = load_error(&misshaped);
    assert!(
        matches!(&error, ModelError::Shape { name, expected, found } if name == "transformer.h.0.attn.c_attn.weight" && expected == &[64, 192] && found == &[192, 64]),
        "{error}"
    );

    let wrong_dtype = edited(|name, dtype, shape, bytes| {
        Some(if name == "transformer.ln_f.bias" {
            (Dtype::I32, shape, bytes)
        } else {
            (dtype, shape, bytes)
        })
    });
    let error = load_error(&wrong_dtype);
    assert!(
        matches!(&error, ModelError::Read { name, source } if name == "transformer.ln_f.bias"
        && *source == Error::WrongDtype {
            op: "Weights::get_as",
            expected: "a float dtype (F16, BF16, F32, F64)".into(),
            actual: "I32".into()
        }),
        "{error}"
    );
    // The tensor's name appears once.
    assert_eq!(
        error.to_string(),
        "tensor `transformer.ln_f.bias`: Weights::get_as: the tensor holds I32, but a float dtype (F16, BF16, F32, F64) was requested"
    );
    assert_eq!(error.to_string().matches("ln_f.bias").count(), 1);

    let bytes = fixture_bytes();
    let truncated = AlignedBytes::from_bytes(&bytes.as_bytes()[..bytes.as_bytes().len() / 2]);
    assert!(matches!(load_error(&truncated), ModelError::File(_)));
}

#[test]
fn bad_prompts_and_lengths_are_typed_errors() {
    let buffer = fixture_bytes();
    let weights = Weights::parse(buffer.as_bytes()).expect("valid");
    let config = config_of(&weights, 4).expect("shapes");
    let params = Params::<f32>::from_file(&weights, config).expect("loads");
    let model = Gpt2 { params: &params };

    let mut cache = KvCache::new(&config, 8).expect("small");
    let error = generate(&model, &[1, 2, 1000, 3], 2, &mut cache, Keep::default())
        .err()
        .expect("id 1000 >= vocab");
    assert!(
        matches!(
            &error,
            ModelError::Tensor(Error::IndexSelectOutOfBounds {
                op: "index_select",
                axis: 0,
                position: 2,
                index: 1000,
                extent: 1000,
            })
        ),
        "{error}"
    );

    let mut cache = KvCache::new(&config, config.context).expect("full");
    let long: Vec<usize> = (0..config.context + 1).collect();
    assert!(matches!(
        generate(&model, &long, 1, &mut cache, Keep::default()),
        Err(ModelError::PromptTooLong {
            length: 65,
            context: 64
        })
    ));

    // Generating past the context stops with a message after the last position.
    let mut cache = KvCache::new(&config, config.context).expect("full");
    let prompt: Vec<usize> = (0..60).collect();
    let run = generate(&model, &prompt, 10, &mut cache, Keep::default()).expect("runs");
    assert_eq!(run.ids.len(), 5);
    // A step count no memory could hold is capped by the context, not reserved.
    let mut huge = KvCache::new(&config, config.context).expect("full");
    let capped = generate(&model, &prompt, usize::MAX, &mut huge, Keep::default()).expect("runs");
    assert_eq!(capped.ids, run.ids);
    let mut empty = KvCache::new(&config, 8).expect("small");
    assert!(matches!(
        generate(&model, &[], 1, &mut empty, Keep::default()),
        Err(ModelError::EmptyPrompt)
    ));
    // n_head must divide the width (64): 0 and 3 are refused when the config is read.
    for heads in [0, 3] {
        assert!(matches!(
            config_of(&weights, heads),
            Err(ModelError::Heads { heads: h, width: 64 }) if h == heads
        ));
    }
    assert!(
        run.stopped
            .as_deref()
            .is_some_and(|m| m.contains("context holds 64")),
        "{:?}",
        run.stopped
    );
}

#[test]
fn bad_flags_are_one_sentence() {
    let parse = |list: &[&str]| {
        args::parse(list.iter().map(Into::into)).map_err(|error| match error {
            args::FlagsError::Usage(message) => message,
            args::FlagsError::Help => "help".to_string(),
        })
    };
    assert_eq!(parse(&["--help"]).unwrap_err(), "help");
    assert!(
        parse(&["--tokens="])
            .unwrap_err()
            .contains("at least one id")
    );
    assert!(
        parse(&["--tokens", "1,2"])
            .unwrap_err()
            .contains("needs --model")
    );
    assert!(
        parse(&["--dtype", "f16"])
            .unwrap_err()
            .contains("f32 or f64")
    );
    assert!(
        parse(&["--tokens", "1,x"])
            .unwrap_err()
            .contains("whole number")
    );
    assert!(
        parse(&["--threads", "0"])
            .unwrap_err()
            .contains("at least 1")
    );
    assert_eq!(
        parse(&["--threads", "100000"]).unwrap_err(),
        "--threads is at most 256 (more threads than cores only slow decoding), got 100000"
    );
    assert_eq!(
        parse(&["--threads", "256"]).expect("the limit").threads,
        Some(256)
    );
    assert!(parse(&["--frobnicate"]).unwrap_err().contains("unknown"));
    assert_eq!(
        parse(&["--runs", "0"]).unwrap_err(),
        "--runs is 1 to 1000, got 0"
    );
    assert_eq!(
        parse(&["--runs", "1001"]).unwrap_err(),
        "--runs is 1 to 1000, got 1001"
    );
    assert_eq!(parse(&["--runs", "5"]).expect("valid").runs, 5);
    assert_eq!(parse(&[]).expect("valid").runs, 1);
    assert_eq!(
        parse(&["--weights", "f8"]).unwrap_err(),
        "--weights is f32, bf16 or f16, got `f8`"
    );
    assert!(
        parse(&["--weights", "bf16", "--dtype", "f64"])
            .unwrap_err()
            .contains("need --dtype f32")
    );
    for (flag, storage) in [
        ("f32", Storage::Compute),
        ("bf16", Storage::Bf16),
        ("f16", Storage::F16),
    ] {
        assert_eq!(parse(&["--weights", flag]).expect("valid").weights, storage);
    }
    assert_eq!(parse(&[]).expect("valid").weights, Storage::Compute);
    let ok = parse(&[
        "--model",
        "m.safetensors",
        "--tokens",
        "464, 3290",
        "--generate",
        "3",
        "--dtype",
        "f64",
    ])
    .expect("valid");
    assert_eq!(
        (ok.tokens, ok.generate, ok.f64),
        (Some(vec![464, 3290]), Some(3), true)
    );
}

/// A fixture directory beside the f32 one (`gpt2_f16`, `gpt2_bf16`, `gpt2_f64`).
fn sibling(name: &str) -> std::path::PathBuf {
    fixture_dir().with_file_name(name)
}

#[test]
fn half_precision_checkpoints_match_transformers_on_the_same_rounded_weights() {
    // transformers ran the stored F16 / BF16 weights widened to f32 (and to
    // f64); we compute in f32 (and f64) from the same stored values.
    for name in ["gpt2_f16", "gpt2_bf16"] {
        let f32_run =
            verify_dir::<f32>(&sibling(name), Storage::Compute).expect("the fixture runs");
        assert!(
            f32_run.max_error <= 1e-4,
            "{name} f32: {:e}",
            f32_run.max_error
        );
        assert!(f32_run.same_tokens, "{name}");
        let f64_run =
            verify_dir::<f64>(&sibling(name), Storage::Compute).expect("the fixture runs");
        assert!(
            f64_run.max_error <= 1e-9,
            "{name} f64: {:e}",
            f64_run.max_error
        );
        assert!(f64_run.same_tokens, "{name}");
    }
}

#[test]
fn half_weights_match_transformers_on_the_fixture_stored_in_that_precision() {
    // `--weights bf16|f16`: the matrices and the head multiplied straight
    // from half precision (`half_linear`). On the fixtures stored in that
    // precision the kept values are the ones transformers ran (widened to
    // f32), so only the summation order differs: the f32 tolerance holds.
    for storage in [Storage::Bf16, Storage::F16] {
        let run = verify::<f32>(storage).expect("the fixture runs");
        assert!(run.max_error <= 1e-4, "{storage:?}: {:e}", run.max_error);
        assert!(run.same_tokens, "{storage:?}");
    }
    // The f32 fixture rounded to bf16 at load: the logits move by the
    // weights' rounding (8 significant bits), not by 1e-4.
    let rounded = verify_dir::<f32>(&fixture_dir(), Storage::Bf16).expect("the fixture runs");
    assert!(rounded.max_error > 1e-4, "{:e}", rounded.max_error);
    assert!(rounded.max_error < 0.1, "{:e}", rounded.max_error);
}

#[test]
fn half_storage_holds_the_matrices_in_two_bytes_and_needs_f32() {
    let buffer = fixture_bytes();
    let weights = Weights::parse(buffer.as_bytes()).expect("valid");
    let config = config_of(&weights, 4).expect("shapes");
    let full = Params::<f32>::from_file(&weights, config).expect("loads");
    let all = full.bytes();
    let half = Params::<f32>::from_file(&weights, config)
        .and_then(|p| p.into_storage(Storage::Bf16))
        .expect("converts");
    // wte and the 4 matrices of each layer: 2 bytes a value instead of 4.
    let (c, v) = (config.width, config.vocab);
    let moved = v * c + config.layers * 12 * c * c;
    assert_eq!(half.bytes(), all - 2 * moved);
    let error = Params::<f64>::from_file(&weights, config)
        .and_then(|p| p.into_storage(Storage::F16))
        .err()
        .expect("f64 compute refuses half weights");
    assert!(matches!(error, ModelError::HalfNeedsF32), "{error}");
}

#[test]
fn an_f64_checkpoint_runs_in_f64_borrowed_and_in_f32_converted() {
    let dir = sibling("gpt2_f64");
    let f64_run = verify_dir::<f64>(&dir, Storage::Compute).expect("the fixture runs");
    assert!(f64_run.max_error <= 1e-9, "f64: {:e}", f64_run.max_error);
    assert!(f64_run.same_tokens);
    let f32_run = verify_dir::<f32>(&dir, Storage::Compute).expect("the fixture runs");
    assert!(f32_run.max_error <= 1e-4, "f32: {:e}", f32_run.max_error);
    assert!(f32_run.same_tokens);

    let buffer = AlignedBytes::read(dir.join("model.safetensors")).expect("committed");
    let weights = Weights::parse(buffer.as_bytes()).expect("valid");
    let config = config_of(&weights, 4).expect("shapes");
    let borrowed = Params::<f64>::from_file(&weights, config).expect("loads");
    assert_eq!(
        borrowed.copied_bytes, 0,
        "F64 computed in f64 borrows the file"
    );
    let converted = Params::<f32>::from_file(&weights, config).expect("loads");
    assert_eq!(
        converted.copied_bytes,
        converted.bytes(),
        "F64 computed in f32 converts all"
    );
}

#[test]
fn nan_weights_are_an_error_not_tokens() {
    let poisoned = edited(|name, dtype, shape, bytes| {
        Some(if name == "transformer.ln_f.weight" {
            let nan: Vec<u8> = bytes
                .chunks_exact(4)
                .flat_map(|_| f32::NAN.to_le_bytes())
                .collect();
            (dtype, shape, nan)
        } else {
            (dtype, shape, bytes)
        })
    });
    let weights = Weights::parse(poisoned.as_bytes()).expect("valid");
    let config = config_of(&weights, 4).expect("shapes");
    let params = Params::<f32>::from_file(&weights, config).expect("loads");
    let model = Gpt2 { params: &params };
    let mut cache = KvCache::new(&config, 8).expect("small");
    let error = generate(&model, &[1, 2, 3], 2, &mut cache, Keep::default())
        .err()
        .expect("NaN logits choose no token");
    assert!(
        matches!(
            error,
            ModelError::NanLogits {
                position: 2,
                count: 1000
            }
        ),
        "{error}"
    );
}

#[test]
fn the_default_prompt_is_refused_outside_the_vocabulary() {
    assert_eq!(
        crate::default_prompt(50257).expect("GPT-2's vocabulary"),
        [464, 2068, 7586, 21831]
    );
    let error = crate::default_prompt(1000).expect_err("the fixture's vocabulary is 1000");
    assert!(
        matches!(
            &error,
            ModelError::DefaultPromptOutsideVocab { vocab: 1000, .. }
        ),
        "{error}"
    );
    assert!(error.to_string().ends_with("give --tokens"), "{error}");
}

#[test]
fn a_logits_path_that_cannot_be_written_is_refused_before_the_run() {
    let missing = std::env::temp_dir().join("gpt2-no-such-dir-for-logits/logits.safetensors");
    let message = crate::create_output(&missing).expect_err("the directory does not exist");
    assert!(message.starts_with("--logits-out "), "{message}");
    let path = std::env::temp_dir().join(format!("gpt2-logits-{}.safetensors", std::process::id()));
    crate::create_output(&path).expect("a writable place");
    // The writer then fills it with a [steps, V] f32 tensor.
    let steps = vec![vec![0.5_f64, -1.0, 2.0], vec![1.0, 0.0, -0.25]];
    crate::write_logits(&path, &steps, 3).expect("written");
    let file = AlignedBytes::read(&path).expect("readable");
    std::fs::remove_file(&path).expect("removable");
    let weights = Weights::parse(file.as_bytes()).expect("valid");
    let logits = weights.get::<2, f32>("logits").expect("f32 [2, 3]");
    assert_eq!(
        logits.as_contiguous_slice(),
        Some(&[0.5, -1.0, 2.0, 1.0, 0.0, -0.25][..])
    );
}

#[test]
fn prompt_ids_are_checked_against_the_vocabulary_by_position() {
    let buffer = fixture_bytes();
    let weights = Weights::parse(buffer.as_bytes()).expect("valid");
    let config = config_of(&weights, 4).expect("shapes");
    assert!(crate::check_prompt(&[0, config.vocab - 1], &config).is_ok());
    let error = crate::check_prompt(&[1, 2, config.vocab, 3], &config).unwrap_err();
    assert!(matches!(
        error,
        ModelError::TokenOutsideVocab { position: 2, id, vocab } if id == config.vocab && vocab == config.vocab
    ));
    assert!(error.to_string().starts_with("--tokens: id "), "{error}");
    let long = vec![0; config.context + 1];
    assert!(matches!(
        crate::check_prompt(&long, &config),
        Err(ModelError::PromptTooLong { length, context }) if length == config.context + 1 && context == config.context
    ));
}

#[test]
fn half_storage_counts_its_converted_matrices_as_copied() {
    let buffer = fixture_bytes();
    let weights = Weights::parse(buffer.as_bytes()).expect("valid");
    let config = config_of(&weights, 4).expect("shapes");
    let f32_params = Params::<f32>::from_file(&weights, config).expect("loads");
    let f32_copied = f32_params.copied_bytes;
    let (c, v, l) = (config.width, config.vocab, config.layers);
    // wte, and per layer c_attn (C x 3C), c_proj (C x C), c_fc (C x 4C), mlp.c_proj (4C x C).
    let matrices = v * c + l * (3 * c * c + c * c + 4 * c * c + 4 * c * c);
    let half = f32_params.into_storage(Storage::Bf16).expect("converts");
    assert_eq!(half.copied_bytes, f32_copied + 2 * matrices);
}

#[test]
fn a_cleared_cache_generates_the_same_tokens_and_logits_again() {
    // `--runs N` clears the cache between runs and requires the same ids.
    let buffer = fixture_bytes();
    let weights = Weights::parse(buffer.as_bytes()).expect("valid");
    let config = config_of(&weights, 4).expect("shapes");
    let params = Params::<f32>::from_file(&weights, config).expect("loads");
    let model = Gpt2 { params: &params };
    let keep = Keep {
        step_logits: true,
        prompt_logits: false,
    };
    let mut cache = KvCache::new(&config, 16).expect("small");
    let first = generate(&model, &[5, 9, 2], 6, &mut cache, keep).expect("runs");
    assert_eq!(cache.len, 8);
    cache.clear();
    assert_eq!((cache.len, cache.capacity()), (0, 16));
    let second = generate(&model, &[5, 9, 2], 6, &mut cache, keep).expect("runs");
    assert_eq!(second.ids, first.ids);
    let bits = |logits: &Option<Vec<Vec<f32>>>| -> Vec<u32> {
        logits
            .iter()
            .flatten()
            .flatten()
            .map(|x| x.to_bits())
            .collect()
    };
    assert_eq!(bits(&second.step_logits), bits(&first.step_logits));
    assert_eq!(bits(&first.step_logits).len(), 6 * config.vocab);
}

#[test]
fn the_speed_of_several_runs_is_the_median_of_the_timed_ones() {
    use crate::Timing;
    use crate::generate::Generation;
    use std::time::Duration;
    let ms = Duration::from_millis;
    let run = Generation::<f32> {
        ids: vec![1],
        step_logits: None,
        prompt_logits: None,
        prefill: ms(900),
        decode: ms(9000),
        stopped: None,
    };
    let single = Timing::of(&run, &mut []);
    assert_eq!(
        (single.prefill, single.decode, single.medians_of),
        (ms(900), ms(9000), 0)
    );
    // Prefill and decode medians are taken separately; the warm-up run is not among them.
    let mut timed = [(ms(3), ms(30)), (ms(1), ms(50)), (ms(2), ms(10))];
    let three = Timing::of(&run, &mut timed);
    assert_eq!(
        (three.prefill, three.decode, three.medians_of),
        (ms(2), ms(30), 3)
    );
    let mut even = [(ms(1), ms(4)), (ms(4), ms(1))];
    let two = Timing::of(&run, &mut even);
    assert_eq!((two.prefill, two.decode), (ms(4), ms(4)));
}
