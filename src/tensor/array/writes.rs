//! Writing through mutable views and their pieces: fill, map in place,
//! assign a broadcast source, combine with a broadcast source. Every write
//! visits the positions in logical row-major order.

use super::base::ArrayBase;
use super::borrow::AsArray;
use super::storage::Writable;
use crate::error::Error;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::shape::rank::RankAtMost;
use crate::tensor::traverse::cells;

impl<S: Writable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Copy,
{
    /// Writes `value` at every position.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::<2>::zeros([2, 2])?;
    /// t.view_mut().select(1, 0)?.fill(7.0); // the first column
    /// assert_eq!(t.as_slice(), &[7.0, 0.0, 7.0, 0.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn fill(&mut self, value: S::Elem) {
        self.map_inplace(|_| value);
    }

    /// `x <- f(x)` at every position, in logical row-major order.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// t.view_mut().slice(0, 1..2)?.map_inplace(|x| x * 10.0);
    /// assert_eq!(t.as_slice(), &[1.0, 2.0, 30.0, 40.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn map_inplace(&mut self, f: impl FnMut(S::Elem) -> S::Elem) {
        let layout = (
            self.layout.shape(),
            self.layout.strides(),
            self.layout.base_offset,
        );
        cells::update(self.data.cells(), layout, f);
    }

    /// Copies `source` into this view, broadcasting it to this view's shape
    /// (NumPy's assignment rule: `dst[...] = src`); the source's rank is at
    /// most this view's. ≈ PyTorch `copy_`, candle's `slice_set` for a KV cache.
    ///
    /// # Errors
    /// [`Error::BroadcastRankTooSmall`] if a dynamic source has more axes;
    /// [`Error::IncompatibleBroadcast`] (`op: "assign"`) at the leftmost axis
    /// where the source's extent is neither this view's nor 1.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut mask = Tensor::<2>::zeros([3, 3])?;
    /// let row = Tensor::from_vec([3], vec![0.0, f64::NEG_INFINITY, f64::NEG_INFINITY])?;
    /// mask.view_mut().slice(0, 0..1)?.assign(&row)?; // [3] broadcast to [1, 3]
    /// assert_eq!(mask.get([0, 2])?, &f64::NEG_INFINITY);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn assign<E: Dimension + RankAtMost<D>>(
        &mut self,
        source: &(impl AsArray<E, S::Elem> + ?Sized),
    ) -> Result<(), Error> {
        self.zip_with(source, |_, value| value, "assign")
    }

    /// `x <- f(x, s)` at every position, `s` read from `source` broadcast to
    /// this view's shape, in logical row-major order (this view's value
    /// first): any binary rule in place, e.g. a clamped residual
    /// `x.view_mut().zip_map_inplace(&attn, |x, a| (x + a).min(1e4))` (a
    /// plain sum is [`add_assign`](ArrayBase::add_assign)).
    ///
    /// # Errors
    /// As for [`assign`](ArrayBase::assign), with `op: "zip_map_inplace"`.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut x = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let bias = Tensor::from_vec([2], vec![10.0, 20.0])?;
    /// x.view_mut().zip_map_inplace(&bias, |v, b| v + b)?;
    /// assert_eq!(x.as_slice(), &[11.0, 22.0, 13.0, 24.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn zip_map_inplace<E: Dimension + RankAtMost<D>, U: Copy>(
        &mut self,
        source: &(impl AsArray<E, U> + ?Sized),
        f: impl FnMut(S::Elem, U) -> S::Elem,
    ) -> Result<(), Error> {
        self.zip_with(source, f, "zip_map_inplace")
    }

    /// [`zip_map_inplace`](ArrayBase::zip_map_inplace) reporting its
    /// errors as the public method `op` (`assign`, `add_assign`, ...).
    pub(crate) fn zip_with<E: Dimension, U: Copy>(
        &mut self,
        source: &(impl AsArray<E, U> + ?Sized),
        f: impl FnMut(S::Elem, U) -> S::Elem,
        op: &'static str,
    ) -> Result<(), Error> {
        let source = source.as_array();
        let stretched = source.layout.broadcast_onto(&self.layout, op)?;
        let layout = (
            self.layout.shape(),
            self.layout.strides(),
            self.layout.base_offset,
        );
        cells::zip_update(
            self.data.cells(),
            layout,
            source.data,
            stretched.strides(),
            stretched.base_offset,
            f,
        );
        Ok(())
    }
}
