//! Packing: copying a block of an operand, whatever its strides, into a
//! contiguous panel that the register tiles read with unit stride.
//!
//! A panel is `width` lanes wide and `depth` steps deep, step-major:
//! `panel[step · width + lane] = source(lane, step)`, zero for lanes at and
//! past `live`. For the right operand a lane is an output column and a step
//! a value of `k`; for the left operand a lane is an output row.

use crate::tensor::float::Float;

/// A block of an operand seen as `source(lane, step) =
/// data[base + lane · lane_stride + step · step_stride]`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Source<'a, F> {
    pub(super) data: &'a [F],
    pub(super) base: usize,
    pub(super) lane_stride: usize,
    pub(super) step_stride: usize,
}

/// Fills `panel` (`depth × width` values) with `live` lanes of `source`
/// and zeros. Contiguous lanes are copied as slices, contiguous steps are
/// transposed in groups of lanes (each lane's run read in order), other
/// strides are gathered.
#[inline(always)]
pub(super) fn pack_panel<F: Float>(
    source: Source<'_, F>,
    live: usize,
    width: usize,
    depth: usize,
    panel: &mut [F],
) {
    let panel = &mut panel[..depth * width];
    if source.lane_stride == 1 {
        for (step, row) in panel.chunks_exact_mut(width).enumerate() {
            let start = source.base + step * source.step_stride;
            row[..live].copy_from_slice(&source.data[start..start + live]);
            row[live..].fill(F::ZERO);
        }
        return;
    }
    if live < width {
        for row in panel.chunks_exact_mut(width) {
            row[live..].fill(F::ZERO);
        }
    }
    if source.step_stride == 1 {
        let mut lane = 0;
        while lane + 8 <= live {
            transpose_group::<F, 8>(source, lane, depth, width, panel);
            lane += 8;
        }
        while lane + 2 <= live {
            transpose_group::<F, 2>(source, lane, depth, width, panel);
            lane += 2;
        }
        if lane < live {
            transpose_group::<F, 1>(source, lane, depth, width, panel);
        }
        return;
    }
    for (step, row) in panel.chunks_exact_mut(width).enumerate() {
        let start = source.base + step * source.step_stride;
        for (lane, slot) in row[..live].iter_mut().enumerate() {
            *slot = source.data[start + lane * source.lane_stride];
        }
    }
}

/// Lanes `first..first + G` of a source whose steps are contiguous: reads
/// `G` runs side by side and writes `G` neighbouring values per step.
#[inline(always)]
fn transpose_group<F: Float, const G: usize>(
    source: Source<'_, F>,
    first: usize,
    depth: usize,
    width: usize,
    panel: &mut [F],
) {
    let runs: [&[F]; G] = core::array::from_fn(|g| {
        let start = source.base + (first + g) * source.lane_stride;
        &source.data[start..start + depth]
    });
    for (step, row) in panel.chunks_exact_mut(width).enumerate() {
        let slots = &mut row[first..first + G];
        for (slot, run) in slots.iter_mut().zip(&runs) {
            *slot = run[step];
        }
    }
}
