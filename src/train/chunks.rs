//! One parallel pass over the chunks of many tensors (a model's dozens of
//! parameters or gradients), or an ordered pass on the calling thread.

use crate::tensor::traverse::simd::{threads_for_bytes, tuning};
use rayon::prelude::*;

/// Calls `f` on every item of `items` (at most `count` of them): in one
/// rayon region when their `bytes` of traffic clear the kernels' thread
/// threshold and the list of items can be reserved, else in order on the
/// calling thread. `f` computes each item alone, so the result is the same
/// either way.
pub(super) fn for_each_chunk<C: Send>(
    items: impl Iterator<Item = C>,
    count: usize,
    bytes: usize,
    f: impl Fn(C) + Sync + Send,
) {
    let mut list = Vec::new();
    if threads_for_bytes(bytes, tuning()) > 1 && list.try_reserve_exact(count).is_ok() {
        list.extend(items);
        list.into_par_iter().for_each(f);
    } else {
        items.for_each(f);
    }
}
