//! The example's unit tests: flags, batches, the fresh model's layout,
//! checkpoints and resume, the plot's ticks, the progress line, and the
//! optimizer parts on the committed GPT-2 fixture's real gradients.

use crate::args::{self, Data, Start};
use crate::checkpoint;
use crate::config::GptConfig;
use crate::data::{Batches, DataError};
use crate::init;
use crate::plot;
use crate::progress;
use llm_from_scratch::DynTensor;
use llm_from_scratch::train::{AdamW, AdamWConfig, grad_norm};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

const TINY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/train/tiny");

fn parse(line: &str) -> Result<args::Args, args::FlagsError> {
    args::parse(line.split_whitespace().map(OsString::from))
}

fn usage(line: &str) -> String {
    match parse(line) {
        Err(args::FlagsError::Usage(message)) => message,
        other => panic!("{line}: expected a usage error, got {other:?}"),
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("train_gpt_test_{}_{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_check_contract_parses_exactly() {
    let a = parse(
        "--init D/model.safetensors --batches F.safetensors --steps 8 --lr 0.003 --betas 0.9,0.95 \
         --eps 1e-8 --weight-decay 0.1 --clip-norm 1.0 --threads 3 --grads-out G --losses-out L --weights-out W",
    )
    .unwrap();
    assert_eq!(a.start, Start::Init(PathBuf::from("D/model.safetensors")));
    assert_eq!(a.data, Data::Batches(PathBuf::from("F.safetensors")));
    assert_eq!(
        (a.steps, a.lr, a.beta1, a.beta2, a.eps),
        (Some(8), 0.003, 0.9, 0.95, 1e-8)
    );
    assert_eq!(
        (a.weight_decay, a.clip_norm, a.threads),
        (0.1, Some(1.0), Some(3))
    );
    assert_eq!(a.grads_out.as_deref(), Some(Path::new("G")));
    assert_eq!(
        (a.min_lr, a.warmup),
        (None, 0),
        "a constant rate unless asked"
    );
}

#[test]
fn bad_flags_are_sentences() {
    assert_eq!(
        usage("--init a --batches b --betas 0.9"),
        "--betas needs two numbers B1,B2, got `0.9`"
    );
    assert_eq!(
        usage("--init a --batches b --threads 0"),
        "--threads needs at least 1"
    );
    assert_eq!(
        usage("--init a --batches b --lr fast"),
        "--lr needs a finite number, got `fast`"
    );
    assert_eq!(
        usage("--init a --resume b --batches c"),
        "--init and --resume exclude each other"
    );
    assert!(
        usage("--init a --batches b --clip-norm 0")
            .starts_with("--clip-norm needs a number above 0")
    );
    assert!(usage("--corpus t --width 10 --heads 4").contains("not a multiple"));
    assert!(usage("--init a").starts_with("give --batches"));
    assert!(usage("--corpus t --plot loss.png").contains("SVG"));
    assert!(usage("--init a --batches b --bogus 1").starts_with("unknown argument"));
    assert!(matches!(parse("--help"), Err(args::FlagsError::Help)));
}

#[test]
fn bench_steps_need_no_corpus_and_report_memory() {
    let a = parse("--layers 2 --width 64 --heads 4 --seq 16 --batch 2 --bench-steps 5")
        .expect("a bench run");
    assert_eq!(a.bench_steps, Some(5));
    assert_eq!(a.data, Data::Random { batch: 2, seq: 16 });
    assert_eq!(usage("--bench-steps 0"), "--bench-steps needs at least 1");
    assert!(usage("--layers 2").starts_with("give --batches"));
    // Random bytes: fixed by the seed, and windows shifted by one as a corpus's.
    let batches = crate::data::Batches::random(2, 16, 7);
    let (inputs, targets) = batches.get(3);
    assert_eq!(inputs.len(), 32);
    assert_eq!(&inputs[1..16], &targets[..15]);
    assert_eq!(
        crate::data::Batches::random(2, 16, 7).get(3),
        (inputs, targets)
    );
    // The memory line names every part; on Linux the peak RSS is a number.
    let line = crate::memory::summary(
        1 << 18,
        crate::model::StepBytes {
            tape: 1 << 20,
            grads: 2 << 20,
        },
    );
    assert!(line.contains("parameters 1.00 MiB + gradients 1.00 MiB + AdamW m, v 2.00 MiB + tape 1.00 MiB = 5.00 MiB"), "{line}");
    assert!(
        line.ends_with("intermediate gradients 1.00 MiB more"),
        "{line}"
    );
    if cfg!(target_os = "linux") {
        assert!(crate::memory::peak_rss_bytes().is_some_and(|b| b > 0));
    }
}

/// A batches file with `inputs` of `shape` holding `ids`, `targets` of
/// `target_shape` (zeros).
fn batches_file(dir: &Path, shape: Vec<usize>, ids: Vec<i64>, target_shape: Vec<usize>) -> PathBuf {
    let path = dir.join("batches.safetensors");
    let targets = vec![0_i64; target_shape.iter().product()];
    let views = [
        (
            "inputs",
            safetensors::tensor::TensorView::new(
                safetensors::Dtype::I64,
                shape,
                bytemuck::cast_slice(&ids),
            )
            .unwrap(),
        ),
        (
            "targets",
            safetensors::tensor::TensorView::new(
                safetensors::Dtype::I64,
                target_shape,
                bytemuck::cast_slice(&targets),
            )
            .unwrap(),
        ),
    ];
    safetensors::serialize_to_file(views, None, &path).unwrap();
    path
}

#[test]
fn batches_are_checked_against_the_vocabulary_and_each_other() {
    let dir = scratch("batches");
    let path = batches_file(&dir, vec![2, 1, 3], vec![1, 2, 3, 4, 5, 6], vec![2, 1, 3]);
    let batches = Batches::read(&path, 7).unwrap();
    assert_eq!((batches.shape(), batches.available()), ((1, 3), Some(2)));
    assert_eq!(batches.get(1).0, vec![4, 5, 6]);
    let error = Batches::read(&path, 6).unwrap_err();
    assert!(
        matches!(
            error,
            DataError::IdOutOfRange {
                step: 1,
                row: 0,
                position: 2,
                id: 6,
                vocab: 6,
                ..
            }
        ),
        "{error}"
    );
    assert!(matches!(
        batches.check(&path, 3, 32),
        Err(DataError::TooFewBatches {
            steps: 3,
            available: 2,
            ..
        })
    ));
    assert!(matches!(
        batches.check(&path, 2, 2),
        Err(DataError::SeqTooLong { seq: 3, context: 2 })
    ));
    let path = batches_file(&dir, vec![1, 1, 2], vec![-1, 0], vec![1, 1, 2]);
    assert!(matches!(
        Batches::read(&path, 9),
        Err(DataError::IdOutOfRange { id: -1, .. })
    ));
    let path = batches_file(&dir, vec![1, 1, 2], vec![0, 0], vec![1, 2, 1]);
    assert!(matches!(
        Batches::read(&path, 9),
        Err(DataError::ShapesDiffer { .. })
    ));
    let path = batches_file(&dir, vec![2], vec![0, 0], vec![2]);
    assert!(matches!(
        Batches::read(&path, 9),
        Err(DataError::Shape { name: "inputs", .. })
    ));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn corpus_windows_are_shifted_by_one_and_fixed_by_seed_and_step() {
    let dir = scratch("corpus");
    let path = dir.join("text.txt");
    std::fs::write(&path, (0..=255u8).cycle().take(5000).collect::<Vec<u8>>()).unwrap();
    let batches = Batches::corpus(&path, 3, 16, 9).unwrap();
    let (inputs, targets) = batches.get(5);
    assert_eq!((inputs.len(), targets.len()), (48, 48));
    for (x, y) in inputs.iter().zip(&targets) {
        assert_eq!((x + 1) % 256, *y, "the next byte");
    }
    assert_eq!(
        batches.get(5),
        Batches::corpus(&path, 3, 16, 9).unwrap().get(5)
    );
    assert_ne!(batches.get(5), batches.get(6));
    // The last twentieth (250 bytes) is held out: 15 windows of 16 in batches of 3.
    let held = batches.held_out(100);
    assert_eq!(held.len(), 5);
    assert_eq!(held[0].0[..3], [4750 % 256, 4751 % 256, 4752 % 256]);
    assert!(
        held.iter()
            .all(|(x, y)| x.iter().zip(y).all(|(x, y)| (x + 1) % 256 == *y))
    );
    assert!(matches!(
        Batches::corpus(&path, 1, 5000, 0),
        Err(DataError::CorpusTooShort { .. })
    ));
    std::fs::remove_dir_all(dir).unwrap();
}

fn tiny_config() -> GptConfig {
    GptConfig {
        n_layer: 2,
        n_head: 2,
        n_embd: 32,
        n_positions: 32,
        vocab_size: 96,
        layer_norm_epsilon: 1e-5,
    }
}

#[test]
fn the_committed_hugging_face_model_reads_with_every_parameter() {
    let (config, params) =
        checkpoint::read_model(&Path::new(TINY).join("model.safetensors")).unwrap();
    assert_eq!(config, tiny_config());
    // reference.json: 28 tensors, 29568 parameters.
    assert_eq!(params.len(), 4 + 12 * 2);
    assert_eq!(
        params
            .iter()
            .map(|(_, p)| p.as_slice().len())
            .sum::<usize>(),
        29568
    );
    let fresh = init::init(&config, 0).unwrap();
    let names = |p: &crate::params::Params| {
        p.iter()
            .map(|(n, t)| (n.clone(), t.shape().to_vec()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        names(&fresh),
        names(&params),
        "a fresh model has the file's names, shapes and order"
    );
    assert!(
        checkpoint::check_model(
            &GptConfig {
                n_layer: 3,
                ..config
            },
            &params
        )
        .is_err()
    );
}

#[test]
fn the_fixtures_step_0_gradient_norm_is_pytorchs() {
    // reference.json: grad_total_norm_step0 = 1.3471472263336182 (f32).
    let dir = scratch("grads");
    let (_, params) = checkpoint::read_model(&Path::new(TINY).join("model.safetensors")).unwrap();
    // grads.safetensors has the model's names: read it as a model beside the config.
    std::fs::copy(Path::new(TINY).join("config.json"), dir.join("config.json")).unwrap();
    std::fs::copy(
        Path::new(TINY).join("grads.safetensors"),
        dir.join("model.safetensors"),
    )
    .unwrap();
    let (_, grads) = checkpoint::read_model(&dir.join("model.safetensors")).unwrap();
    let norm = grad_norm(&grads);
    assert!(
        (f64::from(norm) - 1.347_147_226_333_618_2).abs() <= f64::from(f32::EPSILON) * 1.35,
        "{norm}"
    );
    // One clipped AdamW step changes every parameter (weight decay on all).
    let mut after = params.clone();
    let mut clipped = grads.clone();
    assert!(
        llm_from_scratch::train::clip_grad_norm(&mut clipped, 1.0)
            .unwrap()
            .clipped
    );
    let mut optimizer = AdamW::new(AdamWConfig {
        lr: 0.003,
        beta2: 0.95,
        weight_decay: 0.1,
        ..AdamWConfig::default()
    })
    .unwrap();
    optimizer.step(&mut after, &clipped).unwrap();
    assert!(after.iter().zip(&params).all(|((_, a), (_, p))| a != p));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fresh_weights_follow_gpt2s_initialization() {
    let config = GptConfig {
        n_layer: 3,
        n_head: 2,
        n_embd: 64,
        n_positions: 64,
        vocab_size: 256,
        layer_norm_epsilon: 1e-5,
    };
    let params = init::init(&config, 1).unwrap();
    let get = |name: &str| params.iter().find(|(n, _)| n == name).unwrap().1.as_slice();
    let std = |values: &[f32]| {
        let n = values.len() as f64;
        let mean = values.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        (values
            .iter()
            .map(|&v| (f64::from(v) - mean).powi(2))
            .sum::<f64>()
            / n)
            .sqrt()
    };
    let wte = std(get("transformer.wte.weight"));
    assert!((wte - 0.02).abs() < 0.001, "{wte}");
    let proj = std(get("transformer.h.2.mlp.c_proj.weight"));
    assert!((proj - 0.02 / 6f64.sqrt()).abs() < 0.0005, "{proj}");
    assert!(get("transformer.h.0.ln_1.weight").iter().all(|&v| v == 1.0));
    assert!(
        get("transformer.h.1.attn.c_attn.bias")
            .iter()
            .all(|&v| v == 0.0)
    );
    assert_eq!(params, init::init(&config, 1).unwrap(), "seeded");
    assert_ne!(params, init::init(&config, 2).unwrap());
}

#[test]
fn a_checkpoint_round_trips_model_optimizer_and_losses() {
    let dir = scratch("checkpoint");
    let config = GptConfig {
        n_layer: 1,
        n_head: 2,
        n_embd: 8,
        n_positions: 4,
        vocab_size: 256,
        layer_norm_epsilon: 1e-5,
    };
    let mut params = init::init(&config, 3).unwrap();
    let hyper = AdamWConfig::default();
    let mut optimizer = AdamW::new(hyper).unwrap();
    let grads: crate::params::Params = params
        .iter()
        .map(|(n, p)| {
            (
                n.clone(),
                DynTensor::from_vec(p.shape().to_vec(), vec![0.25; p.as_slice().len()]).unwrap(),
            )
        })
        .collect();
    optimizer.step(&mut params, &grads).unwrap();
    checkpoint::write_checkpoint(&dir, &config, &params, &optimizer, &[5.5]).unwrap();
    let back = checkpoint::read_checkpoint(&dir, hyper).unwrap();
    assert_eq!(
        (back.config, &back.params, &back.losses),
        (config, &params, &vec![5.5])
    );
    assert_eq!(back.optimizer, optimizer);
    // config.json reads back as the same configuration.
    let text = std::fs::read_to_string(dir.join("config.json")).unwrap();
    assert_eq!(GptConfig::from_json(&text).unwrap(), config);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn plot_ticks_are_round_and_the_svg_has_both_curves() {
    assert_eq!(plot::ticks(0.0, 10.0), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    assert_eq!(plot::ticks(1.3, 2.9), vec![1.5, 2.0, 2.5]);
    assert_eq!(
        plot::moving_average(&[1.0, 3.0, 5.0, 7.0], 2),
        vec![1.0, 2.0, 4.0, 6.0]
    );
    let svg = plot::svg(&[5.0, 4.0, 3.5, 3.0], "a <title>");
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<path").count(), 2);
    assert!(svg.contains("a &lt;title&gt;"));
}

#[test]
fn the_progress_bar_and_durations_read_right() {
    assert_eq!(progress::bar(5, 10, 10), "#####-----");
    assert_eq!(progress::bar(0, 0, 4), "####");
    assert_eq!(progress::duration(42.4), "42s");
    assert_eq!(progress::duration(185.0), "3m05s");
    assert_eq!(progress::duration(3720.0), "1h02m");
}

/// A small corpus: a few sentences of Austen repeated.
fn corpus(dir: &Path) -> PathBuf {
    let path = dir.join("corpus.txt");
    let text = "It is a truth universally acknowledged, that a single man in possession \
                of a good fortune, must be in want of a wife. ";
    std::fs::write(&path, text.repeat(20)).unwrap();
    path
}

/// Every tensor of a safetensors file as raw 32-bit words, sorted by name.
fn read_f32(path: &Path) -> Vec<(String, Vec<u32>)> {
    let bytes = std::fs::read(path).unwrap();
    let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let mut out: Vec<(String, Vec<u32>)> = file
        .tensors()
        .into_iter()
        .map(|(name, view)| {
            let words = view
                .data()
                .chunks_exact(4)
                .map(bytemuck::pod_read_unaligned)
                .collect();
            (name, words)
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_resumed_run_ends_bit_for_bit_where_the_uninterrupted_one_does() {
    let dir = scratch("resume");
    let text = corpus(&dir);
    let common = format!(
        "--corpus {} --seq 8 --batch 2 --warmup 2 --min-lr 1e-4 --decay-steps 6 --clip-norm 0.5 --seed 4",
        text.display()
    );
    let out = |name: &str| dir.join(name).display().to_string();
    let straight = format!(
        "{common} --layers 1 --width 8 --heads 2 --steps 6 --weights-out {} --losses-out {}",
        out("a.safetensors"),
        out("la.safetensors")
    );
    crate::run(&parse(&straight).unwrap()).unwrap();
    let first = format!(
        "{common} --layers 1 --width 8 --heads 2 --steps 3 --checkpoint {}",
        out("ckpt")
    );
    crate::run(&parse(&first).unwrap()).unwrap();
    let second = format!(
        "{common} --resume {} --steps 6 --weights-out {} --losses-out {}",
        out("ckpt"),
        out("b.safetensors"),
        out("lb.safetensors")
    );
    crate::run(&parse(&second).unwrap()).unwrap();
    assert_eq!(
        read_f32(&dir.join("a.safetensors")),
        read_f32(&dir.join("b.safetensors"))
    );
    let losses = read_f32(&dir.join("la.safetensors"));
    assert_eq!(losses, read_f32(&dir.join("lb.safetensors")));
    assert_eq!(
        losses[0].1.len(),
        6,
        "the resumed run's losses include the first run's"
    );
    let done = format!("{common} --resume {} --steps 3", out("ckpt"));
    let error = crate::run(&parse(&done).unwrap()).unwrap_err();
    assert!(error.contains("at step 3 already"), "{error}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_contract_run_is_bit_identical_for_one_two_and_three_threads() {
    let dir = scratch("threads");
    let tiny = Path::new(TINY);
    let run = |threads: usize| {
        let out = |name: &str| dir.join(format!("{threads}{name}")).display().to_string();
        let line = format!(
            "--init {} --batches {} --steps 8 --lr 0.003 --betas 0.9,0.95 --eps 1e-8 --weight-decay 0.1 \
             --clip-norm 1.0 --grads-out {} --losses-out {} --weights-out {}",
            tiny.join("model.safetensors").display(),
            tiny.join("batches.safetensors").display(),
            out("g"),
            out("l"),
            out("w")
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| crate::run(&parse(&line).unwrap())).unwrap();
        ["g", "l", "w"].map(|name| read_f32(Path::new(&out(name))))
    };
    let one = run(1);
    assert_eq!(one[0].len(), 28, "every parameter's gradient");
    assert_eq!(one[1][0].1.len(), 8, "one loss per step");
    assert_eq!(run(2), one);
    assert_eq!(run(3), one);
    std::fs::remove_dir_all(dir).unwrap();
}

/// The largest |a - b| over every value of the tensors both files name
/// (`lm_head.weight`, the tied head, is `wte` in ours), and the largest |b|.
fn max_diff(ours: &Path, theirs: &Path) -> (f32, f32, usize) {
    let (ours, theirs) = (read_f32(ours), read_f32(theirs));
    let (mut diff, mut largest, mut compared) = (0.0_f32, 0.0_f32, 0);
    for (name, want) in &theirs {
        let Some((_, got)) = ours.iter().find(|(n, _)| n == name) else {
            assert_eq!(name, "lm_head.weight", "ours lacks {name}");
            continue;
        };
        assert_eq!(got.len(), want.len(), "{name}");
        for (&g, &w) in got.iter().zip(want) {
            let (g, w) = (f32::from_bits(g), f32::from_bits(w));
            diff = diff.max((g - w).abs());
            largest = largest.max(w.abs());
        }
        compared += 1;
    }
    (diff, largest, compared)
}

/// Issue 23's check contract against PyTorch (tests/fixtures/train/*,
/// scripts/train_fixture.py: torch.optim.AdamW, clip_grad_norm_, 8 steps):
/// step-0 gradients within 1e-5 of the largest, losses and final weights
/// within 1e-4.
#[test]
fn the_contract_run_matches_pytorch_on_tiny_and_small() {
    // hyper.json: clip_max_norm 1.0 (tiny), 2.1 (small); the rest shared.
    for (case, clip) in [("tiny", "1.0"), ("small", "2.1")] {
        let dir = scratch(&format!("torch-{case}"));
        let fixture = Path::new(TINY).parent().unwrap().join(case);
        let out = |name: &str| dir.join(name);
        let line = format!(
            "--init {} --batches {} --steps 8 --lr 0.003 --betas 0.9,0.95 --eps 1e-8 --weight-decay 0.1 \
             --clip-norm {clip} --grads-out {} --losses-out {} --weights-out {}",
            fixture.join("model.safetensors").display(),
            fixture.join("batches.safetensors").display(),
            out("g").display(),
            out("l").display(),
            out("w").display()
        );
        crate::run(&parse(&line).unwrap()).unwrap();
        let (grads, largest, n) = max_diff(&out("g"), &fixture.join("grads.safetensors"));
        assert!(
            n >= 28 && grads <= 1e-5 * largest,
            "{case}: grads {grads} of {largest}"
        );
        let (losses, _, _) = max_diff(&out("l"), &fixture.join("losses.safetensors"));
        assert!(losses <= 1e-4, "{case}: losses differ by {losses}");
        let (weights, _, n) = max_diff(&out("w"), &fixture.join("weights_out.safetensors"));
        assert!(
            n >= 28 && weights <= 1e-4,
            "{case}: weights differ by {weights}"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
