//! Training batches: fixed ones from a safetensors file (the check
//! contract's `--batches`), or random windows of a text file's bytes
//! (byte-level tokens, vocabulary 256).

use crate::prng::SplitMix64;
use safetensors::{Dtype, SafeTensors};
use std::path::Path;

/// A corpus keeps its last `1 / HELD_OUT` for the held-out loss.
const HELD_OUT: usize = 20;

/// Why the batches cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataError {
    #[error("{path}: {message}")]
    File { path: String, message: String },
    #[error("{path}: `{name}` is missing (the file needs `inputs` and `targets`, I64 [S, B, T])")]
    Missing { path: String, name: &'static str },
    #[error("{path}: `{name}` is {dtype}, not I64")]
    Dtype {
        path: String,
        name: &'static str,
        dtype: String,
    },
    #[error(
        "{path}: `{name}` has shape {shape:?}; [S, B, T] with every extent at least 1 is needed"
    )]
    Shape {
        path: String,
        name: &'static str,
        shape: Vec<usize>,
    },
    #[error("{path}: `inputs` has shape {inputs:?} but `targets` {targets:?}")]
    ShapesDiffer {
        path: String,
        inputs: Vec<usize>,
        targets: Vec<usize>,
    },
    #[error(
        "{path}: {name}[{step}, {row}, {position}] = {id} is not a token id below the vocabulary size {vocab}"
    )]
    IdOutOfRange {
        path: String,
        name: &'static str,
        step: usize,
        row: usize,
        position: usize,
        id: i64,
        vocab: usize,
    },
    #[error("{path}: --steps {steps} asks for more steps than the file's {available} batches")]
    TooFewBatches {
        path: String,
        steps: usize,
        available: usize,
    },
    #[error("{path}: {len} bytes cannot give windows of --seq {seq} + 1 bytes")]
    CorpusTooShort {
        path: String,
        len: usize,
        seq: usize,
    },
    #[error("--seq {seq} is longer than the model's context n_positions = {context}")]
    SeqTooLong { seq: usize, context: usize },
}

/// Where each step's batch comes from.
#[derive(Debug, Clone)]
pub enum Batches {
    /// `inputs` / `targets` `[S, B, T]` in row-major order.
    Fixed {
        inputs: Vec<usize>,
        targets: Vec<usize>,
        steps: usize,
        batch: usize,
        seq: usize,
    },
    /// `batch` windows per step of `seq + 1` consecutive bytes, at offsets
    /// drawn from SplitMix64 seeded by `(seed, step)`: step `s`'s batch does
    /// not depend on earlier steps, so a resumed run sees the batches the
    /// uninterrupted run would have. The text's last twentieth is held out
    /// ([`held_out`](Batches::held_out)); windows come from the rest.
    Corpus {
        bytes: Vec<u8>,
        held_out: Vec<u8>,
        batch: usize,
        seq: usize,
        seed: u64,
    },
}

