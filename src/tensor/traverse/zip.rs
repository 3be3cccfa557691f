//! Two broadcast layouts zipped into a fresh row-major output, in
//! contiguous blocks of the output over rayon's threads: the loop under
//! `add` / `sub` / `mul` / `div` and `par_map_binary`.
//!
//! Each output element is `f(left, right)` of its own two input values, so
//! no value depends on the block, the thread or the layout. The innermost
//! run is dispatched once per run on its two strides (both dense, one side
//! a stride-0 splat, or gathered), as `map_binary` does; the dense loops
//! are plain slice zips the compiler vectorizes.

use super::Strided;
use super::parallel::{Split, for_each_block};
use super::plan::Plan;
use crate::tensor::shape::broadcast::broadcast_strides;
use crate::tensor::shape::dims::{Dims, DynDims};

/// Fewest values a task of a threaded zip gets (32 KiB of `f64`).
const MIN_BLOCK_VALUES: usize = 4096;

/// `out <- f(left, right)` over the checked broadcast `shape` (each
/// operand's shape broadcasts to it; `out` holds its element count) in
/// logical row-major order of the output, on up to `threads` threads.
/// `f` may run in any order and on any thread, once per element.
pub(crate) fn zip_blocks<A, B, C>(
    shape: &[usize],
    left: Strided<'_, '_, A>,
    right: Strided<'_, '_, B>,
    out: &mut [C],
    threads: usize,
    f: impl Fn(A, B) -> C + Sync,
) where
    A: Copy + Sync,
    B: Copy + Sync,
    C: Send,
{
    let mut left_strides = DynDims::zeros(shape.len());
    let mut right_strides = DynDims::zeros(shape.len());
    broadcast_strides(left.shape, left.strides, shape, left_strides.as_mut_slice());
    let right_effective = right_strides.as_mut_slice();
    broadcast_strides(right.shape, right.strides, shape, right_effective);
    let plan = Plan::new(
        shape,
        [left_strides.as_slice(), right_strides.as_slice()],
        [left.base, right.base],
    );
    debug_assert_eq!(plan.len, out.len());
    let split = Split {
        unit: 1,
        min_units: MIN_BLOCK_VALUES,
    };
    let [ls, rs] = plan.run_strides;
    let (ld, rd) = (left.data, right.data);
    for_each_block(out, split, threads, |range, block| {
        let mut at = 0;
        plan.for_each_run_in(range, |[l, r], n| {
            let slots = &mut block[at..at + n];
            at += n;
            match (ls, rs) {
                (1, 1) => {
                    let pairs = ld[l..l + n].iter().zip(&rd[r..r + n]);
                    for (slot, (&a, &b)) in slots.iter_mut().zip(pairs) {
                        *slot = f(a, b);
                    }
                }
                (1, 0) => {
                    let b = rd[r];
                    for (slot, &a) in slots.iter_mut().zip(&ld[l..l + n]) {
                        *slot = f(a, b);
                    }
                }
                (0, 1) => {
                    let a = ld[l];
                    for (slot, &b) in slots.iter_mut().zip(&rd[r..r + n]) {
                        *slot = f(a, b);
                    }
                }
                _ => {
                    for (k, slot) in slots.iter_mut().enumerate() {
                        *slot = f(ld[l + k * ls], rd[r + k * rs]);
                    }
                }
            }
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::traverse::offsets::StridedOffsets;

    #[test]
    fn every_block_split_writes_the_row_major_pairs() {
        let left_data: Vec<u32> = (0..4096 * 3).collect();
        let right_data: Vec<u32> = (0..4096 * 3).map(|v| v + 100_000).collect();
        // (shape, left shape + strides, right shape + strides): dense/dense,
        // a bias row, a column, transposed/strided, an outer broadcast.
        type Case<'a> = (&'a [usize], [&'a [usize]; 2], [&'a [usize]; 2]);
        let cases: [Case<'_>; 5] = [
            (
                &[3, 64, 64],
                [&[3, 64, 64], &[4096, 64, 1]],
                [&[3, 64, 64], &[4096, 64, 1]],
            ),
            (&[3, 64, 64], [&[3, 64, 64], &[4096, 64, 1]], [&[64], &[1]]),
            (
                &[3, 64, 64],
                [&[64, 1], &[1, 0]],
                [&[3, 64, 64], &[4096, 64, 1]],
            ),
            (&[96, 128], [&[96, 128], &[1, 96]], [&[96, 128], &[1, 96]]),
            (
                &[5, 48, 32],
                [&[48, 32], &[32, 1]],
                [&[5, 1, 32], &[32, 0, 1]],
            ),
        ];
        for (shape, [lshape, lstrides], [rshape, rstrides]) in cases {
            let effective = |s: &[usize], st: &[usize]| {
                let mut out = vec![0; shape.len()];
                broadcast_strides(s, st, shape, &mut out);
                out
            };
            let l_eff = effective(lshape, lstrides);
            let r_eff = effective(rshape, rstrides);
            let l = StridedOffsets::new(shape, &l_eff, 0);
            let r = StridedOffsets::new(shape, &r_eff, 0);
            let expected: Vec<(u32, u32)> = l
                .zip(r)
                .map(|(i, j)| (left_data[i], right_data[j]))
                .collect();
            let left = Strided {
                data: &left_data,
                shape: lshape,
                strides: lstrides,
                base: 0,
            };
            let right = Strided {
                data: &right_data,
                shape: rshape,
                strides: rstrides,
                base: 0,
            };
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a pool");
                let mut out = vec![(0, 0); expected.len()];
                pool.install(|| zip_blocks(shape, left, right, &mut out, threads, |a, b| (a, b)));
                assert_eq!(out, expected, "{shape:?} on {threads} threads");
            }
        }
    }
}
