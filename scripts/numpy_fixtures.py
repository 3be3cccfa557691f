#!/usr/bin/env python3
"""Regenerate the NumPy conformance fixtures under tests/fixtures/numpy/.

NumPy is the oracle for indexing, strides, views and broadcasting; Python's
own float arithmetic (IEEE 754 binary64, one rounding per operation) is the
oracle for our exact reductions. Our own rules (layouts, error order, the
ascending folds) are written out in Python in scripts/fixture_rules.py; this
script draws the cases, asks NumPy, and writes both answers. The Rust side (tests/numpy_conformance.rs)
replays every case with std only: the tests and CI never need Python.

view_ops.txt (PyTorch as the oracle of `view` and its kin, NumPy of the
rest): format and rules in scripts/view_op_chains.py.

How to run (from the repository root, in a venv outside the repository):

    python3 -m venv /work/venv-np
    /work/venv-np/bin/pip install numpy torch
    /work/venv-np/bin/python scripts/numpy_fixtures.py        # writes the files
    /work/venv-np/bin/python scripts/numpy_fixtures.py --check # compares only

Everything is seeded (Python's `random.Random`, whose `randrange` / `choice`
/ `random` sequences are stable across Python 3 versions), so regenerating
reproduces the committed files byte-for-byte, provided the NumPy version in
the files' headers is the one installed (NumPy's own messages and its
`np` lines can change between NumPy versions; our expectations cannot).

File format (line oriented, `#` starts a comment line):

    case <id>                      starts a case; `end` closes it
    owner <shape> ...              shapes are `[2,0,3]`, a scalar is `[]`
    <float>                        Python repr() (round-trips exactly through
                                   Rust's `str::parse::<f64>`), `inf`, `-inf`,
                                   `nan:<16 hex digits>` (a NaN with exact bits)
                                   or `nan` (any NaN: the payload of a NaN made
                                   by arithmetic is not specified by IEEE 754)
    err <Debug of our error>       e.g. `err AxisOutOfBounds { axis: 3, rank: 2 }`
    np ...                         what NumPy does where it differs from us

views.txt: `owner <shape>` (values 0.0, 1.0, ... in storage order), then
`step <op> <args>` lines each followed by `ok <shape> <strides> <offset>
<contiguous 0|1>` (our layout, strides and offset in elements) or `err`,
then `values` (the final view's values in logical order). An `np ok <shape>
<strides> <offset|-> <contiguous> <view|copy>` line follows when NumPy's
layout differs from ours (empty and extent-1 axes; reshapes NumPy answers
with a copy), an `np err <Type>: <message>` line when NumPy raises.

broadcast.txt: `left` and `right` operands `<owner shape> perm=<axes>
slice=<axis>:<start>:<end>|-` (left owner values 0.0, 1.0, ...; right owner
values (j + 1) / 1024), then `ok <shape> <values..>` of `left - right`
(NumPy's `np.subtract`), or `err IncompatibleBroadcast {..}` (our axis: the
leftmost failing right-aligned output axis) and `np err ..` (NumPy's message).

reduce.txt: `owner <shape> perm=.. slice=..` and `data` (storage order), then
`r <op> <axis> <keep 0|1> ok <shape> <values..>` or `r <op> <axis> <keep>
err ..` for sum, mean and max over every axis (and one past the last) both
ways; an `np <op> <axis> <keep> ok|err ..` line follows where NumPy's result
differs (pairwise summation, NaN payloads, -0.0 ties, empty axes), and
`np-warn <op> <axis> <keep> <message>` where NumPy only warns.

concat.txt, stack.txt, take.txt, argmax.txt, softmax.txt: the data-movement
and fused ops; their formats are in scripts/fixture_data_ops.py.
"""

import math
import os
import random
import struct
import sys
import warnings

import numpy as np

sys.dont_write_bytecode = True  # keep scripts/ free of __pycache__
from view_op_chains import view_op_file  # noqa: E402  (view_ops.txt: scripts/view_op_chains.py)
from fixture_rules import (  # noqa: E402  (our rules, in Python: scripts/fixture_rules.py)
    USIZE_MAX,
    Layout,
    OurError,
    count,
    draw_chain,
    our_broadcast,
    our_reduce,
    row_major,
)

SEED = 20240606
EXTENTS = (0, 1, 2, 3, 5, 7)
NONZERO = (1, 2, 3, 5, 7)
MAX_RANK = 6
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "tests", "fixtures", "numpy")

VIEW_CASES = 640
BROADCAST_CASES = 520
REDUCE_CASES = 420


