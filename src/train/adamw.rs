//! [`AdamW`]: Adam with decoupled weight decay (Loshchilov and Hutter,
//! "Decoupled Weight Decay Regularization", 2019), with the update of
//! PyTorch's `torch.optim.AdamW` (its single-tensor CPU path,
//! `_single_tensor_adam` with `decoupled_weight_decay=True`), operation for
//! operation in the element type, so `f32` results agree with PyTorch's.

use super::adamw_step::StepScalars;
use super::chunks::for_each_chunk;
use super::pairing::{Named, check_names_and_shapes, check_pairing};
use crate::error::Error;
use crate::tensor::{DynTensor, Float};

/// Elements per rayon task: the update is elementwise, so the split only
/// sets the parallel grain, never a result bit.
const CHUNK: usize = 1 << 14;

/// One chunk of a parameter with its two moments and its gradient.
type Chunk<'a, T> = (&'a mut [T], &'a mut [T], &'a mut [T], &'a [T]);

/// AdamW's hyperparameters, with PyTorch's names and defaults
/// (`lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2`).
///
/// ```
/// use llm_from_scratch::train::AdamWConfig;
/// let config = AdamWConfig { lr: 3e-3, beta2: 0.95, weight_decay: 0.1, ..AdamWConfig::default() };
/// assert_eq!((config.beta1, config.eps), (0.9, 1e-8));
/// config.validate()?;
/// assert!(AdamWConfig { beta1: 1.0, ..config }.validate().is_err());
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdamWConfig {
    /// The learning rate (`lr`); a schedule sets it before each step
    /// ([`AdamW::set_lr`]).
    pub lr: f64,
    /// The first moment's decay (`betas[0]`).
    pub beta1: f64,
    /// The second moment's decay (`betas[1]`).
    pub beta2: f64,
    /// Added to the denominator's square root (`eps`).
    pub eps: f64,
    /// Decoupled weight decay (`weight_decay`): `p *= 1 - lr * weight_decay`
    /// before each update, for every parameter.
    pub weight_decay: f64,
}

impl Default for AdamWConfig {
    fn default() -> Self {
        AdamWConfig {
            lr: 1e-3,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 1e-2,
        }
    }
}

impl AdamWConfig {
    /// Checks PyTorch's ranges: `lr >= 0`, `eps >= 0`, `0 <= beta < 1`,
    /// `weight_decay >= 0`, all finite.
    ///
    /// # Errors
    /// [`Error::InvalidHyperparameter`] for the first value out of range
    /// (PyTorch raises `ValueError` for the same values).
    ///
    /// ```
    /// use llm_from_scratch::train::AdamWConfig;
    /// let error = AdamWConfig { eps: -1.0, ..AdamWConfig::default() }.validate().unwrap_err();
    /// assert_eq!(error.to_string(), "AdamW: eps must be finite and >= 0, got -1");
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        let nonnegative = "finite and >= 0";
        let checks = [
            ("lr", self.lr, nonnegative, self.lr >= 0.0),
            (
                "beta1",
                self.beta1,
                "in [0, 1)",
                (0.0..1.0).contains(&self.beta1),
            ),
            (
                "beta2",
                self.beta2,
                "in [0, 1)",
                (0.0..1.0).contains(&self.beta2),
            ),
            ("eps", self.eps, nonnegative, self.eps >= 0.0),
            (
                "weight_decay",
                self.weight_decay,
                nonnegative,
                self.weight_decay >= 0.0,
            ),
        ];
        for (name, value, rule, ok) in checks {
            if !ok || !value.is_finite() {
                return Err(Error::InvalidHyperparameter {
                    op: "AdamW",
                    name,
                    rule,
                    value: value.to_string(),
                });
            }
        }
        Ok(())
    }
}

/// One parameter's optimizer state: PyTorch's `exp_avg` (first moment `m`)
/// and `exp_avg_sq` (second moment `v`), each of the parameter's shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Moments<T> {
    /// The parameter's name.
    pub name: String,
    /// `m`, PyTorch's `exp_avg`.
    pub exp_avg: DynTensor<T>,
    /// `v`, PyTorch's `exp_avg_sq`.
    pub exp_avg_sq: DynTensor<T>,
}

