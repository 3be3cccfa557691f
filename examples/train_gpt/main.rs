//! PLACEHOLDER main from branch `autograd` (only so the example builds and
//! its tests run): prints the step-0 loss of `--init DIR/model.safetensors`
//! on `--batches F.safetensors`. The `train-parts` branch replaces this file
//! with the real training CLI.

mod config;
mod model;
mod params;
#[cfg(test)]
mod tests;

fn main() {
    eprintln!("train_gpt: placeholder main (branch autograd); see examples/train_gpt/tests.rs");
}
