#!/usr/bin/env python3
"""Write tests/fixtures/half/: what NumPy and PyTorch give when they convert
between f32 / f64 and the 16-bit floats (IEEE binary16 `f16`, bfloat16 `bf16`),
and a few PyTorch reductions, softmax and matmul on f16 / bf16 inputs, so the
Rust `f16` / `bf16` element types (the `half` crate) can be checked without Python.

Files (all rewritten byte for byte by this script; both .safetensors are written
by `safetensors_io.serialize`, header sorted, with the 16-bit types of
`scripts/half_dtypes.py`):

conversions.safetensors
-----------------------
Bit patterns of 16-bit floats are stored as U16 (safetensors 0.8.0 supports U16;
the value is the little-endian bit pattern). f32 / f64 values are F32 / F64, whose
bytes are the exact bits (NaN payloads included: compare with `to_bits`).

Widening, every one of the 65536 bit patterns (row i is the pattern i):
- `f16_to_f32_numpy` F32 [65536]: `np.arange(65536, dtype=uint16).view(np.float16).astype(np.float32)`.
- `f16_to_f32_torch` F32 [65536]: the same patterns as one torch.float16 tensor, `.to(torch.float32)`.
- `bf16_to_f32_torch` F32 [65536]: the patterns as one torch.bfloat16 tensor, `.to(torch.float32)`.
- `f16_nan_bits` U16 [2046] (the NaN patterns, ascending) and `f16_nan_to_f32_torch_single`
  F32 [2046]: each NaN converted alone, as a one-element tensor (see NaNs below).
Every non-NaN result is exact (the script checks it against its own decoding of
the bits), so every non-NaN row is the one right answer.

Narrowing f32 -> 16 bits, N inputs (no NaN):
- `f32_inputs` F32 [N], `f32_kind` U8 [N] (why the input is there, codes below).
- `f32_to_f16_numpy` U16 [N]: `x.astype(np.float16)` (round to nearest, ties to even).
- `f32_to_f16_torch` U16 [N]: `torch.from_numpy(x).to(torch.float16)`.
- `f32_to_bf16_torch` U16 [N]: `torch.from_numpy(x).to(torch.bfloat16)`.
The script asserts that all three equal its own exact round-to-nearest-even
(`round_nearest_even`: integer arithmetic on the input's exact value, gradual
underflow, overflow to infinity) on every row: NumPy and torch agree with each
other and with IEEE 754 here, and the Rust conversions must give the same bits.

Narrowing f64 -> 16 bits, M inputs (no NaN):
- `f64_inputs` F64 [M], `f64_kind` U8 [M].
- `f64_to_f16_exact` U16 [M], `f64_to_bf16_exact` U16 [M]: the script's exact
  round-to-nearest-even of the f64 value (one rounding): the correct answer.
- `f64_to_f16_numpy` U16 [M]: `x.astype(np.float16)` on a float64 array.
- `f64_to_f16_via_f32` U16 [M]: `x.astype(np.float32).astype(np.float16)` (two roundings).
- `f64_to_f16_torch` U16 [M], `f64_to_bf16_torch` U16 [M]: `torch.from_numpy(x).to(...)`.
Findings (asserted by the script, counts in summary.json): NumPy rounds float64
-> float16 ONCE (`f64_to_f16_numpy == f64_to_f16_exact` on every row). PyTorch
does not: `f64_to_f16_torch == f64_to_f16_via_f32` on every row, i.e. it rounds
to f32 first, and the kinds 5 / 10 inputs below (a tie moved by less than half an
f32 ulp) come out wrong that way; likewise `f64_to_bf16_torch` equals rounding to
f32 then to bf16. (The `half` crate 2.7's `f16::from_f64` also rounds through
f32 when the CPU has F16C, and its software path, like `bf16::from_f64`, drops the
low 32 bits of the f64 significand before rounding; neither is one correct
rounding: test against `*_exact`, or document the difference.)

NaNs (kept apart because IEEE 754 does not fix a NaN's payload):
- `nan_f32_inputs` F32 [K32], `nan_f32_to_f16_numpy`, `nan_f32_to_f16_torch`,
  `nan_f32_to_bf16_torch` U16 [K32] (one tensor of all K32 values, K32 a multiple of 8),
  and `*_torch_single` U16 [K32] (each value alone in a one-element tensor).
- `nan_f64_inputs` F64 [K64], `nan_f64_to_f16_numpy`, `nan_f64_to_f16_torch`,
  `nan_f64_to_bf16_torch` U16 [K64] (+ `*_torch_single`).
Every output is a NaN. What each library does with the sign, the payload and
the quiet bit (the top significand bit) is in summary.json `nan_rules`, checked
against candidate rules; with numpy 2.4.6 and torch 2.15.0 (CPU, one thread,
`ATEN_CPU_CAPABILITY=default`):
- NumPy keeps the sign and the top payload bits and leaves the quiet bit as it
  was, both ways (a signaling NaN stays signaling; a narrowed payload that would
  become 0, i.e. infinity, becomes 1).
- torch f32 -> f16 keeps the sign and the top payload bits and SETS the quiet bit
  (0x7F800001 -> 0x7E00).
- torch f64 -> f16 gives the canonical 0x7E00 / 0xFE00 (sign kept, payload lost).
- torch f32 / f64 -> bf16 gives 0x7FC0 for every NaN (sign and payload lost).
  (Not portable: run once with `ATEN_CPU_CAPABILITY` unset on this AVX-512
  machine, the same call gave 0xFFFF; not checked by the script.)
- torch f16 -> f32 depends on where the element sits: in the vectorized part of a
  tensor (all of the 65536-element tensor) it keeps sign and payload and sets the
  quiet bit; alone (`*_single`) and in the last len % 8 elements of a tensor (the
  script checks a tensor of 11) it gives 0x7FFFFFFF for every NaN (sign and payload
  lost).
- torch bf16 -> f32 is the plain 16-bit shift (a signaling NaN stays signaling).
The `half` crate 2.7 sets the quiet bit and keeps sign and top payload in every
conversion: it matches none of the above exactly, so a Rust test should check
"is NaN" (and the sign / quiet bit only where it states its own rule).

Input kinds (`f32_kind`, `f64_kind`; "anchor" = a finite 16-bit pattern of the
named format, positive, with a seeded random sign; "tie" = exactly halfway
between the anchor and the next pattern up, for the largest finite value the
overflow boundary 65520 / 0x7F7F8000; "next" = one ulp of the input format
(f32 or f64) either side):
  0 special: +-0, +-inf, +-1, smallest / largest subnormal and normal of the input format
  1 f16 anchor value   2 f16 tie   3 f16 tie +- next   4 f16 anchor +- next
  5 f16 tie * (1 +- 2^-k), k in 13, 20, 23, 24, 25, 26, 30, 40 (f64 only: k >= 25 is
    below half an f32 ulp, where rounding through f32 lands on the tie)
  6 bf16 anchor value   7 bf16 tie   8 bf16 tie +- next   9 bf16 anchor +- next
  10 bf16 tie * (1 +- 2^-k), same k (f64 only)
  11 random bit pattern (any finite value)   12 random value with |x| in [2^-26, 2^17)
  13 overflow thresholds (65504, 65520 and their neighbors, 0x7F7F7FFF..0x7F7F8001, ...)
  14 underflow (below half the smallest f16 subnormal; input-format subnormals)
f16 anchors include every subnormal (0x0000..=0x0400, all their ties) and the top
64 finite patterns; bf16 anchors every subnormal (0x0000..=0x0080) and the top 32.
An input that two kinds would produce keeps the first kind in the order above
(0, 13, 14 first).

compute.safetensors
-------------------
For T in f16, bf16 (dtype F16 / BF16 in the file): inputs `T.a` [7, 33], `T.b`
[4, 5, 6], `T.x` [5, 33], `T.y` [33, 9]: NumPy PCG64 uniform draws in [-4, 4)
(`default_rng(SEED)`, in that order, f16 first), rounded to f32, then to T by
`torch.Tensor.to` (nearest, ties to even). For each result two tensors:
`<name>` in T, computed by PyTorch on the CPU on the T tensors (one thread; the
CPU kernels accumulate in f32 and round the result to T), and `<name>.ref` F32:
the same rounded inputs computed in float64 (sums and dot products by
`math.fsum`, i.e. exactly rounded to f64; softmax by NumPy float64
`exp(x - max) / sum`), then rounded to f32 once, so a test can check "within n
ulp of the f32 reference".
- `T.a.sum.d`, `T.a.mean.d`, `T.a.amax.d` for d in 0, 1; `T.b.*.d` for d in 0, 1, 2:
  `torch.sum(t, dim=d)`, `torch.mean(t, dim=d)`, `torch.amax(t, dim=d)` (the axis removed).
- `T.a.softmax`, `T.b.softmax`: `torch.softmax(t, dim=-1)` (same shape as the input).
- `T.matmul` [5, 9]: `torch.matmul(T.x, T.y)` (the script checks oneDNN on or off
  gives the same bits).
summary.json `compute` says, per result, for how many elements the T result is
the correctly rounded T of the float64 value and the largest distance in T ulps
(with torch 2.15.0: every element of every result is correctly rounded), and how
many f32 ulps the same torch op on the inputs widened to f32 is from `.ref`.

summary.json: the keys with dtypes and shapes, the kind counts, the findings
above as counts, the NaN rules, the compute statistics and the versions.

Reproducibility: everything is seeded (Python's `random.Random(SEED)` for the
conversion inputs: `getrandbits` and `randrange`, stable across Python 3
versions; NumPy PCG64 uniform draws for the compute inputs), torch runs on one
thread with `ATEN_CPU_CAPABILITY=default` (scripts/fixture_cli.py).

Run from the repository root (tests never need Python):

    /work/venv/bin/python scripts/half_fixture.py           # (re)write tests/fixtures/half/
    /work/venv/bin/python scripts/half_fixture.py --check   # regenerate into a temp dir,
                                                            # exit 1 unless every byte matches

Versions used for the committed fixture: Python 3.11.7, torch 2.15.0 (PyPI wheel,
run on CPU), safetensors 0.8.0, numpy 2.4.6.
"""

