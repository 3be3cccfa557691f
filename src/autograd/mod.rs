//! Reverse-mode automatic differentiation over the crate's tensor operations.
//!
//! A [`Tape`] records every operation applied to its [`Var`]s; a `Var<'t, D, T>`
//! carries its rank in `D` (`Rank<R>` or `DynRank`, as [`ArrayBase`] does) and
//! its value is a contiguous tensor computed by the crate's forward kernels
//! (`matmul`, `softmax_axis`, `unary`, broadcasting `add` / `mul`, `index_select`,
//! the view operations followed by `materialize`). [`Var::backward`] walks the
//! tape in reverse and returns a [`Grads`], from which [`Grads::get`] gives a
//! gradient with its parameter's rank and shape.
//!
//! Backward rules are plain code: an enum of operation kinds ([`node`]), matched
//! in one function (`backward.rs`). An enum rather than boxed closures because
//! the saved values are then visible, the tape is `Send` with no trait objects,
//! and every rule sits in one reviewable place.
//!
//! Determinism: every sum inside a backward rule runs sequentially in a fixed
//! (row-major) order, and the forward kernels split work by outputs, so the
//! gradients are bit-identical for every rayon thread count.
//!
//! Source of the rules: PyTorch's `derivatives.yaml` (the same formulas), checked
//! against PyTorch autograd fixtures in `tests/autograd.rs`.
//!
//! ```
//! use llm_from_scratch::autograd::Tape;
//! use llm_from_scratch::prelude::*;
//! let tape = Tape::<f64>::new();
//! let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 2.0])?)?;
//! let y = x.mul(&x)?.sum_axis::<Rank<0>>(0)?; // y = x0² + x1²
//! let grads = y.backward()?;
//! assert_eq!(grads.get(&x)?.as_slice(), &[2.0, 4.0]);
//! # Ok::<(), llm_from_scratch::Error>(())
//! ```

mod backward;
mod derivatives;
mod forward;
mod nn;
pub mod node;
mod rows;
mod strided;
mod views;

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::Error;
use crate::tensor::{ArrayBase, AsArray, Dimension, DynTensor, Element, Float};
use backward::Keep;
use node::{Node, Op};

/// The scalar types the tape differentiates: `f32` and `f64`.
pub trait Real: Float + Element<Acc = Self> {}
impl<T: Float + Element<Acc = T>> Real for T {}

/// A recording of operations (a Wengert list). Values are computed eagerly
/// as operations are recorded; [`Var::backward`] runs the rules in reverse.
///
/// ```
/// use llm_from_scratch::autograd::Tape;
/// let tape = Tape::<f32>::new();
/// assert_eq!(tape.len(), 0);
/// ```
#[derive(Debug)]
pub struct Tape<T> {
    nodes: RefCell<Vec<Node<T>>>,
    /// This tape's number among all tapes of the process, so gradients can
    /// tell a variable of their own tape from another tape's.
    id: u64,
}

/// Tapes made so far (the next tape's `id`).
static TAPES: AtomicU64 = AtomicU64::new(0);

impl<T: Real> Default for Tape<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// A value on a [`Tape`], of rank `D` (`Rank<R>` or `DynRank`).
///
/// `Copy`: a handle (the tape and a node number), not the tensor.
#[derive(Debug)]
pub struct Var<'t, D, T> {
    tape: &'t Tape<T>,
    id: usize,
    dim: PhantomData<D>,
}

impl<D, T> Clone for Var<'_, D, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<D, T> Copy for Var<'_, D, T> {}

impl<T: Real> Tape<T> {
    /// An empty tape.
    ///
    /// ```
    /// let tape = llm_from_scratch::autograd::Tape::<f64>::new();
    /// assert!(tape.is_empty());
    /// ```
    pub fn new() -> Self {
        Tape {
            nodes: RefCell::new(Vec::new()),
            id: TAPES.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// The number of recorded nodes (leaves included).
    ///
    /// ```
    /// let tape = llm_from_scratch::autograd::Tape::<f64>::new();
    /// assert_eq!(tape.len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.nodes.borrow().len()
    }

    /// Whether nothing is recorded.
    ///
    /// ```
    /// assert!(llm_from_scratch::autograd::Tape::<f32>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of the values the tape holds: every node's forward value
    /// (the activations a backward pass reads, and the leaves' copies of the
    /// parameters and inputs), `elements · size_of::<T>()` summed.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f32>::new();
    /// let x = tape.leaf(Tensor::<1, f32>::zeros([3])?)?;
    /// let _y = x.mul(&x)?;
    /// assert_eq!(tape.value_bytes(), 2 * 3 * 4);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn value_bytes(&self) -> usize {
        let nodes = self.nodes.borrow();
        nodes
            .iter()
            .map(|n| n.value.as_slice().len())
            .sum::<usize>()
            * size_of::<T>()
    }

