#!/usr/bin/env python3
"""Minimax polynomial coefficients for the crate's own transcendentals
(src/tensor/math): a Remez exchange in mpmath at 50 digits, then the
coefficients rounded to f32 / f64 one at a time, highest degree first, the
lower coefficients refitted after each rounding (a greedy version of
Brisebarre-Muller-Tisserand's rounded minimax, as Sollya's fpminimax does).

Usage:  python3 scripts/math_minimax.py [name ...]   (needs mpmath)

Prints, per fit and type, the Rust array (highest degree first, the order
the Horner loops read), the relative error of the real-valued minimax
polynomial and that of the rounded coefficients (measured on a dense grid
in mpmath). The arrays in src/tensor/math/*.rs are this script's output.

Every fit minimises a weighted error  max |w(x) (p(x) - f(x))|  where the
weight makes it the relative error of the function the polynomial feeds:

- exp:    expm1(r) = r + r^2 P(r) on |r| <= ln2/2; P fitted to
          (e^r - 1 - r)/r^2 relative.
- tanh:   tanh(x) = x + x^3 P(x^2) for |x| < 0.625; P fitted in z = x^2.
- ln:     ln(1+f) = 2s + s R(z), s = f/(2+f), z = s^2, R(z) = z L(z)
          (fdlibm's form); L fitted on z <= (3 - 2 sqrt 2)^2.
- erf:    erf(x) = x + x P(x^2) for |x| < 0.5 (P(0) = 2/sqrt(pi) - 1, so
          the rounding of the leading constant is scaled down, as fdlibm).
- erfc:   erfc(z) = exp(-z^2) Q(z); Q(z) = erfcx(z) on [0.5, 1.25) as a
          polynomial in z - 0.875, and z Q(z) as a polynomial in t = 1/z on
          three pieces of z >= 1.25 (t in (0.4, 0.8], (0.25, 0.4], [0, 0.25]).
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 50


def remez(f, a, b, basis, w, iters=60, grid=None):
    """Minimise max |w(x) (sum_j c_j basis_j(x) - f(x))| on [a, b].

    Returns (coefficients, max weighted error on the grid)."""
    m = len(basis)
    npts = m + 1
    a = mp.mpf(a)
    b = mp.mpf(b)
    ref = [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * i / (npts - 1)) for i in range(npts)]
    g = grid or max(600, 80 * npts)
    xs = [a] + [(a + b) / 2 - (b - a) / 2 * mp.cos(mp.pi * (i + 0.5) / g) for i in range(g)] + [b]
    fx = {}

    def fv(x):
        if x not in fx:
            fx[x] = (f(x), w(x))
        return fx[x]

    c = None
    for _ in range(iters):
        mat = mp.matrix(npts, npts)
        rhs = mp.matrix(npts, 1)
        for i, x in enumerate(ref):
            fxv, wx = fv(x)
            for j in range(m):
                mat[i, j] = basis[j](x)
            mat[i, m] = (-1) ** i / wx
            rhs[i] = fxv
        sol = mp.lu_solve(mat, rhs)
        c = [sol[j] for j in range(m)]

        def err(x):
            fxv, wx = fv(x)
            return wx * (sum(cj * bj(x) for cj, bj in zip(c, basis)) - fxv)

        es = [err(x) for x in xs]
        exts = []
        start = 0
        for i in range(1, len(xs) + 1):
            if i == len(xs) or mp.sign(es[i]) != mp.sign(es[start]):
                k = max(range(start, i), key=lambda t: abs(es[t]))
                lo = xs[max(k - 1, 0)]
                hi = xs[min(k + 1, len(xs) - 1)]
                sgn = mp.sign(es[k])
                for _ in range(40):
                    m1 = lo + (hi - lo) * mp.mpf(0.381966)
                    m2 = lo + (hi - lo) * mp.mpf(0.618034)
                    if sgn * err(m1) > sgn * err(m2):
                        hi = m2
                    else:
                        lo = m1
                xr = (lo + hi) / 2
                exts.append(xr if abs(err(xr)) > abs(es[k]) else xs[k])
                start = i
        ev = [err(x) for x in exts]
        while len(exts) > npts:
            if abs(ev[0]) < abs(ev[-1]):
                exts.pop(0)
                ev.pop(0)
            else:
                exts.pop()
                ev.pop()
        maxe = max(abs(e) for e in ev)
        mine = min(abs(e) for e in ev)
        if len(exts) < npts:
            break
        ref = exts
        if maxe - mine < maxe * mp.mpf("1e-8"):
            break
    final = max(abs(err(x)) for x in xs)
    return c, final


def round_to(x, bits):
    """x rounded to nearest with a `bits`-bit significand (f32: 24, f64: 53)."""
    with mp.workprec(bits):
        return +x


def monomials(lo_degree, hi_degree):
    return [(lambda j: (lambda t: t**j))(j) for j in range(lo_degree, hi_degree + 1)]


def rounded_fit(f, a, b, degree, w, bits, split):
    """Minimax of degree `degree` with coefficients rounded to `bits`-bit
    significands greedily from the highest degree down, the lower ones
    refitted after each rounding (their basis 1, t, ..., t^k keeps the Haar
    condition, so the exchange stays well posed). With `split`, the constant
    term is kept as two words hi + lo (the Horner loop adds it last, so its
    rounding does not reach the result)."""
    coeffs = {}
    for k in range(degree, -1, -1):
        known = dict(coeffs)

        def g(t, known=known):
            return f(t) - sum(cj * t**j for j, cj in known.items())

        c, _ = remez(g, a, b, monomials(0, k), w)
        coeffs[k] = c[k] if (k == 0 and split) else round_to(c[k], bits)
    out = [coeffs[j] for j in range(degree + 1)]
    if split:
        hi = round_to(out[0], bits)
        return out, (hi, round_to(out[0] - hi, bits))
    return out, None


def max_error(f, a, b, coeffs, w, n=4000):
    a = mp.mpf(a)
    b = mp.mpf(b)
    worst = mp.mpf(0)
    for i in range(n + 1):
        x = a + (b - a) * i / n
        p = mp.mpf(0)
        for c in reversed(coeffs):
            p = p * x + c
        worst = max(worst, abs(w(x) * (p - f(x))))
    return worst


def rust(x, bits):
    if bits == 24:
        v = struct.unpack("<f", struct.pack("<f", float(x)))[0]
        assert mp.mpf(v) == x, (v, x)
        return repr(v)
    v = float(x)
    assert mp.mpf(v) == x
    return repr(v)


# ---- the functions -------------------------------------------------------


def exp_p(r):
    if abs(r) < mp.mpf("1e-20"):
        return mp.mpf(1) / 2 + r / 6
    return (mp.exp(r) - 1 - r) / r**2


def tanh_p(z):
    if z == 0:
        return mp.mpf(-1) / 3
    x = mp.sqrt(z)
    return (mp.tanh(x) - x) / (z * x)


def ln_l(z):
    if z == 0:
        return mp.mpf(2) / 3
    s = mp.sqrt(z)
    return (2 * mp.atanh(s) - 2 * s) / (s * z)


def erf_p(z):
    if z == 0:
        return 2 / mp.sqrt(mp.pi) - 1
    x = mp.sqrt(z)
    return mp.erf(x) / x - 1


def erfcx(z):
    return mp.erfc(z) * mp.exp(z * z)


def erfc_t(t):
    if t == 0:
        return 1 / mp.sqrt(mp.pi)
    return erfcx(1 / t) / t


def rel(f):
    return lambda x: 1 / abs(f(x))


LN2_HALF = mp.log(2) / 2 + mp.mpf("1e-5")
SQ = (3 - 2 * mp.sqrt(2)) ** 2 * (1 + mp.mpf("1e-6"))


def shifted(f, c):
    """f in the variable v = x - c."""
    c = mp.mpf(c)
    return lambda v: f(v + c)


def piece(f, a, b, c, degrees):
    """f on [a, b] as a polynomial in v = x - c, constant term split."""
    g = shifted(f, c)
    return (g, mp.mpf(a) - mp.mpf(c), mp.mpf(b) - mp.mpf(c), rel(g), degrees, True)


# name: (function of the fitted variable, a, b, weight,
#        {significand bits: degree}, split constant term)
FITS = {
    "exp": (exp_p, -LN2_HALF, LN2_HALF, rel(exp_p), {24: 5, 53: 10}, False),
    "tanh": (tanh_p, 0, mp.mpf("0.625") ** 2, rel(tanh_p), {24: 5, 53: 12}, False),
    "ln": (ln_l, 0, SQ, rel(ln_l), {24: 3, 53: 6}, False),
    "erf": (erf_p, 0, mp.mpf("0.25"), lambda z: 1 / (1 + erf_p(z)), {24: 4, 53: 8}, False),
    # erfcx(z) on z in [0.5, 1.25], v = z - 0.875
    "erfc_a": piece(erfcx, "0.5", "1.25", "0.875", {24: 8, 53: 15}),
    # z erfcx(z) in t = 1/z: z in [1.25, 2.5], [2.5, 4], [4, inf)
    "erfc_b": piece(erfc_t, "0.4", "0.8", "0.6", {24: 7, 53: 16}),
    "erfc_c": piece(erfc_t, "0.25", "0.4", "0.325", {24: 5, 53: 12}),
    "erfc_d": piece(erfc_t, "0", "0.25", "0.125", {24: 7, 53: 17}),
}


def main(names):
    for name in names or FITS:
        f, a, b, w, degrees, split = FITS[name]
        for bits, degree in degrees.items():
            ty = "f32" if bits == 24 else "f64"
            _, e_exact = remez(f, a, b, monomials(0, degree), w)
            coeffs, words = rounded_fit(f, a, b, degree, w, bits, split)
            e_round = max_error(f, a, b, coeffs, w)
            print(f"// {name} {ty}: degree {degree} on [{mp.nstr(a, 6)}, {mp.nstr(b, 6)}], "
                  f"relative error {mp.nstr(e_exact, 3)} (real coefficients), "
                  f"{mp.nstr(e_round, 3)} (rounded), 2^{mp.nstr(mp.log(e_round, 2), 4)}")
            shown = coeffs[1:] if words else coeffs
            body = ", ".join(rust(c, bits) for c in reversed(shown))
            print(f"{name.upper()}_{ty.upper()}: [{ty}; {len(shown)}] = [{body}];")
            if words:
                print(f"{name.upper()}_{ty.upper()}_C0: ({rust(words[0], bits)}, {rust(words[1], bits)})")
            sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