import math
import random
import sys
import warnings
from pathlib import Path

from fixture_cli import fixture_main, readable_json  # noqa: I001  (first: pins torch's numerics before torch loads)

import numpy as np  # noqa: E402
import safetensors  # noqa: E402
import torch  # noqa: E402
from safetensors.torch import load_file as load_torch  # noqa: E402
from half_dtypes import BF16, bits16, from_bits16, to_numpy16  # noqa: E402  (scripts/half_dtypes.py)
from safetensors_io import header_of, serialize  # noqa: E402  (scripts/safetensors_io.py)

SEED = 20261202
OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "half"
FILES = ["compute.safetensors", "conversions.safetensors", "summary.json"]

# (exponent bits, significand bits without the leading one)
F16, BFLOAT16, F32, F64 = (5, 10), (8, 7), (8, 23), (11, 52)
TORCH_TYPES = {F16: torch.float16, BFLOAT16: torch.bfloat16}
OFFSETS = (13, 20, 23, 24, 25, 26, 30, 40)  # kinds 5 / 10: tie * (1 +- 2^-k)
KINDS = {
    0: "special",
    1: "f16 anchor",
    2: "f16 tie",
    3: "f16 tie +- next",
    4: "f16 anchor +- next",
    5: "f16 tie * (1 +- 2^-k)",
    6: "bf16 anchor",
    7: "bf16 tie",
    8: "bf16 tie +- next",
    9: "bf16 anchor +- next",
    10: "bf16 tie * (1 +- 2^-k)",
    11: "random bits",
    12: "random in f16 range",
    13: "overflow thresholds",
    14: "underflow",
}


