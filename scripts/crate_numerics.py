"""The crate's numerics in Python, operation for operation, for the fixture scripts.

- `tree_sum`: the fixed summation tree of `sum_axis` / `mean_axis` / the softmax's
  normalizer (src/tensor/ops/reduce/tree.rs): leaves of 128 values, 16 lanes per
  leaf summed in ascending order from +0.0, leaves combined lane by lane as a binary
  counter, the lanes folded by halving.
- `exp`: the crate's f64 `exp` (src/tensor/math/exp.rs): Cody-Waite reduction with
  fused multiply-adds, a degree-10 polynomial for expm1 in Horner form, the scale by
  2^n as two exponent-bit factors. Python has no fma before 3.13, so `fma` computes
  a*b+c exactly with `fractions.Fraction` and rounds once (float(Fraction) rounds
  to nearest, ties to even): the correctly rounded IEEE fma.
Every operation is an IEEE double operation with the Rust code's operands, so the
results are the crate's bits.
"""

import math
import struct
from fractions import Fraction

LEAF = 128
LANES = 16
MASK64 = (1 << 64) - 1


def fma(a, b, c):
    """Correctly rounded a*b + c for finite operands."""
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def _leaf(values):
    lanes = [0.0] * LANES
    for i, x in enumerate(values):
        lanes[i % LANES] = lanes[i % LANES] + x
    return lanes


def _add(a, b):
    return [x + y for x, y in zip(a, b)]


def tree_sum(values):
    """The crate's tree sum of a group given in logical order."""
    values = list(values)
    pending = {}
    leaves = 0
    for start in range(0, len(values), LEAF):
        carry = _leaf(values[start:start + LEAF])
        level = 0
        while (leaves >> level) & 1:
            carry = _add(pending.pop(level), carry)
            level += 1
        pending[level] = carry
        leaves += 1
    total = None
    for level in sorted(pending):
        total = pending[level] if total is None else _add(pending[level], total)
    if total is None:
        return 0.0
    width = LANES // 2
    while width:
        for j in range(width):
            total[j] = total[j] + total[j + width]
        width //= 2
    return total[0]


def _bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _from_bits(b):
    return struct.unpack("<d", struct.pack("<Q", b & MASK64))[0]


LOG2E = 1.4426950408889634
SHIFTER = 6755399441055744.0
SHIFTER_OFFSET = 0x4338_0000_0000_0000 - 2048
LN2_HI = 0.6931471805599453
LN2_LO = 2.3190468138462996e-17
MIN_ARG = -1400.0
MAX_ARG = 710.0
EXPM1 = [
    2.0889375313425017e-9,
    2.5105176693310134e-8,
    2.755734962082803e-7,
    2.7557255506863197e-6,
    2.4801587245735247e-5,
    0.0001984126987472661,
    0.0013888888888917963,
    0.008333333333326165,
    0.041666666666666616,
    0.1666666666666667,
    0.5,
]


def exp(x):
    """The crate's f64 exp (NaN comes back as it is)."""
    if math.isnan(x):
        return x
    x = min(max(x, MIN_ARG), MAX_ARG)
    t = fma(x, LOG2E, SHIFTER)
    n = t - SHIFTER
    r = fma(n, -LN2_HI, x)
    r = fma(n, -LN2_LO, r)
    k = (_bits(t) - SHIFTER_OFFSET) & MASK64
    p = EXPM1[0]
    for c in EXPM1[1:]:
        p = fma(p, r, c)
    y = fma(p, r * r, r) + 1.0
    h = k >> 1
    low = _from_bits(((h - 1) & MASK64) << 52)
    high = _from_bits((((k - h) & MASK64) - 1 & MASK64) << 52)
    return (y * low) * high
