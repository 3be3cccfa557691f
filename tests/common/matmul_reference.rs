//! The matmul reference shared by the matmul test files: the naive
//! triple loop over views (an ascending chain of `mul_add`), random operand layouts (permuted
//! storage order, padding, offsets, a stride-0 axis) and deterministic values.

#![allow(dead_code)] // each test file uses its own part

use llm_from_scratch::prelude::*;
use llm_from_scratch::tensor::Float;
use proptest::prelude::*;

pub fn bits<F: Float + Bits>(values: &[F]) -> Vec<u64> {
    values.iter().map(|&v| v.bits()).collect()
}

/// The bit pattern of a float, widened to `u64`.
pub trait Bits {
    fn bits(self) -> u64;
}
impl Bits for f64 {
    fn bits(self) -> u64 {
        self.to_bits()
    }
}
impl Bits for f32 {
    fn bits(self) -> u64 {
        u64::from(self.to_bits())
    }
}

/// A deterministic value in [-4, 4) with a full mantissa, so sums round.
pub fn wiggle(seed: usize) -> f64 {
    let mut x = (seed as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    x ^= x >> 29;
    x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 32;
    (x >> 11) as f64 / (1_u64 << 53) as f64 * 8.0 - 4.0
}

/// The reference: for each output coordinate in row-major order, the
/// ascending chain of fused multiply-adds `acc = fma(a[.., i, p], b[.., p, j], acc)`
/// for `p = 0, 1, …` from `acc = +0.0` (`mul_add`, one rounding per step), with
/// the batch coordinates right-aligned and read at 0 on extent-1 axes.
/// Returns the output shape and the bits of its values.
pub fn naive<F: Float + Bits>(a: &DynView<'_, F>, b: &DynView<'_, F>) -> (Vec<usize>, Vec<u64>) {
    let (ar, br) = (a.rank(), b.rank());
    let rank = ar.max(br);
    let (m, k, n) = (a.shape()[ar - 2], a.shape()[ar - 1], b.shape()[br - 1]);
    let batch_extent = |shape: &[usize], axis: usize| {
        let pad = rank - shape.len();
        if axis < pad { 1 } else { shape[axis - pad] }
    };
    let mut shape: Vec<usize> = (0..rank - 2)
        .map(
            |axis| match (batch_extent(a.shape(), axis), batch_extent(b.shape(), axis)) {
                (1, other) | (other, _) => other,
            },
        )
        .collect();
    shape.extend([m, n]);
    let count: usize = shape.iter().product();
    let value = |view: &DynView<'_, F>, index: &[usize], row: usize, col: usize| {
        let r = view.rank();
        let mut at = [0; 16];
        for axis in 0..r - 2 {
            at[axis] = if view.shape()[axis] == 1 {
                0
            } else {
                index[axis + rank - r]
            };
        }
        at[r - 2] = row;
        at[r - 1] = col;
        *view.get(&at[..r]).expect("in bounds")
    };
    let mut values = Vec::with_capacity(count);
    let mut index = vec![0; rank];
    for _ in 0..count {
        let (i, j) = (index[rank - 2], index[rank - 1]);
        let mut acc = F::ZERO;
        for p in 0..k {
            acc = value(a, &index, i, p).mul_add(value(b, &index, p, j), acc);
        }
        values.push(acc.bits());
        for axis in (0..rank).rev() {
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
    (shape, values)
}

/// One operand's storage: the logical `shape` stored row-major in the axis
/// `order` (outermost first) with `pad` extra slots per axis, viewed from
/// `start` (≤ pad) per axis; optionally one axis read with stride 0.
#[derive(Debug, Clone)]
pub struct Layout {
    shape: Vec<usize>,
    order: Vec<usize>,
    pad: Vec<usize>,
    start: Vec<usize>,
    zero_stride: Option<usize>,
    seed: usize,
}

impl Layout {
    pub fn storage<F: Float>(&self, convert: fn(f64) -> F) -> Vec<F> {
        let len: usize = self
            .shape
            .iter()
            .zip(&self.pad)
            .map(|(s, p)| s + p)
            .product();
        (0..len)
            .map(|i| convert(wiggle(self.seed.wrapping_add(i))))
            .collect()
    }

    pub fn view<'a, F>(&self, data: &'a [F]) -> DynView<'a, F> {
        let mut strides = vec![0; self.shape.len()];
        let mut running = 1;
        for &axis in self.order.iter().rev() {
            strides[axis] = running;
            running *= self.shape[axis] + self.pad[axis];
        }
        let base = (0..strides.len())
            .map(|axis| self.start[axis].min(self.pad[axis]) * strides[axis])
            .sum();
        if let Some(axis) = self.zero_stride {
            strides[axis] = 0;
        }
        DynView::from_parts(data, self.shape.clone(), strides, base).expect("a valid layout")
    }
}

pub fn layout(shape: Vec<usize>) -> impl Strategy<Value = Layout> {
    let rank = shape.len();
    (
        Just((0..rank).collect::<Vec<_>>()).prop_shuffle(),
        proptest::collection::vec(0..3_usize, rank),
        proptest::collection::vec(0..3_usize, rank),
        proptest::option::weighted(0.2, 0..rank),
        any::<usize>(),
    )
        .prop_map(move |(order, pad, start, zero_stride, seed)| Layout {
            shape: shape.clone(),
            order,
            pad,
            start,
            zero_stride,
            seed,
        })
}

/// Compatible operand shapes: a batch shape (extents 0 to 3, or fewer and
/// larger ones), one operand with all its axes, the other with a suffix;
/// either may carry 1 where the batch has another extent.
pub fn operands() -> impl Strategy<Value = (Layout, Layout)> {
    let batch_extent = prop_oneof![1 => Just(0_usize), 3 => Just(1), 4 => 2..=3_usize];
    let small = (
        proptest::collection::vec(batch_extent, 0..=3),
        0..6_usize,
        0..7_usize,
        0..9_usize,
    );
    let medium = (
        proptest::collection::vec(1..=2_usize, 0..=1),
        1..70_usize,
        1..300_usize,
        1..40_usize,
    );
    operands_of(prop_oneof![3 => small, 1 => medium])
}

/// Operands for `(batch shape, m, k, n)` drawn from `sizes`: one operand
/// with all the batch axes, the other with a suffix, either with 1 where
/// the batch has another extent, each in a random [`layout`].
pub fn operands_of(
    sizes: impl Strategy<Value = (Vec<usize>, usize, usize, usize)>,
) -> impl Strategy<Value = (Layout, Layout)> {
    sizes
        .prop_flat_map(|(batch, m, k, n)| {
            let r = batch.len();
            let ones = proptest::collection::vec(proptest::bool::weighted(0.3), r);
            (
                Just((batch, m, k, n)),
                0..=r,
                any::<bool>(),
                ones.clone(),
                ones,
            )
        })
        .prop_flat_map(
            |((batch, m, k, n), short, short_left, left_ones, right_ones)| {
                let r = batch.len();
                let (left_batch, right_batch) = if short_left { (short, r) } else { (r, short) };
                let pick = |count: usize, ones: &[bool]| -> Vec<usize> {
                    (r - count..r)
                        .map(|axis| if ones[axis] { 1 } else { batch[axis] })
                        .collect()
                };
                let mut left = pick(left_batch, &left_ones);
                left.extend([m, k]);
                let mut right = pick(right_batch, &right_ones);
                right.extend([k, n]);
                (layout(left), layout(right))
            },
        )
}