/// The AdamW optimizer over named parameters, with its state (the step
/// count and both moments of every parameter), which can be read out
/// ([`moments`](Self::moments), [`step_count`](Self::step_count)) and put
/// back ([`resume`](Self::resume)) to continue a run bit for bit.
///
/// Step `t` (from 1), for each parameter `p` with gradient `g`, in
/// PyTorch's order and rounding (scalars in `f64` as Python computes them,
/// rounded once to `T` where PyTorch's kernels take them):
///
/// ```text
/// p  = p * (1 - lr·wd)                        param.mul_(1 - lr * weight_decay)
/// m  = fma(1 - β1, g - m, m)                  exp_avg.lerp_(grad, 1 - beta1)   (vectorized lerp: fmadd)
/// v  = fma((1 - β2)·g, g, v·β2)               exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
/// s  = lr / (1 - β1^t)          (f64)         step_size
/// d  = sqrt(v) / sqrt(1 - β2^t) + eps         (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
/// p  = p + ((-s)·m) / d                       param.addcdiv_(exp_avg, denom, value=-step_size)
/// ```
///
/// (For `1 - β1 >= 0.5` the lerp is PyTorch's other branch,
/// `fma(-β1, g - m, g)`.) State is created at the first step, zeros of each
/// parameter's shape, as PyTorch creates it lazily.
///
/// ```
/// use llm_from_scratch::DynTensor;
/// use llm_from_scratch::train::{AdamW, AdamWConfig};
/// // One scalar, lr 0.1, no decay: Adam's first step moves by lr·sign(g).
/// let config = AdamWConfig { lr: 0.1, weight_decay: 0.0, ..AdamWConfig::default() };
/// let mut optimizer = AdamW::new(config)?;
/// let mut p = vec![("x".to_string(), DynTensor::from_vec(vec![1], vec![2.0_f64])?)];
/// let g = vec![("x".to_string(), DynTensor::from_vec(vec![1], vec![0.5_f64])?)];
/// optimizer.step(&mut p, &g)?;
/// assert!((p[0].1.as_slice()[0] - 1.9).abs() < 1e-8);
/// // Resume: the state read out and put back continues identically.
/// let copy = AdamW::resume(config, optimizer.step_count(), optimizer.moments().to_vec())?;
/// assert_eq!(copy.moments(), optimizer.moments());
/// # Ok::<(), llm_from_scratch::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct AdamW<T> {
    config: AdamWConfig,
    step: u64,
    moments: Vec<Moments<T>>,
}

