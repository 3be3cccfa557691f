#!/usr/bin/env python3
"""Write tests/fixtures/autograd/: per-operation backward references from PyTorch
autograd in float64, for the crate's reverse-mode autodiff.

Files (all rewritten byte for byte by this script):

- `<op>.safetensors` (one per op, written by `safetensors_io.serialize`, header
  sorted): for every case of that op, with `<case>` the case's name:
    `<case>.x0`, `<case>.x1`, ...  the inputs (F64; integer inputs such as indices
                                    and targets I64, and those have no gradient),
    `<case>.y`                      the output y = f(x0, x1, ...) (F64, contiguous),
    `<case>.dy`                     a seeded random cotangent of y's shape,
    `<case>.dx0`, `<case>.dx1`, ... the gradients: torch.autograd.grad(y, xs, dy),
                                    i.e. dxk = (dy · ∂y/∂xk) summed over y, of xk's shape,
    `<case>.indices` (max only)     the I64 indices torch.max(x, dim) returned.
- `cases.json`: every case in order: its op, file, the torch expression, the
  parameters (axis, keepdim, shapes, permutation, slice ranges, ...), the key,
  dtype and shape of every input, output, cotangent and gradient; plus the tie
  rules of the max-like reductions (below) and these conventions.

Conventions:
- Shapes are row-major, as torch; a shape [] is a 0-d scalar tensor (one value).
- Broadcasting is NumPy's / torch's: shapes aligned at the right, size-1 or
  missing axes stretched; the gradient of a broadcast operand is dy's
  contribution summed over the stretched axes, back to the operand's shape.
- Inputs: NumPy PCG64 (`default_rng(crc32(case name))`, uniform draws only, which
  NumPy keeps stable), one generator per case so adding a case changes no other:
  values in [-2, 2]; in [0.5, 2] where the op needs positive inputs (log, sqrt,
  rsqrt); magnitudes in [0.5, 2] with random sign for divisors and recip.
  Cotangents dy uniform in [-1, 1] from the same generator, drawn after the inputs.
- Every axis has 2..6 entries; the whole folder stays well under 1 MB.
- The view ops (permute, transpose, reshape, narrow/slice, select, unsqueeze,
  squeeze, expand) are in for completeness: their gradients are the inverse
  rearrangement of dy (zeros where a slice dropped entries; sums over the
  stretched axes for expand).
- gelu_tanh = F.gelu(x, approximate='tanh') = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  (GPT-2's gelu_new); gelu_erf = F.gelu(x) = 0.5 x (1 + erf(x / sqrt 2)).
  silu(x) = x sigmoid(x); rsqrt(x) = 1/sqrt(x); recip(x) = 1/x; square(x) = x*x.
- log_softmax / softmax: over the given axis. cross_entropy: F.cross_entropy(logits
  [N, V], targets I64 [N]) with mean reduction = mean_n (logsumexp(logits_n) -
  logits_n[target_n]), a scalar; only the logits get a gradient:
  dlogits = dy · (softmax(logits) - onehot(targets)) / N.
- layer_norm: F.layer_norm(x, (C,), w, b, eps=1e-5) over the last axis: biased
  variance, (x - mean) / sqrt(var + eps) * w + b. rms_norm, written out:
  x / sqrt(mean(x^2, last axis) + 1e-5) * w (no mean subtraction, no bias).
- matmul: torch.matmul; "transpose": which operand is passed transposed (a
  `.transpose(-1, -2)` view of the stored input, whose stored shape is listed).
- embedding / index_select: repeated indices, so the gradient scatter-adds: the
  row of an index that appears k times gets the sum of its k dy rows.

Every gradient of a differentiable case (all but the tie cases) is checked
against central differences along a random direction (`check_directional`).

Tie rules of the max-like reductions (checked by the script, recorded in
`cases.json` "tie_rules"):
- `torch.max(x, dim)` (op `max`): values and indices; its backward sends all of
  dy to the ONE index it returned, others get 0. On the CPU the index returned
  among equal maxima is the FIRST (lowest) one along the axis; the `max_ties_*`
  cases have exact ties, and their `<case>.indices` say which index won.
- `torch.amax(x, dim)` (op `amax`): its backward splits dy EVENLY among all the
  entries equal to the max: each of k tied entries gets dy / k.
- `torch.max(x)` (no dim, op `max_all`) splits evenly too, as amax.

Reproducibility: the script (through `scripts/fixture_cli.py`) runs torch on one
thread with `MKL_CBWR=COMPATIBLE` and `ATEN_CPU_CAPABILITY=default` (set before
torch is imported).

    /work/venv/bin/python scripts/autograd_fixture.py           # (re)write tests/fixtures/autograd/
    /work/venv/bin/python scripts/autograd_fixture.py --check   # regenerate into a temp dir,
                                                                # exit 1 unless every byte matches

Versions used for the committed fixture: Python 3.11.7, torch 2.15.0 (PyPI wheel,
run on CPU), numpy 2.4.6.
"""