# ------------------------------------------------------------ exact formats


def width(fmt) -> int:
    return 1 + fmt[0] + fmt[1]


def decode(bits: int, fmt) -> float:
    """The exact value of a non-NaN pattern of `fmt` as a Python float (f64 holds every
    f16 / bf16 / f32 value exactly). An all-ones exponent with a zero significand is
    infinity; `decode_past_max` reads it as one more binade instead."""
    e_bits, m_bits = fmt
    sign = -1.0 if (bits >> (e_bits + m_bits)) & 1 else 1.0
    exp, man = (bits >> m_bits) & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
    if exp == (1 << e_bits) - 1:
        assert man == 0, "NaN has no value"
        return sign * math.inf
    return decode_past_max(bits, fmt)


def decode_past_max(bits: int, fmt) -> float:
    """As `decode` for finite patterns; the infinity pattern reads as 2^(emax + 1), the
    boundary where rounding overflows (so the tie after the largest finite value is
    the midpoint of it and this)."""
    e_bits, m_bits = fmt
    sign = -1.0 if (bits >> (e_bits + m_bits)) & 1 else 1.0
    exp, man = (bits >> m_bits) & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
    bias = (1 << (e_bits - 1)) - 1
    if exp == 0:
        return sign * math.ldexp(man, 1 - bias - m_bits)
    return sign * math.ldexp(man | (1 << m_bits), exp - bias - m_bits)


def round_nearest_even(x: float, fmt) -> int:
    """The bit pattern of `fmt` nearest to the exact value of the (non-NaN) float `x`,
    ties to the even significand, gradual underflow, overflow to infinity: IEEE 754
    roundTiesToEven, computed with integers from `x.as_integer_ratio()`."""
    e_bits, m_bits = fmt
    bias = (1 << (e_bits - 1)) - 1
    sign = (1 << (e_bits + m_bits)) if math.copysign(1.0, x) < 0 else 0
    infinity = ((1 << e_bits) - 1) << m_bits
    if math.isinf(x):
        return sign | infinity
    if x == 0.0:
        return sign
    n, d = abs(x).as_integer_ratio()
    e = n.bit_length() - d.bit_length()  # n / d in [2^(e-1), 2^(e+1))
    if (n < d << e) if e >= 0 else (n << -e < d):
        e -= 1  # now 2^e <= n / d < 2^(e+1)
    e = max(e, 1 - bias)  # subnormals share the smallest normal exponent
    shift = m_bits - e  # n / d / 2^(e - m_bits) = n * 2^shift / d
    num, den = (n << shift, d) if shift >= 0 else (n, d << -shift)
    q, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and q & 1):
        q += 1
    # Subnormal: e + bias - 1 == 0; a carry out of the significand bumps the exponent.
    bits = ((e + bias - 1) << m_bits) + q
    return sign | min(bits, infinity)


def float_of_bits(bits: int, fmt) -> float:
    """A pattern of f32 / f64 as a Python float (exact)."""
    if fmt == F32:
        return float(np.array([bits], dtype=np.uint32).view(np.float32)[0])
    return float(np.array([bits], dtype=np.uint64).view(np.float64)[0])


def is_nan_bits(bits: int, fmt) -> bool:
    e_bits, m_bits = fmt
    return (bits >> m_bits) & ((1 << e_bits) - 1) == (1 << e_bits) - 1 and bits & ((1 << m_bits) - 1) != 0


# ------------------------------------------------------------ inputs


