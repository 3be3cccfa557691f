//! A counting global allocator: the measured proof behind the byte counts.
//!
//! The layout trace says which rows *claim* to share an owner; this counter
//! says how many heap bytes were really requested between two records. It
//! forwards every call to the system allocator unchanged and only adds the
//! requested sizes to one atomic counter. An example installs it with
//! `#[global_allocator] static ALLOCATOR: audit::heap::Counting = audit::heap::Counting;`.
//! This is the examples' only `unsafe`: `GlobalAlloc` is an unsafe trait
//! (the library itself is `#![forbid(unsafe_code)]`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes requested from the allocator since the program started.
static REQUESTED: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting requested bytes.
pub struct Counting;

fn count(bytes: usize) {
    REQUESTED.fetch_add(bytes as u64, Ordering::Relaxed);
}

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; counting has no effect on the memory.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: the caller's contract for `layout` is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was returned by `System` for this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: `ptr` was returned by `System` for `layout`; the caller's
        // contract for `new_size` is passed on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Total bytes requested from the allocator so far (allocations plus the
/// new size of every reallocation; frees are not subtracted).
pub fn requested_bytes() -> u64 {
    REQUESTED.load(Ordering::Relaxed)
}
