"""The NumPy fixtures of the data-movement and fused ops, for scripts/numpy_fixtures.py.

NumPy is the oracle for the values of `concatenate`, `stack`, `take` and
`argmax` (data movement and positions are exact); our shapes and error order
come from scripts/fixture_rules.py. The softmax reference is computed in
Python in our order (the max policy, the crate's `exp`, the
tree sum of `sum_axis`, one division; scripts/crate_numerics.py); NumPy's own softmax (`np.exp(a -
a.max(...))`, a pairwise sum) is recorded on an `np` line where it differs.

concat.txt / stack.txt: `axis <k>`, then one `input <operand>` line per
input (the operand format of broadcast.txt; input i's owner holds
1000 * i + j at storage index j), then `ok <shape> <values..>` or `err ..`
and, for an error, NumPy's `np err ..` (or `np ok <shape>` if it accepts).

take.txt: `input <operand>` (values j + 0.5), `axis <k>`, `indices <i..>`,
then `ok ..` / `err ..` and `np ..` as above.

argmax.txt: `owner <operand>`, `data <values..>` (storage order, the
tricky values of reduce.txt), then `a <axis> <keep 0|1> ok <shape>
<positions..>` or `a <axis> <keep> err ..` for every axis and one past the
last; `np <axis> <keep> ok|err ..` where NumPy's `argmax` differs.

softmax.txt: `owner`, `data` as in argmax.txt (masked groups hold -inf), then
`s <axis> ok <shape> <values..>` (a NaN produced by arithmetic is `nan`) or
`s <axis> err ..`; `np <axis> ok|err ..` where NumPy's softmax differs.
"""

import math
import random
import warnings

import numpy as np

import numpy_fixtures as nf  # the shared formatting and operand helpers
from fixture_rules import OurError, our_argmax, our_join, our_softmax, our_take

JOIN_CASES = 200
TAKE_CASES = 220
ARGMAX_CASES = 180
SOFTMAX_CASES = 180


def operand_lines(rng, shape, name, scale):
    """A random layout of `shape`: (line, array), owner values scale(j)."""
    owner, perm, cut = nf.random_operand(rng, shape)
    values = [scale(j) for j in range(nf.count(owner))]
    array = nf.np_operand(values, owner, perm, cut)
    assert list(array.shape) == list(shape)
    return "%s %s" % (name, nf.fmt_operand(owner, perm, cut)), array


def numpy_outcome(call):
    """`np ok <shape> <values>` / `np err ..` for what NumPy does."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            result = np.asarray(call())
        except Exception as exc:  # ValueError, AxisError, IndexError
            return None, "np err %s" % nf.np_error(exc)
    return result, None


def outcome_lines(our_shape, result, np_err):
    """`ok <shape> <NumPy's values>` when our rules accept (NumPy must agree
    on the shape), else `err <ours>` and NumPy's line; then `end`."""
    try:
        shape = our_shape()
    except OurError as error:
        return ["err %s" % error, np_err or "np ok %s" % nf.fmt_shape(result.shape), "end"]
    assert np_err is None and list(result.shape) == shape, (shape, np_err)
    return ["ok %s %s" % (nf.fmt_shape(shape), nf.fmt_values(result.ravel().tolist())), "end"]


def join_case(rng, case_id, stack):
    rank = rng.randrange(0 if stack else 1, nf.MAX_RANK + 1)
    base = nf.random_shape(rng, rank, 60, 0.15)
    count = rng.randrange(1, 5)
    axis = rng.randrange(rank + 1 if stack else max(rank, 1))
    shapes = []
    for _ in range(count):
        shape = list(base)
        if not stack and rank:
            shape[axis] = rng.choice(nf.EXTENTS)
        shapes.append(shape)
    roll = rng.random()
    if roll < 0.15 and rank and count > 1:  # one input disagrees on some axis
        shapes[rng.randrange(1, count)][rng.randrange(rank)] += 1 + rng.randrange(2)
    elif roll < 0.20:
        axis = (rank + 1 if stack else rank) + rng.randrange(2)
    elif roll < 0.23:
        shapes = []
    elif roll < 0.26 and count > 1 and not stack:  # ranks differ (dynamic API only)
        shapes[rng.randrange(1, count)].append(1)
    lines = ["case %s" % case_id, "axis %d" % axis]
    arrays = []
    for i, shape in enumerate(shapes):
        line, array = operand_lines(rng, shape, "input", lambda j, i=i: float(1000 * i + j))
        lines.append(line)
        arrays.append(array)
    function = np.stack if stack else np.concatenate
    outcome = numpy_outcome(lambda: function(arrays, axis=axis))
    return lines + outcome_lines(lambda: our_join(shapes, axis, stack), *outcome)


