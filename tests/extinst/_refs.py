"""Independent references for the OpenCL.std tests: exact rationals, Python's
``math`` in double (a fine reference for float16/32 results) and ``decimal``
at 60 digits (the reference for float64 results)."""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

FORMATS = {  # dtype → (significand bits, minimum normal exponent, max finite)
    np.dtype(np.float16): (11, -14, 65504.0),
    np.dtype(np.float32): (24, -126, float(np.finfo(np.float32).max)),
    np.dtype(np.float64): (53, -1022, float(np.finfo(np.float64).max)),
}
DIGITS = 60


def ulp_error(got: float, ref: Fraction | float | Decimal, dtype: np.dtype) -> float:
    """|got − ref| in units of the last place of ``ref`` in ``dtype`` (IEEE specials:
    0 when both are the same NaN/inf class, inf otherwise)."""
    p, emin, fmax = FORMATS[np.dtype(dtype)]
    got = float(got)
    if isinstance(ref, float) and math.isnan(ref):
        return 0.0 if math.isnan(got) else math.inf
    if isinstance(ref, float) and math.isinf(ref):
        return 0.0 if got == ref else math.inf
    if math.isnan(got):
        return math.inf
    r = Fraction(ref)
    if abs(r) > fmax:  # overflowed reference: the correctly rounded result may be inf
        return 0.0 if math.isinf(got) and (got > 0) == (r > 0) else (
            math.inf if math.isinf(got) else 1.0)
    if math.isinf(got):
        return math.inf
    e = max(_floor_log2(abs(r)) if r else emin, emin)
    return float(min(abs(Fraction(got) - r) / Fraction(2) ** (e - p + 1), Fraction(10) ** 300))


def _floor_log2(r: Fraction) -> int:
    """⌊log2 r⌋ of a positive rational, exactly."""
    e = r.numerator.bit_length() - r.denominator.bit_length()
    return e - 1 if r < Fraction(2) ** e else e


# -- decimal references (float64 results) ----------------------------------------------


def dec_pi() -> Decimal:
    """π to the context precision (the decimal module documentation's recipe)."""
    with localcontext() as ctx:
        ctx.prec += 2
        three = Decimal(3)
        lasts, t, s, n, na, d, da = 0, three, 3, 1, 0, 0, 24
        while s != lasts:
            lasts = s
            n, na = n + na, na + 8
            d, da = d + da, da + 32
            t = (t * n) / d
            s += t
    return +s


def _series(x: Decimal, first: Decimal, k0: int) -> Decimal:
    """Σ (−1)^k x^(2k+k0) / (2k+k0)!: sin (k0 = 1) and cos (k0 = 0)."""
    term, total, k = first, first, k0
    x2 = x * x
    while True:
        term = -term * x2 / ((k + 1) * (k + 2))
        k += 2
        if abs(term) < Decimal(10) ** (-DIGITS - 5):
            return total + term
        total += term


def dec_sin(x: Decimal) -> Decimal:
    pi2 = 2 * dec_pi()
    r = x - pi2 * (x / pi2).to_integral_value()
    return _series(r, r, 1)


def dec_cos(x: Decimal) -> Decimal:
    pi2 = 2 * dec_pi()
    r = x - pi2 * (x / pi2).to_integral_value()
    return _series(r, Decimal(1), 0)


def dec_erf(x: Decimal) -> Decimal:
    """Maclaurin series of erf (|x| ≤ 3 at 60 digits)."""
    total, term, n = Decimal(0), x, 0
    while abs(term) > Decimal(10) ** (-DIGITS - 5):
        total += term / (2 * n + 1)
        n += 1
        term = -term * x * x / n
    return 2 / dec_pi().sqrt() * total


def decimal_ref(f: Callable[..., Decimal], *xs: float) -> Fraction:
    """``f`` at 60 significant digits, as an exact rational."""
    with localcontext() as ctx:
        ctx.prec = DIGITS
        return Fraction(f(*[Decimal(x) for x in xs]))


def edge_values(dtype: np.dtype) -> list[float]:
    """0, −0, the smallest subnormal and normal, 1, the largest finite, ±inf, NaN."""
    fi = np.finfo(dtype)
    vals = [0.0, float(fi.smallest_subnormal), float(fi.smallest_normal), 1.0, 0.5,
            float(fi.max), math.inf, math.nan, 3 * float(fi.smallest_subnormal)]
    return vals + [-v for v in vals]