def anchors(rng, fmt, dense: list, step: int, randoms: int) -> list:
    """Positive finite patterns of `fmt` (f16 / bf16): `dense` ranges every `step`-th
    pattern, both sides of every exponent boundary, and `randoms` random ones, in
    ascending order."""
    e_bits, m_bits = fmt
    top = (((1 << e_bits) - 1) << m_bits) - 1  # largest finite
    chosen = set()
    for lo, hi in dense:
        chosen.update(range(lo, hi + 1, step))
    for k in range(1, (1 << e_bits) - 1):
        base = k << m_bits
        chosen.update(b for b in (base - 2, base - 1, base, base + 1) if 0 <= b <= top)
    target = len(chosen) + randoms
    while len(chosen) < target:
        chosen.add(rng.randrange(top + 1))
    return sorted(chosen)


def anchor_inputs(rng, half, fmt, picks: list) -> list:
    """(bits of the input format `fmt`, kind) for every anchor in `picks`: the value,
    the tie above it, their next neighbors, and for f64 the tie moved by 2^-k."""
    kind0 = 1 if half == F16 else 6
    sign_bit = 1 << (width(fmt) - 1)
    out = []
    for b in picks:
        sign = sign_bit if rng.getrandbits(1) else 0
        value = decode_past_max(b, half)
        tie = (value + decode_past_max(b + 1, half)) / 2  # exact: needs one more bit
        v, t = round_nearest_even(value, fmt), round_nearest_even(tie, fmt)
        assert float_of_bits(v, fmt) == value and float_of_bits(t, fmt) == tie
        out.append((sign | v, kind0))
        out.append((sign | t, kind0 + 1))
        out += [(sign | t - 1, kind0 + 2), (sign | t + 1, kind0 + 2)]
        out += [(sign | n, kind0 + 3) for n in (v - 1, v + 1) if n >= 0]
        if fmt == F64:
            for k in OFFSETS:
                for moved in (tie + math.ldexp(tie, -k), tie - math.ldexp(tie, -k)):
                    bits = round_nearest_even(moved, F64)
                    assert float_of_bits(bits, F64) == moved  # exact: tie needs <= 12 bits, k <= 40
                    out.append((sign | bits, kind0 + 4))
    return out


def specials(fmt) -> list:
    e_bits, m_bits = fmt
    infinity = ((1 << e_bits) - 1) << m_bits
    positive = [0, infinity, round_nearest_even(1.0, fmt), 1, (1 << m_bits) - 1, 1 << m_bits, infinity - 1]
    sign = 1 << (width(fmt) - 1)
    return [(b, 0) for p in positive for b in (p, sign | p)]


def thresholds(fmt) -> list:
    """Kind 13: values around the f16 and bf16 overflow boundaries, both signs."""
    values = [65504.0, 65520.0, 65536.0, 65535.0, 131008.0, 1e5, 1e30]
    values += [2.0**127 * (2 - 2.0**-7), 2.0**128 * (1 - 2.0**-9)]  # bf16 max, the tie above it
    if fmt == F64:
        values += [2.0**128, 2.0**128 * (1 + 2.0**-20), 1e300]
    out = []
    sign = 1 << (width(fmt) - 1)
    for x in values:
        b = round_nearest_even(x, fmt)
        if float_of_bits(b, fmt) != x:
            continue  # not a value of this format
        for n in (b - 1, b, b + 1):
            out += [(n, 13), (sign | n, 13)]
    if fmt == F32:  # bf16: 0x7F7F7FFF .. 0x7F7F8001, and f32 max
        out += [(b, 13) for b in (0x7F7F7FFF, 0x7F7F8000, 0x7F7F8001, 0x7F7FFFFF, 0xFF7F8000)]
    return out


def underflow(rng, fmt, count: int) -> list:
    """Kind 14: tiny values (|x| below 2^-25, half the smallest f16 subnormal) and
    subnormals of the input format."""
    e_bits, m_bits = fmt
    bias = (1 << (e_bits - 1)) - 1
    sign = 1 << (width(fmt) - 1)
    out = [(round_nearest_even(x, fmt), 14) for x in (2.0**-25, 2.0**-26, 2.0**-25 * (1 - 2.0**-20), 3 * 2.0**-26)]
    for i in range(count):
        s = sign if rng.getrandbits(1) else 0
        if i % 2:  # a subnormal of the input format
            out.append((s | (1 + rng.randrange((1 << m_bits) - 1)), 14))
        else:  # |x| in [2^-40, 2^-25)
            e = rng.randrange(-40, -25)
            out.append((s | ((e + bias) << m_bits) | rng.getrandbits(m_bits), 14))
    return out


def randoms(rng, fmt, count: int) -> list:
    """Kind 11: random finite bit patterns; kind 12: random values with |x| in [2^-26, 2^17)."""
    e_bits, m_bits = fmt
    bias = (1 << (e_bits - 1)) - 1
    out = []
    while len(out) < count:
        b = rng.getrandbits(width(fmt))
        if not is_nan_bits(b, fmt):
            out.append((b, 11))
    for _ in range(count):
        e = rng.randrange(-26, 17)
        s = (1 << (width(fmt) - 1)) if rng.getrandbits(1) else 0
        out.append((s | ((e + bias) << m_bits) | rng.getrandbits(m_bits), 12))
    return out