impl<T: Float> AdamW<T> {
    /// An optimizer with no state yet (step 0).
    ///
    /// # Errors
    /// [`Error::InvalidHyperparameter`] as [`AdamWConfig::validate`].
    ///
    /// ```
    /// use llm_from_scratch::train::{AdamW, AdamWConfig};
    /// let optimizer = AdamW::<f32>::new(AdamWConfig::default())?;
    /// assert_eq!((optimizer.step_count(), optimizer.moments().len()), (0, 0));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn new(config: AdamWConfig) -> Result<Self, Error> {
        config.validate()?;
        Ok(AdamW {
            config,
            step: 0,
            moments: Vec::new(),
        })
    }

    /// An optimizer continuing from saved state: `step` steps taken, with
    /// the moments of every parameter (in the parameters' order). Step 0
    /// takes no moments (they are created at the first step).
    ///
    /// # Errors
    /// [`Error::InvalidHyperparameter`] as [`AdamWConfig::validate`];
    /// [`Error::ParameterShapeMismatch`] if a parameter's two moments differ
    /// in shape; [`Error::ParameterCountMismatch`] for moments at step 0 or
    /// none after it. The pairing with the parameters is checked at the next
    /// [`step`](Self::step).
    ///
    /// ```
    /// use llm_from_scratch::{DynTensor, Error};
    /// use llm_from_scratch::train::{AdamW, AdamWConfig, Moments};
    /// let bad = Moments {
    ///     name: "w".to_string(),
    ///     exp_avg: DynTensor::<f32>::zeros(vec![2])?,
    ///     exp_avg_sq: DynTensor::<f32>::zeros(vec![3])?,
    /// };
    /// let error = AdamW::resume(AdamWConfig::default(), 4, vec![bad]).unwrap_err();
    /// assert!(matches!(error, Error::ParameterShapeMismatch { .. }));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn resume(config: AdamWConfig, step: u64, moments: Vec<Moments<T>>) -> Result<Self, Error> {
        config.validate()?;
        let op = "AdamW::resume";
        if (step == 0) != moments.is_empty() {
            return Err(Error::ParameterCountMismatch {
                op,
                what: "saved moments (none at step 0, one per parameter after it)",
                expected: if step == 0 { 0 } else { moments.len().max(1) },
                actual: moments.len(),
            });
        }
        if let Some(bad) = moments
            .iter()
            .find(|entry| entry.exp_avg.shape() != entry.exp_avg_sq.shape())
        {
            return Err(Error::ParameterShapeMismatch {
                op,
                name: bad.name.clone(),
                expected: bad.exp_avg.shape().to_vec(),
                actual: bad.exp_avg_sq.shape().to_vec(),
            });
        }
        Ok(AdamW {
            config,
            step,
            moments,
        })
    }

    /// The hyperparameters.
    pub fn config(&self) -> &AdamWConfig {
        &self.config
    }

    /// Steps taken (PyTorch's `state['step']`).
    pub fn step_count(&self) -> u64 {
        self.step
    }

    /// Every parameter's moments, in the parameters' order (empty before
    /// the first step).
    pub fn moments(&self) -> &[Moments<T>] {
        &self.moments
    }

    /// Sets the learning rate of the next steps (what a schedule does to
    /// PyTorch's `param_group['lr']`).
    ///
    /// # Errors
    /// [`Error::InvalidHyperparameter`] for a negative or non-finite rate
    /// (the optimizer keeps its previous rate).
    pub fn set_lr(&mut self, lr: f64) -> Result<(), Error> {
        AdamWConfig { lr, ..self.config }.validate()?;
        self.config.lr = lr;
        Ok(())
    }

    /// One AdamW step: updates every parameter from its gradient (same
    /// position, name and shape) and the moments, then counts the step.
    ///
    /// # Errors
    /// [`Error::ParameterCountMismatch`], [`Error::ParameterNameMismatch`] or
    /// [`Error::ParameterShapeMismatch`] if `grads` (or the state of a
    /// resumed run) does not pair with `params`;
    /// [`Error::AllocationFailed`] if the first step's moments cannot be
    /// reserved. Nothing is changed on error.
    ///
    /// ```
    /// use llm_from_scratch::{DynTensor, Error};
    /// use llm_from_scratch::train::{AdamW, AdamWConfig};
    /// let mut optimizer = AdamW::<f32>::new(AdamWConfig::default())?;
    /// let mut p = vec![("a".to_string(), DynTensor::zeros(vec![2])?)];
    /// let g = vec![("b".to_string(), DynTensor::zeros(vec![2])?)];
    /// let error = optimizer.step(&mut p, &g).unwrap_err();
    /// assert_eq!(error.to_string(), "AdamW::step: parameter 0 is `a`, but the gradient there is `b`");
    /// assert_eq!(optimizer.step_count(), 0);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn step(&mut self, params: &mut [Named<T>], grads: &[Named<T>]) -> Result<(), Error> {
        let op = "AdamW::step";
        check_pairing(op, "gradient", params, grads)?;
        if self.moments.is_empty() {
            self.moments = zero_moments(params)?;
        } else {
            let state = self
                .moments
                .iter()
                .map(|entry| (entry.name.as_str(), entry.exp_avg.shape()));
            check_names_and_shapes(op, "optimizer state entry", params, state)?;
        }
        let step = self
            .step
            .checked_add(1)
            .ok_or(Error::ShapeOverflow { op })?;
        let scalars = StepScalars::<T>::new(&self.config, step);
        let update = |(p, m, v, g): Chunk<'_, T>| scalars.update_run(p, m, v, g);
        let chunks = params
            .iter_mut()
            .zip(grads.iter().zip(&mut self.moments))
            .flat_map(|((_, param), ((_, grad), entry))| {
                param
                    .as_mut_slice()
                    .chunks_mut(CHUNK)
                    .zip(entry.exp_avg.as_mut_slice().chunks_mut(CHUNK))
                    .zip(entry.exp_avg_sq.as_mut_slice().chunks_mut(CHUNK))
                    .zip(grad.as_slice().chunks(CHUNK))
                    .map(|(((p, m), v), g)| (p, m, v, g))
            });
        // One parallel region for every parameter (a model has dozens of
        // small ones), when the work is worth the threads and the list of
        // chunks can be reserved; else in order on this thread. Each value
        // is updated by the same expression either way.
        let elements: usize = grads.iter().map(|(_, g)| g.as_slice().len()).sum();
        let count = elements.div_ceil(CHUNK) + grads.len();
        for_each_chunk(
            chunks,
            count,
            elements.saturating_mul(4 * size_of::<T>()),
            update,
        );
        self.step = step;
        Ok(())
    }
}

/// Zeros of every parameter's shape, twice: the first step's state.
fn zero_moments<T: Float>(params: &[Named<T>]) -> Result<Vec<Moments<T>>, Error> {
    let mut moments = Vec::new();
    moments
        .try_reserve_exact(params.len())
        .map_err(|_| Error::AllocationFailed {
            op: "AdamW::step",
            elements: params.len(),
        })?;
    for (name, param) in params {
        moments.push(Moments {
            name: name.clone(),
            exp_avg: DynTensor::zeros(param.shape())?,
            exp_avg_sq: DynTensor::zeros(param.shape())?,
        });
    }
    Ok(moments)
}
