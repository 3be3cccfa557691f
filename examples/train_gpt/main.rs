//! Training a GPT-2-style model: the check contract of issue 23 and a real
//! run on text.
//!
//! Check contract (`--init` Hugging Face GPT-2 weights + `config.json`,
//! `--batches` `inputs` / `targets` I64 `[S, B, T]`): for each step `s`, the
//! mean cross-entropy of batch `s` and every gradient; step 0's gradients
//! (before clipping) to `--grads-out`; PyTorch's `clip_grad_norm_`; one
//! `torch.optim.AdamW` step (`llm_from_scratch::train`); then `--losses-out`
//! (`losses` F32 `[S]`) and `--weights-out` (every parameter).
//!
//! A real run: `--corpus data/austen.txt` (`scripts/fetch_corpus.sh`),
//! byte-level, a fresh model (`--layers`, `--width`, `--heads`) or
//! `--init`/`--resume`, warmup + cosine (`--warmup`, `--min-lr`), a progress
//! line, `--plot`, `--checkpoint`, `--sample`. See `--help`.

mod args;
mod bench;
mod checkpoint;
#[path = "../llama/sample.rs"]
mod choose;
mod config;
mod data;
#[cfg(test)]
mod grads_tests;
mod heap;
mod init;
mod memory;
mod model;
mod params;
mod plot;
#[path = "../common/prng.rs"]
mod prng;
mod progress;
mod sample;
#[cfg(test)]
mod tests;

use args::{Args, Data, Start};
use config::GptConfig;
use data::Batches;
use llm_from_scratch::train::{AdamW, AdamWConfig, WarmupCosine, clip_grad_norm};
use model::StepBytes;
use params::Params;
use std::path::Path;
use std::process::ExitCode;

/// Batches of held-out text the final loss is measured on (corpus runs).
const HELD_OUT_BATCHES: usize = 16;

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
    if let Some(threads) = args.threads
        && let Err(error) = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
    {
        eprintln!("error: could not start {threads} threads: {error}");
        return ExitCode::FAILURE;
    }
    heap::keep_freed_memory();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The model, the optimizer and the losses a run starts from.
struct State {
    config: GptConfig,
    params: Params,
    optimizer: AdamW<f32>,
    losses: Vec<f32>,
}

fn start(args: &Args, hyper: AdamWConfig) -> Result<State, String> {
    let fresh = |config: GptConfig, params: Params| -> Result<State, String> {
        let optimizer = AdamW::new(hyper).map_err(|e| e.to_string())?;
        Ok(State {
            config,
            params,
            optimizer,
            losses: Vec::new(),
        })
    };
    match &args.start {
        Start::Init(path) => {
            let (config, params) = checkpoint::read_model(path).map_err(|e| e.to_string())?;
            fresh(config, params)
        }
        Start::Resume(dir) => {
            let r = checkpoint::read_checkpoint(dir, hyper).map_err(|e| e.to_string())?;
            Ok(State {
                config: r.config,
                params: r.params,
                optimizer: r.optimizer,
                losses: r.losses,
            })
        }
        Start::Fresh {
            layers,
            width,
            heads,
        } => {
            let seq = match &args.data {
                Data::Corpus { seq, .. } | Data::Random { seq, .. } => *seq,
                Data::Batches(_) => {
                    return Err(
                        "a fresh model trains on --corpus; --batches needs --init".to_string()
                    );
                }
            };
            let config = GptConfig {
                n_layer: *layers,
                n_head: *heads,
                n_embd: *width,
                n_positions: seq,
                vocab_size: 256,
                layer_norm_epsilon: 1e-5,
            };
            let params = init::init(&config, args.seed).map_err(|e| e.to_string())?;
            fresh(config, params)
        }
    }
}

