//! Reading an array's layout and values: the shape getters of every array,
//! the coordinate accessors of each storage, and the value iterators.

use super::base::ArrayBase;
use super::storage::{Storage, Writable};
use crate::error::Error;
use crate::tensor::shape::dimension::Dimension;
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::offsets::{StridedOffsets, StridedValues};

/// The layout getters: every storage, every dimension.
impl<S: Storage, D: Dimension> ArrayBase<S, D> {
    /// The extent of every axis: `&[usize; R]` for a typed rank, `&[usize]`
    /// for a dynamic one.
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, Tensor};
    /// let t = Tensor::<3>::zeros([2, 1, 3])?;
    /// assert_eq!(t.shape(), &[2, 1, 3]);
    /// assert_eq!(t.view().transpose(0, 2)?.shape(), &[3, 1, 2]);
    /// assert_eq!(DynTensor::<f64>::zeros(vec![2, 3])?.shape(), &[2, 3]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn shape(&self) -> &D::Shape {
        D::shape_of(&self.layout.shape)
    }

    /// The storage step of every axis, in elements (row-major suffix
    /// products for an owner).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::<3>::zeros([2, 1, 3])?;
    /// assert_eq!(t.strides(), &[3, 3, 1]);
    /// assert_eq!(t.view().transpose(0, 2)?.strides(), &[1, 3, 3]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn strides(&self) -> &D::Shape {
        D::shape_of(&self.layout.strides)
    }

    /// The number of axes (`R` for a typed rank).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, Tensor};
    /// assert_eq!(Tensor::<3>::zeros([2, 1, 3])?.rank(), 3);
    /// assert_eq!(DynTensor::<f64>::zeros(vec![2; 9])?.rank(), 9);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn rank(&self) -> usize {
        self.layout.rank()
    }

    /// The storage offset of the logical origin (all coordinates 0); 0 for an owner.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// assert_eq!(t.view().slice(0, 1..2)?.base_offset(), 3);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn base_offset(&self) -> usize {
        self.layout.base_offset
    }

    /// The number of logical values (1 for a scalar, 0 for any zero extent).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::<2>::zeros([2, 3])?;
    /// assert_eq!((t.len(), t.view().slice(1, 0..2)?.len()), (6, 4));
    /// assert_eq!(Tensor::<0>::zeros([])?.len(), 1); // a scalar
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.layout.len
    }

    /// Whether there are no logical values (some extent is 0).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// assert!(Tensor::<2>::zeros([2, 0])?.is_empty());
    /// assert!(!Tensor::<2>::zeros([2, 3])?.is_empty());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.layout.len == 0
    }

    /// Whether logical row-major order visits one dense storage span from
    /// the base offset. Axes of extent 1 may carry any stride; empty and
    /// scalar layouts are contiguous; an owner always is.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::<2>::zeros([2, 3])?;
    /// assert!(t.view().is_contiguous());
    /// assert!(!t.view().transpose(0, 1)?.is_contiguous());
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_contiguous()
    }

    /// Storage offsets in logical row-major order (last axis fastest), one
    /// per logical value; a stride-0 axis repeats offsets. Never allocates.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::<2>::zeros([2, 3])?;
    /// assert_eq!(t.view().transpose(0, 1)?.offsets().collect::<Vec<_>>(), [0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn offsets(&self) -> StridedOffsets {
        StridedOffsets::new(
            self.layout.shape(),
            self.layout.strides(),
            self.layout.base_offset,
        )
    }

    /// The storage offset of the coordinate `index` (`[usize; R]`, or
    /// `&[usize]` for a dynamic rank).
    ///
    /// # Errors
    /// [`Error::RankMismatch`] for a dynamic coordinate of the wrong length;
    /// [`Error::IndexOutOfBounds`] naming the first axis whose coordinate is
    /// not below its extent (every bound is checked before any arithmetic).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, Tensor};
    /// let t = Tensor::<2>::zeros([2, 3])?;
    /// assert_eq!(t.view().transpose(0, 1)?.storage_offset([2, 1])?, 5);
    /// assert!(t.storage_offset([2, 0]).is_err());
    /// let d = DynTensor::<f64>::zeros(vec![2, 3])?;
    /// assert_eq!(d.storage_offset(&[1, 2])?, 5);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn storage_offset(&self, index: D::Index<'_>) -> Result<usize, Error> {
        self.layout.offset(D::index_slice(&index), "storage_offset")
    }
}

