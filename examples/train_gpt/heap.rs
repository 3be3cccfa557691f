//! Keeping glibc's malloc from returning the tape to the kernel after
//! every step.
//!
//! A step allocates its tape (every activation and gradient, a few MiB on a
//! small model) and frees all of it at the end. glibc's `free` trims the top
//! of the heap once more than `M_TRIM_THRESHOLD` is free there (128 KiB at
//! start), so the next step page-faults the same memory back: on the
//! 2-layer, width-64 model that was ~2,900 page faults a step and 40 % of
//! the process's CPU time in the kernel. glibc raises the threshold by
//! itself (mallopt(3), "M_MMAP_THRESHOLD": freeing a block that was
//! memory-mapped sets the mmap threshold to its size and the trim threshold
//! to twice that, up to 32 MiB), so one large block allocated and freed
//! before training keeps up to 62 MiB of freed heap for the next step. The
//! block is never touched (no page is faulted in); other allocators ignore it.

/// Just under glibc's `DEFAULT_MMAP_THRESHOLD_MAX` (32 MiB on 64-bit).
const BLOCK: usize = 31 << 20;

/// Allocates and frees one `BLOCK`-byte buffer (see the module doc).
pub fn keep_freed_memory() {
    let mut block: Vec<u8> = Vec::new();
    if block.try_reserve_exact(BLOCK).is_ok() {
        std::hint::black_box(&mut block);
    }
}