/// The whole run: model, data, the training loop, the outputs.
pub fn run(args: &Args) -> Result<(), String> {
    let hyper = AdamWConfig {
        lr: args.lr,
        beta1: args.beta1,
        beta2: args.beta2,
        eps: args.eps,
        weight_decay: args.weight_decay,
    };
    hyper.validate().map_err(|e| e.to_string())?;
    let State {
        config,
        mut params,
        mut optimizer,
        mut losses,
    } = start(args, hyper)?;
    let random = Path::new("(random bytes)");
    let (batches, data_path) = match &args.data {
        Data::Batches(path) => (Batches::read(path, config.vocab_size), path.as_path()),
        Data::Corpus { path, batch, seq } => (
            Batches::corpus(path, *batch, *seq, args.seed),
            path.as_path(),
        ),
        Data::Random { batch, seq } => (Ok(Batches::random(*batch, *seq, args.seed)), random),
    };
    let batches = batches.map_err(|e| e.to_string())?;
    if let Some(steps) = args.bench_steps {
        batches
            .check(data_path, steps, config.n_positions)
            .map_err(|e| e.to_string())?;
        let mut trainer = Trainer {
            config: &config,
            params: &mut params,
            optimizer: &mut optimizer,
            clip_norm: args.clip_norm,
        };
        return bench::run(&mut trainer, &batches, steps);
    }
    let first = losses.len();
    let total = args
        .steps
        .or(batches.available())
        .unwrap_or(args::DEFAULT_CORPUS_STEPS);
    if first >= total {
        return Err(format!(
            "the run is at step {first} already; --steps {total} is the run's length, resumed steps included"
        ));
    }
    batches
        .check(data_path, total, config.n_positions)
        .map_err(|e| e.to_string())?;
    let decay = args.decay_steps.unwrap_or(total as u64);
    let schedule = WarmupCosine::new(args.lr, args.min_lr.unwrap_or(args.lr), args.warmup, decay)
        .map_err(|e| e.to_string())?;
    let (b, t) = batches.shape();
    eprintln!(
        "GPT-2: {} layers, {} heads, width {}, context {}, vocabulary {}: {} parameters; batch {b}×{t}, steps {}..{total}",
        config.n_layer,
        config.n_head,
        config.n_embd,
        config.n_positions,
        config.vocab_size,
        parameter_count(&params),
        first + 1
    );
    let progress = progress::Progress::new(first, total, b * t);
    let mut peak = StepBytes::default();
    for step in first..total {
        let lr = schedule.lr(step as u64);
        optimizer.set_lr(lr).map_err(|e| e.to_string())?;
        let (inputs, targets) = batches.get(step);
        let mut trainer = Trainer {
            config: &config,
            params: &mut params,
            optimizer: &mut optimizer,
            clip_norm: args.clip_norm,
        };
        let (loss, bytes) = trainer
            .step(&inputs, &targets, b, t, |grads| match &args.grads_out {
                Some(path) if step == first => {
                    checkpoint::write_tensors(path, grads.iter().map(|(n, g)| (n.clone(), g)), None)
                        .map_err(|e| e.to_string())
                }
                _ => Ok(()),
            })
            .map_err(|e| format!("step {step}: {e}"))?;
        peak.tape = peak.tape.max(bytes.tape);
        peak.grads = peak.grads.max(bytes.grads);
        losses.push(loss);
        progress.update(step, loss, lr);
        if let (Some(dir), Some(every)) = (&args.checkpoint, args.checkpoint_every)
            && (step + 1).is_multiple_of(every)
            && step + 1 < total
        {
            checkpoint::write_checkpoint(dir, &config, &params, &optimizer, &losses)
                .map_err(|e| e.to_string())?;
        }
    }
    let trained = total - first;
    eprintln!(
        "{trained} steps, {:.0} tokens/s; loss {} -> {}",
        progress.tokens_per_second(trained),
        losses
            .get(first)
            .map_or("-".to_string(), |l| format!("{l:.4}")),
        losses.last().map_or("-".to_string(), |l| format!("{l:.4}"))
    );
    eprintln!("{}", memory::summary(parameter_count(&params), peak));
    let held_out = batches.held_out(HELD_OUT_BATCHES);
    if !held_out.is_empty() {
        let mut sum = 0.0;
        for (inputs, targets) in &held_out {
            sum += f64::from(
                model::loss_and_grads(
                    &config,
                    &params,
                    inputs,
                    targets,
                    b,
                    t,
                    rayon::current_num_threads(),
                )
                .map_err(|e| format!("held-out loss: {e}"))?
                .0,
            );
        }
        eprintln!(
            "held-out loss {:.4} ({} batches of the corpus's last twentieth)",
            sum / held_out.len() as f64,
            held_out.len()
        );
    }
    write_outputs(args, &config, &params, &optimizer, &losses)?;
    if args.sample > 0 {
        let text = sample::sample(
            &config,
            &params,
            args.prompt.as_bytes(),
            args.sample,
            args.temperature,
            args.seed,
        )?;
        println!(
            "--- {} sampled bytes after {:?} (temperature {}):",
            args.sample, args.prompt, args.temperature
        );
        println!("{}{}", args.prompt, String::from_utf8_lossy(&text));
    }
    Ok(())
}

