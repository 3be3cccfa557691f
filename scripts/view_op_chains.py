"""Chains of the zero-copy view operations for tests/fixtures/numpy/view_ops.txt.

Part of scripts/numpy_fixtures.py (which writes and `--check`s every fixture).
Each chain starts at a row-major owner or at an `as_strided` layout over a
buffer (any strides, 0 included, and a base offset), then applies
split_axis, merge_axes, reshape_strided, unsqueeze, squeeze, select,
broadcast_to, slice_step, chunk and split_at (and now and then transpose,
permute, slice, reshape), mostly valid, sometimes not. Our answer comes from
scripts/fixture_rules.py; the oracle's from PyTorch where it has the
operation's exact rule (`unflatten`, `flatten` when it returns a view,
`view`, `unsqueeze`) and from NumPy otherwise (`squeeze(axis)`, indexing,
`broadcast_to`, stepped slices, `np.split`). Every step where the oracle's
layout or outcome differs from ours gets an `np` / `torch` line, which the
Rust replay checks is one of the documented differences.

File format (besides the common one in numpy_fixtures.py's docstring):

    owner <shape>                          a row-major owner of 0.0, 1.0, ...
    base <shape> <strides> <offset> <len>  an as_strided view of 0.0 .. len-1
    ok <shape> <strides> <offset> <0|1>    the start layout
    step <op> <args..>                     then `ok ..` (our layout) or `err <Debug>`
    np|torch ok <shape> <strides> <offset|-> <0|1> <view|copy> | np|torch err <Type>: <msg>
    values <..>                            the last view's values in logical order

Steps: `split_axis axis a b`, `merge_axes axis`, `reshape_strided dims..`,
`unsqueeze axis`, `squeeze axis`, `select axis index`, `broadcast_to dims..`,
`slice_step axis start end step`, `chunk axis n part`, `split_at axis index
part` (the chain goes on with part `part`), `transpose a b`, `permute
axes..`, `slice axis start end`, `reshape dims..`.
"""

import numpy as np
import torch

from fixture_rules import Layout, OurError, count, draw_chain, row_major

VIEW_OP_CASES = 960
TORCH_OPS = ("split_axis", "merge_axes", "reshape_strided", "unsqueeze")


def oracle_name(kind):
    return "torch" if kind in TORCH_OPS else "np"


def torch_apply(tensor, step):
    kind, args = step[0], step[1:]
    if kind == "split_axis":
        return tensor.unflatten(args[0], (args[1], args[2]))
    if kind == "merge_axes":
        return tensor.flatten(args[0], args[0] + 1)
    if kind == "reshape_strided":
        return tensor.view(tuple(args))
    if kind == "unsqueeze":
        return tensor.unsqueeze(args[0])
    raise AssertionError(kind)


def np_apply(array, step):
    kind, args = step[0], step[1:]
    every = (slice(None),)
    if kind == "squeeze":
        return np.squeeze(array, axis=args[0])
    if kind == "select":
        return array[every * args[0] + (args[1], Ellipsis)]
    if kind == "broadcast_to":
        return np.broadcast_to(array, tuple(args))
    if kind == "slice_step":
        axis, start, end, step_ = args
        return array[every * axis + (slice(start, end, step_),)]
    if kind == "chunk":
        return np.split(array, args[1], axis=args[0])[args[2]]
    if kind == "split_at":
        return np.split(array, [args[1]], axis=args[0])[args[2]]
    if kind == "transpose":
        return np.swapaxes(array, args[0], args[1])
    if kind == "permute":
        return np.transpose(array, args)
    if kind == "slice":
        return array[every * args[0] + (slice(args[1], args[2]),)]
    if kind == "reshape":
        return array.reshape(tuple(args))
    raise AssertionError(kind)


def our_apply(layout, step):
    kind, args = step[0], list(step[1:])
    if kind in ("chunk", "split_at"):
        parts = layout.chunk(args[0], args[1]) if kind == "chunk" else layout.split_at(args[0], args[1])
        return parts[args[2]]
    if kind in ("reshape_strided", "broadcast_to", "reshape"):
        return getattr(layout, kind)(args)
    if kind == "permute":
        return layout.permute(args)
    return getattr(layout, kind)(*args)


