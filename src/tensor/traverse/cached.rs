//! A kernel's scratch buffers kept per thread between calls: a product's
//! packing panels, the attention kernel's score rows.
//!
//! A buffer is taken out of its thread-local slot for the length of one
//! call and put back after it, so a call nested in another on the same
//! thread (rayon's work stealing runs a task inside a waiting one) finds the
//! slot empty and starts its own. Keeping them matters: a freed buffer of a
//! few hundred KiB goes back to the system, and faulting its pages in again
//! on every call cost 13 % of a two-thread 512² product.

use std::any::Any;
use std::cell::RefCell;
use std::thread::LocalKey;

/// One thread's cached value of some type (`thread_local!` statics are not
/// generic, so the value is boxed as `Any` and downcast on the way out).
pub(crate) type Cache = RefCell<Option<Box<dyn Any>>>;

/// The value cached in `cache` if it is a `T`, else a new default one
/// (boxed once per thread and type: the same box goes back and forth).
pub(crate) fn take_cached<T: Default + 'static>(cache: &'static LocalKey<Cache>) -> Box<T> {
    cache
        .with(|c| c.borrow_mut().take())
        .and_then(|b| b.downcast::<T>().ok())
        .unwrap_or_default()
}

/// Keeps `value` in `cache` for this thread's next use.
pub(crate) fn put_cached<T: 'static>(cache: &'static LocalKey<Cache>, value: Box<T>) {
    cache.with(|c| *c.borrow_mut() = Some(value));
}
