"""Our semantics (DESIGN.md §5), written in Python for scripts/numpy_fixtures.py.

These are the expectations the fixtures record for the crate: layouts by our
rules (plain suffix-product strides, our contiguity, our error order), the
broadcast error at the leftmost failing axis, and reductions (sums by the
crate's fixed tree, scripts/crate_numerics.py; max in ascending order keeping the first NaN and the earlier of
equal values). Error texts are the Rust `Debug` of our error variants.
NumPy is not used here except to walk a reduction's groups in logical order.
"""

import math

import numpy as np
from crate_numerics import exp as crate_exp
from crate_numerics import tree_sum

USIZE_MAX = 2**64 - 1


class OurError(Exception):
    """An error our crate returns; `str()` is the Rust `Debug` of the variant."""


def row_major(shape):
    """Plain suffix products, every product checked (our `row_major_strides`)."""
    strides = [0] * len(shape)
    running = 1
    for axis in reversed(range(len(shape))):
        strides[axis] = running
        running *= shape[axis]
        if running > USIZE_MAX:
            raise OurError("Tensor(ShapeOverflow)")
    return strides, running


def count(shape):
    return math.prod(shape)


def is_contiguous(shape, strides):
    if 0 in shape:
        return True
    expected = 1
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent > 1 and stride != expected:
            return False
        expected *= extent
    return True


