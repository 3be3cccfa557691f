//! The recorded view operations and joins. Forward: the crate's zero-copy
//! view op on the stored value, then `materialize` (a node's value is always
//! contiguous). Backward: the inverse rearrangement of `dy` (`backward.rs`).

use std::ops::Range;

use crate::error::Error;
use crate::tensor::ops;
use crate::tensor::{Dimension, InsertAxis, RankAtMost, RemoveAxis};

use super::node::Op;
use super::{Real, Var, check_rank};

impl<'t, D: Dimension, T: Real> Var<'t, D, T> {
    /// The axes permuted (`torch.permute`): output axis `i` is input axis
    /// `perm[i]`. Gradient: `dy` permuted by the inverse.
    ///
    /// # Errors
    /// [`Error::PermutationLengthMismatch`], [`Error::DuplicateAxis`],
    /// [`Error::AxisOutOfBounds`]; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<3>::zeros([2, 3, 4])?)?;
    /// assert_eq!(x.permute(&[2, 0, 1])?.shape(), vec![4, 2, 3]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn permute(&self, perm: &[usize]) -> Result<Var<'t, D, T>, Error> {
        let a = self.id;
        self.record(Op::Permute(a, perm.to_vec()), |n| {
            n[a].value.view().permute(perm)?.materialize()
        })
    }

    /// Axes `first` and `second` swapped (`torch.transpose`).
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`]; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<2>::zeros([2, 3])?)?;
    /// assert_eq!(x.transpose(0, 1)?.shape(), vec![3, 2]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn transpose(&self, first: usize, second: usize) -> Result<Var<'t, D, T>, Error> {
        let rank = self.shape().len();
        for axis in [first, second] {
            if axis >= rank {
                return Err(Error::AxisOutOfBounds {
                    op: "Var::transpose",
                    axis,
                    rank,
                });
            }
        }
        let mut perm: Vec<usize> = (0..rank).collect();
        perm.swap(first, second);
        self.permute(&perm)
    }

    /// The same elements in row-major order at `shape` of rank `E`
    /// (`torch.reshape`; also split / merge of axes). Gradient: `dy` reshaped.
    ///
    /// # Errors
    /// [`Error::RankMismatch`] if `shape` is not of rank `E`;
    /// [`Error::ReshapeElementCountMismatch`]; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<3>::zeros([2, 3, 4])?)?;
    /// let y = x.reshape::<Rank<2>>(&[6, 4])?;
    /// assert_eq!(y.shape(), vec![6, 4]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn reshape<E: Dimension>(&self, shape: &[usize]) -> Result<Var<'t, E, T>, Error> {
        check_rank::<E>(shape.len(), "Var::reshape")?;
        let a = self.id;
        self.record(Op::Reshape(a), |n| {
            n[a].value.view().reshape(shape.to_vec())?.materialize()
        })
    }

    /// Axis `axis` split into `[outer, inner]` (their product must be its
    /// extent), as the crate's `split_axis`: rank `E = D + 1`. Recorded as a
    /// reshape (e.g. `[B, T, C]` into heads `[B, T, H, D]`).
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`], [`Error::SplitAxisMismatch`],
    /// [`Error::RankMismatch`]; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<2>::zeros([2, 6])?)?;
    /// assert_eq!(x.split_axis::<Rank<3>>(1, [2, 3])?.shape(), vec![2, 2, 3]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn split_axis<E: Dimension>(
        &self,
        axis: usize,
        sizes: [usize; 2],
    ) -> Result<Var<'t, E, T>, Error>
    where
        D: InsertAxis<Larger = E>,
    {
        let shape = self.shape();
        let extent = *shape.get(axis).ok_or(Error::AxisOutOfBounds {
            op: "Var::split_axis",
            axis,
            rank: shape.len(),
        })?;
        if sizes.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) != Some(extent) {
            return Err(Error::SplitAxisMismatch {
                axis,
                extent,
                requested: sizes,
            });
        }
        let mut to = shape[..axis].to_vec();
        to.extend_from_slice(&sizes);
        to.extend_from_slice(&shape[axis + 1..]);
        self.reshape(&to)
    }

    /// Axes `axis` and `axis + 1` merged into one (the crate's
    /// `merge_axes`); rank `E = D - 1`. Recorded as a reshape.
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`], [`Error::RankMismatch`];
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<3>::zeros([2, 2, 3])?)?;
    /// assert_eq!(x.merge_axes::<Rank<2>>(1)?.shape(), vec![2, 6]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn merge_axes<E: Dimension>(&self, axis: usize) -> Result<Var<'t, E, T>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        let shape = self.shape();
        if axis + 1 >= shape.len() {
            return Err(Error::AxisOutOfBounds {
                op: "Var::merge_axes",
                axis: axis + 1,
                rank: shape.len(),
            });
        }
        let mut to = shape[..axis].to_vec();
        to.push(shape[axis] * shape[axis + 1]);
        to.extend_from_slice(&shape[axis + 2..]);
        self.reshape(&to)
    }

    /// A contiguous copy (`Tensor::materialize`); values on the tape are
    /// already contiguous, so this records an identity. Gradient `dy`.
    ///
    /// # Errors
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<1>::zeros([2])?)?;
    /// assert_eq!(x.materialize()?.shape(), vec![2]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn materialize(&self) -> Result<Var<'t, D, T>, Error> {
        let shape = self.shape();
        self.reshape(&shape)
    }

    /// Entries `range` of `axis` taken every `step` (`x[.., start:end:step]`).
    /// Gradient: `dy` written into zeros at the kept entries.
    ///
    /// # Errors
    /// [`Error::SliceStartAfterEnd`], [`Error::SliceEndOutOfBounds`],
    /// [`Error::ZeroSliceStep`], [`Error::AxisOutOfBounds`];
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([4], vec![1.0, 2.0, 3.0, 4.0])?)?;
    /// assert_eq!(x.slice(0, 0..4, 2)?.value()?.as_slice(), &[1.0, 3.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn slice(
        &self,
        axis: usize,
        range: Range<usize>,
        step: usize,
    ) -> Result<Var<'t, D, T>, Error> {
        let a = self.id;
        let op = Op::Slice {
            input: a,
            axis,
            start: range.start,
            step,
        };
        self.record(op, |n| {
            n[a].value
                .view()
                .slice_step(axis, range, step)?
                .materialize()
        })
    }

    /// `length` entries of `axis` from `start` (`torch.narrow`).
    ///
    /// # Errors
    /// As [`Var::slice`]; [`Error::ShapeOverflow`] if `start + length` overflows.
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([3], vec![1.0, 2.0, 3.0])?)?;
    /// assert_eq!(x.narrow(0, 1, 2)?.value()?.as_slice(), &[2.0, 3.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn narrow(&self, axis: usize, start: usize, length: usize) -> Result<Var<'t, D, T>, Error> {
        let end = start
            .checked_add(length)
            .ok_or(Error::ShapeOverflow { op: "Var::narrow" })?;
        self.slice(axis, start..end, 1)
    }

    /// Entry `index` of `axis`, the axis removed (`torch.select`).
    ///
    /// # Errors
    /// [`Error::IndexOutOfBounds`], [`Error::AxisOutOfBounds`];
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::from_vec([2, 2], vec![1.0, 2.0, 3.0, 4.0])?)?;
    /// assert_eq!(x.select(0, 1)?.value()?.as_slice(), &[3.0, 4.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn select<E: Dimension>(&self, axis: usize, index: usize) -> Result<Var<'t, E, T>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        let a = self.id;
        self.record(Op::Select(a, axis, index), |n| {
            n[a].value.view().select(axis, index)?.materialize()
        })
    }

    /// An extent-1 axis inserted at `axis` (`torch.unsqueeze`).
    ///
    /// # Errors
    /// [`Error::AxisOutOfBounds`]; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<1>::zeros([3])?)?;
    /// assert_eq!(x.unsqueeze::<Rank<2>>(0)?.shape(), vec![1, 3]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn unsqueeze<E: Dimension>(&self, axis: usize) -> Result<Var<'t, E, T>, Error>
    where
        D: InsertAxis<Larger = E>,
    {
        let a = self.id;
        self.record(Op::Reshape(a), |n| {
            n[a].value.view().unsqueeze(axis)?.materialize()
        })
    }

    /// An extent-1 axis removed (`torch.squeeze(axis)`).
    ///
    /// # Errors
    /// [`Error::SqueezeNonUnitAxis`], [`Error::AxisOutOfBounds`];
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<2>::zeros([1, 3])?)?;
    /// assert_eq!(x.squeeze::<Rank<1>>(0)?.shape(), vec![3]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn squeeze<E: Dimension>(&self, axis: usize) -> Result<Var<'t, E, T>, Error>
    where
        D: RemoveAxis<Smaller = E>,
    {
        let a = self.id;
        self.record(Op::Reshape(a), |n| {
            n[a].value.view().squeeze(axis)?.materialize()
        })
    }

    /// Broadcast to `shape` of rank `E` (`torch.expand`, NumPy's rule).
    /// Gradient: `dy` summed over the stretched axes.
    ///
    /// # Errors
    /// [`Error::RankMismatch`], [`Error::IncompatibleBroadcast`];
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let x = tape.leaf(Tensor::<2>::zeros([3, 1])?)?;
    /// assert_eq!(x.broadcast_to::<Rank<3>>(&[2, 3, 4])?.shape(), vec![2, 3, 4]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn broadcast_to<E: Dimension>(&self, shape: &[usize]) -> Result<Var<'t, E, T>, Error>
    where
        D: RankAtMost<E>,
    {
        check_rank::<E>(shape.len(), "Var::broadcast_to")?;
        let a = self.id;
        self.record(Op::BroadcastTo(a), |n| {
            n[a].value
                .view()
                .broadcast_to(shape.to_vec())?
                .materialize()
        })
    }

    /// Entries `indices` of `axis`, repeats allowed (`torch.index_select`;
    /// `F.embedding` on axis 0). Gradient: rows of `dy` scatter-added in
    /// order of `indices`.
    ///
    /// # Errors
    /// [`Error::IndexSelectOutOfBounds`] (e.g. a token id ≥ vocabulary),
    /// [`Error::AxisOutOfBounds`]; [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::Tape;
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let wte = tape.leaf(Tensor::from_vec([2, 1], vec![5.0, 7.0])?)?;
    /// let y = wte.index_select(0, &[1, 1])?.sum_axis::<Rank<1>>(0)?.sum_axis::<Rank<0>>(0)?;
    /// assert_eq!(y.backward()?.get(&wte)?.as_slice(), &[0.0, 2.0]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn index_select(&self, axis: usize, indices: &[usize]) -> Result<Var<'t, D, T>, Error> {
        let a = self.id;
        self.record(Op::IndexSelect(a, axis, indices.to_vec()), |n| {
            ops::index_select(&n[a].value, axis, indices)
        })
    }

    /// `parts` joined along `axis` (`torch.cat`). Gradient: the matching
    /// slices of `dy`.
    ///
    /// # Errors
    /// [`Error::EmptyInputList`], [`Error::ConcatShapeMismatch`],
    /// [`Error::InvalidArgument`] for parts on other tapes;
    /// [`Error::AllocationFailed`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::{Tape, Var};
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let a = tape.leaf(Tensor::<1>::zeros([2])?)?;
    /// let b = tape.leaf(Tensor::<1>::zeros([3])?)?;
    /// assert_eq!(Var::concat(&[a, b], 0)?.shape(), vec![5]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn concat(parts: &[Var<'t, D, T>], axis: usize) -> Result<Var<'t, D, T>, Error> {
        let first = parts
            .first()
            .ok_or(Error::EmptyInputList { op: "Var::concat" })?;
        for p in parts {
            first.same_tape(p)?;
        }
        let ids: Vec<usize> = parts.iter().map(|p| p.id).collect();
        first.record(Op::Concat(ids.clone(), axis), |n| {
            let views: Vec<_> = ids.iter().map(|&i| n[i].value.view()).collect();
            ops::concat(&views, axis)
        })
    }

    /// `parts` (of one shape) joined along a new `axis` (`torch.stack`):
    /// each unsqueezed, then concatenated.
    ///
    /// # Errors
    /// As [`Var::concat`] and [`Var::unsqueeze`].
    ///
    /// ```
    /// use llm_from_scratch::autograd::{Tape, Var};
    /// use llm_from_scratch::prelude::*;
    /// let tape = Tape::<f64>::new();
    /// let a = tape.leaf(Tensor::<1>::zeros([2])?)?;
    /// assert_eq!(Var::stack::<Rank<2>>(&[a, a, a], 0)?.shape(), vec![3, 2]);
    /// # Ok::<(), llm_from_scratch::Error>(())
    /// ```
    pub fn stack<E: Dimension>(parts: &[Var<'t, D, T>], axis: usize) -> Result<Var<'t, E, T>, Error>
    where
        D: InsertAxis<Larger = E>,
    {
        let lifted = parts
            .iter()
            .map(|p| p.unsqueeze::<E>(axis))
            .collect::<Result<Vec<_>, Error>>()?;
        Var::concat(&lifted, axis)
    }
}
