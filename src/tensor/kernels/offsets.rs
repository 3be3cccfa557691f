//! The offset cursor of the views chapter: storage offsets of a checked layout in
//! logical row-major order, as an iterator.

use std::iter::FusedIterator;

/// Storage offsets of a checked layout in logical row-major order.
///
/// Advances the last axis first; on reaching an extent it rewinds that axis
/// and carries into the one before. A scalar yields its base offset once, an
/// empty layout yields nothing, a stride-0 axis repeats offsets. The axis
/// state is allocated once per traversal, never per element.
#[derive(Debug, Clone)]
pub struct StridedOffsets {
    /// `(extent, stride, position)` per axis.
    axes: Vec<(usize, usize, usize)>,
    next_offset: usize,
    remaining: usize,
}

impl StridedOffsets {
    /// A cursor over a layout already checked to fit its storage; `len` is its element count.
    pub(crate) fn new(shape: &[usize], strides: &[usize], base: usize, len: usize) -> Self {
        Self {
            axes: shape
                .iter()
                .zip(strides)
                .map(|(&extent, &stride)| (extent, stride, 0))
                .collect(),
            next_offset: base,
            remaining: len,
        }
    }

    fn advance(&mut self) {
        for (extent, stride, position) in self.axes.iter_mut().rev() {
            *position += 1;
            if *position < *extent {
                self.next_offset += *stride;
                return;
            }
            *position = 0;
            self.next_offset -= (*extent - 1) * *stride;
        }
    }
}

impl Iterator for StridedOffsets {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.remaining == 0 {
            return None;
        }
        let offset = self.next_offset;
        self.remaining -= 1;
        if self.remaining != 0 {
            self.advance();
        }
        Some(offset)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for StridedOffsets {}
impl FusedIterator for StridedOffsets {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frozen_slice_offsets() {
        let offsets: Vec<_> = StridedOffsets::new(&[2, 2], &[3, 1], 1, 4).collect();
        assert_eq!(offsets, [1, 2, 4, 5]);
        assert_eq!(StridedOffsets::new(&[], &[], 7, 1).collect::<Vec<_>>(), [7]);
        assert_eq!(StridedOffsets::new(&[2, 0], &[1, 1], 0, 0).count(), 0);
    }
}