import sys
import zlib
from pathlib import Path

from fixture_cli import fixture_main, readable_json  # noqa: I001  (first: pins torch's numerics before torch loads)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from safetensors_io import serialize  # noqa: E402  (scripts/safetensors_io.py)

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "autograd"
EPS = 1e-5

# Input kinds: how a case's inputs are drawn (see the docstring).
REAL, POSITIVE, NONZERO = "real", "positive", "nonzero"


class Case:
    """One fixture case: `fn(*tensors)` -> y, with the inputs drawn as `inputs`
    says: a list of (kind, shape) for float inputs or ("int", array) for fixed
    integer inputs, or ("given", float array) for values chosen by hand."""

    def __init__(self, op, name, expr, fn, inputs, params=None):
        self.op, self.name, self.expr, self.fn, self.inputs, self.params = op, name, expr, fn, inputs, params or {}


def draw(rng, kind, shape):
    if kind == REAL:
        return -2.0 + 4.0 * rng.random(shape)
    if kind == POSITIVE:
        return 0.5 + 1.5 * rng.random(shape)
    if kind == NONZERO:
        magnitude = 0.5 + 1.5 * rng.random(shape)
        return np.where(rng.random(shape) < 0.5, -magnitude, magnitude)
    raise ValueError(kind)


def ties(rng, shape):
    """Values from {-1, 0, 1, 2} (so equal maxima are common along every axis)."""
    return np.floor(rng.random(shape) * 4.0) - 1.0


