//! The fixed summation tree of `sum_axis`, `mean_axis` and the softmax's
//! normalizer: its shape is a function of the number of values alone.
//!
//! For the `n` values `x_0, .., x_{n-1}` of a group, in logical order along
//! the axis:
//! 1. **Leaves.** The values are cut into leaves of [`LEAF`] = 128
//!    consecutive values (the last leaf may be shorter). In a leaf, lane `j`
//!    of [`TREE_LANES`] = 16 sums, from +0.0 and in ascending order, the
//!    values whose index in the leaf is `≡ j (mod 16)`: at most eight
//!    additions per lane.
//! 2. **Leaves combine pairwise, lane by lane,** as a binary counter: leaf
//!    `k` is added to the pending subtree of the same size, that sum to the
//!    next, and so on (the pending subtrees are the set bits of `k`); at the
//!    end the pending subtrees are added from the smallest (the latest
//!    values) to the largest. `2^a` leaves form a perfect binary tree.
//! 3. **The lanes fold by halving:** `a_j += a_{j+8}` for `j < 8`, then
//!    `+4`, `+2`, `+1`; the sum is `a_0`.
//!
//! Each value passes through at most `8 + ⌈log2(leaves)⌉ + 4` roundings, so
//! the error is bounded by about `(12 + log2(n / 128)) · eps · Σ|x_i|`
//! (pairwise summation: N. J. Higham, "The accuracy of floating point
//! summation", SIAM J. Sci. Comput. 14, 1993): the f32 mean of 2^25 ones
//! is exactly 1.0, where the sequential sum stops growing at 2^24. NumPy's
//! `add.reduce` is pairwise with 128-value leaves and 8 partial sums;
//! PyTorch's CPU sum a multi-level cascade.
//!
//! Why no instruction set, thread count or layout changes a bit: the 16
//! lanes are *virtual*. AVX-512 holds an f32 leaf's 16 partial sums in one
//! register, AVX2 in two, the baseline and the scalar model in an array of
//! 16, and every level performs the same IEEE additions on the same
//! operands. A strided axis is gathered into the same leaves in the same
//! order; a reduced axis that is outer in memory (`tree_rows.rs`) runs the
//! same lane sums column by column. Threads split whole groups, or (a long
//! outer axis) a group's leaves where its tree splits them (the binary
//! counter's subtrees), never an addition's operands. Empty groups sum to
//! +0.0, as does a group of `-0.0`.

use crate::tensor::float::Float;
use crate::tensor::traverse::plan::run_iter;

/// The virtual lanes of a leaf.
pub(crate) const TREE_LANES: usize = 16;
/// Values per leaf: eight per lane.
pub(crate) const LEAF: usize = TREE_LANES * 8;
/// Pending subtrees a counter can hold: one per bit of a `u64` leaf count.
const LEVELS: usize = 64;

/// The partial sums of one leaf or one subtree, lane by lane.
pub(crate) type Partial<F> = [F; TREE_LANES];

/// `a + b` lane by lane.
#[inline(always)]
pub(crate) fn add_lanes<F: Float>(a: Partial<F>, b: Partial<F>) -> Partial<F> {
    std::array::from_fn(|j| a[j] + b[j])
}

/// The halving fold of the 16 lanes into one sum (step 3).
#[inline(always)]
pub(crate) fn fold_lanes<F: Float>(mut a: Partial<F>) -> F {
    let mut width = TREE_LANES / 2;
    while width > 0 {
        for j in 0..width {
            a[j] = a[j] + a[j + width];
        }
        width /= 2;
    }
    a[0]
}

/// The lane sums of one leaf (`leaf.len() <= LEAF`): whole rounds of 16
/// values added lane by lane, then the remainder into the first lanes.
#[inline(always)]
pub(crate) fn leaf_sums<F: Float>(leaf: &[F]) -> Partial<F> {
    let mut lanes = [F::ZERO; TREE_LANES];
    let mut rounds = leaf.chunks_exact(TREE_LANES);
    for round in &mut rounds {
        for (lane, &value) in lanes.iter_mut().zip(round) {
            *lane = *lane + value;
        }
    }
    for (lane, &value) in lanes.iter_mut().zip(rounds.remainder()) {
        *lane = *lane + value;
    }
    lanes
}

/// How many pending subtrees the push of leaf number `count` (from 0)
/// merges: the trailing one bits of `count` (step 2's carries).
#[inline(always)]
pub(crate) fn carries(count: u64) -> usize {
    count.trailing_ones() as usize
}

/// The binary counter of step 2 over whole-leaf partial sums.
pub(crate) struct Counter<F> {
    pending: [Partial<F>; LEVELS],
    leaves: u64,
}

