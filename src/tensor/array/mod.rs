//! The one array type, [`ArrayBase<S, D>`](base::ArrayBase), over a
//! storage (owned, borrowed, mutably borrowed, shared cells) and a dimension
//! (a rank in the type, or at run time), thin over [`Layout`](crate::tensor::shape::layout::Layout).
//!
//! One file per purpose (ndarray's `impl_views/`): the type and its
//! aliases, the storages, building owners, borrowing, reading, the
//! rank-keeping and rank-changing transforms, the axis iterators, writes,
//! conversions between dimensions, the one copy, and ndarray interop.

pub(crate) mod access;
pub(crate) mod base;
pub(crate) mod borrow;
pub(crate) mod build;
pub(crate) mod convert;
pub(crate) mod iter;
pub(crate) mod materialize;
#[cfg(feature = "ndarray")]
mod ndarray;
pub(crate) mod reshape;
pub(crate) mod storage;
pub(crate) mod transforms;
pub(crate) mod writes;
