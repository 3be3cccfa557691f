//! One AdamW step's arithmetic: the scalars of the step, rounded to the
//! element type once, and the update of a run of elements, in scalar code
//! and in `pulp`'s lanes.
//!
//! Each element's update is the same sequence of IEEE operations on every
//! instruction set (products, differences, one fused multiply-add per
//! moment, a correctly rounded square root and quotient), so the lanes give
//! the scalar model's bits: vectorizing only computes independent elements
//! side by side. On x86 without a compile-time `fma` feature the scalar
//! `mul_add` is a library call per element; the lanes use `vfmadd`, which is
//! why this file exists.

use super::adamw::AdamWConfig;
use crate::tensor::Float;
use crate::tensor::lanes::Lanes;
use crate::tensor::traverse::simd::{Dispatch, tuning};
use pulp::{Simd, WithSimd};

/// The scalars of one step, rounded to `T` once, as PyTorch's kernels
/// receive them.
#[derive(Clone, Copy)]
pub(super) struct StepScalars<T> {
    decay: T,
    lerp_weight: T,
    lerp_small: bool,
    beta2: T,
    one_minus_beta2: T,
    bias_correction2_sqrt: T,
    eps: T,
    neg_step_size: T,
}

impl<T: Float> StepScalars<T> {
    /// The scalars of step `step` (counted from 1) under `config`.
    pub(super) fn new(config: &AdamWConfig, step: u64) -> Self {
        let t = step as f64;
        // Python: `1 - beta1 ** step` with a float step (the state's step is
        // a float tensor, `.item()` gives a Python float): C's pow.
        let bias_correction1 = 1.0 - config.beta1.powf(t);
        let bias_correction2 = 1.0 - config.beta2.powf(t);
        let step_size = config.lr / bias_correction1;
        let lerp_weight = 1.0 - config.beta1;
        StepScalars {
            decay: T::round_from_f64(1.0 - config.lr * config.weight_decay),
            lerp_weight: T::round_from_f64(lerp_weight),
            lerp_small: T::round_from_f64(lerp_weight).abs() < T::round_from_f64(0.5),
            beta2: T::round_from_f64(config.beta2),
            one_minus_beta2: T::round_from_f64(1.0 - config.beta2),
            bias_correction2_sqrt: T::round_from_f64(bias_correction2.sqrt()),
            eps: T::round_from_f64(config.eps),
            neg_step_size: T::round_from_f64(-step_size),
        }
    }

    /// One element's update, in PyTorch's order (see
    /// [`AdamW`](super::AdamW)): the scalar model of [`Self::update_run`]
    /// (the lanes compute this, so only the tests call it).
    #[cfg(test)]
    fn update(&self, p: &mut T, m: &mut T, v: &mut T, g: T) {
        let decayed = *p * self.decay;
        // ATen's vectorized lerp: fmadd(coeff, end - start, base).
        *m = if self.lerp_small {
            self.lerp_weight.mul_add(g - *m, *m)
        } else {
            (self.lerp_weight - T::one()).mul_add(g - *m, g)
        };
        // ATen's addcmul, `self + value * t1 * t2`, compiled with the multiply
        // and add contracted: fma(value·t1, t2, self) (measured against
        // PyTorch 2.15's AVX-512 build: bit for bit).
        *v = (self.one_minus_beta2 * g).mul_add(g, *v * self.beta2);
        let denom = v.sqrt() / self.bias_correction2_sqrt + self.eps;
        *p = decayed + self.neg_step_size * *m / denom;
    }

    /// [`Self::update`] for every element of equal-length runs of the
    /// parameter, both moments and the gradient, in the lanes of this
    /// thread's instruction set (the kernel settings' SIMD level).
    pub(super) fn update_run(&self, p: &mut [T], m: &mut [T], v: &mut [T], g: &[T]) {
        self.update_run_on(Dispatch::new(tuning().simd), p, m, v, g);
    }

    /// [`Self::update_run`] on a given instruction set.
    fn update_run_on(&self, dispatch: Dispatch, p: &mut [T], m: &mut [T], v: &mut [T], g: &[T]) {
        let len = p.len().min(m.len()).min(v.len()).min(g.len());
        dispatch.run(Update {
            scalars: *self,
            p: &mut p[..len],
            m: &mut m[..len],
            v: &mut v[..len],
            g: &g[..len],
        });
    }
}

/// The `WithSimd` body of [`StepScalars::update_run`].
struct Update<'a, T> {
    scalars: StepScalars<T>,
    p: &'a mut [T],
    m: &'a mut [T],
    v: &'a mut [T],
    g: &'a [T],
}

impl<T: Float> WithSimd for Update<'_, T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let Self {
            scalars,
            p,
            m,
            v,
            g,
        } = self;
        let lanes = Vectors::new(simd, &scalars);
        let (ps, p_tail) = T::as_mut_vectors::<S>(p);
        let (ms, m_tail) = T::as_mut_vectors::<S>(m);
        let (vs, v_tail) = T::as_mut_vectors::<S>(v);
        let (gs, g_tail) = T::as_vectors::<S>(g);
        for (((p, m), v), &g) in ps.iter_mut().zip(ms).zip(vs).zip(gs) {
            (*p, *m, *v) = lanes.update(simd, *p, *m, *v, g);
        }
        if !g_tail.is_empty() {
            let load = |values: &[T]| T::load_partial(simd, values);
            let (p, m, v) =
                lanes.update(simd, load(p_tail), load(m_tail), load(v_tail), load(g_tail));
            T::store_partial(simd, p_tail, p);
            T::store_partial(simd, m_tail, m);
            T::store_partial(simd, v_tail, v);
        }
    }
}