def narrowing_inputs(rng, fmt) -> tuple:
    """(bits, kinds) of the f32 or f64 narrowing inputs, duplicates dropped (first kind kept)."""
    if fmt == F32:
        f16_picks = anchors(rng, F16, [(0x0000, 0x0400), (0x7BC0, 0x7BFF)], 1, 700)
        bf16_picks = anchors(rng, BFLOAT16, [(0x0000, 0x0080), (0x7F60, 0x7F7F)], 1, 500)
        extra, tiny = 1000, 400
    else:
        f16_picks = anchors(rng, F16, [(0x0000, 0x0400), (0x7BF0, 0x7BFF)], 32, 60)
        bf16_picks = anchors(rng, BFLOAT16, [(0x0000, 0x0080), (0x7F78, 0x7F7F)], 16, 0)
        bf16_picks = sorted(rng.sample(bf16_picks, 140) + list(range(0x7F78, 0x7F80)) + [0, 1, 2, 0x7F, 0x80])
        bf16_picks = sorted(set(bf16_picks))
        extra, tiny = 500, 200
    rows = specials(fmt) + thresholds(fmt) + underflow(rng, fmt, tiny)
    rows += anchor_inputs(rng, F16, fmt, f16_picks) + anchor_inputs(rng, BFLOAT16, fmt, bf16_picks)
    rows += randoms(rng, fmt, extra)
    seen, bits, kinds = set(), [], []
    for b, kind in rows:
        assert not is_nan_bits(b, fmt)
        if b not in seen:
            seen.add(b)
            bits.append(b)
            kinds.append(kind)
    return bits, kinds


def nan_inputs(rng, fmt, count: int) -> list:
    """NaN bit patterns: quiet and signaling, both signs, payloads that survive the
    narrowing to f16 / bf16 and payloads that do not, then random ones; `count` in all."""
    e_bits, m_bits = fmt
    exp = ((1 << e_bits) - 1) << m_bits
    quiet = 1 << (m_bits - 1)
    man = (1 << m_bits) - 1
    f16_low, bf16_low = 1 << (m_bits - 10), 1 << (m_bits - 7)  # lowest payload bit each keeps
    payloads = [
        quiet, 1, quiet | 1, quiet >> 1, man, quiet - 1,  # qNaN, smallest sNaN, ..., all ones, largest sNaN
        f16_low, f16_low - 1, quiet | f16_low, bf16_low, bf16_low - 1, quiet | bf16_low,
        quiet | (quiet >> 1), (quiet >> 1) | f16_low,
    ]
    out = [exp | p for p in payloads] + [(1 << (width(fmt) - 1)) | exp | p for p in payloads]
    while len(out) < count:
        p = rng.getrandbits(m_bits)
        if p:
            out.append(((rng.getrandbits(1)) << (width(fmt) - 1)) | exp | p)
    return out


# ------------------------------------------------------------ conversions


def torch_narrow(values: np.ndarray, half) -> np.ndarray:
    return bits16(torch.from_numpy(values.copy()).to(TORCH_TYPES[half]))


def torch_narrow_single(values: np.ndarray, half) -> np.ndarray:
    return np.array([torch_narrow(values[i : i + 1], half)[0] for i in range(len(values))], dtype=np.uint16)


def nan_rules(inputs: np.ndarray, outputs: np.ndarray, src, dst) -> dict:
    """Which candidate rules explain every NaN conversion in the arrays (bit patterns),
    and how many outputs keep the sign / have the quiet bit set."""
    (se, sm), (de, dm) = src, dst
    ins, outs = [int(v) for v in inputs], [int(v) for v in outputs]
    d_sign, d_exp, d_quiet = 1 << (de + dm), ((1 << de) - 1) << dm, 1 << (dm - 1)

    def parts(b):
        return (b >> (se + sm)) & 1, b & ((1 << sm) - 1)

    def payload(m):  # the significand aligned to the destination's width (top bits)
        return m >> (sm - dm) if sm >= dm else m << (dm - sm)

    def keep(b):
        s, m = parts(b)
        return (s * d_sign) | d_exp | payload(m)

    candidates = {
        "sign and top payload kept, quiet bit as in the input (a payload truncated to 0 becomes 1)": lambda b: keep(b)
        | (0 if keep(b) & ((1 << dm) - 1) else 1),
        "sign and top payload kept, quiet bit set": lambda b: keep(b) | d_quiet,
        "canonical quiet NaN with the input's sign": lambda b: (parts(b)[0] * d_sign) | d_exp | d_quiet,
        "canonical positive quiet NaN (sign and payload lost)": lambda b: d_exp | d_quiet,
        "all bits but the sign set (sign and payload lost)": lambda b: d_sign - 1,
        "all bits set": lambda b: 2 * d_sign - 1,
    }
    matching = [name for name, rule in candidates.items() if all(rule(i) == o for i, o in zip(ins, outs))]
    assert all((o & d_exp) == d_exp and (o & ((1 << dm) - 1)) for o in outs), "a NaN became a number"
    result = {
        "count": len(outs),
        "rules": matching,
        "sign_kept": sum(parts(i)[0] == (o >> (de + dm)) & 1 for i, o in zip(ins, outs)),
        "quiet_bit_set": sum(bool(o & d_quiet) for o in outs),
        "inputs_quiet_bit_set": sum(bool(parts(i)[1] >> (sm - 1)) for i in ins),
    }
    if not matching:
        result["distinct_outputs"] = sorted({f"0x{o:0{width(dst) // 4}X}" for o in outs})[:12]
    return result