def cases() -> list:
    out = []
    r3 = (REAL, [2, 3, 4])

    # Binary elementwise with broadcasting.
    binary = {
        "add": ("x0 + x1", lambda a, b: a + b, REAL),
        "sub": ("x0 - x1", lambda a, b: a - b, REAL),
        "mul": ("x0 * x1", lambda a, b: a * b, REAL),
        "div": ("x0 / x1", lambda a, b: a / b, NONZERO),
    }
    shapes = {
        "same": ([2, 3, 4], [2, 3, 4]),
        "bcast_last": ([2, 3, 4], [4]),
        "bcast_col": ([2, 3, 4], [3, 1]),
        "scalar": ([2, 3, 4], []),
        "bcast_both": ([3, 1], [1, 4]),
        "bcast_lhs": ([4], [2, 3, 4]),
        "scalar_lhs": ([], [2, 3]),
    }
    for op, (expr, fn, rhs_kind) in binary.items():
        for tag, (sa, sb) in shapes.items():
            out.append(Case(op, f"{op}_{tag}", expr, fn, [(REAL, sa), (rhs_kind, sb)], {"shapes": [sa, sb]}))

    # Unary elementwise.
    unary = {
        "neg": ("-x0", lambda x: -x, REAL),
        "exp": ("torch.exp(x0)", torch.exp, REAL),
        "ln": ("torch.log(x0)", torch.log, POSITIVE),
        "tanh": ("torch.tanh(x0)", torch.tanh, REAL),
        "sigmoid": ("torch.sigmoid(x0)", torch.sigmoid, REAL),
        "silu": ("F.silu(x0)", F.silu, REAL),
        "gelu_tanh": ("F.gelu(x0, approximate='tanh')", lambda x: F.gelu(x, approximate="tanh"), REAL),
        "gelu_erf": ("F.gelu(x0)", F.gelu, REAL),
        "sqrt": ("torch.sqrt(x0)", torch.sqrt, POSITIVE),
        "rsqrt": ("torch.rsqrt(x0)", torch.rsqrt, POSITIVE),
        "recip": ("torch.reciprocal(x0)", torch.reciprocal, NONZERO),
        "square": ("torch.square(x0)", torch.square, REAL),
    }
    for op, (expr, fn, kind) in unary.items():
        out.append(Case(op, op, expr, fn, [(kind, [2, 3, 4])], {"shapes": [[2, 3, 4]]}))

    # Reductions over one axis, keepdim false / true, and over everything.
    for op, fn in (("sum", torch.sum), ("mean", torch.mean)):
        for axis in (0, 1, 2):
            for keep in (False, True):
                out.append(
                    Case(
                        op,
                        f"{op}_axis{axis}{'_keep' if keep else ''}",
                        f"torch.{op}(x0, dim={axis}, keepdim={keep})",
                        lambda x, fn=fn, axis=axis, keep=keep: fn(x, dim=axis, keepdim=keep),
                        [r3],
                        {"axis": axis, "keepdim": keep},
                    )
                )
        out.append(Case(op, f"{op}_all", f"torch.{op}(x0)", fn, [r3], {"axis": None, "keepdim": False}))

    for axis in (0, 1, 2):
        for keep in (False, True):
            suffix = f"axis{axis}{'_keep' if keep else ''}"
            for values, tag in (("real", ""), ("ties", "ties_")):
                source = r3 if values == "real" else ("ties", [2, 3, 4])
                out.append(
                    Case(
                        "max",
                        f"max_{tag}{suffix}",
                        f"torch.max(x0, dim={axis}, keepdim={keep}).values",
                        lambda x, axis=axis, keep=keep: torch.max(x, dim=axis, keepdim=keep),
                        [source],
                        {"axis": axis, "keepdim": keep, "ties": values == "ties"},
                    )
                )
            out.append(
                Case(
                    "amax",
                    f"amax_ties_{suffix}",
                    f"torch.amax(x0, dim={axis}, keepdim={keep})",
                    lambda x, axis=axis, keep=keep: torch.amax(x, dim=axis, keepdim=keep),
                    [("ties", [2, 3, 4])],
                    {"axis": axis, "keepdim": keep, "ties": True},
                )
            )
    out.append(Case("max_all", "max_all_ties", "torch.max(x0)", torch.max, [("ties", [2, 3, 4])], {"ties": True}))

    # Softmax family.
    for axis, tag in ((-1, "last"), (1, "middle")):
        out.append(
            Case(
                "softmax",
                f"softmax_{tag}",
                f"torch.softmax(x0, dim={axis})",
                lambda x, axis=axis: torch.softmax(x, dim=axis),
                [(REAL, [2, 3, 5])],
                {"axis": axis},
            )
        )
    out.append(
        Case(
            "log_softmax",
            "log_softmax_last",
            "torch.log_softmax(x0, dim=-1)",
            lambda x: torch.log_softmax(x, dim=-1),
            [(REAL, [2, 3, 5])],
            {"axis": -1},
        )
    )
    targets = np.array([0, 4, 2, 2, 1, 4], dtype=np.int64)
    out.append(
        Case(
            "cross_entropy",
            "cross_entropy_mean",
            "F.cross_entropy(x0, x1)  (reduction='mean')",
            lambda logits, t: F.cross_entropy(logits, t),
            [(REAL, [6, 5]), ("int", targets)],
            {"reduction": "mean", "n": 6, "v": 5},
        )
    )

    # Normalizations.
    out.append(
        Case(
            "layer_norm",
            "layer_norm_last",
            "F.layer_norm(x0, (6,), x1, x2, eps=1e-5)",
            lambda x, w, b: F.layer_norm(x, (x.shape[-1],), w, b, eps=EPS),
            [(REAL, [2, 3, 6]), ("affine_w", [6]), ("affine_b", [6])],
            {"axis": -1, "eps": EPS},
        )
    )
    out.append(
        Case(
            "rms_norm",
            "rms_norm_last",
            "x0 / torch.sqrt((x0 * x0).mean(-1, keepdim=True) + 1e-5) * x1",
            lambda x, w: x / torch.sqrt((x * x).mean(-1, keepdim=True) + EPS) * w,
            [(REAL, [2, 3, 6]), ("affine_w", [6])],
            {"axis": -1, "eps": EPS},
        )
    )

    # Matmul.
    matmuls = [
        ("matmul_2d", [3, 4], [4, 5], None),
        ("matmul_3d", [2, 3, 4], [2, 4, 5], None),
        ("matmul_3d_2d", [2, 3, 4], [4, 5], None),
        ("matmul_4d_bcast", [2, 1, 3, 4], [3, 4, 5], None),
        ("matmul_4d", [2, 2, 3, 4], [2, 2, 4, 5], None),
        ("matmul_rhs_t", [3, 4], [5, 4], "rhs"),
        ("matmul_lhs_t", [4, 3], [4, 5], "lhs"),
        ("matmul_3d_rhs_t", [2, 3, 4], [2, 5, 4], "rhs"),
    ]
    for name, sa, sb, transpose in matmuls:
        if transpose == "rhs":
            expr, fn = "x0 @ x1.transpose(-1, -2)", lambda a, b: a @ b.transpose(-1, -2)
        elif transpose == "lhs":
            expr, fn = "x0.transpose(-1, -2) @ x1", lambda a, b: a.transpose(-1, -2) @ b
        else:
            expr, fn = "x0 @ x1", lambda a, b: a @ b
        out.append(
            Case("matmul", name, expr, fn, [(REAL, sa), (REAL, sb)], {"shapes": [sa, sb], "transpose": transpose})
        )

    # Gathers with repeated indices.
    ids = np.array([[1, 4, 1, 0, 5], [4, 4, 2, 1, 3]], dtype=np.int64)
    out.append(
        Case(
            "embedding",
            "embedding_repeat",
            "F.embedding(x1, x0)",
            lambda w, i: F.embedding(i, w),
            [(REAL, [6, 4]), ("int", ids)],
            {"num": 6, "dim": 4},
        )
    )
    for axis, index in ((1, [4, 0, 4, 2, 4]), (0, [2, 2, 0])):
        out.append(
            Case(
                "index_select",
                f"index_select_axis{axis}",
                f"torch.index_select(x0, {axis}, x1)",
                lambda x, i, axis=axis: torch.index_select(x, axis, i),
                [(REAL, [3, 5, 2]), ("int", np.array(index, dtype=np.int64))],
                {"axis": axis, "index": index},
            )
        )

    # Concat and stack.
    for name, shapes_, axis in (
        ("concat_axis1", [[2, 3], [2, 5]], 1),
        ("concat_axis0_three", [[1, 3, 2], [2, 3, 2], [3, 3, 2]], 0),
        ("concat_last", [[2, 3, 1], [2, 3, 4]], -1),
    ):
        out.append(
            Case(
                "concat",
                name,
                f"torch.cat([x0, ...], dim={axis})",
                lambda *xs, axis=axis: torch.cat(xs, dim=axis),
                [(REAL, s) for s in shapes_],
                {"axis": axis, "shapes": shapes_},
            )
        )
    for axis in (0, 1, 2):
        out.append(
            Case(
                "stack",
                f"stack_axis{axis}",
                f"torch.stack([x0, x1, x2], dim={axis})",
                lambda *xs, axis=axis: torch.stack(xs, dim=axis),
                [(REAL, [2, 3])] * 3,
                {"axis": axis, "shapes": [[2, 3]] * 3},
            )
        )

    # Views.
    for name, shape, perm in (
        ("permute_201", [2, 3, 4], [2, 0, 1]),
        ("permute_102", [2, 3, 4], [1, 0, 2]),
        ("permute_heads", [2, 3, 4, 5], [0, 2, 1, 3]),
    ):
        out.append(
            Case(
                "permute",
                name,
                f"x0.permute({perm})",
                lambda x, perm=perm: x.permute(perm),
                [(REAL, shape)],
                {"perm": perm},
            )
        )
    for name, a, b in (("transpose_02", 0, 2), ("transpose_last2", -1, -2)):
        out.append(
            Case(
                "transpose",
                name,
                f"x0.transpose({a}, {b})",
                lambda x, a=a, b=b: x.transpose(a, b),
                [r3],
                {"axes": [a, b]},
            )
        )
    for name, to in (
        ("reshape_6x4", [6, 4]),
        ("reshape_4x3x2", [4, 3, 2]),
        ("reshape_flat", [24]),
        ("reshape_split", [2, 3, 2, 2]),
    ):
        out.append(Case("reshape", name, f"x0.reshape({to})", lambda x, to=to: x.reshape(to), [r3], {"to": to}))
    out.append(
        Case(
            "reshape",
            "reshape_of_transpose",
            "x0.transpose(0, 1).reshape([3, 8])",
            lambda x: x.transpose(0, 1).reshape(3, 8),
            [r3],
            {"transpose_first": [0, 1], "to": [3, 8]},
        )
    )
    for name, axis, start, length in (("narrow_axis1", 1, 1, 2), ("narrow_last", 2, 0, 3), ("narrow_axis0", 0, 1, 1)):
        out.append(
            Case(
                "narrow",
                name,
                f"x0.narrow({axis}, {start}, {length})",
                lambda x, axis=axis, start=start, length=length: x.narrow(axis, start, length),
                [(REAL, [2, 4, 5])],
                {"axis": axis, "start": start, "length": length},
            )
        )
    out.append(
        Case(
            "slice",
            "slice_step",
            "x0[:, 0:4:2, 1:4]",
            lambda x: x[:, 0:4:2, 1:4],
            [(REAL, [2, 4, 5])],
            {"ranges": [[0, 2, 1], [0, 4, 2], [1, 4, 1]], "range_format": "[start, stop, step] per axis"},
        )
    )
    for name, axis, index in (("select_axis1", 1, 2), ("select_axis0", 0, 1), ("select_last", -1, 0)):
        out.append(
            Case(
                "select",
                name,
                f"x0.select({axis}, {index})",
                lambda x, axis=axis, index=index: x.select(axis, index),
                [r3],
                {"axis": axis, "index": index},
            )
        )
    for name, axis in (("unsqueeze_axis1", 1), ("unsqueeze_last", -1)):
        out.append(
            Case(
                "unsqueeze", name, f"x0.unsqueeze({axis})", lambda x, axis=axis: x.unsqueeze(axis), [r3], {"axis": axis}
            )
        )
    out.append(
        Case("squeeze", "squeeze_axis1", "x0.squeeze(1)", lambda x: x.squeeze(1), [(REAL, [2, 1, 4])], {"axis": 1})
    )
    out.append(
        Case("squeeze", "squeeze_all", "x0.squeeze()", lambda x: x.squeeze(), [(REAL, [1, 3, 1])], {"axis": None})
    )
    for name, shape, to in (
        ("expand_col", [3, 1], [2, 3, 4]),
        ("expand_row", [4], [2, 3, 4]),
        ("expand_scalar", [], [2, 3]),
        ("expand_mid", [1, 3, 1], [2, 3, 4]),
    ):
        out.append(
            Case(
                "expand",
                name,
                f"x0.expand({to})  (broadcast_to)",
                lambda x, to=to: x.expand(to),
                [(REAL, shape)],
                {"from": shape, "to": to},
            )
        )
    return out