# ---------------------------------------------------------------- formatting


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def fmt_float(x, exact_nan=True):
    x = float(x)
    if math.isnan(x):
        return "nan:%016x" % bits(x) if exact_nan else "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    text = repr(x)
    assert bits(float(text)) == bits(x)
    return text


def fmt_values(values, exact_nan=True):
    return " ".join(fmt_float(v, exact_nan) for v in values)


def fmt_shape(shape):
    return "[" + ",".join(str(e) for e in shape) + "]"


def np_error(exc):
    message = " ".join(str(exc).split())
    return "%s: %s" % (type(exc).__name__, message)


def same_bits(a, b):
    return len(a) == len(b) and all(bits(float(x)) == bits(float(y)) for x, y in zip(a, b))


# ------------------------------------------------------------ NumPy helpers


def data_pointer(array):
    return array.__array_interface__["data"][0]


def is_view_of(array, buffer):
    node = array
    while node is not None:
        if node is buffer:
            return True
        node = node.base
    return False


def np_apply(array, step):
    kind, args = step[0], step[1:]
    if kind == "transpose":
        return np.swapaxes(array, args[0], args[1])
    if kind == "permute":
        return np.transpose(array, args)
    if kind == "slice":
        axis, start, end = args
        return array[(slice(None),) * axis + (slice(start, end),)]
    if kind == "reshape":
        return array.reshape(tuple(args))
    raise AssertionError(kind)


def our_apply(layout, step):
    kind, args = step[0], step[1:]
    if kind == "transpose":
        return layout.transpose(args[0], args[1])
    if kind == "permute":
        return layout.permute(list(args))
    if kind == "slice":
        return layout.slice(*args)
    return layout.reshape(list(args))


def fmt_step(step):
    return " ".join(["step", step[0]] + [str(a) for a in step[1:]])


# ---------------------------------------------------------------- shapes


def random_shape(rng, rank, cap, empty_chance=0.2):
    """Extents from EXTENTS; about `empty_chance` of the shapes hold a zero."""
    while True:
        if rank > 0 and rng.random() < empty_chance:
            shape = [rng.choice(EXTENTS) for _ in range(rank)]
            shape[rng.randrange(rank)] = 0
        else:
            shape = [rng.choice(NONZERO) for _ in range(rank)]
        if count(shape) <= cap:
            return shape


def factorize(n):
    factors, p = [], 2
    while n > 1:
        while n % p == 0:
            factors.append(p)
            n //= p
        p += 1
    return factors


def random_reshape_target(rng, n):
    """A shape of element count `n` and random rank 0..=6 (extents may merge factors)."""
    if n == 0:
        rank = rng.randrange(1, MAX_RANK + 1)
        shape = [rng.choice(EXTENTS) for _ in range(rank)]
        shape[rng.randrange(rank)] = 0
        return shape
    factors = factorize(n)
    low = 1 if factors else 0
    rank = rng.randrange(low, MAX_RANK + 1)
    shape = [1] * rank
    for factor in factors:
        shape[rng.randrange(rank)] *= factor
    return shape


# ------------------------------------------------------------- view chains


def random_step(rng, layout):
    """A random step for the current layout: mostly valid, sometimes not."""
    rank = len(layout.shape)
    bad = rng.random() < 0.12
    kinds = ["transpose", "permute", "slice", "reshape"] if rank else ["permute", "reshape", "reshape"]
    kind = rng.choice(kinds)
    if rank == 0 and kind == "permute" and not bad:
        return ("permute",)
    if kind == "transpose":
        a, b = rng.randrange(rank), rng.randrange(rank)
        if bad:
            if rng.random() < 0.5:
                a = rank + rng.randrange(3)
            else:
                b = rank + rng.randrange(3)
        return ("transpose", a, b)
    if kind == "permute":
        axes = list(range(rank))
        rng.shuffle(axes)
        if bad:
            mode = rng.randrange(3)
            if mode == 0 or rank == 0:
                axes = axes[:-1] if axes and rng.random() < 0.5 else axes + [rank]
            elif mode == 1:
                axes[rng.randrange(rank)] = rank + rng.randrange(2)
            elif rank >= 2:
                i, j = rng.sample(range(rank), 2)
                axes[j] = axes[i]
            else:
                axes = axes + axes
        return ("permute",) + tuple(axes)
    if kind == "slice":
        axis = rng.randrange(rank)
        extent = layout.shape[axis]
        end = rng.randrange(extent + 1)
        start = rng.randrange(end + 1)
        if bad:
            mode = rng.randrange(3)
            if mode == 0:
                axis = rank + rng.randrange(2)
            elif mode == 1:
                start, end = end + 1 + rng.randrange(3), end
            else:
                end = extent + 1 + rng.randrange(3)
        return ("slice", axis, start, end)
    n = count(layout.shape)
    if bad:
        if rng.random() < 0.2:
            return ("reshape", 0, USIZE_MAX, 2) if rng.random() < 0.5 else ("reshape", 2**62, 8)
        shape = random_reshape_target(rng, n + 1 + rng.randrange(7))
        return ("reshape",) + tuple(shape)
    return ("reshape",) + tuple(random_reshape_target(rng, n))