def widening(summary: dict) -> dict:
    patterns = np.arange(65536, dtype=np.uint16)
    f16_numpy = patterns.view(np.float16).astype(np.float32)
    f16_torch = from_bits16(patterns, torch.float16).to(torch.float32).numpy()
    bf16_torch = from_bits16(patterns, torch.bfloat16).to(torch.float32).numpy()
    nan16 = np.array([b for b in range(65536) if is_nan_bits(b, F16)], dtype=np.uint16)
    def one_at_a_time(dtype):
        return np.concatenate([from_bits16(patterns[i : i + 1], dtype).float().numpy() for i in range(65536)])

    f16_single, bf16_single = one_at_a_time(torch.float16), one_at_a_time(torch.bfloat16)
    assert np.array_equal(bf16_single.view(np.uint32), bf16_torch.view(np.uint32)), "torch bf16 -> f32: path matters"
    finite = np.array([not is_nan_bits(b, F16) for b in range(65536)])
    assert np.array_equal(f16_single.view(np.uint32)[finite], f16_torch.view(np.uint32)[finite])
    f16_single = f16_single[nan16]
    # The element's place decides: in a tensor of 11 NaNs the first 8 take the
    # vectorized path (as the 65536-element tensor), the last 3 the one-element path.
    eleven = from_bits16(nan16[:11], torch.float16).float().numpy().view(np.uint32)
    assert np.array_equal(eleven[:8], f16_torch.view(np.uint32)[nan16[:8]]), "torch f16 -> f32: vector part changed"
    assert np.array_equal(eleven[8:], f16_single.view(np.uint32)[8:11]), "torch f16 -> f32: tail changed"
    rules = {}
    for name, fmt, out in (
        ("f16_to_f32_numpy", F16, f16_numpy),
        ("f16_to_f32_torch", F16, f16_torch),
        ("bf16_to_f32_torch", BFLOAT16, bf16_torch),
    ):
        u = out.view(np.uint32)
        nan_rows = [b for b in range(65536) if is_nan_bits(b, fmt)]
        for b in range(65536):
            if not is_nan_bits(b, fmt):
                assert u[b] == round_nearest_even(decode(b, fmt), F32), (name, hex(b))  # exact widening
        rules[name] = nan_rules(np.array(nan_rows), u[nan_rows], fmt, F32)
    rules["f16_nan_to_f32_torch_single"] = nan_rules(nan16, f16_single.view(np.uint32), F16, F32)
    summary["nan_rules"].update(rules)
    summary["widening"] = (
        "every non-NaN pattern widens exactly (numpy, torch, torch one element at a time); "
        "torch f16 NaNs: see nan_rules f16_to_f32_torch (vectorized part of a tensor) and "
        "f16_nan_to_f32_torch_single (alone, or in the last len % 8 elements)"
    )
    return {
        "f16_to_f32_numpy": f16_numpy,
        "f16_to_f32_torch": f16_torch,
        "bf16_to_f32_torch": bf16_torch,
        "f16_nan_bits": nan16,
        "f16_nan_to_f32_torch_single": f16_single,
    }


