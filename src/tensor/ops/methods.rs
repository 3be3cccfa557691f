//! The operations as methods of [`View`] and [`Tensor`]: the same names,
//! ranks, rules and errors as the free functions they forward to, for the
//! common path (`x.sum_axis(1, KeepDim)?`, `x.matmul(&w)?`). Written once
//! for both receivers.

use crate::tensor::array::owned::Tensor;
use crate::tensor::array::view::{AsView, View};
use crate::tensor::error::TensorOpError;
use crate::tensor::float::Float;
use crate::tensor::shape::rank::{BroadcastRank, MatrixRank, Rank, ReduceDim};

macro_rules! op_methods {
    () => {
        /// [`map_unary`](crate::tensor::ops::map_unary) as a method: `op` on
        /// every value, in logical row-major order, into a new tensor of the
        /// same shape.
        ///
        /// # Errors
        /// [`TensorOpError::OutputAllocationFailed`].
        ///
        /// ```
        /// use llm_from_scratch::prelude::*;
        /// let t = Tensor::from_vec([2], vec![1.0, -2.0])?;
        /// assert_eq!(t.map_unary(|x: f64| x.abs())?.as_slice(), &[1.0, 2.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn map_unary<B: Copy>(
            &self,
            op: impl FnMut(T) -> B,
        ) -> Result<Tensor<R, B>, TensorOpError>
        where
            T: Copy,
        {
            super::map_unary(self, op)
        }

        /// [`map_binary`](crate::tensor::ops::map_binary) as a method: `op(self, other)`
        /// elementwise after NumPy broadcasting; the output rank is the larger one.
        ///
        /// # Errors
        /// `IncompatibleBroadcast`, `ShapeOverflow`, `OutputAllocationFailed`.
        ///
        /// ```
        /// use llm_from_scratch::prelude::*;
        /// let x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
        /// let bias = Tensor::from_vec([2], vec![10.0, 20.0])?;
        /// assert_eq!(x.map_binary(&bias, |a, b| a + b)?.as_slice(), &[11.0, 22.0, 13.0, 24.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn map_binary<const M: usize, const O: usize, U: Copy, C: Copy>(
            &self,
            other: &(impl AsView<M, U> + ?Sized),
            op: impl FnMut(T, U) -> C,
        ) -> Result<Tensor<O, C>, TensorOpError>
        where
            T: Copy,
            Rank<R>: BroadcastRank<Rank<M>, Output = Rank<O>>,
        {
            super::map_binary(self, other, op)
        }

        /// [`sum_axis`](crate::tensor::ops::sum_axis) as a method: the ascending
        /// sum over `axis`, removed (`RemoveDim`) or kept with extent 1 (`KeepDim`).
        ///
        /// # Errors
        /// `ReductionAxisOutOfBounds`, then `OutputAllocationFailed`.
        ///
        /// ```
        /// use llm_from_scratch::prelude::*;
        /// let x = Tensor::from_vec([2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
        /// let s = x.sum_axis(1, KeepDim)?; // [2, 3] -> [2, 1]
        /// assert_eq!((s.shape(), s.as_slice()), (&[2, 1], &[6.0, 15.0][..]));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn sum_axis<const S: usize, K: ReduceDim<R, Output = Rank<S>>>(
            &self,
            axis: usize,
            keep: K,
        ) -> Result<Tensor<S, T>, TensorOpError>
        where
            T: Float,
        {
            super::sum_axis(self, axis, keep)
        }

        /// [`mean_axis`](crate::tensor::ops::mean_axis) as a method.
        ///
        /// # Errors
        /// `ReductionAxisOutOfBounds`, `EmptyMeanAxis`, `OutputAllocationFailed`.
        ///
        /// ```
        /// use llm_from_scratch::prelude::*;
        /// let x = Tensor::from_vec([2, 2], vec![1.0, 3.0, 5.0, 7.0])?;
        /// assert_eq!(x.mean_axis(0, RemoveDim)?.as_slice(), &[3.0, 5.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn mean_axis<const S: usize, K: ReduceDim<R, Output = Rank<S>>>(
            &self,
            axis: usize,
            keep: K,
        ) -> Result<Tensor<S, T>, TensorOpError>
        where
            T: Float,
        {
            super::mean_axis(self, axis, keep)
        }

        /// [`max_axis`](crate::tensor::ops::max_axis) as a method (first NaN,
        /// else the earliest of the largest).
        ///
        /// # Errors
        /// `ReductionAxisOutOfBounds`, `EmptyMaxAxis`, `OutputAllocationFailed`.
        ///
        /// ```
        /// use llm_from_scratch::prelude::*;
        /// let x = Tensor::from_vec([2, 2], vec![1.0, 3.0, 7.0, 5.0])?;
        /// assert_eq!(x.max_axis(1, RemoveDim)?.as_slice(), &[3.0, 7.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn max_axis<const S: usize, K: ReduceDim<R, Output = Rank<S>>>(
            &self,
            axis: usize,
            keep: K,
        ) -> Result<Tensor<S, T>, TensorOpError>
        where
            T: Float,
        {
            super::max_axis(self, axis, keep)
        }

        /// [`argmax_axis`](crate::tensor::ops::argmax_axis) as a method: the
        /// position `max_axis` keeps (first NaN, else the earliest of the largest).
        ///
        /// # Errors
        /// `ReductionAxisOutOfBounds`, `EmptyMaxAxis`, `OutputAllocationFailed`.
        ///
        /// ```
        /// use llm_from_scratch::prelude::*;
        /// let logits = Tensor::from_vec([2, 3], vec![0.1, 2.0, 2.0, 5.0, -1.0, 4.0])?;
        /// assert_eq!(logits.argmax_axis(1, RemoveDim)?.as_slice(), &[1, 0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn argmax_axis<const S: usize, K: ReduceDim<R, Output = Rank<S>>>(
            &self,
            axis: usize,
            keep: K,
        ) -> Result<Tensor<S, usize>, TensorOpError>
        where
            T: Float,
        {
            super::argmax_axis(self, axis, keep)
        }

        /// [`softmax_axis`](crate::tensor::ops::softmax_axis) as a method: the
        /// stable softmax along `axis`, fused, bit-identical to its composition.
        ///
        /// # Errors
        /// `ReductionAxisOutOfBounds`, `ShapeOverflow`, `OutputAllocationFailed`.
        ///
        /// ```
        /// use llm_from_scratch::prelude::*;
        /// let scores = Tensor::from_vec([1, 2], vec![0.0, 0.0])?;
        /// assert_eq!(scores.softmax_axis(1)?.as_slice(), &[0.5, 0.5]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn softmax_axis(&self, axis: usize) -> Result<Tensor<R, T>, TensorOpError>
        where
            T: Float,
        {
            super::softmax_axis(self, axis)
        }

        /// [`matmul`](crate::tensor::ops::matmul) as a method: `[.., m, k] x
        /// [.., k, n] -> [batch.., m, n]`, batch axes broadcast, exact ascending sums.
        ///
        /// # Errors
        /// `MatmulInnerMismatch`, `IncompatibleBroadcast`, `ShapeOverflow`,
        /// `OutputAllocationFailed`.
        ///
        /// ```
        /// use llm_from_scratch::prelude::*;
        /// let x = Tensor::from_vec([1, 2], vec![1.0, 2.0])?;
        /// let w = Tensor::from_vec([2, 2], vec![3.0, 4.0, 5.0, 6.0])?;
        /// assert_eq!(x.matmul(&w)?.as_slice(), &[13.0, 16.0]);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn matmul<const M: usize, const O: usize>(
            &self,
            other: &(impl AsView<M, T> + ?Sized),
        ) -> Result<Tensor<O, T>, TensorOpError>
        where
            T: Float,
            Rank<R>: MatrixRank<Rank<M>, Output = Rank<O>>,
        {
            super::matmul(self, other)
        }
    };
}

impl<const R: usize, T> View<'_, R, T> {
    op_methods!();
}

impl<const R: usize, T> Tensor<R, T> {
    op_methods!();
}
