//! # GPT-2 attention heads: split, attend, merge — and where the copies are
//!
//! `cargo run --release --example attention_heads [-- --batch B --seq T --heads H --width C]`
//!
//! Runs GPT-2's attention block (OpenAI `model.py`: `split_states`,
//! `split_heads`, `multihead_attn`, `merge_heads`) on seeded input of GPT-2
//! small's shapes, every step at full size: Q, K, V as `chunk::<3>` views
//! of the packed projection, split heads by `split_axis` on those views
//! (`reshape` refuses them: the strict rule, shown), the transposed key
//! view, the scaled scores `Q·Kᵀ/√D` by one `matmul_affine` straight from
//! that view (no raw `Q·Kᵀ` temporary), the causal mask and the stable
//! softmax fused in one `causal_softmax` (no mask tensor, no masked copy),
//! `P·V` by `matmul`, merge heads. It prints the layout trace of every
//! step (shape, strides, base offset, contiguity, shared or new owner),
//! counts copied bytes against a copy-everything baseline, times each step,
//! and checks every output against a plain-loop reference (the attention
//! tensors on sampled query rows at full size, the causal zeros of P on
//! every row). Exit code 0 only if every check passes; 1 on a mismatch; 2
//! for bad flags.
//!
//! Modules: `pipeline` (the algorithm, step by step), `args` (sizes and
//! flags), `naive` (the plain-loop reference), `verify` (comparisons),
//! `times` (the time table), `tests` (unit tests: `cargo test --example
//! attention_heads`); shared with other examples, from `examples/common/`:
//! `audit` (recorder, ledger, counting allocator, byte report), `flags`
//! (flag parsing), `prng` (SplitMix64, drawn by `input`).

mod args;
#[path = "../common/audit/mod.rs"]
mod audit;
#[path = "../common/flags.rs"]
mod flags;
mod input;
mod naive;
mod pipeline;
#[path = "../common/prng.rs"]
mod prng;
#[cfg(test)]
mod tests;
mod times;
mod verify;

use args::Config;
use audit::ledger::{Kind, Ledger, human};
use audit::record::{Made, Recorder};
use audit::{heap, report};
use flags::FlagsError;
use llm_from_scratch::View;
use std::process::ExitCode;
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: heap::Counting = heap::Counting;

fn main() -> ExitCode {
    let config = match args::parse(std::env::args_os().skip(1)) {
        Ok(config) => config,
        Err(FlagsError::Help) => {
            println!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(FlagsError::Usage(message)) => {
            eprintln!("error: {message}\n\n{}", args::USAGE);
            return ExitCode::from(2);
        }
    };
    match run(&config) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("\nFAILED: see the lines marked MISMATCH / PROBLEM above");
            ExitCode::from(1)
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(1)
        }
    }
}

/// Runs every step, prints it, verifies it; `Ok(true)` when all checks pass.
fn run(config: &Config) -> Result<bool, llm_from_scratch::Error> {
    let started = Instant::now();
    let dims = config.dims;
    let (b, t, h, d, c) = (
        dims.batch(),
        dims.seq(),
        dims.heads(),
        dims.head_width(),
        dims.width(),
    );
    println!("GPT-2 attention layouts: B = {b}, T = {t}, H = {h}, D = {d}, C = H·D = {c} (f64)");
    println!(
        "attention runs over all T = {t} positions (matmul); estimated peak memory {} MiB",
        config.memory >> 20
    );

    let mut ledger = Ledger::new(heap::requested_bytes);
    ledger.step(format_args!("0 · input: packed projection qkv [B, T, 3C]"));
    let qkv = input::tensor([b, t, 3 * c], input::SEED)?;
    ledger.owner(format_args!("qkv"), Made::Input, &qkv);
    ledger.print_new();

    let parts = pipeline::chunk_qkv(&qkv, &mut ledger)?;
    let heads = pipeline::split_heads(&parts, &dims, &mut ledger)?;
    let contiguous = parts.iter().all(View::is_contiguous);
    ledger.print_new();
    println!(
        "  B·T = {}: the parts are {}, and split_axis split all three in place (0 B copied)",
        b * t,
        if contiguous {
            "contiguous, so reshape would take them too"
        } else {
            "not contiguous, so reshape refused them (the strict rule)"
        }
    );
    let kt = pipeline::transpose_keys(&heads.k, &mut ledger)?;
    ledger.print_new();

    let attention = pipeline::attention(&heads, &kt, &mut ledger)?;
    ledger.print_new();

    ledger.step(format_args!("5 · merge heads of Y → [B, T, C]"));
    let merged = pipeline::merge_heads(attention.out.view(), "Y", &mut ledger)?;
    ledger.print_new();

    let pipeline_ms = started.elapsed().as_secs_f64() * 1e3;
    println!("\n── checks against the plain-loop reference (naive.rs) ──");
    let outputs = verify::Outputs {
        qkv: &qkv,
        parts: &parts,
        heads: &heads,
        kt: &kt,
        attention: &attention,
        merged: &merged,
    };
    let mut ok = verify::against_naive(&dims, &config.checked_rows(), &outputs);
    ok &= contiguous == (b * t == 1) || verify::problem("the parts' contiguity should be B·T == 1");

    println!("\n── bytes ──");
    ok &= report::bytes(&ledger);
    let copied: u64 = ledger
        .steps()
        .iter()
        .map(|step| step.bytes(|kind| kind == Kind::Made(Made::Copy)))
        .sum();
    let merge = (b * t * c * size_of::<f64>()) as u64;
    println!(
        "  copied {} in all; the merge of the heads alone is B·T·C f64 = {}",
        human(copied),
        human(merge)
    );
    ok &= copied <= merge || verify::problem("more was copied than the merge of the heads");
    println!("\n── time (this run, wall clock) ──");
    times::table(&ledger, &dims);
    println!(
        "  whole pipeline {pipeline_ms:.1} ms; with checks {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );
    println!(
        "\n{}",
        if ok {
            "OK: every check passed"
        } else {
            "FAILED"
        }
    );
    Ok(ok)
}