impl<F: Float> Counter<F> {
    /// No leaves yet.
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Self {
            pending: [[F::ZERO; TREE_LANES]; LEVELS],
            leaves: 0,
        }
    }

    /// Back to no leaves (the pending sums are overwritten before they are
    /// read, so a kernel keeps one counter for all its groups and does not
    /// clear its 8 KiB per group).
    #[inline(always)]
    pub(crate) fn reset(&mut self) {
        self.leaves = 0;
    }

    /// Adds the next leaf's partial sums.
    #[inline(always)]
    pub(crate) fn push(&mut self, leaf: Partial<F>) {
        let merges = carries(self.leaves);
        let mut carry = leaf;
        for level in 0..merges {
            carry = add_lanes(self.pending[level], carry);
        }
        self.pending[merges] = carry;
        self.leaves += 1;
    }

    /// The sum of every leaf pushed (+0.0 for none).
    #[inline(always)]
    pub(crate) fn finish(&self) -> F {
        let mut total: Option<Partial<F>> = None;
        for level in 0..LEVELS {
            if self.leaves >> level & 1 == 1 {
                let subtree = self.pending[level];
                total = Some(total.map_or(subtree, |later| add_lanes(subtree, later)));
            }
        }
        total.map_or(F::ZERO, fold_lanes)
    }
}

/// The tree sum of a dense group (the reference every kernel equals).
#[inline(always)]
pub(crate) fn tree_sum<F: Float>(values: &[F]) -> F {
    tree_sum_in(&mut Counter::new(), values)
}

/// [`tree_sum`] with a kernel's reused counter.
#[inline(always)]
pub(crate) fn tree_sum_in<F: Float>(counter: &mut Counter<F>, values: &[F]) -> F {
    counter.reset();
    for leaf in values.chunks(LEAF) {
        counter.push(leaf_sums(leaf));
    }
    counter.finish()
}

/// The tree sum of `extent` values from `start`, `stride` apart, gathered
/// leaf by leaf into a dense buffer (the same leaves as [`tree_sum`]).
#[inline(always)]
pub(crate) fn tree_sum_strided<F: Float>(
    counter: &mut Counter<F>,
    data: &[F],
    start: usize,
    stride: usize,
    extent: usize,
) -> F {
    if stride == 1 {
        return tree_sum_in(counter, &data[start..start + extent]);
    }
    counter.reset();
    let mut buffer = [F::ZERO; LEAF];
    let mut values = run_iter(data, start, stride, extent);
    let mut left = extent;
    while left > 0 {
        let len = left.min(LEAF);
        for (slot, value) in buffer[..len].iter_mut().zip(&mut values) {
            *slot = value;
        }
        counter.push(leaf_sums(&buffer[..len]));
        left -= len;
    }
    counter.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree written as its definition: leaves, a recursive split of the
    /// leaf list at its largest power of two, the lane fold.
    fn definition(values: &[f64]) -> f64 {
        fn subtree(leaves: &[Partial<f64>]) -> Partial<f64> {
            if leaves.len() == 1 {
                return leaves[0];
            }
            // A binary counter's tree: the first 2^a leaves (the largest
            // power of two below the count) are one perfect subtree.
            let split = if leaves.len().is_power_of_two() {
                leaves.len() / 2
            } else {
                1 << (usize::BITS - 1 - leaves.len().leading_zeros())
            };
            add_lanes(subtree(&leaves[..split]), subtree(&leaves[split..]))
        }
        let leaves: Vec<Partial<f64>> = values
            .chunks(LEAF)
            .map(|leaf| {
                let mut lanes = [0.0; TREE_LANES];
                for (i, &x) in leaf.iter().enumerate() {
                    lanes[i % TREE_LANES] += x;
                }
                lanes
            })
            .collect();
        if leaves.is_empty() {
            return 0.0;
        }
        let lanes = subtree(&leaves);
        let half = |a: &[f64]| -> Vec<f64> {
            let w = a.len() / 2;
            (0..w).map(|j| a[j] + a[j + w]).collect()
        };
        half(&half(&half(&half(&lanes))))[0]
    }

    fn values(n: usize) -> Vec<f64> {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64 ^ n as u64;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.3) * 1e3
            })
            .collect()
    }

    #[test]
    fn the_counter_builds_the_defined_tree() {
        for n in [
            0, 1, 15, 16, 17, 127, 128, 129, 256, 383, 384, 640, 1000, 4096, 5000,
        ] {
            let x = values(n);
            assert_eq!(tree_sum(&x).to_bits(), definition(&x).to_bits(), "n = {n}");
        }
    }

    #[test]
    fn strided_groups_gather_the_same_leaves() {
        let x = values(3 * 700);
        for extent in [0, 1, 129, 700] {
            let gathered: Vec<f64> = (0..extent).map(|i| x[1 + 3 * i]).collect();
            assert_eq!(
                tree_sum_strided(&mut Counter::new(), &x, 1, 3, extent).to_bits(),
                tree_sum(&gathered).to_bits()
            );
        }
    }

    #[test]
    fn long_f32_sums_stay_exact_where_a_running_sum_stalls() {
        let ones = vec![1.0_f32; (1 << 24) + 64];
        assert_eq!(tree_sum(&ones), ((1 << 24) + 64) as f32);
        assert_eq!(tree_sum(&[-0.0_f64]).to_bits(), 0.0_f64.to_bits());
        assert_eq!(tree_sum::<f32>(&[]).to_bits(), 0.0_f32.to_bits());
    }
}
