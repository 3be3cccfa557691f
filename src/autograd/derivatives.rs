//! `dy · f'(x)` for the named elementwise functions (`Op::Unary`'s rule),
//! one tight loop per function. Transcendentals inside a derivative (the
//! `tanh` of GPT-2's GELU, silu's sigmoid, erf and exp of the exact GELU)
//! go through the crate's SIMD `unary` kernel on a whole buffer, never
//! libm one element at a time; the loops around them are plain arithmetic,
//! each value computed alone (split over threads when large), so the
//! result is the same for every thread count.
//!
//! Formulas: PyTorch's `derivatives.yaml` (`gelu_backward` with
//! `approximate="tanh"` for `GeluTanh`).

use crate::error::Error;
use crate::tensor::DynTensor;
use crate::tensor::ops::{self, Function};

use super::Real;
use super::rows::filled_from;
use super::strided;

/// `function` applied to the `values` (of `shape`) by the crate's kernel.
fn apply<T: Real>(shape: &[usize], values: Vec<T>, function: Function) -> Result<Vec<T>, Error> {
    Ok(ops::unary(&strided::tensor(shape, values)?, function)?.into_vec())
}

/// `dy · f'(x)` elementwise, with `y = f(x)` at hand.
pub(crate) fn unary_rule<T: Real>(
    function: Function,
    x: &DynTensor<T>,
    y: &DynTensor<T>,
    dy: &DynTensor<T>,
) -> Result<DynTensor<T>, Error> {
    let (xs, ys, g) = (x.as_slice(), y.as_slice(), dy.as_slice());
    let (n, shape) = (xs.len(), x.shape());
    let half = T::round_from_f64(0.5);
    let one = T::one();
    let out = match function {
        Function::Exp => filled_from(n, |i| g[i] * ys[i])?,
        Function::Ln => filled_from(n, |i| g[i] * (one / xs[i]))?,
        Function::Tanh => filled_from(n, |i| g[i] * (one - ys[i] * ys[i]))?,
        Function::Sigmoid => filled_from(n, |i| g[i] * (ys[i] * (one - ys[i])))?,
        Function::Silu => {
            let s = apply(shape, filled_from(n, |i| xs[i])?, Function::Sigmoid)?;
            filled_from(n, |i| g[i] * (s[i] * (one + xs[i] * (one - s[i]))))?
        }
        Function::GeluTanh => {
            let c = T::round_from_f64((2.0 / std::f64::consts::PI).sqrt());
            let k = T::round_from_f64(0.044715);
            let three = T::round_from_f64(3.0);
            let u = filled_from(n, |i| {
                let v = xs[i];
                c * (v + k * v * v * v)
            })?;
            let t = apply(shape, u, Function::Tanh)?;
            filled_from(n, |i| {
                let (v, t) = (xs[i], t[i]);
                let d = half * (one + t) + half * v * (one - t * t) * c * (one + three * k * v * v);
                g[i] * d
            })?
        }
        Function::GeluErf => {
            let r = T::round_from_f64(std::f64::consts::FRAC_1_SQRT_2);
            let inv_sqrt_2pi = T::round_from_f64(1.0 / (2.0 * std::f64::consts::PI).sqrt());
            let e = apply(shape, filled_from(n, |i| xs[i] * r)?, Function::Erf)?;
            let gauss = apply(
                shape,
                filled_from(n, |i| -half * xs[i] * xs[i])?,
                Function::Exp,
            )?;
            filled_from(n, |i| {
                g[i] * (half * (one + e[i]) + xs[i] * inv_sqrt_2pi * gauss[i])
            })?
        }
        Function::Sqrt => filled_from(n, |i| g[i] * (half / ys[i]))?,
        Function::Rsqrt => filled_from(n, |i| g[i] * (-half * ys[i] / xs[i]))?,
        Function::Recip => filled_from(n, |i| g[i] * -(ys[i] * ys[i]))?,
        Function::Square => filled_from(n, |i| g[i] * (xs[i] + xs[i]))?,
        _ => filled_from(n, |i| -g[i])?, // Neg (`Var::map` admits no other function)
    };
    strided::tensor(shape, out)
}