/// The number of parameter elements.
fn parameter_count(params: &Params) -> usize {
    params.iter().map(|(_, p)| p.as_slice().len()).sum()
}

/// What one full training step changes: the parameters and the optimizer.
pub struct Trainer<'a> {
    pub config: &'a GptConfig,
    pub params: &'a mut Params,
    pub optimizer: &'a mut AdamW<f32>,
    /// `clip_grad_norm_`'s `max_norm` (`None`: no clipping).
    pub clip_norm: Option<f64>,
}

impl Trainer<'_> {
    /// One full step on `[b, t]` `inputs` / `targets`: loss and gradients
    /// (`seen` gets them before clipping), clipping, one AdamW update, on
    /// the current rayon pool. Returns the loss and the step's bytes.
    pub fn step(
        &mut self,
        inputs: &[usize],
        targets: &[usize],
        b: usize,
        t: usize,
        seen: impl FnOnce(&Params) -> Result<(), String>,
    ) -> Result<(f32, StepBytes), String> {
        let (loss, mut grads, bytes) = model::loss_grads_and_bytes(
            self.config,
            self.params,
            inputs,
            targets,
            b,
            t,
            rayon::current_num_threads(),
        )
        .map_err(|e| e.to_string())?;
        seen(&grads)?;
        if let Some(max_norm) = self.clip_norm {
            clip_grad_norm(&mut grads, max_norm).map_err(|e| e.to_string())?;
        }
        self.optimizer
            .step(self.params, &grads)
            .map_err(|e| e.to_string())?;
        Ok((loss, bytes))
    }
}

fn write_outputs(
    args: &Args,
    config: &GptConfig,
    params: &Params,
    optimizer: &AdamW<f32>,
    losses: &[f32],
) -> Result<(), String> {
    if let Some(path) = &args.losses_out {
        checkpoint::write_losses(path, losses).map_err(|e| e.to_string())?;
    }
    if let Some(path) = &args.weights_out {
        checkpoint::write_tensors(path, params.iter().map(|(n, p)| (n.clone(), p)), None)
            .map_err(|e| e.to_string())?;
    }
    if let Some(dir) = &args.checkpoint {
        checkpoint::write_checkpoint(dir, config, params, optimizer, losses)
            .map_err(|e| e.to_string())?;
        eprintln!("checkpoint: {}", dir.display());
    }
    if let Some(path) = &args.plot {
        write_plot(path, config, losses)?;
    }
    Ok(())
}

fn write_plot(path: &Path, config: &GptConfig, losses: &[f32]) -> Result<(), String> {
    let title = format!(
        "train_gpt: {} layers, width {}, {} steps, final loss {:.3}",
        config.n_layer,
        config.n_embd,
        losses.len(),
        losses.last().copied().unwrap_or(f32::NAN)
    );
    std::fs::write(path, plot::svg(losses, &title))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("plot: {}", path.display());
    Ok(())
}