def build_inputs(case: Case, rng):
    values, grads = [], []
    for kind, spec in case.inputs:
        if kind == "int":
            values.append(spec)
            grads.append(False)
            continue
        if kind == "ties":
            value = ties(rng, spec)
        elif kind == "affine_w":
            value = 0.5 + rng.random(spec)
        elif kind == "affine_b":
            value = -0.5 + rng.random(spec)
        else:
            value = draw(rng, kind, spec)
        values.append(np.asarray(value, dtype=np.float64).reshape(spec))
        grads.append(True)
    return values, grads


def run_case(case: Case):
    """(tensors to store, the case's cases.json entry)."""
    rng = np.random.default_rng(zlib.crc32(case.name.encode()))
    values, needs_grad = build_inputs(case, rng)
    xs = [torch.tensor(v, requires_grad=g) for v, g in zip(values, needs_grad)]
    result = case.fn(*xs)
    extra = {}
    if case.op == "max":
        y, indices = result.values, result.indices
        extra["indices"] = np.ascontiguousarray(indices.numpy(), dtype=np.int64)
    else:
        y = result
    dy = torch.tensor(-1.0 + 2.0 * rng.random(tuple(y.shape)), dtype=torch.float64)
    diff = [x for x in xs if x.requires_grad]
    grads = iter(torch.autograd.grad(y, diff, dy))

    p = case.name
    tensors = {f"{p}.y": np.ascontiguousarray(y.detach().numpy(), dtype=np.float64), f"{p}.dy": dy.numpy().copy()}
    entry_inputs = []
    for k, (x, v) in enumerate(zip(xs, values)):
        tensors[f"{p}.x{k}"] = np.ascontiguousarray(v)
        item = {"key": f"{p}.x{k}", "dtype": "I64" if v.dtype == np.int64 else "F64", "shape": list(v.shape)}
        if x.requires_grad:
            g = next(grads)
            tensors[f"{p}.dx{k}"] = np.ascontiguousarray(g.numpy(), dtype=np.float64)
            item["grad"] = f"{p}.dx{k}"
        else:
            item["grad"] = None
        entry_inputs.append(item)
    for k, v in extra.items():
        tensors[f"{p}.{k}"] = v
    if not case.params.get("ties"):
        check_directional(case, values, needs_grad, dy, tensors)
    entry = {
        "case": p,
        "op": case.op,
        "file": f"{case.op}.safetensors",
        "torch": case.expr,
        "params": case.params,
        "inputs": entry_inputs,
        "output": {"key": f"{p}.y", "shape": list(y.shape)},
        "cotangent": f"{p}.dy",
    }
    if extra:
        entry["extra"] = {k: f"{p}.{k}" for k in extra}
    return tensors, entry


