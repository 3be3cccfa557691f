//! The crate's error type, re-exported from its root module
//! [`crate::error`] (this path is kept for code written against the
//! three-layer design: `tensor::error::{TensorError, TensorViewError, TensorOpError}`).

pub use crate::error::{Error, TensorError, TensorOpError, TensorViewError};