impl Batches {
    /// The fixed batches of a safetensors file, checked against the vocabulary.
    pub fn read(path: &Path, vocab: usize) -> Result<Batches, DataError> {
        let shown = path.display().to_string();
        let file = |message: String| DataError::File {
            path: shown.clone(),
            message,
        };
        let bytes = std::fs::read(path).map_err(|e| file(e.to_string()))?;
        let tensors = SafeTensors::deserialize(&bytes).map_err(|e| file(e.to_string()))?;
        let read = |name: &'static str| -> Result<(Vec<usize>, Vec<usize>), DataError> {
            let view = tensors.tensor(name).map_err(|_| DataError::Missing {
                path: shown.clone(),
                name,
            })?;
            if view.dtype() != Dtype::I64 {
                return Err(DataError::Dtype {
                    path: shown.clone(),
                    name,
                    dtype: format!("{:?}", view.dtype()),
                });
            }
            let shape = view.shape().to_vec();
            if shape.len() != 3 || shape.contains(&0) {
                return Err(DataError::Shape {
                    path: shown.clone(),
                    name,
                    shape,
                });
            }
            let (b, t) = (shape[1], shape[2]);
            let ids = view
                .data()
                .chunks_exact(8)
                .enumerate()
                .map(|(i, raw)| {
                    let id: i64 = bytemuck::pod_read_unaligned(raw);
                    usize::try_from(id).ok().filter(|&id| id < vocab).ok_or(
                        DataError::IdOutOfRange {
                            path: shown.clone(),
                            name,
                            step: i / (b * t),
                            row: i / t % b,
                            position: i % t,
                            id,
                            vocab,
                        },
                    )
                })
                .collect::<Result<Vec<usize>, DataError>>()?;
            Ok((shape, ids))
        };
        let (shape, inputs) = read("inputs")?;
        let (target_shape, targets) = read("targets")?;
        if shape != target_shape {
            return Err(DataError::ShapesDiffer {
                path: shown,
                inputs: shape,
                targets: target_shape,
            });
        }
        Ok(Batches::Fixed {
            inputs,
            targets,
            steps: shape[0],
            batch: shape[1],
            seq: shape[2],
        })
    }

    /// Random windows of a text file's bytes.
    pub fn corpus(path: &Path, batch: usize, seq: usize, seed: u64) -> Result<Batches, DataError> {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| DataError::File {
            path: shown.clone(),
            message: e.to_string(),
        })?;
        let mut bytes = bytes;
        let held_out = bytes.split_off(bytes.len() - bytes.len() / HELD_OUT);
        if bytes.len() <= seq {
            return Err(DataError::CorpusTooShort {
                path: shown,
                len: bytes.len(),
                seq,
            });
        }
        Ok(Batches::Corpus {
            bytes,
            held_out,
            batch,
            seq,
            seed,
        })
    }

    /// Random windows of `64 KiB + seq` seeded random bytes (SplitMix64 of
    /// `seed`), no held-out part: the benchmark's batches (`--bench-steps`).
    pub fn random(batch: usize, seq: usize, seed: u64) -> Batches {
        let mut rng = SplitMix64::new(seed);
        let bytes = (0..(1 << 16) + seq).map(|_| rng.next_u64() as u8).collect();
        Batches::Corpus {
            bytes,
            held_out: Vec::new(),
            batch,
            seq,
            seed,
        }
    }

    /// Up to `max` batches of the held-out text of a corpus: consecutive
    /// windows from its start, `B` per batch (none for fixed batches, or
    /// a held-out part shorter than one batch).
    pub fn held_out(&self, max: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
        let Batches::Corpus {
            held_out,
            batch,
            seq,
            ..
        } = self
        else {
            return Vec::new();
        };
        let count = (held_out.len().saturating_sub(1) / (batch * seq)).min(max);
        (0..count)
            .map(|i| windows(held_out, (0..*batch).map(|b| (i * batch + b) * seq), *seq))
            .collect()
    }

    /// Checks the batches against a run: enough fixed batches for `steps`,
    /// windows that fit the model's context.
    pub fn check(&self, path: &Path, steps: usize, context: usize) -> Result<(), DataError> {
        let seq = self.shape().1;
        if seq > context {
            return Err(DataError::SeqTooLong { seq, context });
        }
        match self {
            Batches::Fixed {
                steps: available, ..
            } if steps > *available => Err(DataError::TooFewBatches {
                path: path.display().to_string(),
                steps,
                available: *available,
            }),
            _ => Ok(()),
        }
    }

    /// `(B, T)`.
    pub fn shape(&self) -> (usize, usize) {
        match self {
            Batches::Fixed { batch, seq, .. } | Batches::Corpus { batch, seq, .. } => {
                (*batch, *seq)
            }
        }
    }

    /// The number of fixed batches (`None` for a corpus: any step has one).
    pub fn available(&self) -> Option<usize> {
        match self {
            Batches::Fixed { steps, .. } => Some(*steps),
            Batches::Corpus { .. } => None,
        }
    }

    /// Step `step`'s inputs and targets, `B·T` ids each, row-major `[B, T]`.
    /// For fixed batches `step` is below [`available`](Self::available)
    /// ([`check`](Self::check) makes sure).
    pub fn get(&self, step: usize) -> (Vec<usize>, Vec<usize>) {
        match self {
            Batches::Fixed {
                inputs,
                targets,
                batch,
                seq,
                ..
            } => {
                let n = batch * seq;
                let range = step * n..(step + 1) * n;
                (inputs[range.clone()].to_vec(), targets[range].to_vec())
            }
            Batches::Corpus {
                bytes,
                batch,
                seq,
                seed,
                ..
            } => {
                let mut rng =
                    SplitMix64::new(seed ^ (step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                let starts = (bytes.len() - seq) as u64;
                let offsets: Vec<usize> = (0..*batch)
                    .map(|_| (rng.next_u64() % starts) as usize)
                    .collect();
                windows(bytes, offsets.into_iter(), *seq)
            }
        }
    }
}

/// The inputs (`seq` bytes from each offset) and targets (the same, one
/// byte later) of the windows at `offsets`, as token ids.
fn windows(
    bytes: &[u8],
    offsets: impl Iterator<Item = usize>,
    seq: usize,
) -> (Vec<usize>, Vec<usize>) {
    let (mut inputs, mut targets) = (Vec::new(), Vec::new());
    for start in offsets {
        let window = &bytes[start..start + seq + 1];
        inputs.extend(window[..seq].iter().map(|&b| usize::from(b)));
        targets.extend(window[1..].iter().map(|&b| usize::from(b)));
    }
    (inputs, targets)
}
