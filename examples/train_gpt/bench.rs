//! `--bench-steps N`: the time of full training steps (forward, backward,
//! clipping, AdamW), printed as one JSON line that
//! `scripts/bench_train_torch.py --ours` reads next to PyTorch's figure.

use std::time::Instant;

use crate::Trainer;
use crate::args::BENCH_WARMUP;
use crate::data::Batches;
use crate::memory;

/// Runs [`BENCH_WARMUP`] untimed steps and `steps` timed ones (wall clock
/// around the loop) on `batches`, then prints
/// `{"bench": "train_gpt", "threads": K, "tokens_per_s": ..., ...}`.
///
/// # Errors
/// A step's error, as a sentence.
pub fn run(trainer: &mut Trainer<'_>, batches: &Batches, steps: usize) -> Result<(), String> {
    let (b, t) = batches.shape();
    let mut last = 0.0;
    let mut bytes = Default::default();
    for step in 0..BENCH_WARMUP {
        let (inputs, targets) = batches.get(step);
        (last, bytes) = trainer.step(&inputs, &targets, b, t, |_| Ok(()))?;
    }
    let data: Vec<_> = (0..steps).map(|s| batches.get(BENCH_WARMUP + s)).collect();
    let (start, cpu0) = (Instant::now(), cpu_seconds());
    for (inputs, targets) in &data {
        (last, _) = trainer.step(inputs, targets, b, t, |_| Ok(()))?;
    }
    let seconds = start.elapsed().as_secs_f64();
    let cpu = match (cpu0, cpu_seconds()) {
        (Some(a), Some(b)) => format!("{:.3}", b - a),
        _ => "null".to_string(),
    };
    let tokens = (steps * b * t) as f64;
    let c = trainer.config;
    let parameters: usize = trainer.params.iter().map(|(_, p)| p.as_slice().len()).sum();
    eprintln!("{}", memory::summary(parameters, bytes));
    println!(
        "{{\"bench\": \"train_gpt\", \"threads\": {}, \"n_layer\": {}, \"n_head\": {}, \"n_embd\": {}, \
         \"batch\": {b}, \"seq\": {t}, \"vocab\": {}, \"warmup\": {BENCH_WARMUP}, \"steps\": {steps}, \
         \"seconds\": {seconds:.6}, \"cpu_seconds\": {cpu}, \"ms_per_step\": {:.4}, \"tokens_per_s\": {:.1}, \"last_loss\": {last}, \
         \"peak_rss_bytes\": {}, \"tape_bytes\": {}, \"grad_bytes\": {}}}",
        rayon::current_num_threads(),
        c.n_layer,
        c.n_head,
        c.n_embd,
        c.vocab_size,
        1e3 * seconds / steps as f64,
        tokens / seconds,
        memory::peak_rss_bytes().map_or("null".to_string(), |r| r.to_string()),
        bytes.tape,
        bytes.grads,
    );
    Ok(())
}

/// The process's CPU time (user + system, every thread) in seconds:
/// `utime` and `stime` of `/proc/self/stat` in clock ticks of 1/100 s
/// (Linux's `USER_HZ`); `None` where that file is missing.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<u64>().ok();
    Some((ticks(11)? + ticks(12)?) as f64 / 100.0)
}
