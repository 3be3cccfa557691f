//! Rank-erased traversal: the one odometer ([`plan::Plan`]), offsets,
//! output sinks, the strided copy, the fallible-allocation helper, the
//! SIMD dispatch and the split of outputs over threads.
//!
//! Everything here takes `&[usize]` shapes and strides of layouts the typed
//! layers already checked, so it knows nothing about ranks or error wording.

pub(crate) mod alloc;
pub(crate) mod cached;
pub(crate) mod cells;
pub(crate) mod copy;
pub(crate) mod groups;
pub(crate) mod last_axis;
pub(crate) mod offsets;
pub(crate) mod parallel;
pub(crate) mod plan;
pub(crate) mod simd;
pub(crate) mod sink;
pub(crate) mod zip;

use crate::tensor::shape::layout::Layout;

/// A checked strided layout over borrowed storage, rank-erased: what every
/// view type hands to the shared op cores and kernels.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Strided<'a, 's, T> {
    pub(crate) data: &'a [T],
    pub(crate) shape: &'s [usize],
    pub(crate) strides: &'s [usize],
    pub(crate) base: usize,
}

impl<'a, 's, T> Strided<'a, 's, T> {
    /// `layout` read over `data` (the layout was checked against it).
    pub(crate) fn new<D: crate::tensor::shape::dims::Dims>(
        data: &'a [T],
        layout: &'s Layout<D>,
    ) -> Self {
        Self {
            data,
            shape: layout.shape(),
            strides: layout.strides(),
            base: layout.base_offset,
        }
    }
}