class Layout:
    def __init__(self, shape, strides, offset):
        self.shape, self.strides, self.offset = list(shape), list(strides), offset

    def transpose(self, a, b):
        rank = len(self.shape)
        for axis in (a, b):
            if axis >= rank:
                raise OurError("AxisOutOfBounds { axis: %d, rank: %d }" % (axis, rank))
        shape, strides = list(self.shape), list(self.strides)
        shape[a], shape[b] = shape[b], shape[a]
        strides[a], strides[b] = strides[b], strides[a]
        return Layout(shape, strides, self.offset)

    def permute(self, axes):
        rank = len(self.shape)
        if len(axes) != rank:
            raise OurError(
                "PermutationLengthMismatch { expected: %d, actual: %d }" % (rank, len(axes))
            )
        for position, axis in enumerate(axes):
            if axis >= rank:
                raise OurError("AxisOutOfBounds { axis: %d, rank: %d }" % (axis, rank))
            if axis in axes[:position]:
                raise OurError("DuplicateAxis { axis: %d }" % axis)
        return Layout(
            [self.shape[a] for a in axes], [self.strides[a] for a in axes], self.offset
        )

    def slice(self, axis, start, end):
        rank = len(self.shape)
        if axis >= rank:
            raise OurError("AxisOutOfBounds { axis: %d, rank: %d }" % (axis, rank))
        if start > end:
            raise OurError(
                "SliceStartAfterEnd { axis: %d, start: %d, end: %d }" % (axis, start, end)
            )
        if end > self.shape[axis]:
            raise OurError(
                "SliceEndOutOfBounds { axis: %d, end: %d, dimension: %d }"
                % (axis, end, self.shape[axis])
            )
        shape = list(self.shape)
        shape[axis] = end - start
        return Layout(shape, self.strides, self.offset + start * self.strides[axis])

    def reshape(self, shape):
        strides, requested = row_major(shape)
        current = count(self.shape)
        if requested != current:
            raise OurError(
                "ReshapeElementCountMismatch { current: %d, requested: %d }"
                % (current, requested)
            )
        if not self.contiguous():
            raise OurError("NonContiguousReshape")
        return Layout(shape, strides, self.offset)

    def contiguous(self):
        return is_contiguous(self.shape, self.strides)

    # ---- the view operations beyond reshape / transpose / permute / slice
    # (src/tensor/shape/transforms.rs; every product checked against usize)

    def count(self):
        return count(self.shape)

    def _axis(self, axis, rank=None):
        rank = len(self.shape) if rank is None else rank
        if axis >= rank:
            raise OurError("AxisOutOfBounds { axis: %d, rank: %d }" % (axis, rank))

    def split_axis(self, axis, outer, inner):
        self._axis(axis)
        extent, stride = self.shape[axis], self.strides[axis]
        if outer * inner != extent:
            raise OurError(
                "SplitAxisMismatch { axis: %d, extent: %d, requested: [%d, %d] }"
                % (axis, extent, outer, inner)
            )
        outer_stride = inner * stride
        if outer_stride > USIZE_MAX:  # never stepped along when outer <= 1 or empty
            if not (outer <= 1 or self.count() == 0):
                raise OurError("Tensor(ShapeOverflow)")
            outer_stride = 0
        shape = self.shape[:axis] + [outer, inner] + self.shape[axis + 1:]
        strides = self.strides[:axis] + [outer_stride, stride] + self.strides[axis + 1:]
        return Layout(shape, strides, self.offset)

    def merge_axes(self, axis):
        self._axis(min(axis + 1, USIZE_MAX))
        (outer, inner), (so, si) = self.shape[axis:axis + 2], self.strides[axis:axis + 2]
        if not (outer <= 1 or inner <= 1 or si * inner == so or self.count() == 0):
            raise OurError(
                "NonMergeableAxes { axis: %d, extents: [%d, %d], strides: [%d, %d] }"
                % (axis, outer, inner, so, si)
            )
        if outer * inner > USIZE_MAX:
            raise OurError("Tensor(ShapeOverflow)")
        stride = so if inner <= 1 else si
        shape = self.shape[:axis] + [outer * inner] + self.shape[axis + 2:]
        strides = self.strides[:axis] + [stride] + self.strides[axis + 2:]
        return Layout(shape, strides, self.offset)

    def reshape_strided(self, shape):
        """PyTorch's `view` rule: ATen's computeStride (TensorUtils.cpp)."""
        strides, requested = row_major(shape)
        current = self.count()
        if requested != current:
            raise OurError(
                "ReshapeElementCountMismatch { current: %d, requested: %d }" % (current, requested)
            )
        if current == 0 or not self.shape:
            return Layout(shape, strides, self.offset)
        old, olds = self.shape, self.strides
        view_d, last = len(shape), len(old) - 1
        base, tensor_numel, view_numel = olds[last], 1, 1
        for d in reversed(range(len(old))):
            tensor_numel *= old[d]
            if d == 0 or (old[d - 1] != 1 and olds[d - 1] != tensor_numel * base):
                while view_d > 0 and (view_numel < tensor_numel or shape[view_d - 1] == 1):
                    strides[view_d - 1] = min(view_numel * base, USIZE_MAX)
                    view_numel *= shape[view_d - 1]
                    view_d -= 1
                if view_numel != tensor_numel:
                    wide = [a for a in range(d, last + 1) if old[a] != 1]
                    raise OurError(
                        "NonStrideCompatibleReshape { axes: [%d, %d], elements: %d }"
                        % (wide[0], wide[-1], tensor_numel)
                    )
                if d > 0:
                    last, base, tensor_numel, view_numel = d - 1, olds[d - 1], 1, 1
        return Layout(shape, strides, self.offset)

    def unsqueeze(self, axis):
        rank = len(self.shape)
        self._axis(axis, rank + 1)
        stride = min(self.strides[axis] * self.shape[axis], USIZE_MAX) if axis < rank else 1
        return Layout(
            self.shape[:axis] + [1] + self.shape[axis:],
            self.strides[:axis] + [stride] + self.strides[axis:],
            self.offset,
        )

    def squeeze(self, axis):
        self._axis(axis)
        if self.shape[axis] != 1:
            raise OurError(
                "SqueezeNonUnitAxis { axis: %d, extent: %d }" % (axis, self.shape[axis])
            )
        return Layout(
            self.shape[:axis] + self.shape[axis + 1:],
            self.strides[:axis] + self.strides[axis + 1:],
            self.offset,
        )

    def select(self, axis, index):
        self._axis(axis)
        if index >= self.shape[axis]:
            raise OurError(
                "Tensor(IndexOutOfBounds { axis: %d, index: %d, dimension: %d })"
                % (axis, index, self.shape[axis])
            )
        offset = self.offset + index * self.strides[axis] if self.count() else self.offset
        return Layout(
            self.shape[:axis] + self.shape[axis + 1:],
            self.strides[:axis] + self.strides[axis + 1:],
            offset,
        )

    def broadcast_to(self, target):
        rank, target_rank = len(self.shape), len(target)
        if target_rank < rank:
            raise OurError(
                "BroadcastRankTooSmall { rank: %d, target_rank: %d }" % (rank, target_rank)
            )
        pad = target_rank - rank
        strides = [0] * target_rank
        for k, (extent, stride) in enumerate(zip(self.shape, self.strides)):
            wanted = target[pad + k]
            if extent == wanted:
                strides[pad + k] = stride
            elif extent != 1:
                raise OurError(
                    "IncompatibleBroadcast { axis: %d, extent: %d, target: %d }"
                    % (pad + k, extent, wanted)
                )
        row_major(target)  # the target's overflow
        return Layout(target, strides, self.offset)

    def slice_step(self, axis, start, end, step):
        layout = self.slice(axis, start, end)
        if step == 0:
            raise OurError("ZeroSliceStep { axis: %d }" % axis)
        layout.shape[axis] = -(-(end - start) // step)
        stride = self.strides[axis] * step
        if stride > USIZE_MAX:
            if not (layout.shape[axis] <= 1 or layout.count() == 0):
                raise OurError("Tensor(ShapeOverflow)")
            stride = 0
        layout.strides = list(layout.strides)
        layout.strides[axis] = stride
        return layout

    def chunk(self, axis, parts):
        self._axis(axis)
        extent = self.shape[axis]
        if parts == 0 or extent % parts:
            raise OurError(
                "UnevenChunk { axis: %d, extent: %d, chunks: %d }" % (axis, extent, parts)
            )
        size = extent // parts
        return [self.slice(axis, k * size, (k + 1) * size) for k in range(parts)]

    def split_at(self, axis, index):
        extent = self.shape[axis] if axis < len(self.shape) else 0
        return [self.slice(axis, 0, index), self.slice(axis, index, extent)]

    def offsets(self):
        result = []
        for index in np.ndindex(*self.shape):
            result.append(self.offset + sum(i * s for i, s in zip(index, self.strides)))
        return result


def draw_chain(rng, layout, random_step, apply, stop=lambda layout: False):
    """The steps of one random chain from `layout` (1 to 6 of them), ending
    early at the first one our rules refuse or after which `stop` holds."""
    steps = []
    for _ in range(rng.randrange(1, 7)):
        step = random_step(rng, layout)
        steps.append(step)
        try:
            layout = apply(layout, step)
        except OurError:
            break
        if stop(layout):
            break
    return steps


def our_broadcast(left, right):
    rank = max(len(left), len(right))
    pl = [1] * (rank - len(left)) + list(left)
    pr = [1] * (rank - len(right)) + list(right)
    out = []
    for axis, (a, b) in enumerate(zip(pl, pr)):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        else:
            raise OurError(
                "IncompatibleBroadcast { axis: %d, left_dimension: %d, right_dimension: %d }"
                % (axis, a, b)
            )
    return out


def fold_sum(group):
    """sum_axis of one group: the crate's fixed tree (scripts/crate_numerics.py)."""
    return tree_sum(group)


def fold_max(group):
    accumulator = group[0]
    for value in group[1:]:
        if not math.isnan(accumulator) and (math.isnan(value) or value > accumulator):
            accumulator = value
    return accumulator


def reduced_shape(array, op, axis, keep):
    """The checks of a reduction (axis, then an empty axis for mean and max;
    argmax checks as max) and its output shape."""
    rank = array.ndim
    if axis >= rank:
        raise OurError("ReductionAxisOutOfBounds { axis: %d, rank: %d }" % (axis, rank))
    extent = array.shape[axis]
    if extent == 0 and op == "mean":
        raise OurError("EmptyMeanAxis { axis: %d }" % axis)
    if extent == 0 and op in ("max", "argmax"):
        raise OurError("EmptyMaxAxis { axis: %d }" % axis)
    shape = list(array.shape)
    if keep:
        shape[axis] = 1
    else:
        del shape[axis]
    return shape


def our_reduce(array, op, axis, keep):
    shape = reduced_shape(array, op, axis, keep)
    extent = array.shape[axis]
    groups = np.moveaxis(array, axis, -1).reshape(-1, extent).tolist() if extent else [
        [] for _ in range(count(shape))
    ]
    if op == "sum":
        values = [fold_sum(g) for g in groups]
    elif op == "mean":
        values = [fold_sum(g) / float(extent) for g in groups]
    else:
        values = [fold_max(g) for g in groups]
    assert len(values) == count(shape)
    return shape, values


# ------------------------------------------- data movement and fused ops


def our_join(shapes, axis, stack):
    """concat / stack: the output shape, or our error (checks in the crate's order)."""
    op = "stack" if stack else "concat"
    if not shapes:
        raise OurError("EmptyInputList")
    rank = len(shapes[0])
    out_rank = rank + 1 if stack else rank
    if axis >= out_rank:
        raise OurError('AxisOutOfBounds { op: "%s", axis: %d, rank: %d }' % (op, axis, out_rank))
    for index, shape in enumerate(shapes[1:], 1):
        if len(shape) != rank:
            raise OurError(
                "ConcatRankMismatch { input: %d, expected: %d, actual: %d }"
                % (index, rank, len(shape))
            )
        for a in range(rank):
            if shape[a] != shapes[0][a] and (stack or a != axis):
                raise OurError(
                    "ConcatShapeMismatch { input: %d, axis: %d, expected: %d, actual: %d }"
                    % (index, a, shapes[0][a], shape[a])
                )
    shape = list(shapes[0])
    if stack:
        shape.insert(axis, len(shapes))
    else:
        shape[axis] = sum(s[axis] for s in shapes)
    row_major(shape)
    return shape


def our_take(shape, axis, indices):
    """index_select: the output shape, or our error."""
    rank = len(shape)
    if axis >= rank:
        raise OurError('AxisOutOfBounds { op: "index_select", axis: %d, rank: %d }' % (axis, rank))
    for position, index in enumerate(indices):
        if index >= shape[axis]:
            raise OurError(
                "IndexSelectOutOfBounds { axis: %d, position: %d, index: %d, extent: %d }"
                % (axis, position, index, shape[axis])
            )
    out = list(shape)
    out[axis] = len(indices)
    row_major(out)
    return out


def groups_of(array, axis):
    """The groups along `axis` (every position of the other axes, row-major) as lists."""
    extent = array.shape[axis]
    return np.moveaxis(array, axis, -1).reshape(-1, extent).tolist()


def first_argmax(group):
    """The position of the value fold_max keeps: the first NaN, else the first
    position whose value equals the maximum (-0.0 == +0.0, so the earlier zero)."""
    for position, value in enumerate(group):
        if math.isnan(value):
            return position
    largest = fold_max(group)
    return group.index(largest)


def our_argmax(array, axis, keep):
    """argmax_axis: shape and positions, or our error (the checks of max)."""
    shape = reduced_shape(array, "argmax", axis, keep)
    return shape, [first_argmax(g) for g in groups_of(array, axis)]


def softmax_group(group):
    """The composition's operations in its order: m by fold_max, exp(x - m)
    (the crate's exp), the tree sum, one division per value. z >= exp(0) = 1
    unless it is NaN."""
    m = fold_max(group)
    e = [crate_exp(x - m) for x in group]
    z = fold_sum(e)
    return [v / z for v in e]


def our_softmax(array, axis):
    """softmax_axis: shape and values in row-major order, or our error."""
    rank = array.ndim
    if axis >= rank:
        raise OurError("ReductionAxisOutOfBounds { axis: %d, rank: %d }" % (axis, rank))
    shape = list(array.shape)
    if array.size == 0:
        return shape, []
    moved = np.moveaxis(array, axis, -1)
    values = np.array([softmax_group(g) for g in groups_of(array, axis)]).reshape(moved.shape)
    return shape, np.moveaxis(values, -1, axis).ravel().tolist()