def fmt_shape(shape):
    return "[" + ",".join(str(e) for e in shape) + "]"


def fmt_step(step):
    return " ".join(["step", step[0]] + [str(a) for a in step[1:]])


def oracle_line(step, layout, buffer):
    """The oracle's outcome on our current layout: ('ok', ..) or ('err', text)."""
    n = len(buffer)
    offset = layout.offset if count(layout.shape) else 0
    try:
        if oracle_name(step[0]) == "torch":
            source = torch.from_numpy(buffer).as_strided(layout.shape, layout.strides, offset)
            result = torch_apply(source, step)
            ptr = result.untyped_storage().data_ptr()
            view = ptr == source.untyped_storage().data_ptr()
            at = result.storage_offset() if view else None
            strides, contiguous = list(result.stride()), result.is_contiguous()
        else:
            source = np.lib.stride_tricks.as_strided(
                buffer[offset:], layout.shape, [8 * s for s in layout.strides]
            )
            result = np_apply(source, step)
            delta = result.__array_interface__["data"][0] - buffer.__array_interface__["data"][0]
            view = np.shares_memory(result, buffer) or result.size == 0
            at = delta // 8 if view and 0 <= delta < 8 * max(n, 1) else None
            strides, contiguous = [s // 8 for s in result.strides], result.flags["C_CONTIGUOUS"]
    except Exception as exc:  # IndexError, RuntimeError, ValueError: the oracles' types vary
        return ("err", "%s: %s" % (type(exc).__name__, " ".join(str(exc).split())))
    return ("ok", list(result.shape), strides, at, int(bool(contiguous)), "view" if view else "copy")


def oracle_text(oracle):
    if oracle[0] == "err":
        return "err %s" % oracle[1]
    _, shape, strides, at, contiguous, kind = oracle
    at = "-" if at is None else str(at)
    return "ok %s %s %s %d %s" % (fmt_shape(shape), fmt_shape(strides), at, contiguous, kind)


def layout_text(layout):
    return "%s %s %d %d" % (
        fmt_shape(layout.shape), fmt_shape(layout.strides), layout.offset, int(layout.contiguous())
    )


def chain_case(case_id, start, steps, buffer):
    """`start` is ('owner', shape) or ('base', shape, strides, offset)."""
    lines = ["case %s" % case_id]
    if start[0] == "owner":
        shape = start[1]
        layout = Layout(shape, row_major(shape)[0], 0)
        lines.append("owner %s" % fmt_shape(shape))
    else:
        _, shape, strides, offset = start
        layout = Layout(shape, strides, offset)
        lines.append("base %s %s %d %d" % (fmt_shape(shape), fmt_shape(strides), offset, len(buffer)))
    lines.append("ok %s" % layout_text(layout))
    for step in steps:
        lines.append(fmt_step(step))
        oracle = oracle_line(step, layout, buffer)
        try:
            ours = our_apply(layout, step)
        except OurError as error:
            lines.append("err %s" % error)
            lines.append("%s %s" % (oracle_name(step[0]), oracle_text(oracle)))
            break
        lines.append("ok %s" % layout_text(ours))
        if oracle[0] == "err":
            raise AssertionError("%s: the oracle refuses %s: %s" % (case_id, step, oracle[1]))
        assert oracle[1] == ours.shape, (case_id, step, oracle[1], ours.shape)
        if oracle[2:] != (ours.strides, ours.offset, int(ours.contiguous()), "view"):
            lines.append("%s %s" % (oracle_name(step[0]), oracle_text(oracle)))
        layout = ours
    values = [float(buffer[o]) for o in layout.offsets()]
    lines.append("values %s" % " ".join(repr(v) for v in values))
    lines.append("end")
    return lines


# ------------------------------------------------------------- drawing steps


def regroup(rng, shape):
    """The shape with a split, a merge or a unit axis in or out: reshapes the strides often allow."""
    shape = list(shape)
    move = rng.randrange(4)
    if move == 0 and len(shape) >= 2:
        axis = rng.randrange(len(shape) - 1)
        shape[axis:axis + 2] = [shape[axis] * shape[axis + 1]]
    elif move == 1 and shape:
        axis = rng.randrange(len(shape))
        divisors = [d for d in range(1, shape[axis] + 1) if shape[axis] % d == 0] or [0]
        d = rng.choice(divisors)
        shape[axis:axis + 1] = [d, shape[axis] // d if d else rng.randrange(3)]
    elif move == 2 or 1 not in shape:
        shape.insert(rng.randrange(len(shape) + 1), 1)
    else:
        shape.remove(1)
    return shape


def random_step(rng, layout):
    shape, rank = layout.shape, len(layout.shape)
    bad = rng.random() < 0.2
    kinds = ["split_axis", "merge_axes", "merge_axes", "reshape_strided", "reshape_strided",
             "reshape_strided", "unsqueeze", "squeeze", "select", "broadcast_to", "slice_step",
             "chunk", "split_at", "transpose", "transpose", "permute", "slice"]
    kind = rng.choice(kinds if rank else ["unsqueeze", "reshape_strided", "broadcast_to"])
    if kind == "merge_axes" and rank < 2 and not bad:
        kind = rng.choice(["unsqueeze", "split_axis"] if rank else ["unsqueeze"])
    axis = rng.randrange(rank + (2 if bad and rng.random() < 0.3 else 0)) if rank else 0
    extent = shape[axis] if axis < rank else 3
    if kind == "split_axis":
        divisors = [d for d in range(1, extent + 1) if extent % d == 0] or [rng.randrange(3)]
        a = rng.choice(divisors)
        b = extent // a if a else rng.randrange(3)
        return (kind, axis, a, b + (1 if bad else 0))
    if kind == "merge_axes":
        return (kind, rng.randrange(rank + 1) if bad else rng.randrange(rank - 1))
    if kind == "reshape_strided":
        target = regroup(rng, shape) if rng.random() < 0.7 else [count(shape)] if shape else [1]
        if bad:
            target = target + [2]
        return (kind,) + tuple(target[:7])
    if kind == "unsqueeze":
        return (kind, rng.randrange(rank + (3 if bad else 1)))
    if kind == "squeeze":
        units = [a for a in range(rank) if shape[a] == 1]
        return (kind, rng.choice(units) if units and not bad else axis)
    if kind == "select":
        return (kind, axis, rng.randrange(extent + (2 if bad else 0)) if extent or bad else 0)
    if kind == "broadcast_to":
        lead = [rng.choice([1, 2, 3]) for _ in range(rng.randrange(3 if rank < 5 else 1))]
        target = lead + [rng.choice([1, 2, 3]) if e == 1 else e for e in shape]
        if bad and rng.random() < 0.3:
            target = target[1:]
        elif bad and target:
            target[rng.randrange(len(target))] += 2
        return (kind,) + tuple(target)
    if kind == "slice_step":
        end = rng.randrange(extent + 1)
        start = rng.randrange(end + 1)
        zero = bad and rng.random() < 0.6
        return (kind, axis, start, end + (2 if bad and not zero else 0), 0 if zero else rng.randrange(1, 4))
    if kind == "chunk":
        parts = [n for n in range(1, 5) if extent % n == 0]
        n = rng.randrange(1, 5) if bad else rng.choice(parts)
        return (kind, axis, n, rng.randrange(n))
    if kind == "split_at":
        return (kind, axis, rng.randrange(extent + (3 if bad else 1)), rng.randrange(2))
    if kind == "transpose":
        return (kind, axis, rng.randrange(rank))
    if kind == "permute":
        axes = list(range(rank))
        rng.shuffle(axes)
        return (kind,) + tuple(axes[:-1] if bad else axes)
    end = rng.randrange(extent + 1)
    return ("slice", axis, rng.randrange(end + 1), end + (2 if bad else 0))


def random_start(rng, index):
    """A row-major owner or an as_strided base (any strides, 0 included)."""
    rank = rng.randrange(5)
    shape = [rng.choice((0, 1, 2, 3, 4) if rng.random() < 0.15 else (1, 2, 3, 4)) for _ in range(rank)]
    while count(shape) > 96:
        shape[rng.randrange(rank)] = 1
    if index % 3:
        return ("owner", shape), count(shape)
    strides = [rng.choice((0, 1, 2, 3, 5, 7, 12)) for _ in range(rank)]
    offset = rng.randrange(4)
    reach = offset + sum((e - 1) * s for e, s in zip(shape, strides)) + 1 if count(shape) else offset
    return ("base", shape, strides, offset), reach + rng.randrange(3)


FIXED = [
    # GPT-2's Q slice of the packed [B, T, 3C] projection (C = 4, H = 2): split heads, no copy.
    (("owner", [2, 3, 12]), [("slice", 2, 0, 4), ("split_axis", 2, 2, 2), ("permute", 0, 2, 1, 3)]),
    (("owner", [2, 3, 12]), [("chunk", 2, 3, 1), ("reshape_strided", 2, 3, 2, 2), ("merge_axes", 2)]),
    # PyTorch's view: a transposed matrix splits but does not flatten.
    (("owner", [3, 4]), [("transpose", 0, 1), ("reshape_strided", 2, 2, 3)]),
    (("owner", [3, 4]), [("transpose", 0, 1), ("reshape_strided", 12)]),
    (("owner", [2, 8]), [("slice", 1, 1, 7), ("reshape_strided", 2, 2, 3), ("reshape_strided", 12)]),
    (("owner", [0, 3, 2]), [("transpose", 1, 2), ("merge_axes", 1), ("reshape_strided", 3, 0)]),
    (("owner", [4]), [("unsqueeze", 0), ("broadcast_to", 3, 1, 4), ("select", 0, 2), ("squeeze", 0)]),
    (("owner", []), [("unsqueeze", 0), ("broadcast_to", 2, 3), ("slice_step", 1, 0, 3, 2)]),
    (("base", [3, 4], [1, 3], 2), [("reshape_strided", 12)]),
    (("base", [2, 3], [0, 1], 1), [("reshape_strided", 6)]),
    (("base", [2, 2], [0, 0], 0), [("reshape_strided", 4), ("split_at", 0, 1, 1)]),
    (("owner", [2, 3]), [("chunk", 1, 2, 0)]),
    (("owner", [2, 3]), [("slice_step", 1, 0, 3, 0)]),
    (("owner", [2, 3]), [("squeeze", 0)]),
    (("owner", [2, 3]), [("broadcast_to", 2, 4)]),
    (("owner", [2, 3]), [("split_axis", 1, 2, 2)]),
    (("owner", [2, 3]), [("transpose", 0, 1), ("merge_axes", 0)]),
]


def too_large(layout):
    """Chains stop past rank 6 or 400 elements (ranks stay in the typed table)."""
    return len(layout.shape) > 6 or count(layout.shape) > 400


def view_op_cases(rng):
    cases = []
    for start, steps in FIXED:
        n = count(start[1]) if start[0] == "owner" else (
            start[3] + sum((e - 1) * s for e, s in zip(start[1], start[2])) + 1)
        cases.append(chain_case("vops-%04d" % len(cases), start, steps, np.arange(n, dtype=np.float64)))
    while len(cases) < VIEW_OP_CASES:
        start, n = random_start(rng, len(cases))
        layout = Layout(start[1], row_major(start[1])[0], 0) if start[0] == "owner" else Layout(*start[1:])
        steps = draw_chain(rng, layout, random_step, our_apply, too_large)
        cases.append(chain_case("vops-%04d" % len(cases), start, steps, np.arange(n, dtype=np.float64)))
    return cases


def view_op_file(header, rng):
    """The lines of view_ops.txt: `header(name, description, cases)`, the oracle's versions, the cases."""
    cases = view_op_cases(rng)
    about = "chains of the view operations (split_axis .. split_at) on owners and as_strided bases"
    versions = "# Oracles: PyTorch %s (`torch` lines), NumPy %s (`np` lines)." % (
        torch.__version__, np.__version__)
    return header("view_ops.txt", about, len(cases)) + [versions] + [line for case in cases for line in case]