    /// A leaf (a parameter or an input) holding a contiguous copy of `value`,
    /// of `value`'s rank and shape (any layout).
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] if the copy cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let w = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let wt = tape.leaf(w.view().transpose(0, 1)?)?; // a strided view
    /// assert_eq!(wt.value()?.as_slice(), &[1.0, 3.0, 2.0, 4.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn leaf<D: Dimension>(&self, value: impl AsArray<D, T>) -> Result<Var<'_, D, T>, Error> {
        let value = value.as_array().materialize()?.into_dyn();
        Ok(self.push(value, Op::Leaf))
    }

    /// A value that needs no gradient (a causal mask, a fixed scale, an
    /// input): a contiguous copy of `value` recorded as a leaf whose
    /// gradient no backward rule computes, nor that of any value depending
    /// on constants alone (PyTorch's `requires_grad=False`). [`Grads::get`]
    /// gives zeros for it.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] if the copy cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 2.0])?)?;
    /// let s = tape.constant(Tensor::from_vec([], vec![3.0])?)?;
    /// let grads = x.mul(&s)?.sum_axis::<Rank<0>>(0)?.backward()?;
    /// assert_eq!(grads.get(&x)?.as_slice(), &[3.0, 3.0]);
    /// assert_eq!(grads.get(&s)?.as_slice(), &[0.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn constant<D: Dimension>(
        &self,
        value: impl AsArray<D, T>,
    ) -> Result<Var<'_, D, T>, Error> {
        let value = value.as_array().materialize()?.into_dyn();
        Ok(self.push(value, Op::Constant))
    }

    pub(crate) fn push<D>(&self, value: DynTensor<T>, op: Op) -> Var<'_, D, T> {
        let mut nodes = self.nodes.borrow_mut();
        let id = nodes.len();
        nodes.push(Node { value, op });
        Var {
            tape: self,
            id,
            dim: PhantomData,
        }
    }

    /// Runs `f` on the value of node `id` (borrowed).
    pub(crate) fn with_value<R>(&self, id: usize, f: impl FnOnce(&DynTensor<T>) -> R) -> R {
        f(&self.nodes.borrow()[id].value)
    }
}

/// Converts a contiguous dynamic-rank tensor to rank `D`.
pub(crate) fn to_rank<D: Dimension, T>(
    value: DynTensor<T>,
    op: &'static str,
) -> Result<ArrayBase<Vec<T>, D>, Error> {
    let shape = value.shape().to_vec();
    if let Some(rank) = D::RANK
        && rank != shape.len()
    {
        return Err(Error::RankMismatch {
            op,
            expected: rank,
            actual: shape.len(),
        });
    }
    crate::tensor::owned_with_shape::<D, T>(&shape, value.into_vec(), op)
}

