//! The examples' threads: the whole run on a worker of its own rayon pool.
//!
//! Included by `gpt2` and `llama` with `#[path = "../common/pool.rs"] mod pool;`.

use std::process::ExitCode;

/// Runs `run` on a worker of a new rayon pool of `threads` threads (`None`:
/// rayon's default, `RAYON_NUM_THREADS`, else every core).
///
/// A kernel called on a worker splits its work with the pool's other
/// threads directly (a rayon join); called from `main`'s thread it would be
/// handed to the pool while `main` waits to be woken, once per kernel.
/// Two-thread decode, interleaved pairs against a global pool on a 2-core
/// Zen 4 (2026-12-06): GPT-2 small f32 39.0 against 35.8 tokens/s, bf16
/// weights 68.7 against 66.2 (means of six pairs); SmolLM2 Q4_1 82.1-83.1
/// against 71.0-81.0 (three pairs).
pub fn on_pool(threads: Option<usize>, run: impl FnOnce() -> ExitCode + Send) -> ExitCode {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build();
    match pool {
        Ok(pool) => pool.install(run),
        Err(error) => {
            eprintln!("error: could not start the threads: {error}");
            ExitCode::FAILURE
        }
    }
}
