//! `Dims`: the axis lists a layout is made of, `[usize; R]` for a rank in
//! the type and [`DynDims`] for a rank known at run time.
//!
//! Both are seen as `&[usize]` / `&mut [usize]`, so every checked transform
//! in [`Layout`](super::layout::Layout) is written once for both.

use std::fmt;

mod sealed {
    pub trait Sealed {}
    impl<const R: usize> Sealed for [usize; R] {}
    impl Sealed for super::DynDims {}
}

/// An axis list (a shape or its strides): `[usize; R]` or [`DynDims`].
/// Public only so that [`Dimension::Axes`](super::dimension::Dimension) can
/// name it; the module is private, so users cannot.
pub trait Dims:
    sealed::Sealed + Clone + Copy + PartialEq + Eq + fmt::Debug + Send + Sync + 'static
{
    /// The rank when it is part of the type (`Some(R)` for `[usize; R]`).
    const FIXED: Option<usize>;
    /// `rank` zeros. For `[usize; R]`, `rank` must be `R`: the typed layers
    /// only ask for the rank their rank tables computed.
    fn zeros(rank: usize) -> Self;
    /// The axes as a slice.
    fn as_slice(&self) -> &[usize];
    /// The axes as a mutable slice (the rank stays fixed).
    fn as_mut_slice(&mut self) -> &mut [usize];
    /// A copy of `axes` (for `[usize; R]`, `axes.len()` must be `R`).
    fn from_slice(axes: &[usize]) -> Self {
        let mut dims = Self::zeros(axes.len());
        dims.as_mut_slice().copy_from_slice(axes);
        dims
    }
}

impl<const R: usize> Dims for [usize; R] {
    const FIXED: Option<usize> = Some(R);
    #[inline]
    fn zeros(rank: usize) -> Self {
        debug_assert_eq!(rank, R, "a typed rank table and a layout disagree");
        [0; R]
    }
    #[inline]
    fn as_slice(&self) -> &[usize] {
        // Every layout is read through here, so a typed rank above the
        // dynamic limit fails to build (kernels keep dynamic axis lists).
        const {
            if R > MAX_DYN_RANK {
                panic!("ranks above 32 (MAX_DYN_RANK, NumPy 1.x's NPY_MAXDIMS) are not supported")
            }
        };
        self
    }
    #[inline]
    fn as_mut_slice(&mut self) -> &mut [usize] {
        self
    }
}

/// The largest dynamic rank: NumPy 1.x's `NPY_MAXDIMS` (32). A dynamic
/// axis list lives inline, so dynamic views are `Copy` and their transforms
/// never touch the heap; a longer shape is refused with `RankTooLarge` where
/// it enters the crate.
pub const MAX_DYN_RANK: usize = 32;

/// A run-time-rank axis list: `len` axes inline (at most [`MAX_DYN_RANK`]).
#[derive(Clone, Copy)]
pub struct DynDims {
    len: usize,
    axes: [usize; MAX_DYN_RANK],
}

impl DynDims {
    /// A copy of `axes`, or the rank it has when that is above [`MAX_DYN_RANK`].
    pub(crate) fn try_from_slice(axes: &[usize]) -> Result<Self, usize> {
        if axes.len() > MAX_DYN_RANK {
            return Err(axes.len());
        }
        let mut dims = Self {
            len: axes.len(),
            axes: [0; MAX_DYN_RANK],
        };
        dims.axes[..axes.len()].copy_from_slice(axes);
        Ok(dims)
    }
}

impl Dims for DynDims {
    const FIXED: Option<usize> = None;
    /// `rank` zeros; the typed layers check every rank they build against
    /// [`MAX_DYN_RANK`] first.
    fn zeros(rank: usize) -> Self {
        assert!(
            rank <= MAX_DYN_RANK,
            "a dynamic rank above MAX_DYN_RANK was not refused"
        );
        Self {
            len: rank,
            axes: [0; MAX_DYN_RANK],
        }
    }
    #[inline]
    fn as_slice(&self) -> &[usize] {
        &self.axes[..self.len]
    }
    #[inline]
    fn as_mut_slice(&mut self) -> &mut [usize] {
        &mut self.axes[..self.len]
    }
}

impl PartialEq for DynDims {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}
impl Eq for DynDims {}

impl fmt::Debug for DynDims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.as_slice().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_axes_compare_by_their_axes_up_to_the_limit() {
        let small = DynDims::from_slice(&[2, 3]);
        assert_eq!(small.as_slice(), &[2, 3]);
        let large = DynDims::from_slice(&[1; MAX_DYN_RANK]);
        assert_eq!(large.as_slice().len(), MAX_DYN_RANK);
        assert_ne!(small, large);
        assert_eq!(format!("{small:?}"), "[2, 3]");
        assert_eq!(
            DynDims::try_from_slice(&[1; MAX_DYN_RANK + 1]).unwrap_err(),
            MAX_DYN_RANK + 1
        );
    }
}
