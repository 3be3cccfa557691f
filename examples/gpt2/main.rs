//! GPT-2 end to end on the crate: a decoder with a KV cache, checked
//! against transformers and timed against the memory-bandwidth bound.
//!
//! `cargo run --release --features safetensors --example gpt2` checks the
//! committed 2-layer fixture against the logits transformers computed for
//! it, then times GPT-2 small's full configuration (seeded weights built in
//! memory) on a 32-token prompt and 64 generated tokens.
//! `--model PATH` runs a Hugging Face GPT-2 safetensors file instead;
//! `--weights bf16` (or `f16`) keeps the layers' matrices and the head in
//! half precision and multiplies straight from them (`half_linear`), half
//! the bytes per decoded token; see `--help` for the flags.

mod args;
mod config;
mod generate;
mod model;
#[path = "../common/pool.rs"]
mod pool;
#[path = "../common/report.rs"]
mod report;
#[cfg(test)]
mod tests;
mod verify;
mod weights;

use args::Args;
use config::Config;
use generate::{Generation, Keep, generate};
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::weights::{AlignedBytes, SafetensorsWriter, Weights};
use model::{Gpt2, KvCache};
use report::{last_level_cache, mib, peak_rss, read_bandwidth};
use std::process::ExitCode;
use std::time::Duration;
use weights::{Element, ModelError, Params, Storage};

/// The fixture check passes below this max |ours - transformers| in f32.
const TOLERANCE: f64 = 1e-4;