/// The step's scalars splatted into vectors.
struct Vectors<T: Lanes, S: Simd> {
    decay: T::Vector<S>,
    /// `lerp_weight` when the weight is small, else `lerp_weight - 1`.
    lerp_coefficient: T::Vector<S>,
    lerp_small: bool,
    beta2: T::Vector<S>,
    one_minus_beta2: T::Vector<S>,
    bias_correction2_sqrt: T::Vector<S>,
    eps: T::Vector<S>,
    neg_step_size: T::Vector<S>,
}

impl<T: Float, S: Simd> Vectors<T, S> {
    #[inline(always)]
    fn new(simd: S, s: &StepScalars<T>) -> Self {
        let splat = |x: T| <T as Lanes>::splat(simd, x);
        let coefficient = if s.lerp_small {
            s.lerp_weight
        } else {
            s.lerp_weight - T::one()
        };
        Vectors {
            decay: splat(s.decay),
            lerp_coefficient: splat(coefficient),
            lerp_small: s.lerp_small,
            beta2: splat(s.beta2),
            one_minus_beta2: splat(s.one_minus_beta2),
            bias_correction2_sqrt: splat(s.bias_correction2_sqrt),
            eps: splat(s.eps),
            neg_step_size: splat(s.neg_step_size),
        }
    }

    /// [`StepScalars::update`], lane by lane: the new `(p, m, v)`.
    #[inline(always)]
    fn update(
        &self,
        simd: S,
        p: T::Vector<S>,
        m: T::Vector<S>,
        v: T::Vector<S>,
        g: T::Vector<S>,
    ) -> (T::Vector<S>, T::Vector<S>, T::Vector<S>) {
        let decayed = <T as Lanes>::mul(simd, p, self.decay);
        let base = if self.lerp_small { m } else { g };
        let m = <T as Lanes>::mul_add(
            simd,
            self.lerp_coefficient,
            <T as Lanes>::sub(simd, g, m),
            base,
        );
        let scaled = <T as Lanes>::mul(simd, self.one_minus_beta2, g);
        let v = <T as Lanes>::mul_add(simd, scaled, g, <T as Lanes>::mul(simd, v, self.beta2));
        let root = <T as Lanes>::div(
            simd,
            <T as Lanes>::sqrt(simd, v),
            self.bias_correction2_sqrt,
        );
        let denom = <T as Lanes>::add(simd, root, self.eps);
        let step = <T as Lanes>::div(simd, <T as Lanes>::mul(simd, self.neg_step_size, m), denom);
        (<T as Lanes>::add(simd, decayed, step), m, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::traverse::simd::SimdLevel;

    /// Values of every sign and scale (zeros, subnormal-sized moments, large
    /// gradients), for every length around the vector widths.
    fn values(len: usize, salt: u32) -> Vec<f32> {
        (0..len)
            .map(|i| {
                let x = (i as u32).wrapping_mul(2_654_435_761).wrapping_add(salt) >> 8;
                let unit = x as f32 / (1 << 24) as f32 - 0.5;
                unit * 10f32.powi((i % 7) as i32 - 3)
            })
            .collect()
    }

    #[test]
    fn the_lanes_give_the_scalar_models_bits_on_every_level() {
        for (beta1, step) in [(0.9, 1), (0.9, 7), (0.2, 3)] {
            let config = AdamWConfig {
                lr: 3e-3,
                beta1,
                beta2: 0.95,
                eps: 1e-8,
                weight_decay: 0.1,
            };
            let scalars = StepScalars::<f32>::new(&config, step);
            for len in [0, 1, 7, 8, 9, 15, 16, 17, 33, 100] {
                let (p0, m0, g) = (values(len, 1), values(len, 2), values(len, 3));
                let v0: Vec<f32> = values(len, 4).iter().map(|x| x * x).collect();
                let (mut p, mut m, mut v) = (p0.clone(), m0.clone(), v0.clone());
                for i in 0..len {
                    scalars.update(&mut p[i], &mut m[i], &mut v[i], g[i]);
                }
                for level in [SimdLevel::Best, SimdLevel::Avx2, SimdLevel::Baseline] {
                    let (mut pl, mut ml, mut vl) = (p0.clone(), m0.clone(), v0.clone());
                    scalars.update_run_on(Dispatch::new(level), &mut pl, &mut ml, &mut vl, &g);
                    let bits = |x: &[f32]| x.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&pl), bits(&p), "p, len {len}, {level:?}");
                    assert_eq!(bits(&ml), bits(&m), "m, len {len}, {level:?}");
                    assert_eq!(bits(&vl), bits(&v), "v, len {len}, {level:?}");
                }
            }
        }
    }
}