impl<'t, D: Dimension, T: Real> Var<'t, D, T> {
    /// The tape this value is recorded on.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([1], vec![3.0])?)?;
    /// assert_eq!(x.tape().len(), 1);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn tape(&self) -> &'t Tape<T> {
        self.tape
    }

    /// The value (a contiguous copy), of rank `D`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`] if the copy cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 2.0])?)?;
    /// assert_eq!(x.value()?.shape(), &[2]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn value(&self) -> Result<ArrayBase<Vec<T>, D>, Error> {
        let copy = self.tape.with_value(self.id, strided::copy)?;
        to_rank(copy, "Var::value")
    }

    /// The shape of the value.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<2>::zeros([2, 3])?)?;
    /// assert_eq!(x.shape(), vec![2, 3]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn shape(&self) -> Vec<usize> {
        self.tape.with_value(self.id, |v| v.shape().to_vec())
    }

    /// The view of this value at a run-time rank (the same node).
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<2>::zeros([2, 3])?)?;
    /// assert_eq!(x.into_dyn().shape(), vec![2, 3]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn into_dyn(self) -> Var<'t, crate::tensor::DynRank, T> {
        Var {
            tape: self.tape,
            id: self.id,
            dim: PhantomData,
        }
    }

    /// This value at rank `E`, checked at run time (e.g. a `DynRank` value back
    /// to `Rank<3>`).
    ///
    /// # Errors
    /// [`Error::RankMismatch`] if the value's rank is not `E`'s.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<2>::zeros([2, 3])?)?.into_dyn();
    /// assert!(x.into_rank::<Rank<2>>().is_ok());
    /// assert!(x.into_rank::<Rank<3>>().is_err());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn into_rank<E: Dimension>(self) -> Result<Var<'t, E, T>, Error> {
        let rank = self.shape().len();
        check_rank::<E>(rank, "into_rank")?;
        Ok(Var {
            tape: self.tape,
            id: self.id,
            dim: PhantomData,
        })
    }

    /// The gradients of this scalar (one element, any rank) with respect to
    /// every node of the tape: reverse-mode accumulation from `d self = 1`.
    ///
    /// # Errors
    /// [`Error::BackwardNotScalar`] if the value has more than one element;
    /// [`Error::AllocationFailed`] if a gradient buffer cannot be reserved.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 2.0])?)?;
    /// assert!(matches!(x.backward(), Err(Error::BackwardNotScalar { .. })));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn backward(&self) -> Result<Grads<T>, Error> {
        let nodes = self.tape.nodes.borrow();
        let pass = backward::run(&nodes, self.id, Keep::All)?;
        Ok(Grads::new(pass, Keep::All, self.tape.id))
    }

    /// [`Var::backward`] keeping only the leaves' gradients: each
    /// intermediate node's gradient is freed as soon as its backward rule
    /// has passed it on, so the pass holds the gradients of the nodes still
    /// waiting for their rule instead of one per node. This is PyTorch's
    /// default (`loss.backward()` fills `.grad` of leaves only, unless a
    /// tensor asked for `retain_grad()`), and what a training step wants:
    /// the values are the same bits as [`Var::backward`]'s.
    ///
    /// # Errors
    /// As [`Var::backward`]. Asking the result for a node that is not a
    /// leaf is [`Error::GradientNotRetained`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 2.0])?)?;
    /// let h = x.mul(&x)?;                                // intermediate
    /// let grads = h.sum_axis::<Rank<0>>(0)?.backward_leaves()?;
    /// assert_eq!(grads.get(&x)?.as_slice(), &[2.0, 4.0]);
    /// assert_eq!(grads.bytes(), 2 * 8);                  // d x alone
    /// assert!(matches!(grads.get(&h), Err(Error::GradientNotRetained { .. })));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn backward_leaves(&self) -> Result<Grads<T>, Error> {
        let nodes = self.tape.nodes.borrow();
        let pass = backward::run(&nodes, self.id, Keep::Leaves)?;
        Ok(Grads::new(pass, Keep::Leaves, self.tape.id))
    }

    /// The gradients of `sum(self · cotangent)` (a vector–Jacobian product):
    /// `cotangent` must have this value's shape.
    ///
    /// # Errors
    /// [`Error::OutputShapeMismatch`] if the shapes differ;
    /// [`Error::AllocationFailed`] as [`Var::backward`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 2.0])?)?;
    /// let y = x.mul(&x)?;
    /// let g = y.backward_with(&Tensor::from_vec([2], vec![1.0, 10.0])?)?;
    /// assert_eq!(g.get(&x)?.as_slice(), &[2.0, 40.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn backward_with(&self, cotangent: &impl AsArray<D, T>) -> Result<Grads<T>, Error> {
        let seed = cotangent.as_array().materialize()?.into_dyn();
        let nodes = self.tape.nodes.borrow();
        let pass = backward::run_seeded(&nodes, self.id, seed, Keep::All)?;
        Ok(Grads::new(pass, Keep::All, self.tape.id))
    }
}

pub(crate) fn check_rank<E: Dimension>(rank: usize, op: &'static str) -> Result<(), Error> {
    match E::RANK {
        Some(expected) if expected != rank => Err(Error::RankMismatch {
            op,
            expected,
            actual: rank,
        }),
        _ => Ok(()),
    }
}

