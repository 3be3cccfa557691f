#!/usr/bin/env python3
"""The f64 reference of the crate's math functions (src/tensor/math):
inputs and correctly rounded results computed with mpmath at 60 digits.

Usage:  python3 scripts/math_reference.py   (needs mpmath)
Writes  tests/fixtures/math/f64_reference.bin:
    b"MATHF64\\0", then per function: a name length byte, the name,
    a u32 count, then `count` pairs (x, y) of f64 bit patterns, all
    little-endian; a zero length byte ends the file.

Inputs per function: random doubles over the whole useful range, denser
random points in the regions where the algorithms switch method or the
result leaves the normal range, and a few exact special points. The
results are rounded to nearest-even f64 (subnormals included) from the
60-digit values.
"""
import os
import random
import struct

import mpmath as mp

mp.mp.dps = 60
COUNT = 2048
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "fixtures", "math", "f64_reference.bin")


def sigmoid(x):
    return 1 / (1 + mp.exp(-x))


def gelu_tanh(x):
    # 0.5 x (1 + tanh u) = x sigmoid(2u): the same value without the
    # cancellation that would need hundreds of digits for negative x
    u = mp.sqrt(2 / mp.pi) * (x + mp.mpf("0.044715") * x**3)
    return x * sigmoid(2 * u)


FUNCTIONS = {
    "exp": mp.exp,
    "ln": mp.log,
    "tanh": mp.tanh,
    "sigmoid": sigmoid,
    "silu": lambda x: x * sigmoid(x),
    "gelu_tanh": gelu_tanh,
    "gelu_erf": lambda x: x / 2 * mp.erfc(-x / mp.sqrt(2)),
    "erf": mp.erf,
    "sqrt": mp.sqrt,
    "rsqrt": lambda x: 1 / mp.sqrt(x),
    "recip": lambda x: 1 / x,
}

# (lo, hi, share of the inputs) per function; the rest of the inputs are
# random bit patterns of positive or negative doubles with exponents in the
# function's range.
REGIONS = {
    "exp": [(-745.2, 709.8, 0.4), (-1, 1, 0.2), (-745.2, -708, 0.1), (700, 709.8, 0.05)],
    "ln": [(0.5, 2, 0.3), (0.99, 1.01, 0.1), (1e-300, 1e300, 0.1)],
    "tanh": [(-1, 1, 0.3), (-0.7, 0.7, 0.2), (-20, 20, 0.3)],
    "sigmoid": [(-40, 40, 0.4), (-745, -700, 0.1), (-5, 5, 0.2)],
    "silu": [(-40, 40, 0.4), (-750, -700, 0.1), (-5, 5, 0.2)],
    "gelu_tanh": [(-8, 8, 0.4), (-22, -15, 0.2), (-3, 3, 0.2)],
    "gelu_erf": [(-8, 8, 0.3), (-39, -30, 0.2), (-3, 3, 0.2), (0.6, 6, 0.1)],
    "erf": [(-6, 6, 0.4), (0.4, 4.5, 0.2), (-1.3, 1.3, 0.2)],
    "sqrt": [(0, 4, 0.4)],
    "rsqrt": [(0, 4, 0.4)],
    "recip": [(-4, 4, 0.4)],
}
SPECIAL = {
    "exp": [0.0, 1.0, -1.0, 709.78, -745.0, -708.4, 0.34657359027997264],
    "ln": [1.0, 2.0, 0.5, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308],
    "tanh": [0.625, -0.625, 0.6249999999999999, 1e-300, 19.0, 0.3],
    "sigmoid": [0.0, 1.0, -1.0, -744.0, 36.0],
    "silu": [1.0, -1.0, -745.0, 36.0],
    "gelu_tanh": [1.0, -1.0, -20.0, 7.0],
    "gelu_erf": [1.0, -1.0, -38.0, 0.7071067811865476, 1.7677669529663689, 3.5355339059327378],
    "erf": [0.5, 1.25, 2.5, 4.0, 0.4999999999999999, 1e-300, 5.9],
    "sqrt": [2.0, 5e-324, 1.7976931348623157e308],
    "rsqrt": [2.0, 5e-324, 1.7976931348623157e308],
    "recip": [3.0, 5e-324, 1e308],
}
# exponent range of the random bit patterns
EXPONENTS = {
    "exp": (-60, 9), "ln": (-1074, 1023), "tanh": (-60, 6), "sigmoid": (-60, 10),
    "silu": (-60, 10), "gelu_tanh": (-60, 6), "gelu_erf": (-60, 6), "erf": (-60, 3),
    "sqrt": (-1074, 1023), "rsqrt": (-1074, 1023), "recip": (-1022, 1023),
}
POSITIVE = {"ln", "sqrt", "rsqrt"}


def round_f64(y):
    """y rounded to the nearest f64 (ties to even), subnormals included."""
    if y == 0:
        return 0.0
    if abs(y) < mp.ldexp(1, -1022):
        n = int(mp.nint(mp.ldexp(y, 1074)))
        return float(n) * 2.0**-1074 if n != 0 else (0.0 if y > 0 else -0.0)
    if abs(y) >= mp.ldexp(2, 1023) * (1 - mp.ldexp(1, -54)):
        return float("inf") if y > 0 else float("-inf")
    with mp.workprec(53):
        return float(+y)


def inputs(name, rng):
    xs = list(SPECIAL[name])
    for lo, hi, share in REGIONS[name]:
        xs += [rng.uniform(lo, hi) for _ in range(int(share * COUNT))]
    lo_e, hi_e = EXPONENTS[name]
    while len(xs) < COUNT:
        x = rng.random() * 2.0 ** rng.randint(lo_e, hi_e)
        if name not in POSITIVE and rng.random() < 0.5:
            x = -x
        if x != 0:
            xs.append(x)
    return xs[:COUNT]


def main():
    rng = random.Random(20261203)
    out = bytearray(b"MATHF64\0")
    for name, f in FUNCTIONS.items():
        xs = inputs(name, rng)
        out += bytes([len(name)]) + name.encode() + struct.pack("<I", len(xs))
        for x in xs:
            y = round_f64(f(mp.mpf(x)))
            out += struct.pack("<dd", x, y)
        print(name, len(xs))
    out += bytes([0])
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "wb") as fh:
        fh.write(out)
    print(OUT, len(out), "bytes")


if __name__ == "__main__":
    main()
