//! The traversal plan every kernel shares: logical row-major order over one
//! shape read through `N` operands' strides, split into innermost runs.
//!
//! Axes of extent 1 are dropped and adjacent axes that are contiguous for
//! every operand are merged (coalesced), so a dense view becomes one run and
//! the per-run closure sees the longest slices the layout allows. Both steps
//! keep the logical order, so closures still see elements in row-major order.

/// A coalesced plan over `N` operands. Built only from layouts that were
/// already checked to lie inside their storage.
#[derive(Debug, Clone)]
pub(crate) struct Plan<const N: usize> {
    /// Outer extents (outermost first); the innermost run is separate.
    outer: Vec<usize>,
    /// Outer strides per operand, parallel to `outer`.
    outer_strides: [Vec<usize>; N],
    /// Extent of the innermost run (at least 1 for a non-empty plan).
    pub(crate) run_len: usize,
    /// Innermost stride per operand.
    pub(crate) run_strides: [usize; N],
    /// Start offset per operand.
    pub(crate) bases: [usize; N],
    /// Total element count (0 when any extent is 0).
    pub(crate) len: usize,
}

impl<const N: usize> Plan<N> {
    /// Coalesces `shape` read through `strides[o]` from `bases[o]`.
    pub(crate) fn new(shape: &[usize], strides: [&[usize]; N], bases: [usize; N]) -> Self {
        let empty = shape.contains(&0);
        let mut axes: Vec<(usize, [usize; N])> = Vec::with_capacity(shape.len());
        for (axis, &extent) in shape.iter().enumerate() {
            if extent == 1 {
                continue;
            }
            let these = std::array::from_fn(|o| strides[o][axis]);
            if let Some((last_extent, last_strides)) = axes.last_mut() {
                let mergeable =
                    (0..N).all(|o| these[o].checked_mul(extent) == Some(last_strides[o]));
                if mergeable && !empty {
                    *last_extent *= extent;
                    *last_strides = these;
                    continue;
                }
            }
            axes.push((extent, these));
        }
        let (run_len, run_strides) = axes.pop().unwrap_or((1, [0; N]));
        let len = if empty {
            0
        } else {
            axes.iter()
                .fold(run_len, |count, (extent, _)| count * extent)
        };
        Self {
            outer: axes.iter().map(|(extent, _)| *extent).collect(),
            outer_strides: std::array::from_fn(|o| axes.iter().map(|(_, s)| s[o]).collect()),
            run_len,
            run_strides,
            bases,
            len,
        }
    }

    /// The number of outer axes left after coalescing.
    pub(crate) fn outer_rank(&self) -> usize {
        self.outer.len()
    }

    /// Outer extent and per-operand stride of outer axis `axis`.
    pub(crate) fn outer_axis(&self, axis: usize) -> (usize, [usize; N]) {
        (
            self.outer[axis],
            std::array::from_fn(|o| self.outer_strides[o][axis]),
        )
    }

    /// Calls `run(starts)` once per innermost run, in logical row-major order;
    /// each run has `run_len` elements stepping by `run_strides`.
    pub(crate) fn for_each_run(&self, mut run: impl FnMut([usize; N])) {
        if self.len == 0 {
            return;
        }
        let mut position = vec![0_usize; self.outer.len()];
        let mut starts = self.bases;
        loop {
            run(starts);
            // Odometer over the outer axes, last axis fastest.
            let mut axis = self.outer.len();
            loop {
                if axis == 0 {
                    return;
                }
                axis -= 1;
                position[axis] += 1;
                if position[axis] < self.outer[axis] {
                    for (o, start) in starts.iter_mut().enumerate() {
                        *start += self.outer_strides[o][axis];
                    }
                    break;
                }
                position[axis] = 0;
                for (o, start) in starts.iter_mut().enumerate() {
                    *start -= (self.outer[axis] - 1) * self.outer_strides[o][axis];
                }
            }
        }
    }
}

/// The `len` elements of a run starting at `start` with `stride`, as an iterator.
/// `stride == 0` repeats one element (a broadcast axis).
#[inline]
pub(crate) fn run_iter<T: Copy>(
    data: &[T],
    start: usize,
    stride: usize,
    len: usize,
) -> impl Iterator<Item = T> + '_ {
    let step = stride.max(1);
    let end = if stride == 0 {
        start + 1
    } else {
        start + (len - 1) * stride + 1
    };
    let repeat = if stride == 0 { len } else { 1 };
    data[start..end]
        .iter()
        .step_by(step)
        .flat_map(move |&value| std::iter::repeat_n(value, repeat))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_layout_is_one_run() {
        let plan = Plan::new(&[2, 3, 4], [&[12, 4, 1]], [5]);
        assert_eq!(
            (plan.outer_rank(), plan.run_len, plan.run_strides),
            (0, 24, [1])
        );
    }

    #[test]
    fn runs_follow_row_major_order() {
        // The transpose of a [2,3] owner: shape [3,2], strides [1,3].
        let plan = Plan::new(&[3, 2], [&[1, 3]], [0]);
        let mut starts = Vec::new();
        plan.for_each_run(|[s]| starts.push(s));
        assert_eq!(
            (starts, plan.run_len, plan.run_strides),
            (vec![0, 1, 2], 2, [3])
        );
    }

    #[test]
    fn run_iter_splats_stride_zero() {
        let data = [7, 8, 9];
        assert_eq!(run_iter(&data, 1, 0, 3).collect::<Vec<_>>(), [8, 8, 8]);
        assert_eq!(run_iter(&data, 0, 2, 2).collect::<Vec<_>>(), [7, 9]);
    }
}
