//! Between a rank in the type and a rank at run time: `into_dyn`,
//! `into_ranked`, and the `From` / `TryFrom` impls. None copies values.

use super::base::ArrayBase;
use super::storage::Storage;
use crate::error::Error;
use crate::tensor::shape::dimension::{Dimension, DynRank};
use crate::tensor::shape::rank::Rank;

impl<S: Storage, D: Dimension> ArrayBase<S, D> {
    /// Forgets the rank in the type: the same storage and layout with a
    /// dynamic rank (no copy).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let d = t.view().transpose(0, 1)?.into_dyn();
    /// assert_eq!((d.shape(), d.strides()), (&[2, 2][..], &[1, 2][..]));
    /// assert_eq!(t.into_dyn().shape(), &[2, 2]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn into_dyn(self) -> ArrayBase<S, DynRank> {
        let layout = self
            .layout
            .into_dims()
            .unwrap_or_else(|_| unreachable!("a dynamic layout takes any rank"));
        ArrayBase {
            data: self.data,
            layout,
        }
    }

    /// Fixes the rank in the type (no copy).
    ///
    /// # Errors
    /// [`Error::RankMismatch`] `{ op: "into_ranked", expected: R, actual }`.
    ///
    /// ```
    /// use llm_from_scratch::{tensor::{DynTensor, Tensor}, Error};
    /// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(d.view().into_ranked::<2>()?.get([1, 1])?, &4.0);
    /// assert_eq!(
    ///     d.clone().into_ranked::<3>().unwrap_err(),
    ///     Error::RankMismatch { op: "into_ranked", expected: 3, actual: 2 }
    /// );
    /// let t: Tensor<2> = d.into_ranked()?;
    /// assert_eq!(t.shape(), &[2, 2]);
    /// # Ok::<(), Error>(())
    /// ```
    pub fn into_ranked<const R: usize>(self) -> Result<ArrayBase<S, Rank<R>>, Error> {
        self.ranked("into_ranked")
    }

    fn ranked<const R: usize>(self, op: &'static str) -> Result<ArrayBase<S, Rank<R>>, Error> {
        let layout = self
            .layout
            .into_dims()
            .map_err(|rank| Error::RankMismatch {
                op,
                expected: R,
                actual: rank,
            })?;
        Ok(ArrayBase {
            data: self.data,
            layout,
        })
    }
}

impl<S: Storage, const R: usize> From<ArrayBase<S, Rank<R>>> for ArrayBase<S, DynRank> {
    /// Same as [`into_dyn`](ArrayBase::into_dyn).
    fn from(value: ArrayBase<S, Rank<R>>) -> Self {
        value.into_dyn()
    }
}

impl<S: Storage, const R: usize> TryFrom<ArrayBase<S, DynRank>> for ArrayBase<S, Rank<R>> {
    type Error = Error;

    /// Same as [`into_ranked`](ArrayBase::into_ranked), with `op: "try_from"`.
    fn try_from(value: ArrayBase<S, DynRank>) -> Result<Self, Error> {
        value.ranked("try_from")
    }
}