def check_directional(case: Case, values, needs_grad, dy, tensors) -> None:
    """Assert the stored gradients against central differences along one random
    direction u: (f(x + h u) - f(x - h u)) / 2h with f = sum(dy * y), h = 1e-5,
    must equal sum_k <dxk, uk> to 1e-7 relative (a check of the stored keys too)."""
    rng = np.random.default_rng(zlib.crc32(case.name.encode()) + 1)
    dirs = [(-1.0 + 2.0 * rng.random(v.shape)) if g else None for v, g in zip(values, needs_grad)]

    def f(sign: float, h: float = 1e-5) -> float:
        xs = [torch.tensor(v + sign * h * d) if g else torch.tensor(v) for v, g, d in zip(values, needs_grad, dirs)]
        with torch.no_grad():
            y = case.fn(*xs)
            y = y.values if case.op == "max" else y
            return float((y * dy).sum())

    numeric = (f(1.0) - f(-1.0)) / 2e-5
    analytic = sum(float(np.sum(tensors[f"{case.name}.dx{k}"] * d)) for k, d in enumerate(dirs) if d is not None)
    assert abs(numeric - analytic) <= 1e-7 * max(1.0, abs(analytic)), (case.name, numeric, analytic)


def tie_rules() -> dict:
    """The tie facts, measured here (and asserted, so a torch that changes them
    stops this script)."""
    x = torch.tensor([1.0, 3.0, 0.0, 3.0, 3.0], dtype=torch.float64, requires_grad=True)
    values, index = torch.max(x, dim=0)
    (g_max,) = torch.autograd.grad(values, x)
    (g_amax,) = torch.autograd.grad(torch.amax(x, dim=0), x)
    (g_all,) = torch.autograd.grad(torch.max(x), x)
    facts = {
        "probe": "x = [1, 3, 0, 3, 3] (maxima at 1, 3, 4), dy = 1",
        "max_dim_index": int(index),
        "max_dim_grad": g_max.tolist(),
        "amax_grad": g_amax.tolist(),
        "max_all_grad": g_all.tolist(),
    }
    assert facts["max_dim_index"] == 1 and facts["max_dim_grad"] == [0, 1, 0, 0, 0], facts
    assert facts["amax_grad"] == [0, 1 / 3, 0, 1 / 3, 1 / 3] and facts["max_all_grad"] == facts["amax_grad"], facts
    facts["rules"] = {
        "max": "torch.max(x, dim) returns the FIRST (lowest) index among equal maxima on the CPU; its backward "
        "sends all of dy to that one index (the `<case>.indices` of the max cases)",
        "amax": "torch.amax(x, dim) backward splits dy evenly: each of the k entries equal to the max gets dy / k",
        "max_all": "torch.max(x) without dim backward splits evenly, as amax",
    }
    return facts


