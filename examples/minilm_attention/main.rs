//! A real model through zero-copy views: the embeddings and the layer-0
//! self-attention block of all-MiniLM-L6-v2 (a BERT encoder, hidden 384,
//! 12 heads of width 32), computed with this crate's views and ops on
//! weights borrowed straight from a safetensors buffer, and compared with
//! the numbers of Hugging Face `transformers` at every stage.
//!
//! ```sh
//! cargo run --release --features safetensors --example minilm_attention
//! cargo run --release --features safetensors --example minilm_attention -- \
//!     --model path/to/model.safetensors [--tokens 101,7592,2088,102]
//! ```
//! Without `--tokens`, the fixture's sentence is used, so a full checkpoint
//! is checked against the same reference numbers. With a full checkpoint
//! the whole encoder (six layers, mean pooling, L2 normalization) also
//! embeds the four sentences of `tests/fixtures/minilm/sentences.safetensors`
//! and compares them with sentence-transformers' embeddings. Exit code 1 when a stage
//! is off by more than its tolerance, 2 for bad arguments or files.

mod encoder;
#[path = "../common/flags.rs"]
mod flags;
mod pipeline;

use flags::FlagsError;
use llm_from_scratch::tensor::weights::{AlignedBytes, Weights};
use pipeline::{Naming, max_abs_diff};
use std::process::ExitCode;

/// f32 tolerances (absolute). Our dot products run in ascending order (one
/// fused multiply-add per term), PyTorch's BLAS reassociates: over 384-term dot products of O(1) values in f32
/// (unit roundoff 6e-8) the two orders differ by a few 1e-6; layer norm
/// divides by a standard deviation near 0.1–1, so 1e-4 leaves a margin of
/// about 10× over what we measure, while any layout mistake (a wrong head,
/// a transposed weight) shows up as errors of order 0.1–1.
const TOLERANCES: [(&str, f32); 4] = [
    ("embedding output", 1e-4),
    ("attention probabilities", 1e-5),
    ("attention context", 1e-4),
    ("attention block output", 1e-4),
];

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/minilm/layer0.safetensors"
);
const SENTENCES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/minilm/sentences.safetensors"
);
const HEADS: usize = 12;
const LAYERS: usize = 6;
/// Sentence embeddings are unit vectors of 384 features (entries ~0.05): six
/// layers of ascending f32 dot products against BLAS's order move them by ~1e-6.
const EMBEDDING_TOLERANCE: f32 = 1e-5;
const USAGE: &str = "usage: minilm_attention [--model model.safetensors] [--tokens 101,7592,102]";

struct Args {
    model: Option<String>,
    tokens: Option<Vec<usize>>,
}

