//! Conversions between the ranked and the dynamic types: `into_dyn` and
//! the `From` / `TryFrom` impls (`into_ranked` is a method of the dynamic
//! types, next to them, so its compile errors name `DynTensor::into_ranked`).
//! None copies values.

use super::dynamic::{DynTensor, DynView};
use super::owned::Tensor;
use super::view::View;
use crate::tensor::error::TensorError;

impl<const R: usize, T> Tensor<R, T> {
    /// Forgets the rank in the type: the same storage as a [`DynTensor`] (no copy).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let d = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?.into_dyn();
    /// assert_eq!(d.shape(), &[2, 2]);
    /// # Ok::<(), llm_from_scratch::tensor::TensorError>(())
    /// ```
    pub fn into_dyn(self) -> DynTensor<T> {
        let layout = self
            .layout
            .into_dims()
            .unwrap_or_else(|_| unreachable!("a dynamic layout takes any rank"));
        DynTensor {
            layout,
            values: self.values,
        }
    }
}

impl<'a, const R: usize, T> View<'a, R, T> {
    /// Forgets the rank in the type: the same borrowed layout as a [`DynView`].
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let d = t.view().transpose(0, 1)?.into_dyn();
    /// assert_eq!((d.shape(), d.strides()), (&[2, 2][..], &[1, 2][..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn into_dyn(self) -> DynView<'a, T> {
        let layout = self
            .layout
            .into_dims()
            .unwrap_or_else(|_| unreachable!("a dynamic layout takes any rank"));
        DynView {
            data: self.data,
            layout,
        }
    }
}

impl<const R: usize, T> From<Tensor<R, T>> for DynTensor<T> {
    fn from(value: Tensor<R, T>) -> Self {
        value.into_dyn()
    }
}

impl<'a, const R: usize, T> From<View<'a, R, T>> for DynView<'a, T> {
    fn from(value: View<'a, R, T>) -> Self {
        value.into_dyn()
    }
}

impl<const R: usize, T> TryFrom<DynTensor<T>> for Tensor<R, T> {
    type Error = TensorError;

    /// Same as [`DynTensor::into_ranked`].
    fn try_from(value: DynTensor<T>) -> Result<Self, TensorError> {
        value.into_ranked()
    }
}

impl<'a, const R: usize, T> TryFrom<DynView<'a, T>> for View<'a, R, T> {
    type Error = TensorError;

    /// Same as [`DynView::into_ranked`].
    fn try_from(value: DynView<'a, T>) -> Result<Self, TensorError> {
        value.into_ranked()
    }
}
