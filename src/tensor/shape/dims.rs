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
    sealed::Sealed + Clone + PartialEq + Eq + fmt::Debug + Send + Sync + 'static
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
        self
    }
    #[inline]
    fn as_mut_slice(&mut self) -> &mut [usize] {
        self
    }
}

/// Axes kept inline by [`DynDims`]: dynamic views up to this rank transform
/// without touching the heap.
const INLINE: usize = 12;

/// A run-time-rank axis list: inline up to [`INLINE`] axes (so dynamic view
/// transforms allocate nothing), on the heap beyond.
#[derive(Clone)]
pub enum DynDims {
    /// `len` axes in `axes[..len]`.
    Inline { len: usize, axes: [usize; INLINE] },
    /// More than `INLINE` axes.
    Heap(Vec<usize>),
}

impl Dims for DynDims {
    const FIXED: Option<usize> = None;
    fn zeros(rank: usize) -> Self {
        if rank <= INLINE {
            DynDims::Inline {
                len: rank,
                axes: [0; INLINE],
            }
        } else {
            DynDims::Heap(vec![0; rank])
        }
    }
    #[inline]
    fn as_slice(&self) -> &[usize] {
        match self {
            DynDims::Inline { len, axes } => &axes[..*len],
            DynDims::Heap(axes) => axes,
        }
    }
    #[inline]
    fn as_mut_slice(&mut self) -> &mut [usize] {
        match self {
            DynDims::Inline { len, axes } => &mut axes[..*len],
            DynDims::Heap(axes) => axes,
        }
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
    fn inline_and_heap_compare_by_their_axes() {
        let small = DynDims::from_slice(&[2, 3]);
        assert!(matches!(small, DynDims::Inline { len: 2, .. }));
        assert_eq!(small.as_slice(), &[2, 3]);
        let large = DynDims::from_slice(&[1; INLINE + 1]);
        assert!(matches!(large, DynDims::Heap(_)));
        assert_eq!(large.as_slice().len(), INLINE + 1);
        assert_ne!(small, large);
        assert_eq!(format!("{small:?}"), "[2, 3]");
    }
}
