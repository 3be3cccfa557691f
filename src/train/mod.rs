//! Training parts that are not gradients: the AdamW optimizer
//! ([`AdamW`], `torch.optim.AdamW`'s update in its float order), global-norm
//! gradient clipping ([`clip_grad_norm`], `torch.nn.utils.clip_grad_norm_`)
//! and the warmup + cosine learning-rate schedule ([`WarmupCosine`], GPT-3 /
//! nanoGPT).
//!
//! Parameters and gradients are lists of named dynamic-rank tensors,
//! `[(String, DynTensor<T>)]` in a fixed order (a model's parameters in its
//! file's order): a gradient pairs with the parameter at the same position
//! and must carry the same name and shape ([`Error::ParameterNameMismatch`],
//! [`Error::ParameterShapeMismatch`]). Every check runs before anything is
//! written, so a failed call changes nothing.
//!
//! Results are bit-identical for every thread count: the updates are
//! elementwise, and the norm's sums run in a fixed order of fixed blocks.
//!
//! ```
//! use llm_from_scratch::DynTensor;
//! use llm_from_scratch::train::{AdamW, AdamWConfig, WarmupCosine, clip_grad_norm};
//! let mut params = vec![("w".to_string(), DynTensor::from_vec(vec![2], vec![1.0_f64, -1.0])?)];
//! let mut grads = vec![("w".to_string(), DynTensor::from_vec(vec![2], vec![3.0_f64, 4.0])?)];
//! let schedule = WarmupCosine::new(1e-3, 1e-4, 10, 100)?;
//! let mut optimizer = AdamW::new(AdamWConfig { lr: schedule.lr(0), ..AdamWConfig::default() })?;
//! let clip = clip_grad_norm(&mut grads, 1.0)?; // total norm 5: scaled by 1 / 5
//! assert!((clip.total_norm - 5.0).abs() < 1e-12 && clip.clipped);
//! optimizer.step(&mut params, &grads)?;
//! assert_eq!(optimizer.step_count(), 1);
//! assert!(params[0].1.as_slice()[0] < 1.0); // moved against the gradient
//! # Ok::<(), llm_from_scratch::Error>(())
//! ```
//!
//! [`Error::ParameterNameMismatch`]: crate::Error::ParameterNameMismatch
//! [`Error::ParameterShapeMismatch`]: crate::Error::ParameterShapeMismatch

mod adamw;
mod adamw_step;
mod chunks;
mod clip;
mod pairing;
mod schedule;

pub use adamw::{AdamW, AdamWConfig, Moments};
pub use clip::{ClipReport, clip_grad_norm, grad_norm};
pub use pairing::{Named, check_pairing};
pub use schedule::WarmupCosine;