/// The gradients of one [`Var::backward`] (every node's), [`Var::backward_with`]
/// or [`Var::backward_leaves`] (the leaves' only) call, by node, for
/// variables of the output's tape.
#[derive(Debug)]
pub struct Grads<T> {
    grads: Vec<Option<DynTensor<T>>>,
    keep: Keep,
    peak: usize,
    tape: u64,
}

impl<T: Real> Grads<T> {
    fn new(pass: backward::Pass<T>, keep: Keep, tape: u64) -> Self {
        Self {
            grads: pass.grads,
            keep,
            peak: pass.peak,
            tape,
        }
    }

    /// The most bytes of gradient buffers the backward pass held at once
    /// (one buffer per node with a gradient so far, the output's seed
    /// included; a rule's short-lived temporaries are not counted). With
    /// [`Var::backward`] it is [`Grads::bytes`]; with
    /// [`Var::backward_leaves`] it is usually far less than one buffer per
    /// node.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<1>::zeros([1000])?)?;
    /// let y = x.map(Function::Exp)?.map(Function::Exp)?.map(Function::Exp)?;
    /// let loss = y.sum_axis::<Rank<0>>(0)?;
    /// assert_eq!(loss.backward()?.peak_bytes(), (1 + 4 * 1000) * 8);
    /// // Each intermediate gradient is freed once used: two buffers at most.
    /// assert_eq!(loss.backward_leaves()?.peak_bytes(), 2 * 1000 * 8);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn peak_bytes(&self) -> usize {
        self.peak * size_of::<T>()
    }

    /// The bytes of the gradient buffers held (one per node the output
    /// depends on, intermediate nodes included unless they came from
    /// [`Var::backward_leaves`]), `elements · size_of::<T>()`.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<1>::zeros([2])?)?;
    /// let grads = x.sum_axis::<Rank<0>>(0)?.backward()?;
    /// assert_eq!(grads.bytes(), (2 + 1) * 8); // d x and the seed d y
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn bytes(&self) -> usize {
        let elements: usize = self
            .grads
            .iter()
            .flatten()
            .map(|g| g.as_slice().len())
            .sum();
        elements * size_of::<T>()
    }

    /// The gradient with respect to `var`, of `var`'s rank and shape: zeros
    /// if the output does not depend on it (a constant, an unused leaf).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if `var` is recorded on another tape than
    /// these gradients' output;
    /// [`Error::AllocationFailed`] if the copy cannot be reserved;
    /// [`Error::IndexOutOfBounds`] if `var` was recorded after the output;
    /// [`Error::GradientNotRetained`] if these gradients came from
    /// [`Var::backward_leaves`] and `var` is an intermediate node (neither
    /// a leaf nor a constant).
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2], vec![1.0, 2.0])?)?;
    /// let y = x.sum_axis::<Rank<0>>(0)?;
    /// assert_eq!(y.backward()?.get(&x)?.as_slice(), &[1.0, 1.0]);
    /// let other = Tape::<f64>::new();
    /// let z = other.leaf(Tensor::from_vec([2], vec![0.0, 0.0])?)?;
    /// assert!(matches!(y.backward()?.get(&z), Err(Error::InvalidArgument { .. })));
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn get<D: Dimension>(&self, var: &Var<'_, D, T>) -> Result<ArrayBase<Vec<T>, D>, Error> {
        if var.tape.id != self.tape {
            return Err(Error::InvalidArgument {
                op: "Grads::get",
                message: "the variable is recorded on another tape than these gradients".into(),
            });
        }
        let kept = || {
            matches!(
                var.tape.nodes.borrow().get(var.id),
                Some(n) if matches!(n.op, Op::Leaf | Op::Constant)
            )
        };
        if self.keep == Keep::Leaves && var.id < self.grads.len() && !kept() {
            return Err(Error::GradientNotRetained {
                op: "Grads::get",
                node: var.id,
            });
        }
        let grad = match self.grads.get(var.id) {
            Some(Some(g)) => strided::copy(g)?,
            Some(None) => strided::zeros(&var.shape())?,
            None => {
                return Err(Error::IndexOutOfBounds {
                    op: "Grads::get",
                    axis: 0,
                    index: var.id,
                    dimension: self.grads.len(),
                });
            }
        };
        to_rank(grad, "Grads::get")
    }
}