fn main() -> ExitCode {
    let args = match args::parse(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(args::FlagsError::Help) => {
            println!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(args::FlagsError::Usage(message)) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    pool::on_pool(args.threads, || run_args(&args))
}

/// The run `args` ask for, on the calling thread (a worker of the pool).
fn run_args(args: &Args) -> ExitCode {
    // Refuse an output path that cannot be written before the run, not after it.
    if let Some(path) = &args.logits_out
        && let Err(message) = create_output(path)
    {
        eprintln!("{message}");
        return ExitCode::from(2);
    }
    let outcome = match (&args.model, args.f64) {
        (None, false) => self_check::<f32>(args),
        (None, true) => self_check::<f64>(args),
        (Some(_), false) => run_file::<f32>(args),
        (Some(_), true) => run_file::<f64>(args),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            if let Some(path) = &args.logits_out {
                // The empty file created above holds no logits: do not leave it.
                let _ = std::fs::remove_file(path);
            }
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// No `--model`: the fixture check, then the GPT-2 small speed run.
fn self_check<F: Element>(args: &Args) -> Result<bool, ModelError> {
    let verdict = verify::verify::<F>(args.weights)?;
    let c = verdict.config;
    println!(
        "fixture ({} layers, {} heads, {} wide, vocab {}{}): {} prompt positions and {} greedy steps against transformers",
        c.layers,
        c.heads,
        c.width,
        c.vocab,
        match args.weights {
            Storage::Compute => "",
            Storage::Bf16 => ", bf16 weights",
            Storage::F16 => ", f16 weights",
        },
        verdict.prompt_positions,
        verdict.steps
    );
    let passed = verdict.max_error <= TOLERANCE && verdict.same_tokens;
    println!(
        "  max |ours - transformers| = {:.2e} (tolerance {TOLERANCE:.0e}); same tokens: {}  {}",
        verdict.max_error,
        if verdict.same_tokens { "yes" } else { "NO" },
        if passed { "OK" } else { "FAILED" }
    );
    let config = Config::SMALL;
    println!(
        "\nGPT-2 small, seeded weights: {} layers, {} heads, {} wide, vocab {}, {:.1}M parameters ({}{})",
        config.layers,
        config.heads,
        config.width,
        config.vocab,
        config.parameters() as f64 / 1e6,
        if size_of::<F>() == 4 { "f32" } else { "f64" },
        match args.weights {
            Storage::Compute => "",
            Storage::Bf16 => "; matrices and head bf16",
            Storage::F16 => "; matrices and head f16",
        }
    );
    let params = Params::<F>::seeded(config, 2024)?.into_storage(args.weights)?;
    let prompt: Vec<usize> = (0..32).map(|i| (i * 7919 + 13) % config.vocab).collect();
    let steps = args.generate.unwrap_or(64);
    let passed_speed = run(&params, &prompt, steps, args)?;
    Ok(passed && passed_speed)
}

/// `--model PATH`: a GPT-2 safetensors file.
fn run_file<F: Element>(args: &Args) -> Result<bool, ModelError> {
    let path = args.model.as_deref().unwrap_or(std::path::Path::new(""));
    let buffer =
        AlignedBytes::read(path).map_err(|e| ModelError::Io(format!("{}: {e}", path.display())))?;
    let weights = Weights::parse(buffer.as_bytes()).map_err(ModelError::File)?;
    let directory = path.parent().unwrap_or(std::path::Path::new("."));
    let width = weights::config_of(&weights, 1)?.width;
    // `n_head` is the one number the shapes do not tell: config.json, else GPT-2's sizes.
    let heads = Config::heads_from_json(directory)
        .or(match width {
            768 => Some(12),
            1024 => Some(16),
            1280 => Some(20),
            1600 => Some(25),
            _ => None,
        })
        .ok_or_else(|| {
            ModelError::Io(format!(
                "no config.json with n_head beside {}",
                path.display()
            ))
        })?;
    let config = weights::config_of(&weights, heads)?;
    let params = Params::<F>::from_file(&weights, config)?.into_storage(args.weights)?;
    println!(
        "{}: {} layers, {} heads, {} wide, vocab {}, context {}; {:.1} MiB of parameters, {:.1} MiB copied out of the file",
        path.display(),
        config.layers,
        config.heads,
        config.width,
        config.vocab,
        config.context,
        mib(params.bytes()),
        mib(params.copied_bytes)
    );
    let prompt = match &args.tokens {
        Some(tokens) => tokens.clone(),
        None => default_prompt(config.vocab)?,
    };
    run(&params, &prompt, args.generate.unwrap_or(16), args)
}

/// "The quick brown fox" in GPT-2's vocabulary: the prompt when `--tokens`
/// is not given.
const DEFAULT_PROMPT: [usize; 4] = [464, 2068, 7586, 21831];

/// [`DEFAULT_PROMPT`], if every id is inside a vocabulary of `vocab` tokens.
///
/// # Errors
/// [`ModelError::DefaultPromptOutsideVocab`] for a smaller vocabulary (a
/// model with its own tokenizer needs its own `--tokens`).
fn default_prompt(vocab: usize) -> Result<Vec<usize>, ModelError> {
    if DEFAULT_PROMPT.iter().all(|&id| id < vocab) {
        return Ok(DEFAULT_PROMPT.to_vec());
    }
    Err(ModelError::DefaultPromptOutsideVocab {
        prompt: DEFAULT_PROMPT.to_vec(),
        vocab,
    })
}

/// The prompt's ids against the model before any work: each below the
/// vocabulary (named by `--tokens` position, not by the embedding's
/// gather), and no more of them than the context holds.
fn check_prompt(prompt: &[usize], config: &Config) -> Result<(), ModelError> {
    if let Some((position, &id)) = prompt
        .iter()
        .enumerate()
        .find(|(_, id)| **id >= config.vocab)
    {
        return Err(ModelError::TokenOutsideVocab {
            position,
            id,
            vocab: config.vocab,
        });
    }
    if prompt.len() > config.context {
        return Err(ModelError::PromptTooLong {
            length: prompt.len(),
            context: config.context,
        });
    }
    Ok(())
}

/// Generates, prints the ids, the speed against the bandwidth bound, the
/// memory and the cache's layout; writes the logits when asked.
fn run<F: Element>(
    params: &Params<'_, F>,
    prompt: &[usize],
    steps: usize,
    args: &Args,
) -> Result<bool, ModelError> {
    let config = params.config;
    let model = Gpt2 { params };
    let capacity = prompt.len().saturating_add(steps).min(config.context);
    check_prompt(prompt, &config)?;
    let mut cache = KvCache::new(&config, capacity)?;
    let keep = Keep {
        step_logits: args.logits_out.is_some(),
        prompt_logits: false,
    };
    let mut run = generate(&model, prompt, steps, &mut cache, keep)?;
    // `--runs N`: the same generation again; every run after the first is timed.
    let mut timed = Vec::new();
    for again in 2..=args.runs {
        cache.clear();
        let next = generate(&model, prompt, steps, &mut cache, keep)?;
        if next.ids != run.ids {
            println!(
                "run {again} generated {:?}, run 1 {:?}: the same inputs gave different tokens  FAILED",
                next.ids, run.ids
            );
            return Ok(false);
        }
        timed.push((next.prefill, next.decode));
        run = next;
    }
    println!("prompt ({} tokens): {prompt:?}", prompt.len());
    println!("generated ({} tokens): {:?}", run.ids.len(), run.ids);
    if let Some(message) = &run.stopped {
        println!("{message}");
    }
    // Peak memory before the bandwidth probe, which allocates its own buffer.
    let peak = peak_rss().unwrap_or(0);
    let timing = Timing::of(&run, &mut timed);
    speed(params, prompt.len(), run.ids.len(), timing, args);
    let activations = prompt.len()
        * (12 * config.width + config.heads * prompt.len() + config.vocab)
        * size_of::<F>();
    let budget = params.bytes() + cache.bytes() + activations;
    println!(
        "memory: peak RSS {:.0} MiB; weights {:.0} + KV cache {:.1} + activations {:.1} MiB = {:.0} MiB (+10%: {:.0})",
        mib(peak),
        mib(params.bytes()),
        mib(cache.bytes()),
        mib(activations),
        mib(budget),
        mib(budget) * 1.1
    );
    let mut trace = LayoutTrace::new();
    trace.owner("K cache, layer 0 [H, D, T_max]", &cache.keys[0]);
    trace.view(
        "Kᵀ read by q·Kᵀ",
        &cache.keys[0].view().slice(2, 0..cache.len)?,
    );
    trace.owner("V cache, layer 0 [H, T_max, D]", &cache.values[0]);
    trace.view(
        "V read by P·V",
        &cache.values[0].view().slice(1, 0..cache.len)?,
    );
    println!(
        "\nlayer 0's cache after the last step ({} of {} positions):\n{trace}",
        cache.len,
        cache.capacity()
    );
    if let (Some(path), Some(logits)) = (&args.logits_out, &run.step_logits) {
        write_logits(path, logits, config.vocab)?;
        println!(
            "wrote the logits of {} steps to {}",
            logits.len(),
            path.display()
        );
    }
    Ok(true)
}

/// The prefill and decode times the speed line reports: the one run's, or
/// the medians of the timed runs 2..N of `--runs N`.
#[derive(Clone, Copy)]
struct Timing {
    prefill: Duration,
    decode: Duration,
    /// How many runs the medians are over (0: the single run).
    medians_of: usize,
}

impl Timing {
    /// `run`'s times if `timed` is empty, else the median of `timed`'s
    /// prefills and of its decodes (the upper middle one for an even count).
    fn of<F>(run: &Generation<F>, timed: &mut [(Duration, Duration)]) -> Timing {
        if timed.is_empty() {
            return Timing {
                prefill: run.prefill,
                decode: run.decode,
                medians_of: 0,
            };
        }
        let middle = timed.len() / 2;
        timed.sort_unstable_by_key(|t| t.0);
        let prefill = timed[middle].0;
        timed.sort_unstable_by_key(|t| t.1);
        Timing {
            prefill,
            decode: timed[middle].1,
            medians_of: timed.len(),
        }
    }
}

/// Prefill and decode tokens per second, and decode against the bound of
/// reading every weight once per token at the measured bandwidth.
fn speed<F: Element>(
    params: &Params<'_, F>,
    prompt: usize,
    generated: usize,
    timing: Timing,
    args: &Args,
) {
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from));
    let prefill = prompt as f64 / timing.prefill.as_secs_f64();
    let passes = generated.saturating_sub(1);
    let decode = passes as f64 / timing.decode.as_secs_f64();
    // Per decode token every matrix is read once (wpe: one row).
    let wpe = params.matrix("wpe.weight").len() * size_of::<F>();
    let bytes_per_token = params.bytes() - wpe;
    let bandwidth = read_bandwidth(threads);
    let bound = bandwidth / bytes_per_token as f64;
    // One generated token comes from the prefill: decode steps start at two.
    let decode_text = if passes == 0 {
        "no decode steps (--generate 1 or less)".to_string()
    } else {
        format!(
            "decode {decode:.2} tokens/s ({passes} steps in {:.0} ms)",
            timing.decode.as_secs_f64() * 1e3
        )
    };
    let runs = match timing.medians_of {
        0 => String::new(),
        1 => ", run 2 after a warm-up run".to_string(),
        n => format!(", medians of runs 2-{} after a warm-up run", n + 1),
    };
    println!(
        "speed ({threads} thread{}{runs}): prefill {prefill:.1} tokens/s ({prompt} tokens in {:.1} ms); {decode_text}",
        if threads == 1 { "" } else { "s" },
        timing.prefill.as_secs_f64() * 1e3,
    );
    let bound_line = format!(
        "  decode bound: {:.1} MiB of weights per token at {:.1} GB/s measured = {bound:.1} tokens/s",
        mib(bytes_per_token),
        bandwidth / 1e9,
    );
    match last_level_cache() {
        // Weights that stay in the cache between tokens are not streamed
        // from memory: the bound does not apply (a percentage would pass 100).
        Some(cache) if bytes_per_token <= cache => println!(
            "{bound_line}; not a bound here: the weights fit in the {:.0} MiB last-level cache",
            mib(cache)
        ),
        _ => println!("{bound_line}; reached {:.0} %", 100.0 * decode / bound),
    }
}

/// Creates (empties) the `--logits-out` file, so a missing directory or a
/// read-only place is refused before the run; `Err` is one sentence.
fn create_output(path: &std::path::Path) -> Result<(), String> {
    std::fs::File::create(path)
        .map(drop)
        .map_err(|error| format!("--logits-out {}: {error}", path.display()))
}

/// A safetensors file with `logits` `[steps, vocab]` f32 (rounded once
/// from f64 compute).
///
/// # Errors
/// An allocation failure, or the writer's [`Error::Io`] naming the path.
fn write_logits<F: Element>(
    path: &std::path::Path,
    steps: &[Vec<F>],
    vocab: usize,
) -> Result<(), ModelError> {
    let values: Vec<f32> = steps
        .iter()
        .flatten()
        .map(|x| x.to_f32().unwrap_or(f32::NAN))
        .collect();
    let logits = Tensor::from_vec([steps.len(), vocab], values)?;
    SafetensorsWriter::new()
        .add("logits", logits.view())?
        .write(path)?;
    Ok(())
}