def narrowing(rng, summary: dict) -> dict:
    tensors = {}
    # f32 -> f16 / bf16
    bits, kinds = narrowing_inputs(rng, F32)
    x = np.array(bits, dtype=np.uint32).view(np.float32)
    exact16 = np.array([round_nearest_even(float(v), F16) for v in x], dtype=np.uint16)
    exactb = np.array([round_nearest_even(float(v), BFLOAT16) for v in x], dtype=np.uint16)
    out = {
        "f32_to_f16_numpy": x.astype(np.float16).view(np.uint16),
        "f32_to_f16_torch": torch_narrow(x, F16),
        "f32_to_bf16_torch": torch_narrow(x, BFLOAT16),
    }
    for name, want in (("f32_to_f16_numpy", exact16), ("f32_to_f16_torch", exact16), ("f32_to_bf16_torch", exactb)):
        bad = np.flatnonzero(out[name] != want)
        assert not len(bad), f"{name} is not round-to-nearest-even at {[hex(bits[i]) for i in bad[:5]]}"
    assert np.array_equal(torch_narrow_single(x, F16), exact16)
    assert np.array_equal(torch_narrow_single(x, BFLOAT16), exactb)
    tensors.update(out, f32_inputs=x, f32_kind=np.array(kinds, dtype=np.uint8))
    summary["f32_narrowing"] = {
        "count": len(bits),
        "kinds": {f"{k} {KINDS[k]}": kinds.count(k) for k in sorted(set(kinds))},
        "finding": "numpy and torch (whole tensor and one element at a time) give the exact "
        "round-to-nearest-even f16 / bf16 on every row",
    }
    # f64 -> f16 / bf16
    bits, kinds = narrowing_inputs(rng, F64)
    x = np.array(bits, dtype=np.uint64).view(np.float64)
    exact16 = np.array([round_nearest_even(float(v), F16) for v in x], dtype=np.uint16)
    exactb = np.array([round_nearest_even(float(v), BFLOAT16) for v in x], dtype=np.uint16)
    x32 = x.astype(np.float32)
    twice16 = np.array([round_nearest_even(float(v), F16) for v in x32], dtype=np.uint16)
    twiceb = np.array([round_nearest_even(float(v), BFLOAT16) for v in x32], dtype=np.uint16)
    out = {
        "f64_to_f16_exact": exact16,
        "f64_to_bf16_exact": exactb,
        "f64_to_f16_numpy": x.astype(np.float16).view(np.uint16),
        "f64_to_f16_via_f32": x32.astype(np.float16).view(np.uint16),
        "f64_to_f16_torch": torch_narrow(x, F16),
        "f64_to_bf16_torch": torch_narrow(x, BFLOAT16),
    }
    assert np.array_equal(out["f64_to_f16_via_f32"], twice16)
    assert np.array_equal(out["f64_to_f16_numpy"], exact16), "numpy float64 -> float16 no longer rounds once"
    assert np.array_equal(out["f64_to_f16_torch"], twice16), "torch float64 -> float16 no longer rounds through f32"
    assert np.array_equal(out["f64_to_bf16_torch"], twiceb), "torch float64 -> bfloat16 no longer rounds through f32"
    assert np.array_equal(torch_narrow_single(x, F16), twice16)
    assert np.array_equal(torch_narrow_single(x, BFLOAT16), twiceb)
    k = np.array(kinds)

    def wrong(a, b):
        rows = a != b
        by_kind = {str(c): int((rows & (k == c)).sum()) for c in sorted(set(kinds))}
        return {"rows": int(rows.sum()), "by_kind": {c: n for c, n in by_kind.items() if n}}

    tensors.update(out, f64_inputs=x, f64_kind=np.array(kinds, dtype=np.uint8))
    summary["f64_narrowing"] = {
        "count": len(bits),
        "kinds": {f"{c} {KINDS[c]}": kinds.count(c) for c in sorted(set(kinds))},
        "numpy_f16_equals_exact": True,
        "torch_f16_equals_via_f32": True,
        "torch_bf16_equals_via_f32": True,
        "rows_where_rounding_through_f32_is_wrong_f16": wrong(twice16, exact16),
        "rows_where_rounding_through_f32_is_wrong_bf16": wrong(twiceb, exactb),
        "finding": "np.float64 -> np.float16 rounds once (correct on every row); torch rounds "
        "float64 -> float32 -> float16 / bfloat16 (double rounding: wrong on the rows counted)",
    }
    # NaNs
    for fmt, name, count in ((F32, "nan_f32", 64), (F64, "nan_f64", 64)):
        nb = nan_inputs(rng, fmt, count)
        dtype, udtype = (np.float32, np.uint32) if fmt == F32 else (np.float64, np.uint64)
        x = np.array(nb, dtype=udtype).view(dtype)
        out = {
            f"{name}_to_f16_numpy": x.astype(np.float16).view(np.uint16),
            f"{name}_to_f16_torch": torch_narrow(x, F16),
            f"{name}_to_bf16_torch": torch_narrow(x, BFLOAT16),
            f"{name}_to_f16_torch_single": torch_narrow_single(x, F16),
            f"{name}_to_bf16_torch_single": torch_narrow_single(x, BFLOAT16),
        }
        for key, value in out.items():
            dst = BFLOAT16 if "bf16" in key else F16
            summary["nan_rules"][key] = nan_rules(np.array(nb, dtype=object), value, fmt, dst)
        tensors.update(out)
        tensors[f"{name}_inputs"] = x
    return tensors


