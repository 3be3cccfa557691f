//! The value-holding types, thin shells over [`Layout`](crate::tensor::shape::layout::Layout):
//! the owner [`Tensor`](owned::Tensor), the borrowed [`View`](view::View),
//! their run-time-rank twins and every conversion between them (with
//! ndarray's views too, feature `ndarray`).

pub(crate) mod convert;
pub(crate) mod dyn_transforms;
pub(crate) mod dynamic;
pub(crate) mod dynamic_mut;
pub(crate) mod iter;
pub(crate) mod materialize;
#[cfg(feature = "ndarray")]
mod ndarray;
pub(crate) mod owned;
pub(crate) mod ranked;
pub(crate) mod shared;
pub(crate) mod view;
pub(crate) mod view_mut;
