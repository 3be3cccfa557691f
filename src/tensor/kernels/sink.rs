//! Where kernels write their row-major output: a fresh `Vec` (reserved with
//! `try_reserve` by the caller) or a caller's slice (`_into` variants). One
//! kernel serves both, so fresh and `_into` results cannot drift apart.

/// A row-major output written front to back.
pub(crate) trait Sink<T: Copy> {
    /// Appends a run of values.
    fn extend_run(&mut self, values: impl Iterator<Item = T>);
    /// Appends a dense run (a `memcpy` where possible).
    fn extend_slice(&mut self, values: &[T]);
    /// The next `len` slots for random-order writes, pre-filled with `fill`.
    fn next_slots(&mut self, len: usize, fill: T) -> &mut [T];
}

impl<T: Copy> Sink<T> for Vec<T> {
    #[inline]
    fn extend_run(&mut self, values: impl Iterator<Item = T>) {
        self.extend(values);
    }
    #[inline]
    fn extend_slice(&mut self, values: &[T]) {
        self.extend_from_slice(values);
    }
    fn next_slots(&mut self, len: usize, fill: T) -> &mut [T] {
        let start = self.len();
        self.resize(start + len, fill);
        &mut self[start..]
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
}

impl<T: Copy> Sink<T> for SliceSink<'_, T> {
    #[inline]
    fn extend_run(&mut self, values: impl Iterator<Item = T>) {
        for value in values {
            self.out[self.at] = value;
            self.at += 1;
        }
    }
    #[inline]
    fn extend_slice(&mut self, values: &[T]) {
        self.out[self.at..self.at + values.len()].copy_from_slice(values);
        self.at += values.len();
    }
    fn next_slots(&mut self, len: usize, _fill: T) -> &mut [T] {
        let start = self.at;
        self.at += len;
        &mut self.out[start..start + len]
    }
}
