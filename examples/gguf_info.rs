//! Prints what a GGUF file holds: its version, metadata (long arrays and
//! strings summarized) and a table of tensor types, then times `linear`
//! (`x · Wᵀ`, one activation row) on the largest quantized matrix.
//!
//! ```text
//! cargo run --release --example gguf_info -- models/SmolLM2-135M-Instruct.Q4_1.gguf
//! ```

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::gguf::{GgmlType, Gguf, GgufValue};
use llm_from_scratch::tensor::weights::AlignedBytes;
use std::collections::BTreeMap;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: gguf_info PATH.gguf");
        std::process::exit(2);
    };
    let buffer = AlignedBytes::read(&path)?;
    let gguf = Gguf::parse(buffer.as_bytes())?;
    println!(
        "{path}: GGUF v{}, {} metadata entries, {} tensors, alignment {}, data at byte {}",
        gguf.version(),
        gguf.metadata().len(),
        gguf.tensor_infos().len(),
        gguf.alignment(),
        gguf.data_offset()
    );
    for (key, value) in gguf.metadata() {
        match value {
            GgufValue::Array(array) => println!("  {key}: {array:?}"),
            GgufValue::String(s) if s.len() > 60 => {
                println!("  {key}: string of {} bytes", s.len())
            }
            other => println!("  {key}: {other:?}"),
        }
    }
    let mut types: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for info in gguf.tensor_infos() {
        let entry = types.entry(info.ggml_type().name()).or_default();
        entry.0 += 1;
        entry.1 += info.shape().iter().product::<usize>();
        entry.2 += info.data().len();
    }
    println!("tensor types:");
    for (name, (count, values, bytes)) in &types {
        println!("  {name:>5}: {count:4} tensors, {values:10} values, {bytes:10} bytes");
    }
    for info in gguf.tensor_infos().iter().take(12) {
        println!(
            "  {:28} {:?} {}",
            info.name(),
            info.shape(),
            info.ggml_type().name()
        );
    }
    // Time one decode-sized product on each quantized 2-D shape (the
    // first tensor of each type and shape).
    let mut seen = BTreeMap::new();
    for info in gguf.tensor_infos() {
        let quantized = matches!(
            info.ggml_type(),
            GgmlType::Q8_0 | GgmlType::Q4_0 | GgmlType::Q4_1
        );
        if !quantized || info.shape().len() != 2 {
            continue;
        }
        if seen
            .insert((info.ggml_type().name(), info.shape().to_vec()), ())
            .is_some()
        {
            continue;
        }
        let w = gguf.tensor::<2>(info.name())?;
        let [n, k] = w.shape();
        let x = Tensor::<2, f32>::from_fn([1, k], |[_, c]| ((c % 7) as f32 - 3.0) * 0.1)?;
        let reps = (200_000_000 / (n * k)).clamp(3, 2000);
        let _ = w.linear(&x)?;
        let start = Instant::now();
        for _ in 0..reps {
            std::hint::black_box(w.linear(&x)?);
        }
        let seconds = start.elapsed().as_secs_f64() / reps as f64;
        println!(
            "linear {:28} {} [{n}, {k}]: {:8.1} µs, {:.2} G weights/s, {:.2} GB/s of blocks",
            info.name(),
            info.ggml_type().name(),
            seconds * 1e6,
            (n * k) as f64 / seconds / 1e9,
            info.data().len() as f64 / seconds / 1e9
        );
    }
    Ok(())
}