# ------------------------------------------------------------ compute


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between two arrays of 16-bit patterns (finite)."""

    def ordered(u):
        u = u.astype(np.int64)
        return np.where(u & 0x8000, -(u & 0x7FFF), u)

    return np.abs(ordered(a) - ordered(b))


def compute(summary: dict) -> dict:
    rng = np.random.default_rng(SEED)
    tensors, stats = {}, {}
    for prefix, half in (("f16", F16), ("bf16", BFLOAT16)):
        dtype = TORCH_TYPES[half]
        inputs = {}
        for name, shape in (("a", (7, 33)), ("b", (4, 5, 6)), ("x", (5, 33)), ("y", (33, 9))):
            drawn = (-4.0 + 8.0 * rng.random(shape)).astype(np.float32)
            inputs[name] = torch.from_numpy(drawn).to(dtype)
            tensors[f"{prefix}.{name}"] = to_numpy16(inputs[name])
        results = {}  # name -> (op, its inputs, float64 reference)
        for name in ("a", "b"):
            t = inputs[name]
            exact = t.double().numpy()
            for d in range(t.dim()):
                fsum = np.apply_along_axis(math.fsum, d, exact)
                results[f"{name}.sum.{d}"] = (lambda u, d=d: torch.sum(u, dim=d), [t], fsum)
                results[f"{name}.mean.{d}"] = (lambda u, d=d: torch.mean(u, dim=d), [t], fsum / t.shape[d])
                results[f"{name}.amax.{d}"] = (lambda u, d=d: torch.amax(u, dim=d), [t], exact.max(axis=d))
            e = np.exp(exact - exact.max(axis=-1, keepdims=True))
            results[f"{name}.softmax"] = (lambda u: torch.softmax(u, dim=-1), [t], e / e.sum(axis=-1, keepdims=True))
        x, y = inputs["x"].double().numpy(), inputs["y"].double().numpy()
        dots = np.array([[math.fsum(x[i] * y[:, j]) for j in range(y.shape[1])] for i in range(x.shape[0])])
        results["matmul"] = (torch.matmul, [inputs["x"], inputs["y"]], dots)
        with warnings.catch_warnings():  # `flags` warns about TF32 on Intel GPUs
            warnings.simplefilter("ignore", UserWarning)
            with torch.backends.mkldnn.flags(enabled=False):
                plain = torch.matmul(inputs["x"], inputs["y"])
        assert torch.equal(torch.matmul(inputs["x"], inputs["y"]), plain), "oneDNN changes the matmul bits"
        for name, (op, args, ref64) in results.items():
            got = op(*args)
            # the same op on the inputs widened to f32 (not stored): how close plain f32 gets
            got32 = op(*[a.float() for a in args]).numpy()
            assert got.dtype == dtype
            tensors[f"{prefix}.{name}"] = to_numpy16(got)
            tensors[f"{prefix}.{name}.ref"] = np.ascontiguousarray(ref64.astype(np.float32))
            rounded = np.array([round_nearest_even(float(v), half) for v in ref64.ravel()], dtype=np.uint16)
            distance = ulps(bits16(got).ravel(), rounded)
            ref32 = ref64.astype(np.float32)
            distance32 = np.abs(got32.view(np.int32).astype(np.int64) - ref32.view(np.int32).astype(np.int64))
            assert (np.sign(got32) * np.sign(ref32) >= 0).all()  # same sign: the f32 bit distance is the ulp distance
            stats[f"{prefix}.{name}"] = {
                "elements": int(distance.size),
                "correctly_rounded": int((distance == 0).sum()),
                "max_ulps_from_correctly_rounded": int(distance.max()),
                "f32_op_on_widened_inputs_max_ulps_from_ref": int(distance32.max()),
            }
    summary["compute"] = stats
    return tensors


# ------------------------------------------------------------ files


def versions() -> dict:
    return {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "safetensors": safetensors.__version__,
        "numpy": np.__version__,
    }


def read_back(path: Path, tensors: dict):
    """The file loads with the safetensors package and holds exactly `tensors`' bits."""
    loaded = load_torch(str(path))
    assert sorted(loaded) == sorted(tensors)
    for name, value in tensors.items():
        got = loaded[name]
        if value.dtype == BF16:
            assert got.dtype == torch.bfloat16 and np.array_equal(bits16(got), value.view(np.uint16)), name
        elif value.dtype == np.float16:
            assert got.dtype == torch.float16 and np.array_equal(bits16(got), value.view(np.uint16)), name
        else:
            assert got.numpy().tobytes() == value.tobytes() and list(got.shape) == list(value.shape), name


def write(out_dir: Path) -> dict:
    np.seterr(over="ignore")  # casts to f16 / f32 overflow to infinity on purpose
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = {"nan_rules": {}, "seed": SEED, "versions": versions()}
    summary["kind_codes"] = {str(k): v for k, v in KINDS.items()}
    metadata = {"script": "scripts/half_fixture.py", "seed": str(SEED), **versions()}
    rng = random.Random(SEED)
    conversions = {**widening(summary), **narrowing(rng, summary)}
    conversions = {k: np.ascontiguousarray(v) for k, v in conversions.items()}
    kinds = ", ".join(f"{k} {v}" for k, v in KINDS.items())
    (out_dir / "conversions.safetensors").write_bytes(serialize(conversions, {**metadata, "kinds": kinds}))
    read_back(out_dir / "conversions.safetensors", conversions)
    computed = compute(summary)
    (out_dir / "compute.safetensors").write_bytes(serialize(computed, metadata))
    read_back(out_dir / "compute.safetensors", computed)
    for file in ("conversions.safetensors", "compute.safetensors"):
        header = header_of(out_dir / file)
        summary[f"{file} keys"] = {k: [v["dtype"], v["shape"]] for k, v in header.items() if k != "__metadata__"}
    (out_dir / "summary.json").write_text(readable_json(summary) + "\n")
    return summary


def summarize(summary: dict) -> str:
    keep = ("f32_narrowing", "f64_narrowing", "nan_rules", "compute")
    return readable_json({k: summary[k] for k in keep})


if __name__ == "__main__":
    sys.exit(fixture_main(lambda out: summarize(write(out)), OUT, FILES, "half_fixture.py"))
