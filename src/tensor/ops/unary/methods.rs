//! The named elementwise functions as methods of every readable array:
//! `x.exp()?` is `unary(&x, Function::Exp)?` with errors naming `exp`.
//! A new [`Function`] gets one method here, calling [`unary_as`].

use super::{Function, unary_as};
use crate::error::Error;
use crate::tensor::array::base::ArrayBase;
use crate::tensor::array::storage::Readable;
use crate::tensor::element::Element;
use crate::tensor::shape::dimension::Dimension;

/// The named elementwise functions as methods: the rules, numerics and
/// errors of [`unary`](super::unary), each error naming the method.
impl<S: Readable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Element,
{
    /// `e^x` of every value ([`Function::Exp`]; ≈ `torch.exp`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "exp"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([3], vec![0.0, f64::NEG_INFINITY, 1.0])?;
    /// let y = x.exp()?;
    /// assert_eq!(&y.as_slice()[..2], &[1.0, 0.0]);
    /// let e = std::f64::consts::E;
    /// assert!((y.as_slice()[2] - e).abs() <= e * f64::EPSILON); // within 1 ulp
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn exp(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Exp, "exp")
    }

    /// The natural logarithm `ln x` (`NaN` below zero, `-inf` at zero) of every value ([`Function::Ln`]; ≈ `torch.log`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "ln"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![1.0, std::f64::consts::E])?;
    /// assert_eq!(x.ln()?.as_slice(), &[0.0, 1.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn ln(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Ln, "ln")
    }

    /// `tanh x` of every value ([`Function::Tanh`]; ≈ `torch.tanh`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "tanh"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![0.0, f64::INFINITY])?;
    /// assert_eq!(x.tanh()?.as_slice(), &[0.0, 1.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn tanh(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Tanh, "tanh")
    }

    /// The logistic function `1 / (1 + e^-x)` of every value ([`Function::Sigmoid`]; ≈ `torch.sigmoid`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "sigmoid"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![0.0, f64::NEG_INFINITY])?;
    /// assert_eq!(x.sigmoid()?.as_slice(), &[0.5, 0.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn sigmoid(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Sigmoid, "sigmoid")
    }

    /// SiLU, `x · sigmoid(x)` (SwiGLU's gate) of every value ([`Function::Silu`]; ≈ `torch.nn.functional.silu`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "silu"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![0.0, f64::INFINITY])?;
    /// assert_eq!(x.silu()?.as_slice(), &[0.0, f64::INFINITY]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn silu(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Silu, "silu")
    }

    /// GPT-2's GELU, the tanh approximation of every value ([`Function::GeluTanh`]; ≈ `torch.nn.functional.gelu(x, approximate="tanh")`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "gelu_tanh"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![0.0, 100.0])?;
    /// assert_eq!(x.gelu_tanh()?.as_slice(), &[0.0, 100.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn gelu_tanh(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::GeluTanh, "gelu_tanh")
    }

    /// BERT's exact GELU, `0.5 x (1 + erf(x / √2))` of every value ([`Function::GeluErf`]; ≈ `torch.nn.functional.gelu(x)`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "gelu_erf"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![0.0, 100.0])?;
    /// assert_eq!(x.gelu_erf()?.as_slice(), &[0.0, 100.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn gelu_erf(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::GeluErf, "gelu_erf")
    }

    /// The error function `erf x` of every value ([`Function::Erf`]; ≈ `torch.erf`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "erf"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![0.0, f64::INFINITY])?;
    /// assert_eq!(x.erf()?.as_slice(), &[0.0, 1.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn erf(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Erf, "erf")
    }

    /// `√x`, correctly rounded of every value ([`Function::Sqrt`]; ≈ `torch.sqrt`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "sqrt"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![4.0, 9.0])?;
    /// assert_eq!(x.sqrt()?.as_slice(), &[2.0, 3.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn sqrt(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Sqrt, "sqrt")
    }

    /// `1 / √x` (RMSNorm's scale) of every value ([`Function::Rsqrt`]; ≈ `torch.rsqrt`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "rsqrt"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![4.0, 0.25])?;
    /// assert_eq!(x.rsqrt()?.as_slice(), &[0.5, 2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn rsqrt(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Rsqrt, "rsqrt")
    }

    /// `1 / x`, correctly rounded of every value ([`Function::Recip`]; ≈ `torch.reciprocal`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "recip"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![4.0, -0.5])?;
    /// assert_eq!(x.recip()?.as_slice(), &[0.25, -2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn recip(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Recip, "recip")
    }

    /// `-x` (the sign bit flipped) of every value ([`Function::Neg`]; ≈ `torch.neg`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "neg"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![1.0, -2.0])?;
    /// assert_eq!(x.neg()?.as_slice(), &[-1.0, 2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn neg(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Neg, "neg")
    }

    /// `|x|` (the sign bit cleared) of every value ([`Function::Abs`]; ≈ `torch.abs`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "abs"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![1.0, -2.0])?;
    /// assert_eq!(x.abs()?.as_slice(), &[1.0, 2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn abs(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Abs, "abs")
    }

    /// `x * x` of every value ([`Function::Square`]; ≈ `torch.square`).
    ///
    /// # Errors
    /// As for [`unary`](super::unary), with `op: "square"`.
    ///
    /// ```
    /// use llm_from_scratch::prelude::*;
    /// let x = Tensor::from_vec([2], vec![3.0, -0.5])?;
    /// assert_eq!(x.square()?.as_slice(), &[9.0, 0.25]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn square(&self) -> Result<ArrayBase<Vec<S::Elem>, D>, Error> {
        unary_as(self, Function::Square, "square")
    }
}
