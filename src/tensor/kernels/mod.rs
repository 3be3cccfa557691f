//! Crate-private traversal and compute kernels.
//!
//! Rank-erased: every kernel takes `&[usize]` shapes and strides of layouts
//! that the typed layers already checked, so kernels know nothing about
//! ranks or error wording. The ranked and dynamic APIs both call these.

pub(crate) mod copy;
pub(crate) mod map;
pub(crate) mod matmul;
pub(crate) mod offsets;
pub(crate) mod plan;
pub(crate) mod reduce;
pub(crate) mod simd;
pub(crate) mod sink;

/// An empty `Vec` with room for exactly `elements` values, or `None` when
/// the reservation fails (`try_reserve`), so callers return a typed error
/// instead of aborting.
pub(crate) fn buffer<T>(elements: usize) -> Option<Vec<T>> {
    let mut values = Vec::new();
    values.try_reserve_exact(elements).ok()?;
    Some(values)
}

/// A checked strided layout over borrowed storage, rank-erased: what the
/// ranked [`View`](crate::tensor::View) and the dynamic
/// [`DynView`](crate::tensor::dynamic::DynView) hand to the shared op cores.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Strided<'a, 's, T> {
    pub(crate) data: &'a [T],
    pub(crate) shape: &'s [usize],
    pub(crate) strides: &'s [usize],
    pub(crate) base: usize,
}
