//! PLACEHOLDER main from branch `autograd`: the `train-parts` branch replaces
//! this file with the training CLI of issue 23. This one only runs
//! [`model::loss_and_grads`] (no optimizer step) on every batch of a file
//! and prints each loss and the gradient throughput in tokens/s:
//!
//! `cargo run --release --features safetensors --example train_gpt -- DIR/model.safetensors F.safetensors THREADS`
//! (`config.json` beside the model).

mod config;
mod model;
mod params;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn run(model_path: PathBuf, batches: PathBuf, threads: usize) -> Result<(), String> {
    let dir = model_path.parent().ok_or("the model path has no folder")?;
    let config = config::GptConfig::read(&dir.join("config.json")).map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&model_path).map_err(|e| format!("{}: {e}", model_path.display()))?;
    let params = params::load(&bytes).map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&batches).map_err(|e| format!("{}: {e}", batches.display()))?;
    let file = safetensors::SafeTensors::deserialize(&bytes).map_err(|e| e.to_string())?;
    let read = |key: &str| -> Result<(Vec<usize>, Vec<usize>), String> {
        let t = file.tensor(key).map_err(|e| format!("{key}: {e}"))?;
        let ids = t
            .data()
            .chunks_exact(8)
            .map(|b| {
                let v = i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                usize::try_from(v).map_err(|_| format!("{key}: negative id {v}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((t.shape().to_vec(), ids))
    };
    let (shape, inputs) = read("inputs")?;
    let (_, targets) = read("targets")?;
    let [steps, b, t] = shape[..] else {
        return Err(format!("inputs: shape {shape:?}, expected [S, B, T]"));
    };
    let start = Instant::now();
    for s in 0..steps {
        let range = s * b * t..(s + 1) * b * t;
        let (loss, _) = model::loss_and_grads(
            &config,
            &params,
            &inputs[range.clone()],
            &targets[range],
            b,
            t,
            threads,
        )
        .map_err(|e| e.to_string())?;
        println!("batch {s}: loss {loss}");
    }
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{} forward+backward passes, {:.0} tokens/s on {threads} thread(s)",
        steps,
        (steps * b * t) as f64 / seconds
    );
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [model, batches, threads] = &args[..] else {
        eprintln!("usage: train_gpt MODEL.safetensors BATCHES.safetensors THREADS");
        return ExitCode::FAILURE;
    };
    let Ok(threads) = threads.parse::<usize>() else {
        eprintln!("train_gpt: THREADS must be a number, got `{threads}`");
        return ExitCode::FAILURE;
    };
    match run(model.into(), batches.into(), threads) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("train_gpt: {e}");
            ExitCode::FAILURE
        }
    }
}
