//! A right operand packed once into the packed product's panels, then
//! multiplied by several left operands: attention packs a head's keys and
//! values once per thread and multiplies every block of its queries by
//! them, where each block's products used to pack them again.
//!
//! Packing copies values; it never changes one. A product that reads
//! these panels runs the chains of one that packs its own (the same
//! fused multiply-adds in the same order), so its bits are the same.

use super::gemm::{MAX_PANEL_WIDTH, panel_width, slice_depth};
use super::pack::{Source, pack_panel};
use crate::tensor::float::Float;
use crate::tensor::traverse::Strided;
use crate::tensor::traverse::alloc::{AllocationFailed, try_scratch};
use crate::tensor::traverse::simd::Dispatch;
use pulp::{Simd, WithSimd};

/// A `k × n` right operand in the panels of the packed product: per `k`
/// slice (ascending), the `NR`-column panels (ascending), each `kc` steps
/// of `NR` values, zero-padded past column `n`. A product of `k' <= k`
/// steps and `n' <= n` columns reads the first `k'` steps of the first
/// panels ([`Panels::panel`]).
///
/// The buffer is kept when the operand is repacked, so a thread that
/// packs head after head allocates once.
#[derive(Debug)]
pub(crate) struct PackedRight<F> {
    values: Vec<F>,
    layout: Option<Layout>,
}

/// How [`PackedRight`]'s panels were cut: for which register tile width
/// (`nr`, per instruction set), slice depth and extents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Layout {
    /// Columns per panel (the register tile's `NR`).
    pub(super) nr: usize,
    /// Steps per `k` slice.
    pub(super) depth: usize,
    /// The packed operand's steps and columns.
    pub(super) k: usize,
    pub(super) n: usize,
}

impl Layout {
    /// Panels per slice.
    fn panels(&self) -> usize {
        self.n.div_ceil(self.nr)
    }

    /// Values between the starts of two neighbouring panels.
    fn stride(&self) -> usize {
        self.nr * self.depth.min(self.k)
    }

    /// Values of the whole packed operand (`None` if they overflow).
    fn len(&self) -> Option<usize> {
        let per_slice = self.panels().checked_mul(self.stride())?;
        self.k.div_ceil(self.depth).checked_mul(per_slice)
    }
}

impl<F: Float> PackedRight<F> {
    /// An empty operand (no buffer).
    pub(crate) const fn new() -> Self {
        PackedRight {
            values: Vec::new(),
            layout: None,
        }
    }

    /// An upper bound of the values [`PackedRight::pack`] keeps for a
    /// `k × n` operand on any instruction set, padding included (`None`
    /// if it overflows `usize`): the columns rounded up to the widest
    /// panel, the steps to whole slices.
    pub(crate) fn len_bound(k: usize, n: usize) -> Option<usize> {
        let depth = slice_depth(n);
        let steps = k.div_ceil(depth).checked_mul(depth.min(k))?;
        steps.checked_mul(n.checked_next_multiple_of(MAX_PANEL_WIDTH)?)
    }

    /// Packs the matrix `right` (shape `[k, n]`, any strides, `k` and `n`
    /// at least 1) for products on `dispatch`'s instruction set, in the
    /// slices a product of `n` columns takes.
    ///
    /// # Errors
    /// [`AllocationFailed`] if the buffer cannot grow to the packed size,
    /// or that size overflows `usize` (the operand is then empty).
    pub(crate) fn pack(
        &mut self,
        dispatch: Dispatch,
        right: Strided<'_, '_, F>,
    ) -> Result<(), AllocationFailed> {
        self.layout = None;
        dispatch.run(Pack { into: self, right })
    }

    /// Bytes the buffer holds.
    pub(crate) fn bytes(&self) -> usize {
        self.values.capacity() * size_of::<F>()
    }

    /// The last step at or after `from` whose values (of any column) hold
    /// a NaN or an infinity, if any (`None` also when nothing is packed).
    /// Each step's values are tested without early exits, so that the
    /// loop vectorizes; the zero padding is finite.
    pub(crate) fn last_non_finite_step(&self, from: usize) -> Option<usize> {
        let layout = self.layout?;
        let (nr, depth, panels, stride) =
            (layout.nr, layout.depth, layout.panels(), layout.stride());
        let finite = |step: usize| {
            let (slice, row) = (step / depth, step % depth);
            (0..panels).fold(true, |ok, p| {
                let start = (slice * panels + p) * stride + row * nr;
                let values = &self.values[start..start + nr];
                ok & values.iter().fold(true, |ok, x| ok & x.is_finite())
            })
        };
        (from..layout.k).rev().find(|&step| !finite(step))
    }

    /// The packed panels (`None` before the first pack or after a failed one).
    pub(super) fn panels(&self) -> Option<Panels<'_, F>> {
        self.layout.map(|layout| Panels {
            values: &self.values,
            layout,
        })
    }
}

/// The `WithSimd` body of [`PackedRight::pack`]: the panel width is the
/// instruction set's.
struct Pack<'p, 'a, 's, F> {
    into: &'p mut PackedRight<F>,
    right: Strided<'a, 's, F>,
}

impl<F: Float> WithSimd for Pack<'_, '_, '_, F> {
    type Output = Result<(), AllocationFailed>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, _: S) -> Self::Output {
        let Pack { into, right } = self;
        let ([k, n], [row, col]) = (
            [right.shape[0], right.shape[1]],
            [right.strides[0], right.strides[1]],
        );
        let layout = Layout {
            nr: panel_width::<F, S>(),
            depth: slice_depth(n),
            k,
            n,
        };
        let len = layout.len().ok_or(AllocationFailed {
            elements: usize::MAX,
        })?;
        let values = try_scratch(&mut into.values, len, F::ZERO)?;
        let (nr, stride) = (layout.nr, layout.stride());
        let mut slots = values.chunks_exact_mut(stride);
        for pc in (0..k).step_by(layout.depth) {
            let kc = layout.depth.min(k - pc);
            for (first, slot) in (0..n).step_by(nr).zip(&mut slots) {
                let source = Source {
                    data: right.data,
                    base: right.base + pc * row + first * col,
                    lane_stride: col,
                    step_stride: row,
                };
                pack_panel(source, nr.min(n - first), nr, kc, slot);
            }
        }
        into.layout = Some(layout);
        Ok(())
    }
}

/// A [`PackedRight`]'s panels, borrowed by a product.
#[derive(Clone, Copy)]
pub(super) struct Panels<'a, F> {
    values: &'a [F],
    pub(super) layout: Layout,
}

impl<'a, F> Panels<'a, F> {
    /// Whether a product of `k` steps and `n` columns with `nr`-column
    /// panels can read these.
    pub(super) fn fit(&self, nr: usize, k: usize, n: usize) -> bool {
        self.layout.nr == nr && k <= self.layout.k && n <= self.layout.n
    }

    /// The first `kc` steps of the panel of the slice starting at step `pc`
    /// whose first column is `first` (`pc` a multiple of the depth, `first`
    /// of `nr`).
    pub(super) fn panel(&self, pc: usize, first: usize, kc: usize) -> &'a [F] {
        let Layout { nr, depth, .. } = self.layout;
        let slot = pc / depth * self.layout.panels() + first / nr;
        let start = slot * self.layout.stride();
        &self.values[start..start + kc * nr]
    }
}
