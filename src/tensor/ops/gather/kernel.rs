//! Gathers: the output is written front to back, block by block, each
//! block a strided copy of part of an input.
//!
//! Both gathers split the output's axes at one axis: the leading (outer)
//! axes are walked in row-major order, and for every outer position the
//! blocks are copied one after the other:
//! - `join` (concat, stack): one block per input, its axes from the joined
//!   axis on;
//! - `select` (index_select): one block per index, the input's axes after
//!   the selected one, read at that index.
//!
//! Every block is one coalesced [`Plan`] replayed from a new base by the
//! shared strided copy (whole runs: a slice copy when dense, a fill when
//! stride 0, a gather otherwise; tiles for a large transposed block), so a
//! dense embedding row is one `memcpy`-like run.

use super::Source;
use crate::tensor::shape::dims::{Dims, DynDims};
use crate::tensor::traverse::Strided;
#[cfg(doc)]
use crate::tensor::traverse::copy::CopyStrategy;
use crate::tensor::traverse::copy::copy_plan;
use crate::tensor::traverse::offsets::StridedOffsets;
use crate::tensor::traverse::plan::{Plan, next_index};
use crate::tensor::traverse::sink::Sink;

/// The block of a layout from axis `from` on, as a plan read from `base`:
/// what each gather copies per outer position. Its [`CopyStrategy`] says how.
pub(crate) fn block(shape: &[usize], strides: &[usize], from: usize, base: usize) -> Plan<1> {
    Plan::new(&shape[from..], [&strides[from..]], [base])
}

/// Writes the inputs joined after their first `outer_shape.len()` axes:
/// for each outer position in row-major order, each input's block (its
/// remaining axes) in list order. The output must be non-empty, so every
/// outer extent is at least 1.
pub(crate) fn join<T: Copy, V: Source<T>>(
    inputs: &[V],
    outer_shape: &[usize],
    sink: &mut impl Sink<T>,
) {
    let split = outer_shape.len();
    let mut position = DynDims::zeros(split);
    loop {
        for input in inputs {
            let Strided {
                data,
                shape,
                strides,
                base,
            } = input.source();
            let start = position
                .as_slice()
                .iter()
                .zip(strides)
                .fold(base, |offset, (index, stride)| offset + index * stride);
            copy_plan(data, &block(shape, strides, split, start), sink);
        }
        if !next_index(outer_shape, position.as_mut_slice()) {
            return;
        }
    }
}

/// Writes `input` with `axis` replaced by the positions `indices` (each
/// already checked to be below the extent): for each position of the axes
/// before `axis`, the block after `axis` at every index in list order.
pub(crate) fn select<T: Copy>(
    input: Strided<'_, '_, T>,
    axis: usize,
    indices: &[usize],
    sink: &mut impl Sink<T>,
) {
    let (shape, strides) = (input.shape, input.strides);
    let outer = StridedOffsets::new(&shape[..axis], &strides[..axis], input.base);
    let mut row = block(shape, strides, axis + 1, 0);
    let step = strides[axis];
    // A block that is one dense run (an embedding row) or one value is a slice copy.
    let dense = row.outer_axes().is_empty() && (row.run_strides == [1] || row.run_len == 1);
    let len = row.run_len;
    for start in outer {
        for &index in indices {
            let at = start + index * step;
            if dense {
                sink.extend_memcpy(&input.data[at..at + len]);
            } else {
                row.bases = [at];
                copy_plan(input.data, &row, sink);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::traverse::copy::CopyStrategy;
    use crate::tensor::traverse::sink::SliceSink;

    #[test]
    fn an_embedding_row_is_one_dense_run_and_a_transposed_block_is_tiled() {
        // Rows of a [50257, 768] table: a block of one run of 768, stride 1.
        let row = block(&[50257, 768], &[768, 1], 1, 768 * 42);
        assert_eq!(
            (row.run_len, row.run_strides, row.bases),
            (768, [1], [768 * 42])
        );
        assert_eq!(CopyStrategy::of::<f32>(&row), CopyStrategy::Runs);
        // A large transposed block is copied in tiles.
        let transposed = block(&[2, 512, 512], &[1, 1, 512], 1, 0);
        assert!(matches!(
            CopyStrategy::of::<f64>(&transposed),
            CopyStrategy::Tiled { .. }
        ));
    }

    struct Input<'a> {
        data: &'a [u32],
        shape: Vec<usize>,
        strides: Vec<usize>,
        base: usize,
    }

    impl Source<u32> for Input<'_> {
        fn source(&self) -> Strided<'_, '_, u32> {
            Strided {
                data: self.data,
                shape: &self.shape,
                strides: &self.strides,
                base: self.base,
            }
        }
    }

    #[test]
    fn join_interleaves_the_blocks_of_each_outer_position() {
        let data: Vec<u32> = (0..100).collect();
        // [2, 2] dense, and a transposed [2, 3] (strides [1, 2]) from base 10.
        let a = Input {
            data: &data,
            shape: vec![2, 2],
            strides: vec![2, 1],
            base: 0,
        };
        let b = Input {
            data: &data,
            shape: vec![2, 3],
            strides: vec![1, 2],
            base: 10,
        };
        let mut out = Vec::new();
        join(&[a, b], &[2], &mut out);
        assert_eq!(out, [0, 1, 10, 12, 14, 2, 3, 11, 13, 15]);
    }

    #[test]
    fn select_reads_blocks_at_the_indices_into_both_sinks() {
        let data: Vec<u32> = (0..24).collect();
        // A [2, 3, 4] owner; pick positions 2, 0, 2 of axis 1.
        let input = Strided {
            data: &data,
            shape: &[2, 3, 4],
            strides: &[12, 4, 1],
            base: 0,
        };
        let expected = [
            8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23, 12, 13, 14, 15, 20, 21, 22, 23,
        ];
        let mut fresh = Vec::new();
        select(input, 1, &[2, 0, 2], &mut fresh);
        assert_eq!(fresh, expected);
        let mut into = vec![0; 24];
        select(input, 1, &[2, 0, 2], &mut SliceSink::new(&mut into));
        assert_eq!(into, expected);
        // A stride-0 (broadcast) table: every row is the same stored row.
        let broadcast = Strided {
            data: &data,
            shape: &[5, 2],
            strides: &[0, 1],
            base: 3,
        };
        let mut rows = Vec::new();
        select(broadcast, 0, &[4, 1], &mut rows);
        assert_eq!(rows, [3, 4, 3, 4]);
    }
}