/// Reads of an owner: its values in row-major order, by coordinate.
impl<T, D: Dimension> ArrayBase<Vec<T>, D> {
    /// The value at `index`.
    ///
    /// # Errors
    /// As for [`storage_offset`](ArrayBase::storage_offset).
    ///
    /// ```
    /// use llm_from_scratch::{tensor::Tensor, Error};
    /// let t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(t.get([1, 0])?, &3.0);
    /// assert_eq!(t.get([0, 2]), Err(Error::IndexOutOfBounds { op: "get", axis: 1, index: 2, dimension: 2 }));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn get(&self, index: D::Index<'_>) -> Result<&T, Error> {
        let offset = self.layout.offset(D::index_slice(&index), "get")?;
        Ok(&self.data[offset])
    }

    /// The value at `index`, mutably.
    ///
    /// # Errors
    /// As for [`storage_offset`](ArrayBase::storage_offset).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::from_vec([2], vec![1.0, 2.0])?;
    /// *t.get_mut([1])? = 5.0;
    /// assert_eq!(t.as_slice(), &[1.0, 5.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn get_mut(&mut self, index: D::Index<'_>) -> Result<&mut T, Error> {
        let offset = self.layout.offset(D::index_slice(&index), "get_mut")?;
        Ok(&mut self.data[offset])
    }

    /// The values in row-major order.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::from_fn([2, 2], |[i, j]| (10 * i + j) as f64)?;
    /// assert_eq!(t.as_slice(), &[0.0, 1.0, 10.0, 11.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// The values in row-major order, mutably (the shape stays fixed).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let mut t = Tensor::<2>::zeros([2, 2])?;
    /// t.as_mut_slice()[2] = 5.0;
    /// assert_eq!(t.get([1, 0])?, &5.0);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// Gives the values back in row-major order (no copy).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let t = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(t.into_vec(), vec![1.0, 2.0, 3.0, 4.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }
}

/// Reads of a borrowed view: references that live as long as the owner
/// (`'a`), not as long as the view value.
impl<'a, T, D: Dimension> ArrayBase<&'a [T], D> {
    /// Borrows the owner's value at the coordinate `index`.
    ///
    /// # Errors
    /// As for [`storage_offset`](ArrayBase::storage_offset).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, Tensor};
    /// let owner = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// assert_eq!(owner.view().get([1, 2])?, &22.0);
    /// assert!(owner.view().get([2, 0]).is_err());
    /// let d = DynTensor::from_vec(vec![2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(d.view().transpose(0, 1)?.get(&[0, 1])?, &3.0);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn get(&self, index: D::Index<'_>) -> Result<&'a T, Error> {
        let offset = self.layout.offset(D::index_slice(&index), "get")?;
        Ok(&self.data[offset])
    }

    /// The whole storage of the owner this view borrows (not only the viewed part).
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(owner.view().slice(0, 1..2)?.storage(), &[1.0, 2.0, 3.0, 4.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn storage(&self) -> &'a [T] {
        self.data
    }

    /// The values as one slice when the view is contiguous, else `None`.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(owner.view().slice(0, 1..2)?.as_contiguous_slice(), Some(&[3.0, 4.0][..]));
    /// assert_eq!(owner.view().transpose(0, 1)?.as_contiguous_slice(), None);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn as_contiguous_slice(&self) -> Option<&'a [T]> {
        self.layout
            .contiguous_range()
            .and_then(|span| self.data.get(span))
    }

    /// The values in logical row-major order, borrowed from the owner.
    ///
    /// ```
    /// use llm_from_scratch::tensor::Tensor;
    /// let owner = Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
    /// let values: Vec<f64> = owner.view().transpose(0, 1)?.iter().copied().collect();
    /// assert_eq!(values, [1.0, 3.0, 2.0, 4.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn iter(&self) -> StridedValues<'a, T> {
        StridedValues::new(self.data, self.offsets())
    }

    /// The rank-erased layout handed to the op cores.
    pub(crate) fn strided(&self) -> Strided<'a, '_, T> {
        Strided::new(self.data, &self.layout)
    }
}

/// Coordinate reads and writes of mutable views and their pieces, by value.
impl<S: Writable, D: Dimension> ArrayBase<S, D>
where
    S::Elem: Copy,
{
    /// The value at the coordinate `index` (a copy).
    ///
    /// # Errors
    /// As for [`storage_offset`](ArrayBase::storage_offset).
    ///
    /// ```
    /// use llm_from_scratch::{tensor::Tensor, Error};
    /// let mut t = Tensor::from_vec([2, 3], vec![10.0, 11.0, 12.0, 20.0, 21.0, 22.0])?;
    /// let v = t.view_mut().transpose(0, 1)?;
    /// assert_eq!(v.get([2, 1])?, 22.0);
    /// assert!(matches!(v.get([3, 0]), Err(Error::IndexOutOfBounds { .. })));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn get(&self, index: D::Index<'_>) -> Result<S::Elem, Error> {
        let offset = self.layout.offset(D::index_slice(&index), "get")?;
        Ok(self.data.load(offset))
    }

    /// Writes `value` at the coordinate `index`.
    ///
    /// # Errors
    /// As for [`storage_offset`](ArrayBase::storage_offset).
    ///
    /// ```
    /// use llm_from_scratch::tensor::{DynTensor, Tensor};
    /// let mut t = Tensor::<2>::zeros([2, 2])?;
    /// let mut v = t.view_mut().transpose(0, 1)?;
    /// v.set([0, 1], 5.0)?;
    /// assert_eq!(v.get([0, 1])?, 5.0);
    /// assert_eq!(t.as_slice(), &[0.0, 0.0, 5.0, 0.0]);
    /// let mut d = DynTensor::<f64>::zeros(vec![2, 2])?;
    /// d.view_mut().set(&[0, 1], 3.0)?;
    /// assert_eq!(d.as_slice(), &[0.0, 3.0, 0.0, 0.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn set(&mut self, index: D::Index<'_>, value: S::Elem) -> Result<(), Error> {
        let offset = self.layout.offset(D::index_slice(&index), "set")?;
        self.data.cells()[offset].set(value);
        Ok(())
    }
}