def take_case(rng, case_id):
    rank = rng.randrange(0, nf.MAX_RANK + 1)
    shape = nf.random_shape(rng, rank, 80, 0.15)
    axis = rng.randrange(max(rank, 1))
    if rng.random() < 0.08:
        axis = rank + rng.randrange(2)
    extent = shape[axis] if axis < rank else 0
    indices = [rng.randrange(extent) for _ in range(rng.randrange(6))] if extent else []
    if rng.random() < 0.15:
        indices.insert(rng.randrange(len(indices) + 1), extent + rng.randrange(3))
    line, array = operand_lines(rng, shape, "input", lambda j: j + 0.5)
    lines = ["case %s" % case_id, line, "axis %d" % axis]
    lines.append("indices %s" % " ".join(str(i) for i in indices))
    picked = np.array(indices, dtype=np.intp)
    outcome = numpy_outcome(lambda: np.take(array, picked, axis=axis))
    return lines + outcome_lines(lambda: our_take(shape, axis, indices), *outcome)


def tricky_owner(rng, case_id, masked=False):
    """A random view (ranks 0..=6) of tricky values; when `masked`, every
    third group along a random axis becomes -inf (a fully masked row)."""
    rank = int(case_id[-4:]) % (nf.MAX_RANK + 1)
    shape = nf.random_shape(rng, rank, 160, 0.1)
    owner, perm, cut = nf.random_operand(rng, shape)
    data = [nf.random_value(rng) for _ in range(nf.count(owner))]
    array = nf.np_operand(data, owner, perm, cut)
    if masked and rank and array.size:
        axis = rng.randrange(rank)
        # Mask every third group along `axis` in the owner's storage.
        index = np.arange(nf.count(owner)).reshape(owner).transpose(perm)
        if cut is not None:
            index = index[(slice(None),) * cut[0] + (slice(cut[1], cut[2]),)]
        moved = np.moveaxis(index, axis, -1).reshape(-1, array.shape[axis])
        for group in moved[::3]:
            for j in group:
                data[j] = -math.inf
        array = nf.np_operand(data, owner, perm, cut)
    lines = ["case %s" % case_id, "owner %s" % nf.fmt_operand(owner, perm, cut)]
    lines.append("data %s" % nf.fmt_values(data))
    return lines, array, rank


def argmax_case(rng, case_id):
    lines, array, rank = tricky_owner(rng, case_id)
    for axis in range(rank + 1):
        for keep in (1, 0):
            head = "%d %d" % (axis, keep)
            try:
                shape, positions = our_argmax(array, axis, keep)
                ours = "ok %s %s" % (nf.fmt_shape(shape), " ".join(str(p) for p in positions))
            except OurError as error:
                shape, positions, ours = None, None, "err %s" % error
            lines.append("a %s %s" % (head, ours))
            result, np_err = numpy_outcome(lambda: np.argmax(array, axis=axis, keepdims=bool(keep)))
            if np_err is not None:
                lines.append("np %s err %s" % (head, np_err[len("np err "):]))
            elif shape != list(result.shape) or positions != result.ravel().tolist():
                theirs = " ".join(str(p) for p in result.ravel().tolist())
                lines.append("np %s ok %s %s" % (head, nf.fmt_shape(result.shape), theirs))
    lines.append("end")
    return lines


def np_softmax(array, axis):
    e = np.exp(array - np.max(array, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_case(rng, case_id):
    lines, array, rank = tricky_owner(rng, case_id, masked=True)
    for axis in range(rank + 1):
        try:
            shape, values = our_softmax(array, axis)
            ours = nf.fmt_values(values, False)
            lines.append("s %d ok %s %s" % (axis, nf.fmt_shape(shape), ours))
        except OurError as error:
            shape, values = None, None
            lines.append("s %d err %s" % (axis, error))
        with np.errstate(all="ignore"):
            result, np_err = numpy_outcome(lambda: np_softmax(array, axis))
        if np_err is not None:
            lines.append("np %d err %s" % (axis, np_err[len("np err "):]))
            continue
        theirs = result.ravel().tolist()
        agree = shape == list(result.shape) and all(
            nf.bits(a) == nf.bits(b) or (math.isnan(a) and math.isnan(b))
            for a, b in zip(values, theirs)
        )
        if not agree:
            text = nf.fmt_values(theirs, False)
            lines.append("np %d ok %s %s" % (axis, nf.fmt_shape(result.shape), text))
    lines.append("end")
    return lines


def data_op_files(seed, header):
    """The five fixture files as {name: lines}; `header(name, what, count)`."""
    specs = [
        ("concat.txt", "np.concatenate of strided inputs, values 1000 * input + index",
         lambda rng, i: join_case(rng, "concat-%04d" % i, False), JOIN_CASES),
        ("stack.txt", "np.stack of strided inputs, values 1000 * input + index",
         lambda rng, i: join_case(rng, "stack-%04d" % i, True), JOIN_CASES),
        ("take.txt", "index_select as np.take, with the first bad index",
         lambda rng, i: take_case(rng, "take-%04d" % i), TAKE_CASES),
        ("argmax.txt", "argmax over every axis, first NaN else first maximum",
         lambda rng, i: argmax_case(rng, "argmax-%04d" % i), ARGMAX_CASES),
        ("softmax.txt", "softmax over every axis in our order (max, crate exp, tree sum, divide)",
         lambda rng, i: softmax_case(rng, "softmax-%04d" % i), SOFTMAX_CASES),
    ]
    files = {}
    rng = random.Random(seed + 3)
    for name, what, case, count in specs:
        cases = [case(rng, i) for i in range(count)]
        files[name] = header(name, what, len(cases)) + [line for lines in cases for line in lines]
    return files
