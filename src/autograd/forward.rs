//! The recorded arithmetic: broadcasting binary maps, the named elementwise
//! functions, matmul and the single-axis reductions, each computed by the
//! crate's forward kernel.

use crate::error::Error;
use crate::tensor::ops::{self, Function};
use crate::tensor::{BroadcastRank, Dimension, DynTensor, MatrixRank};

use super::node::{Node, Op};
use super::{Real, Var, check_rank};

/// A broadcasting binary kernel of the crate (`ops::add`, ...).
type Kernel<T> = fn(&DynTensor<T>, &DynTensor<T>) -> Result<DynTensor<T>, Error>;

impl<'t, D: Dimension, T: Real> Var<'t, D, T> {
    /// Computes a value from the tape's nodes and records it with `op`.
    pub(crate) fn record<E>(
        &self,
        op: Op,
        forward: impl FnOnce(&[Node<T>]) -> Result<DynTensor<T>, Error>,
    ) -> Result<Var<'t, E, T>, Error> {
        let value = forward(&self.tape.nodes.borrow())?;
        Ok(self.tape.push(value, op))
    }

    fn binary<M: Dimension, O: Dimension>(
        &self,
        other: &Var<'t, M, T>,
        op: Op,
        kernel: Kernel<T>,
    ) -> Result<Var<'t, O, T>, Error> {
        self.same_tape(other)?;
        let (a, b) = (self.id, other.id);
        self.record(op, |n| kernel(&n[a].value, &n[b].value))
    }

    pub(crate) fn same_tape<M>(&self, other: &Var<'t, M, T>) -> Result<(), Error> {
        if std::ptr::eq(self.tape, other.tape) {
            Ok(())
        } else {
            Err(Error::InvalidArgument {
                op: "autograd",
                message: "the operands are recorded on different tapes".into(),
            })
        }
    }

    /// `self + other` with NumPy broadcasting (`torch.add`); the output rank
    /// is the larger one. Gradient: `dy` summed to each operand's shape.
    ///
    /// # Errors
    /// [`Error::IncompatibleBroadcast`] if the shapes do not broadcast;
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?)?;
    /// let b = tape.leaf(Tensor::from_vec([2], vec![10.0, 20.0])?)?;
    /// let y = x.add(&b)?.sum_axis::<Rank<1>>(0)?.sum_axis::<Rank<0>>(0)?;
    /// assert_eq!(y.backward()?.get(&b)?.as_slice(), &[2.0, 2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn add<M: Dimension, O: Dimension>(
        &self,
        other: &Var<'t, M, T>,
    ) -> Result<Var<'t, O, T>, Error>
    where
        D: BroadcastRank<M, Output = O>,
    {
        self.binary(other, Op::Add(self.id, other.id), |a, b| ops::add(a, b))
    }

    /// `self - other`, broadcasting as [`Var::add`].
    ///
    /// # Errors
    /// As [`Var::add`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([1], vec![3.0])?)?;
    /// let y = x.sub(&x)?;
    /// assert_eq!(y.value()?.as_slice(), &[0.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn sub<M: Dimension, O: Dimension>(
        &self,
        other: &Var<'t, M, T>,
    ) -> Result<Var<'t, O, T>, Error>
    where
        D: BroadcastRank<M, Output = O>,
    {
        self.binary(other, Op::Sub(self.id, other.id), |a, b| ops::sub(a, b))
    }

    /// `self · other`, broadcasting as [`Var::add`]. Gradients `dy · other`
    /// and `dy · self`, each summed to its operand's shape.
    ///
    /// # Errors
    /// As [`Var::add`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([1], vec![3.0])?)?;
    /// assert_eq!(x.mul(&x)?.backward()?.get(&x)?.as_slice(), &[6.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn mul<M: Dimension, O: Dimension>(
        &self,
        other: &Var<'t, M, T>,
    ) -> Result<Var<'t, O, T>, Error>
    where
        D: BroadcastRank<M, Output = O>,
    {
        self.binary(other, Op::Mul(self.id, other.id), |a, b| ops::mul(a, b))
    }

    /// `self / other`, broadcasting as [`Var::add`]. Gradients `dy / other`
    /// and `-dy · y / other`.
    ///
    /// # Errors
    /// As [`Var::add`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([1], vec![2.0])?)?;
    /// let one = tape.leaf(Tensor::from_vec([1], vec![1.0])?)?;
    /// assert_eq!(one.div(&x)?.backward()?.get(&x)?.as_slice(), &[-0.25]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn div<M: Dimension, O: Dimension>(
        &self,
        other: &Var<'t, M, T>,
    ) -> Result<Var<'t, O, T>, Error>
    where
        D: BroadcastRank<M, Output = O>,
    {
        self.binary(other, Op::Div(self.id, other.id), |a, b| ops::div(a, b))
    }

    /// A named elementwise function (the crate's `unary` kernel): `Exp`, `Ln`,
    /// `Tanh`, `Sigmoid`, `Silu`, `GeluTanh` (GPT-2's `gelu_new`), `GeluErf`,
    /// `Sqrt`, `Rsqrt`, `Recip`, `Square`, `Neg`. Derivatives in `backward.rs`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a function with no derivative here
    /// (`Erf`, `Abs`, ...); [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([1], vec![0.0])?)?;
    /// let g = x.map(Function::Tanh)?.backward()?;
    /// assert_eq!(g.get(&x)?.as_slice(), &[1.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn map(&self, function: Function) -> Result<Var<'t, D, T>, Error> {
        use Function::*;
        if !matches!(
            function,
            Exp | Ln
                | Tanh
                | Sigmoid
                | Silu
                | GeluTanh
                | GeluErf
                | Sqrt
                | Rsqrt
                | Recip
                | Square
                | Neg
        ) {
            return Err(Error::InvalidArgument {
                op: "Var::map",
                message: format!("no derivative of {function:?} is implemented"),
            });
        }
        let a = self.id;
        self.record(Op::Unary(a, function), |n| {
            ops::unary(&n[a].value, function)
        })
    }

    /// `self @ other` (`torch.matmul` for ranks ≥ 2): `[.., m, k] @ [.., k, n]`,
    /// batch axes broadcast. Gradients `dy @ otherᵀ` and `selfᵀ @ dy`, summed
    /// over broadcast batch axes.
    ///
    /// # Errors
    /// [`Error::MatmulInnerMismatch`], [`Error::IncompatibleBroadcast`],
    /// [`Error::AllocationFailed`] as `matmul`.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let a = tape.leaf(Tensor::from_vec([1, 2], vec![1.0, 2.0])?)?;
    /// let b = tape.leaf(Tensor::from_vec([2, 1], vec![3.0, 4.0])?)?;
    /// let y = a.matmul(&b)?; // [1, 1]
    /// assert_eq!(y.backward()?.get(&a)?.as_slice(), &[3.0, 4.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn matmul<M: Dimension, O: Dimension>(
        &self,
        other: &Var<'t, M, T>,
    ) -> Result<Var<'t, O, T>, Error>
    where
        D: MatrixRank<M, Output = O>,
    {
        self.binary(other, Op::Matmul(self.id, other.id), |a, b| {
            ops::matmul(a, b)
        })
    }

    fn reduce<E: Dimension>(
        &self,
        axis: usize,
        op: Op,
        name: &'static str,
    ) -> Result<Var<'t, E, T>, Error> {
        let shape = self.shape();
        let keep = match E::RANK {
            Some(r) if r == shape.len() => true,
            _ => {
                check_rank::<E>(shape.len().saturating_sub(1), name)?;
                false
            }
        };
        let a = self.id;
        self.record(op.clone(), |n| {
            let x = &n[a].value;
            match op {
                Op::Sum(..) => ops::sum_axis(x, axis, keep),
                Op::Mean(..) => ops::mean_axis(x, axis, keep),
                _ => ops::max_axis(x, axis, keep),
            }
        })
    }

    /// The sum over `axis`; `E` is this rank (the axis kept with extent 1)
    /// or one less (removed). Gradient: `dy` repeated along the axis.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`]; [`Error::RankMismatch`] if `E` is neither
    /// rank; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 2.0])?)?;
    /// assert_eq!(x.sum_axis::<Rank<0>>(0)?.value()?.as_slice(), &[3.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn sum_axis<E: Dimension>(&self, axis: usize) -> Result<Var<'t, E, T>, Error> {
        self.reduce(axis, Op::Sum(self.id, axis), "Var::sum_axis")
    }

    /// The mean over `axis`, `E` as [`Var::sum_axis`]. Gradient `dy / n`.
    ///
    /// # Errors
    /// As [`Var::sum_axis`], and [`Error::EmptyMeanAxis`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 2.0])?)?;
    /// let g = x.mean_axis::<Rank<0>>(0)?.backward()?;
    /// assert_eq!(g.get(&x)?.as_slice(), &[0.5, 0.5]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn mean_axis<E: Dimension>(&self, axis: usize) -> Result<Var<'t, E, T>, Error> {
        self.reduce(axis, Op::Mean(self.id, axis), "Var::mean_axis")
    }

    /// The maximum over `axis`, `E` as [`Var::sum_axis`]. Tie policy: all of
    /// `dy` goes to the FIRST maximal entry along the axis, as the index
    /// `torch.max(x, dim)` returns on the CPU.
    ///
    /// # Errors
    /// As [`Var::sum_axis`], and [`Error::EmptyMaxAxis`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([3], vec![2.0, 1.0, 2.0])?)?;
    /// let g = x.max_axis::<Rank<0>>(0)?.backward()?;
    /// assert_eq!(g.get(&x)?.as_slice(), &[1.0, 0.0, 0.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn max_axis<E: Dimension>(&self, axis: usize) -> Result<Var<'t, E, T>, Error> {
        self.reduce(axis, Op::MaxFirst(self.id, axis), "Var::max_axis")
    }

    /// The maximum over `axis` with `torch.amax`'s tie policy: `dy` split
    /// evenly among the `k` entries equal to the maximum (`dy / k` each).
    ///
    /// # Errors
    /// As [`Var::max_axis`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([3], vec![2.0, 1.0, 2.0])?)?;
    /// let g = x.amax_axis::<Rank<0>>(0)?.backward()?;
    /// assert_eq!(g.get(&x)?.as_slice(), &[0.5, 0.0, 0.5]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn amax_axis<E: Dimension>(&self, axis: usize) -> Result<Var<'t, E, T>, Error> {
        self.reduce(axis, Op::MaxEven(self.id, axis), "Var::amax_axis")
    }

    /// Softmax over `axis` (the crate's `softmax_axis`). Gradient
    /// `y · (dy - Σ_axis dy · y)`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`]; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![0.0, 0.0])?)?;
    /// assert_eq!(x.softmax(0)?.value()?.as_slice(), &[0.5, 0.5]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn softmax(&self, axis: usize) -> Result<Var<'t, D, T>, Error> {
        let a = self.id;
        self.record(Op::Softmax(a, axis), |n| {
            ops::softmax_axis(&n[a].value, axis)
        })
    }
}