/// The flags; `Err(FlagsError::Help)` for `--help`.
fn parse_args() -> Result<Args, FlagsError> {
    let [model, tokens] = flags::parse(std::env::args_os().skip(1), ["--model", "--tokens"])?;
    let tokens = match tokens {
        None => None,
        Some(list) => {
            let ids = list.split(',').map(|id| id.trim().parse::<usize>());
            let ids = ids
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| FlagsError::Usage(format!("--tokens {list}: {e}")))?;
            if ids.is_empty() || ids.len() > 512 {
                let message = "--tokens needs 1 to 512 ids (BERT's context)";
                return Err(FlagsError::Usage(message.into()));
            }
            Some(ids)
        }
    };
    Ok(Args { model, tokens })
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(args) => args,
        Err(FlagsError::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(FlagsError::Usage(message)) => {
            eprintln!("error: {message}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<bool, String> {
    let fixture_bytes = AlignedBytes::read(FIXTURE).map_err(|e| format!("{FIXTURE}: {e}"))?;
    let fixture = Weights::parse(fixture_bytes.as_bytes()).map_err(|e| e.to_string())?;
    let fixture_ids: Vec<usize> = fixture
        .get::<1, i64>("input.token_ids")
        .map_err(|e| e.to_string())?
        .view()
        .iter()
        .map(|&id| usize::try_from(id).unwrap_or(usize::MAX))
        .collect();
    let model_bytes = match &args.model {
        Some(path) => Some(AlignedBytes::read(path).map_err(|e| format!("{path}: {e}"))?),
        None => None,
    };
    let (weights, naming) = match &model_bytes {
        Some(bytes) => (
            Weights::parse(bytes.as_bytes()).map_err(|e| e.to_string())?,
            Naming::Checkpoint,
        ),
        None => (
            Weights::parse(fixture_bytes.as_bytes()).map_err(|e| e.to_string())?,
            Naming::Fixture,
        ),
    };
    let ids = args.tokens.clone().unwrap_or_else(|| fixture_ids.clone());
    if naming == Naming::Fixture && ids != fixture_ids {
        return Err("the fixture holds the embedding rows of its own sentence only; pass --model path/to/model.safetensors to use other --tokens".into());
    }
    println!("all-MiniLM-L6-v2, layer 0, {} tokens: {ids:?}", ids.len());
    println!("weights: {}", args.model.as_deref().unwrap_or(FIXTURE));
    let outputs = pipeline::run(&weights, naming, &ids, HEADS).map_err(|e| e.to_string())?;
    println!(
        "\nhead split and merge (zero-copy except the announced materialize):\n{}",
        outputs.trace
    );
    println!(
        "values copied by announced materializes: {} bytes (the merge)",
        outputs.copied_bytes
    );
    let whole_encoder = match naming {
        Naming::Checkpoint => check_sentences(&weights)?,
        Naming::Fixture => true,
    };
    if ids != fixture_ids {
        println!("\ntokens differ from the fixture's sentence: no reference to compare with");
        println!(
            "attention block output, token 0, first 4 features: {:?}",
            &outputs.attention_output.as_slice()[..4]
        );
        return Ok(true);
    }
    let mut all_within = true;
    let ours = [
        outputs.embeddings.as_slice(),
        outputs.probabilities.as_slice(),
        outputs.context.as_slice(),
        outputs.attention_output.as_slice(),
    ];
    let names = [
        "reference.embedding_output",
        "reference.attention_probs",
        "reference.context",
        "reference.attention_output",
    ];
    println!(
        "\n{:<26} {:>14} {:>11}  verdict",
        "stage", "max |ours-ref|", "tolerance"
    );
    for ((values, name), (stage, tolerance)) in ours.iter().zip(names).zip(TOLERANCES) {
        let expected = pipeline::reference_values(&fixture, name).map_err(|e| e.to_string())?;
        if expected.len() != values.len() {
            return Err(format!(
                "{name}: {} reference values, {} computed",
                expected.len(),
                values.len()
            ));
        }
        let diff = max_abs_diff(values.iter(), expected.iter());
        let ok = diff <= tolerance;
        all_within &= ok;
        println!(
            "{stage:<26} {diff:>14.3e} {tolerance:>11.0e}  {}",
            if ok { "ok" } else { "MISMATCH" }
        );
    }
    Ok(all_within && whole_encoder)
}

/// The whole encoder on the reference sentences against sentence-transformers.
fn check_sentences(weights: &Weights<'_>) -> Result<bool, String> {
    let bytes = AlignedBytes::read(SENTENCES).map_err(|e| format!("{SENTENCES}: {e}"))?;
    let reference = Weights::parse(bytes.as_bytes()).map_err(|e| e.to_string())?;
    let ids = reference
        .get::<2, i64>("token_ids")
        .map_err(|e| e.to_string())?;
    let mask = reference
        .get::<2, i64>("attention_mask")
        .map_err(|e| e.to_string())?;
    let expected = reference
        .get::<2, f32>("embeddings")
        .map_err(|e| e.to_string())?;
    let (ids, mask, expected) = (ids.view(), mask.view(), expected.view());
    println!(
        "\nwhole encoder ({LAYERS} layers, mean pooling, L2 normalization) against sentence-transformers:"
    );
    println!(
        "{:<9} {:>7} {:>14} {:>12}  verdict",
        "sentence", "tokens", "max |ours-ref|", "cosine"
    );
    let mut all_within = true;
    for s in 0..ids.shape()[0] {
        let length = mask
            .select(0, s)
            .map_err(|e| e.to_string())?
            .iter()
            .filter(|&&m| m == 1)
            .count();
        let row = ids.select(0, s).map_err(|e| e.to_string())?;
        let tokens: Vec<usize> = row
            .iter()
            .take(length)
            .map(|&id| usize::try_from(id).unwrap_or(usize::MAX))
            .collect();
        let ours = encoder::embed(weights, &tokens, LAYERS, HEADS).map_err(|e| e.to_string())?;
        let theirs = expected.select(0, s).map_err(|e| e.to_string())?;
        let diff = max_abs_diff(ours.as_slice().iter(), theirs.iter());
        let cosine: f32 = ours
            .as_slice()
            .iter()
            .zip(theirs.iter())
            .map(|(a, b)| a * b)
            .sum();
        let ok = diff <= EMBEDDING_TOLERANCE;
        all_within &= ok;
        println!(
            "{s:<9} {length:>7} {diff:>14.3e} {cosine:>12.9}  {}",
            if ok { "ok" } else { "MISMATCH" }
        );
    }
    Ok(all_within)
}