def write(out_dir: Path) -> dict:
    out_dir.mkdir(parents=True, exist_ok=True)
    per_file, entries = {}, []
    for case in cases():
        tensors, entry = run_case(case)
        file = per_file.setdefault(entry["file"], {})
        assert not set(tensors) & set(file), f"duplicate key in {case.name}"
        file.update(tensors)
        entries.append(entry)
    # The max cases with ties: the returned index is the first maximal one.
    for entry in entries:
        if entry["op"] == "max" and entry["params"]["ties"]:
            t = per_file["max.safetensors"]
            x, idx, axis = t[entry["inputs"][0]["key"]], t[entry["extra"]["indices"]], entry["params"]["axis"]
            first = np.argmax(x == x.max(axis=axis, keepdims=True), axis=axis)
            assert np.array_equal(idx.reshape(first.shape), first), entry["case"]
            assert np.any(np.sum(x == x.max(axis=axis, keepdims=True), axis=axis) > 1), f"{entry['case']}: no tie"
    metadata = {
        "fixture": "scripts/autograd_fixture.py",
        "torch": torch.__version__,
        "numpy": np.__version__,
        "dtype": "float64",
    }
    for name, tensors in per_file.items():
        (out_dir / name).write_bytes(serialize(tensors, metadata))
    doc = {
        "conventions": {
            "keys": "<case>.x0.. inputs, <case>.y output, <case>.dy cotangent, <case>.dxk = torch.autograd.grad(y, xs, dy)[k] "
            "for every float input xk (integer inputs have grad null)",
            "dtype": "F64 for floats, I64 for indices and targets; row-major; shape [] is a 0-d scalar",
            "inputs": "numpy default_rng(zlib.crc32(case)): uniform draws; dy uniform in [-1, 1], drawn after the inputs",
            "layer_norm": "biased variance over the last axis, eps 1e-5, (x - mean) / sqrt(var + eps) * w + b",
            "rms_norm": "x / sqrt(mean(x^2, last axis) + 1e-5) * w",
            "cross_entropy": "mean over N of logsumexp(logits_n) - logits_n[target_n]",
            "versions": {"python": sys.version.split()[0], "torch": torch.__version__, "numpy": np.__version__},
        },
        "tie_rules": tie_rules(),
        "files": sorted(per_file),
        "cases": entries,
    }
    (out_dir / "cases.json").write_text(readable_json(doc) + "\n")
    return {"files": sorted(per_file), "cases": len(entries)}


def file_names() -> list:
    return sorted({f"{c.op}.safetensors" for c in cases()}) + ["cases.json"]


if __name__ == "__main__":
    sys.exit(fixture_main(lambda out: f"{write(out)['cases']} cases", OUT, file_names(), "autograd_fixture.py"))