def np_layout_line(result, buffer, ours):
    """The `np ok ..` line when NumPy's layout of an ok step differs from ours, else None."""
    assert list(result.shape) == ours.shape, (result.shape, ours.shape)
    copy = not is_view_of(result, buffer)
    strides = [s // 8 for s in result.strides]
    assert all(s % 8 == 0 for s in result.strides)
    offset = "-" if copy else (data_pointer(result) - data_pointer(buffer)) // 8
    contiguous = int(bool(result.flags["C_CONTIGUOUS"]))
    if (strides, offset, contiguous, copy) == (ours.strides, ours.offset, int(ours.contiguous()), False):
        return None
    return "np ok %s %s %s %d %s" % (
        fmt_shape(result.shape), fmt_shape(strides), offset, contiguous, "copy" if copy else "view"
    )


def view_case(case_id, owner_shape, steps):
    lines = ["case %s" % case_id, "owner %s" % fmt_shape(owner_shape)]
    n = count(owner_shape)
    buffer = np.arange(n, dtype=np.float64)
    array = buffer.reshape(owner_shape)
    strides, _ = row_major(owner_shape)
    layout = Layout(owner_shape, strides, 0)
    lines.append("ok %s %s 0 %d" % (fmt_shape(owner_shape), fmt_shape(strides), int(layout.contiguous())))
    line = np_layout_line(array, buffer, layout)
    if line:
        lines.append(line)
    for step in steps:
        lines.append(fmt_step(step))
        try:
            ours = our_apply(layout, step)
        except OurError as error:
            lines.append("err %s" % error)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    result = np_apply(array, step)
                except Exception as exc:  # NumPy's own exception types vary by call
                    lines.append("np err %s" % np_error(exc))
                else:
                    copy = not is_view_of(result, buffer)
                    offset = "-" if copy else (data_pointer(result) - data_pointer(buffer)) // 8
                    lines.append(
                        "np ok %s %s %s %d %s"
                        % (
                            fmt_shape(result.shape),
                            fmt_shape([s // 8 for s in result.strides]),
                            offset,
                            int(bool(result.flags["C_CONTIGUOUS"])),
                            "copy" if copy else "view",
                        )
                    )
            break
        result = np_apply(array, step)
        lines.append(
            "ok %s %s %d %d"
            % (fmt_shape(ours.shape), fmt_shape(ours.strides), ours.offset, int(ours.contiguous()))
        )
        line = np_layout_line(result, buffer, ours)
        if line:
            lines.append(line)
        layout, array = ours, result
    values = [float(v) for v in layout.offsets()]
    assert same_bits(values, np.ascontiguousarray(array).ravel().tolist())
    lines.append("values %s" % fmt_values(values))
    lines.append("end")
    return lines


def view_cases(rng):
    fixed = [
        ([2, 3], [("transpose", 0, 1), ("reshape", 6)]),
        ([2, 3], [("slice", 1, 1, 3), ("reshape", 4)]),
        ([2, 0, 3], []),
        ([0, 3, 2], [("reshape", 3, 0)]),
        ([6], [("reshape", 2, 0, 3)]),
        ([], [("reshape", 1, 1), ("permute", 1, 0), ("reshape",)]),
        ([2, 1, 3], [("transpose", 0, 1), ("reshape", 6)]),
        ([2, 3], [("slice", 0, 1, 1), ("transpose", 0, 1), ("reshape", 0, 5)]),
        ([2, 3, 5], [("permute", 1, 1, 0)]),
        ([2, 3, 5], [("permute", 1, 0)]),
        ([2, 3], [("slice", 1, 3, 2)]),
        ([2, 3], [("slice", 1, 1, 9)]),
        ([2, 3], [("reshape", 0, USIZE_MAX, 2)]),
        ([2, 3], [("transpose", 0, 1), ("reshape", 4)]),
        ([], [("transpose", 0, 0)]),
        ([], [("slice", 0, 0, 1)]),
        ([3, 1, 2], [("slice", 1, 0, 0), ("transpose", 0, 2), ("reshape", 7, 0)]),
    ]
    cases = []
    for shape, steps in fixed:
        cases.append(view_case("view-%04d" % len(cases), shape, steps))
    while len(cases) < VIEW_CASES:
        rank = len(cases) % (MAX_RANK + 1)
        shape = random_shape(rng, rank, 420)
        steps = draw_chain(rng, Layout(shape, row_major(shape)[0], 0), random_step, our_apply)
        cases.append(view_case("view-%04d" % len(cases), shape, steps))
    return cases


# ------------------------------------------------------------- operands


def random_operand(rng, view_shape):
    """An owner shape, permutation and optional slice whose view has `view_shape`."""
    rank = len(view_shape)
    perm = list(range(rank))
    rng.shuffle(perm)
    owner = [0] * rank
    for k, axis in enumerate(perm):
        owner[axis] = view_shape[k]
    cut = None
    if rank and rng.random() < 0.4:
        k = rng.randrange(rank)
        extra = 1 + rng.randrange(3)
        start = rng.randrange(extra + 1)
        owner[perm[k]] += extra
        cut = (k, start, start + view_shape[k])
    return owner, perm, cut


def fmt_operand(owner, perm, cut):
    cut_text = "-" if cut is None else "%d:%d:%d" % cut
    return "%s perm=%s slice=%s" % (fmt_shape(owner), fmt_shape(perm), cut_text)


def np_operand(values, owner, perm, cut):
    array = np.array(values, dtype=np.float64).reshape(owner).transpose(perm)
    if cut is not None:
        axis, start, end = cut
        array = array[(slice(None),) * axis + (slice(start, end),)]
    return array


# ------------------------------------------------------------- broadcasting


def broadcast_case(rng, case_id):
    while True:
        rank = rng.randrange(MAX_RANK + 1)
        out = random_shape(rng, rank, 400, 0.15)
        sides = [rng.randrange(rank + 1), rank]
        rng.shuffle(sides)
        shapes = []
        for side_rank in sides:
            shape = out[rank - side_rank:]
            shapes.append([1 if rng.random() < 0.3 else e for e in shape])
        left, right = shapes
        if rng.random() < 0.25:
            common = min(len(left), len(right))
            if common:
                k = rng.randrange(common)
                a, b = rng.sample([0, 2, 3, 5, 7], 2)
                left[len(left) - 1 - k], right[len(right) - 1 - k] = a, b
        if count(left) <= 400 and count(right) <= 400:
            break
    lines = ["case %s" % case_id]
    operands = []
    for name, shape, scale in (("left", left, None), ("right", right, 1024.0)):
        owner, perm, cut = random_operand(rng, shape)
        n = count(owner)
        values = [float(i) if scale is None else (i + 1) / scale for i in range(n)]
        operands.append(np_operand(values, owner, perm, cut))
        assert list(operands[-1].shape) == shape
        lines.append("%s %s" % (name, fmt_operand(owner, perm, cut)))
    try:
        shape = our_broadcast(left, right)
    except OurError as error:
        lines.append("err %s" % error)
        try:
            np.subtract(*operands)
        except ValueError as exc:
            lines.append("np err %s" % np_error(exc))
        else:
            raise AssertionError("NumPy broadcast what we reject: %s %s" % (left, right))
    else:
        result = np.subtract(*operands)
        assert list(result.shape) == shape == list(np.broadcast_shapes(tuple(left), tuple(right)))
        lines.append("ok %s %s" % (fmt_shape(shape), fmt_values(result.ravel().tolist())))
    lines.append("end")
    return lines


# ------------------------------------------------------------- reductions

NAN_PAYLOADS = [0x7FF8000000000000 | k for k in (1, 2, 3, 0x5A5, 0xBEEF)] + [
    0xFFF8000000000000 | k for k in (0, 7, 0xC0FFEE)
]


def random_value(rng):
    roll = rng.random()
    if roll < 0.10:
        return -0.0
    if roll < 0.18:
        return 0.0
    if roll < 0.24:
        return from_bits(rng.choice(NAN_PAYLOADS))
    if roll < 0.27:
        return rng.choice([1e16, -1e16, 1e-300, math.inf, -math.inf, 0.1, 1.0 / 3.0])
    if roll < 0.60:
        return float(rng.randrange(-3, 4))
    return round(rng.uniform(-10.0, 10.0), rng.randrange(1, 4))


def np_reduce(array, op, axis, keep):
    function = {"sum": np.sum, "mean": np.mean, "max": np.max}[op]
    return function(array, axis=axis, keepdims=keep)


def decimal_value(rng):
    return round(rng.uniform(-10.0, 10.0), rng.randrange(1, 4))


def reduce_case(rng, case_id, view_shape=None):
    """Random values (NaNs, signed zeros, ties, inexact decimals) over a random
    view; `view_shape` fixes a shape with a long axis and decimals only, where
    NumPy's pairwise summation rounds differently from our ascending fold."""
    if view_shape is None:
        rank = int(case_id[-4:]) % (MAX_RANK + 1)
        view_shape, value = random_shape(rng, rank, 96, 0.2), random_value
    else:
        rank, value = len(view_shape), decimal_value
    owner, perm, cut = random_operand(rng, view_shape)
    data = [value(rng) for _ in range(count(owner))]
    array = np_operand(data, owner, perm, cut)
    assert same_bits(np.array(data).tolist(), data)  # NaN payloads survive NumPy
    lines = ["case %s" % case_id, "owner %s" % fmt_operand(owner, perm, cut)]
    lines.append("data %s" % fmt_values(data))
    for op in ("sum", "mean", "max"):
        for axis in range(max(rank, 1) + (1 if rank else 0)):
            for keep in (1, 0):
                head = "%s %d %d" % (op, axis, keep)
                exact = op == "max"
                try:
                    shape, values = our_reduce(array, op, axis, keep)
                    ours = "ok %s %s" % (fmt_shape(shape), fmt_values(values, exact))
                except OurError as error:
                    shape, values, ours = None, None, "err %s" % error
                lines.append("r %s %s" % (head, ours))
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        result = np.asarray(np_reduce(array, op, axis, bool(keep)))
                    except Exception as exc:  # AxisError, ValueError
                        lines.append("np %s err %s" % (head, np_error(exc)))
                        result = None
                for warning in caught:
                    lines.append("np-warn %s %s" % (head, " ".join(str(warning.message).split())))
                if result is None:
                    continue
                np_values = result.ravel().tolist()
                agree = shape == list(result.shape) and (
                    same_bits(values, np_values)
                    or (
                        not exact
                        and all(
                            bits(a) == bits(b) or (math.isnan(a) and math.isnan(b))
                            for a, b in zip(values, np_values)
                        )
                    )
                )
                if not agree:
                    lines.append("np %s ok %s %s" % (head, fmt_shape(result.shape), fmt_values(np_values)))
    lines.append("end")
    return lines


# ------------------------------------------------------------------ output


def header(name, description, cases):
    return [
        "# %s: %s" % (name, description),
        "# Generated by scripts/numpy_fixtures.py (seed %d, NumPy %s); do not edit by hand."
        % (SEED, np.__version__),
        "# %d cases. Format: see the script's docstring and tests/numpy_conformance.rs." % cases,
    ]


def render():
    files = {}
    rng = random.Random(SEED)
    cases = view_cases(rng)
    files["views.txt"] = header(
        "views.txt", "transpose / permute / slice / reshape chains over owners 0.0, 1.0, ...", len(cases)
    ) + [line for case in cases for line in case]

    rng = random.Random(SEED + 1)
    cases = [broadcast_case(rng, "bcast-%04d" % i) for i in range(BROADCAST_CASES)]
    files["broadcast.txt"] = header(
        "broadcast.txt", "broadcasting pairs, values of left - right", len(cases)
    ) + [line for case in cases for line in case]

    rng = random.Random(SEED + 2)
    cases = [reduce_case(rng, "reduce-%04d" % i) for i in range(REDUCE_CASES)]
    for shape in ([40], [3, 40], [40, 3], [2, 129], [9, 2], [2, 16, 2]):
        cases.append(reduce_case(rng, "reduce-long-%04d" % len(cases), shape))
    files["reduce.txt"] = header(
        "reduce.txt", "sum / mean / max on every axis, keep_dim both ways", len(cases)
    ) + [line for case in cases for line in case]
    files["view_ops.txt"] = view_op_file(header, random.Random(SEED + 3))

    from fixture_data_ops import data_op_files  # concat, stack, take, argmax, softmax

    files.update(data_op_files(SEED, header))
    return {name: "".join(line.rstrip() + "\n" for line in lines) for name, lines in files.items()}


def main():
    check = "--check" in sys.argv[1:]
    files = render()
    stale = []
    for name, text in sorted(files.items()):
        path = os.path.join(OUT_DIR, name)
        if check:
            try:
                with open(path, encoding="utf-8") as handle:
                    if handle.read() != text:
                        stale.append(name)
            except FileNotFoundError:
                stale.append(name)
            continue
        os.makedirs(OUT_DIR, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        print("wrote %s (%d bytes)" % (os.path.relpath(path, ROOT), len(text)))
    if stale:
        print("stale fixtures: %s" % ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
