//! Where kernels write their row-major output: a fresh `Vec` (reserved with
//! `try_reserve` by the caller) or a caller's slice (`_into` variants). One
//! kernel serves both, so fresh and `_into` results cannot drift apart.
//!
//! Every method appends a whole run at once, so both sinks see a loop over
//! a slice (`Vec::extend` of a trusted-length iterator, or a zip with the
//! target slots) that the compiler vectorizes, instead of a per-element
//! push with its own capacity or bounds check.

/// The run length, in bytes, from which glibc's `memcpy` may use `rep
/// movsb` (its threshold on CPUs with fast short `rep movsb` is 2112 bytes;
/// [`Sink::extend_slice`] avoids it from 2048).
const REP_MOVSB_BYTES: usize = 2048;

/// A row-major output written front to back.
pub(crate) trait Sink<T: Copy> {
    /// Appends the `len` values of `values` (which yields exactly `len`).
    fn extend_run(&mut self, len: usize, values: impl Iterator<Item = T>);
    /// Appends a dense run (a straight copy).
    fn extend_slice(&mut self, values: &[T]);
    /// Appends a dense run with the C library's `memcpy` (its widest
    /// vectors, chosen at run time): for gathered rows of a table, which
    /// land in memory the allocator hands back warm.
    fn extend_memcpy(&mut self, values: &[T]);
    /// Appends `len` copies of `value` (a stride-0 run).
    fn extend_fill(&mut self, len: usize, value: T);
    /// The next `len` slots for random-order writes, pre-filled with `fill`.
    fn next_slots(&mut self, len: usize, fill: T) -> &mut [T];
    /// The last `len` values written, to update in place (a fused op's
    /// second pass over what it just appended, e.g. softmax's division).
    fn written_mut(&mut self, len: usize) -> &mut [T];
}

impl<T: Copy> Sink<T> for Vec<T> {
    #[inline]
    fn extend_run(&mut self, len: usize, values: impl Iterator<Item = T>) {
        let before = self.len();
        self.extend(values);
        debug_assert_eq!(self.len() - before, len, "a run yielded the wrong count");
    }
    /// A copy loop, never `memcpy`'s `rep movsb`. From [`REP_MOVSB_BYTES`]
    /// on, glibc's `memcpy` uses `rep movsb`, which into freshly faulted
    /// pages measured ~25 % slower than a vector loop on Zen 4 (the
    /// `[.., 1..4095]` f32 slice: 41 vs 31 ms). A plain
    /// `extend(values.iter().copied())` is no defence: LLVM's loop-idiom pass
    /// turns it back into a `memcpy` call in some binaries. So a long run is
    /// copied in 16-element chunks with the length stored after each, which
    /// keeps it a loop; a shorter run (merge heads' 512 bytes) keeps the
    /// plain loop (~4 % faster there than the chunks over 1200 interleaved
    /// calls), and a `memcpy` that short uses vector moves.
    #[inline]
    fn extend_slice(&mut self, values: &[T]) {
        if size_of_val(values) < REP_MOVSB_BYTES {
            self.extend(values.iter().copied());
            return;
        }
        let (chunks, rest) = values.as_chunks::<16>();
        for chunk in chunks {
            self.extend_from_slice(chunk);
        }
        self.extend_from_slice(rest);
    }
    #[inline]
    fn extend_memcpy(&mut self, values: &[T]) {
        self.extend_from_slice(values);
    }
    #[inline]
    fn extend_fill(&mut self, len: usize, value: T) {
        self.resize(self.len() + len, value);
    }
    /// The fill goes through [`std::hint::black_box`]: a known constant
    /// (a kernel's zero) would make the fill a `memset` call, whose `rep
    /// stosb` takes a fresh buffer's page faults slower than a vector loop
    /// (measured for `ops::output_zeroed`'s fill, the same loop: a fresh
    /// 48 MiB `add` on one thread, 25-27 ms with `memset`, 23-25 ms without).
    fn next_slots(&mut self, len: usize, fill: T) -> &mut [T] {
        let start = self.len();
        self.resize(start + len, std::hint::black_box(fill));
        &mut self[start..]
    }
    fn written_mut(&mut self, len: usize) -> &mut [T] {
        let end = self.len();
        &mut self[end - len..]
    }
}

/// A caller's output slice, filled front to back.
pub(crate) struct SliceSink<'o, T> {
    out: &'o mut [T],
    at: usize,
}

impl<'o, T> SliceSink<'o, T> {
    /// Starts writing at the front of `out`.
    pub(crate) fn new(out: &'o mut [T]) -> Self {
        Self { out, at: 0 }
    }

    /// The next `len` slots, advancing the write position past them.
    #[inline]
    fn take(&mut self, len: usize) -> &mut [T] {
        let start = self.at;
        self.at += len;
        &mut self.out[start..start + len]
    }
}

impl<T: Copy> Sink<T> for SliceSink<'_, T> {
    #[inline]
    fn extend_run(&mut self, len: usize, values: impl Iterator<Item = T>) {
        for (slot, value) in self.take(len).iter_mut().zip(values) {
            *slot = value;
        }
    }
    #[inline]
    fn extend_slice(&mut self, values: &[T]) {
        self.take(values.len()).copy_from_slice(values);
    }
    #[inline]
    fn extend_memcpy(&mut self, values: &[T]) {
        self.extend_slice(values);
    }
    #[inline]
    fn extend_fill(&mut self, len: usize, value: T) {
        self.take(len).fill(value);
    }
    fn next_slots(&mut self, len: usize, _fill: T) -> &mut [T] {
        self.take(len)
    }
    fn written_mut(&mut self, len: usize) -> &mut [T] {
        &mut self.out[self.at - len..self.at]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both copy paths of `extend_slice` (the plain loop below
    /// `REP_MOVSB_BYTES`, the 16-element chunks from it on, with every
    /// remainder) append exactly the run, after what the sink already held.
    #[test]
    fn extend_slice_appends_every_run_length_exactly() {
        let source: Vec<f64> = (0..1100).map(|i| f64::from(i) * 0.5 - 7.0).collect();
        let bytes: Vec<u8> = (0..=255).cycle().take(4200).collect();
        let chunk_start_f64 = REP_MOVSB_BYTES / size_of::<f64>();
        for len in [0, 1, 15, 16, 17, chunk_start_f64 - 1, chunk_start_f64]
            .into_iter()
            .chain(chunk_start_f64 + 1..chunk_start_f64 + 17)
            .chain([1000, 1099])
        {
            let mut sink = vec![-1.0_f64; 3];
            sink.extend_slice(&source[1..1 + len]);
            assert_eq!(sink[..3], [-1.0; 3], "run of {len}");
            assert_eq!(sink[3..], source[1..1 + len], "run of {len}");
        }
        for len in [
            REP_MOVSB_BYTES - 1,
            REP_MOVSB_BYTES,
            REP_MOVSB_BYTES + 15,
            4199,
        ] {
            let mut sink = Vec::new();
            sink.extend_slice(&bytes[1..1 + len]);
            assert_eq!(sink, bytes[1..1 + len], "run of {len} bytes");
        }
    }
}
