"""OpenCL.std math instructions (OpenCL C 6.15.2, OpenCL.std 2.1).

float16/float32 results are computed in float64 and rounded once (≤ 0.5 ulp
plus 2**-29 ulp, inside every limit of OpenCL C table 7.1); float64 results in
long double (64-bit significand) where float64 alone might not meet the limit,
then rounded once. Special values follow OpenCL C 7.5.1 (C99 Annex F plus the
OpenCL-only functions' rules). docs/extinst.md lists each function's method.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .extinst_base import F64, FX, done, ints_as_i64, lanewise, work

PI_X = np.arccos(FX.type(-1))  # π to long double precision
_PI = {F64: np.float64(np.pi), FX: PI_X}


def _unary(f: Callable[[np.ndarray], np.ndarray], name: str) -> Callable[..., np.ndarray]:
    """An entry computing ``f`` in the working precision of the result type."""

    @lanewise
    def entry(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
        return done(f(work(x, rtype, extended=True)), rtype)

    entry.__name__ = entry.__qualname__ = name
    entry.__doc__ = f"OpenCL.std {name}: computed in float64 (long double for double)."
    return entry


def _pyfunc(f: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    """Vectorise a scalar ``math`` function over float64 (result float64)."""
    uf = np.frompyfunc(f, 1, 1)
    return lambda w: np.asarray(uf(np.asarray(w, dtype=F64)), dtype=F64)


def _gamma(v: float) -> float:
    """C tgamma over Python's math.gamma: poles → ±inf (C 7.12.8.4), overflow → inf."""
    try:
        return math.gamma(v)
    except ValueError:
        return math.copysign(math.inf, v) if v == 0 else math.nan
    except OverflowError:
        return math.inf


def _lgamma(v: float) -> float:
    """C lgamma over math.lgamma: poles → +inf."""
    try:
        return math.lgamma(v)
    except (ValueError, OverflowError):
        return math.nan if math.isnan(v) else math.inf


def _pi(w: np.ndarray) -> np.floating:
    return _PI[w.dtype]


def _sinpi_w(w: np.ndarray) -> np.ndarray:
    """sin(πx) in the working precision; the reduction to [-1/2, 1/2] is exact."""
    r = np.fmod(w, 2)  # exact, in (-2, 2), sign of x
    r = np.where(r > 1, r - 2, np.where(r < -1, r + 2, r))
    t = np.where(np.abs(r) > 0.5, np.copysign(1 - np.abs(r), r), r)
    return np.sin(_pi(w) * t)


def _cospi_w(w: np.ndarray) -> np.ndarray:
    """cos(πx) in the working precision; cospi(n + 1/2) = +0 exactly."""
    r = np.abs(np.fmod(w, 2))
    r = np.where(r > 1, 2 - r, r)  # [0, 1], exact
    return np.where(r <= 0.25, np.cos(_pi(w) * r), np.sin(_pi(w) * (0.5 - r)))


def _rsqrt_w(w: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(w)


def _exp10_w(w: np.ndarray) -> np.ndarray:
    return np.power(w.dtype.type(10), w)


_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "acos": np.arccos,
    "acosh": np.arccosh,
    "asin": np.arcsin,
    "asinh": np.arcsinh,
    "atan": np.arctan,
    "atanh": np.arctanh,
    "acospi": lambda w: np.arccos(w) / _pi(w),
    "asinpi": lambda w: np.arcsin(w) / _pi(w),
    "atanpi": lambda w: np.arctan(w) / _pi(w),
    "cbrt": np.cbrt,
    "cos": np.cos,
    "cosh": np.cosh,
    "cospi": _cospi_w,
    "exp": np.exp,
    "exp2": np.exp2,
    "exp10": _exp10_w,
    "expm1": np.expm1,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "rsqrt": _rsqrt_w,
    "sin": np.sin,
    "sinh": np.sinh,
    "sinpi": _sinpi_w,
    "sqrt": np.sqrt,
    "tan": np.tan,
    "tanh": np.tanh,
    "tanpi": lambda w: _sinpi_w(w) / _cospi_w(w),
    "erf": _pyfunc(math.erf),
    "erfc": _pyfunc(math.erfc),
    "tgamma": _pyfunc(_gamma),
    "lgamma": _pyfunc(_lgamma),
}

MATH: dict[str, Callable[..., object]] = {name: _unary(f, name) for name, f in _UNARY.items()}


def _exact(name: str) -> Callable[[Callable[..., np.ndarray]], Callable[..., np.ndarray]]:
    """Register an entry (operands broadcast, FP warnings quiet) under ``name``."""

    def deco(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        MATH[name] = lanewise(fn)
        return MATH[name]

    return deco


# -- exact operations, done in the result type itself ------------------------------


def _exact_ufunc(name: str, f: np.ufunc, doc: str) -> None:
    """Register ``f`` under ``name``: exact in the result type, so only cast back."""

    def entry(*xs: np.ndarray, rtype: np.dtype) -> np.ndarray:
        return f(*xs).astype(rtype)

    entry.__name__ = entry.__qualname__ = name
    entry.__doc__ = doc
    _exact(name)(entry)


for _name, _f, _doc in (
    ("fabs", np.abs, "|x| (exact)."),
    ("copysign", np.copysign, "x with the sign of y (exact)."),
    ("ceil", np.ceil, "Round toward +∞ (exact)."),
    ("floor", np.floor, "Round toward −∞ (exact)."),
    ("trunc", np.trunc, "Round toward zero (exact)."),
    ("rint", np.rint, "Round to nearest even integer (exact)."),
    ("fmax", np.fmax, "max(x, y); a NaN operand yields the other one (OpenCL C 6.15.2)."),
    ("fmin", np.fmin, "min(x, y); a NaN operand yields the other one."),
):
    _exact_ufunc(_name, _f, _doc)


@_exact("round")
def round_(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """Round half away from zero; x − trunc(x) is exact, so no x + 0.5 error."""
    t = np.trunc(x)
    r = np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)
    return np.copysign(r, x).astype(rtype)


@_exact("maxmag")
def maxmag(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x if |x| > |y|, y if |y| > |x|, else fmax(x, y)."""
    ax, ay = np.abs(x), np.abs(y)
    return np.where(ax > ay, x, np.where(ay > ax, y, np.fmax(x, y))).astype(rtype)


@_exact("minmag")
def minmag(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x if |x| < |y|, y if |y| < |x|, else fmin(x, y)."""
    ax, ay = np.abs(x), np.abs(y)
    return np.where(ax < ay, x, np.where(ay < ax, y, np.fmin(x, y))).astype(rtype)


@_exact("fdim")
def fdim(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x − y if x > y, +0 if x ≤ y, NaN if either is NaN (correctly rounded)."""
    d = done(work(x, rtype) - work(y, rtype), rtype)
    return np.where(x > y, d, np.where(np.isnan(x) | np.isnan(y), np.nan, 0)).astype(rtype)


@_exact("nextafter")
def nextafter(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """The next representable value after x toward y."""
    return np.nextafter(x.astype(rtype), y.astype(rtype))


@_exact("fmod")
def fmod(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x − y·trunc(x/y), exact (C fmod)."""
    return done(np.fmod(work(x, rtype), work(y, rtype)), rtype)


@_exact("nan")
def nan(code: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """A quiet NaN carrying ``code`` in its significand bits below the quiet bit."""
    bits = {2: (np.uint16, 0x7E00, 0x1FF), 4: (np.uint32, 0x7FC00000, 0x3FFFFF),
            8: (np.uint64, 0x7FF8000000000000, 0x7FFFFFFFFFFFF)}[rtype.itemsize]
    ut, quiet, mask = bits
    c = np.asarray(code).astype(np.uint64) & np.uint64(mask)
    return (c | np.uint64(quiet)).astype(ut).view(rtype)


@_exact("ldexp")
def ldexp(x: np.ndarray, k: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x·2**k, correctly rounded (exact in float64 for float16/32, then one rounding)."""
    kk = np.clip(ints_as_i64(k), -10000, 10000).astype(np.int32)
    return done(np.ldexp(work(x, rtype), kk), rtype)


@_exact("ilogb")
def ilogb(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """The unbiased exponent as int; FP_ILOGB0 = INT_MIN, FP_ILOGBNAN (and ∞) = INT_MAX."""
    _, e = np.frexp(np.asarray(x, dtype=F64))
    r = np.where(x == 0, -(2**31), np.where(np.isfinite(x), e.astype(np.int64) - 1, 2**31 - 1))
    return r.astype(np.int32).view(np.uint32).astype(rtype)


@_exact("logb")
def logb(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """The unbiased exponent as float: logb(±0) = −∞, logb(±∞) = +∞."""
    w = np.asarray(x, dtype=F64)
    _, e = np.frexp(w)
    r = np.where(w == 0, -np.inf, np.where(np.isfinite(w), e - 1.0, np.abs(w)))
    return r.astype(rtype)


# -- two-operand transcendental functions ---------------------------------------------


def _binary(name: str, f: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
    @lanewise
    def entry(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
        return done(f(work(x, rtype, extended=True), work(y, rtype, extended=True)), rtype)

    entry.__name__ = entry.__qualname__ = name
    entry.__doc__ = f"OpenCL.std {name}: computed in float64 (long double for double)."
    MATH[name] = entry


def _powr_w(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """powr: exp(y·log x) for x ≥ 0 with OpenCL C 7.5.1's special cases."""
    r = np.power(x, y)
    bad = (x < 0) | ((x == 0) & (y == 0)) | (np.isinf(x) & (y == 0))
    bad |= (x == 1) & np.isinf(y)
    return np.where(bad | np.isnan(x) | np.isnan(y), np.nan, r)


_binary("atan2", np.arctan2)
_binary("atan2pi", lambda y, x: np.arctan2(y, x) / _pi(y))
_binary("hypot", np.hypot)
_binary("pow", np.power)
_binary("powr", _powr_w)


@_exact("pown")
def pown(x: np.ndarray, n: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x**n for integer n; pown(x, 0) = 1 even for NaN x."""
    w = work(x, rtype, extended=True)
    return done(np.power(w, ints_as_i64(n).astype(w.dtype)), rtype)


@_exact("rootn")
def rootn(x: np.ndarray, n: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x**(1/n) with the sign of x for odd n; NaN for n = 0 or x < 0 with even n."""
    w = work(x, rtype, extended=True)
    nn = ints_as_i64(n)
    odd = (nn & 1) == 1
    mag = np.power(np.abs(w), 1 / nn.astype(w.dtype))
    r = np.where(odd, np.copysign(mag, w), mag)
    r = np.where((nn == 0) | ((w < 0) & ~odd), np.nan, r)
    return done(r, rtype)


# -- fused and multi-result functions ---------------------------------------------------


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Knuth's TwoSum: s = fl(a + b) and the exact error a + b − s."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_odd_sum(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b rounded to odd (Boldo–Melquiond): re-rounding it to ≥ 2 fewer bits is exact."""
    s, e = _two_sum(a, b)
    mant_even = (s.view(np.uint64) & np.uint64(1)) == 0
    fix = (e != 0) & mant_even & np.isfinite(s)
    return np.where(fix, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)


_SPLIT = 2.0**27 + 1


def _two_prod(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Dekker's TwoProduct (Veltkamp split): p = fl(a·b) and the exact error."""
    p = a * b

    def split(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        c = _SPLIT * v
        hi = c - (c - v)
        return hi, v - hi

    ah, al = split(a)
    bh, bl = split(b)
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _fma_exact(a: float, b: float, c: float) -> float:
    """One correctly rounded fma through Python's exact rationals (rare lanes)."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return a * b + c
    if not math.isfinite(c):  # the exact product is finite
        return c
    from fractions import Fraction

    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        prod_neg = (math.copysign(1, a) * math.copysign(1, b)) < 0
        return -0.0 if (prod_neg and math.copysign(1, c) < 0) else 0.0
    try:
        return float(exact)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


_FMA_EXACT = np.frompyfunc(_fma_exact, 3, 1)


def _fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Correctly rounded float64 fma: TwoProduct, TwoSum, round-to-odd, then the
    exact rational path for lanes outside the transforms' exponent range."""
    a, b, c = np.broadcast_arrays(a.astype(F64), b.astype(F64), c.astype(F64))
    ph, pl = _two_prod(a, b)
    sh, sl = _two_sum(c, ph)
    res = sh + _round_odd_sum(sl, pl)
    ap = np.abs(ph)
    safe = (np.abs(a) < 2.0**995) & (np.abs(b) < 2.0**995) & (np.abs(c) < 2.0**1020)
    safe &= ((ap >= 2.0**-960) & (ap < 2.0**1020)) | (a == 0) | (b == 0)
    res = np.where((a == 0) | (b == 0), ph + c, res)
    slow = ~safe
    if slow.any():
        res = res.copy()
        res[slow] = _FMA_EXACT(a[slow], b[slow], c[slow]).astype(F64)
    return res


@_exact("fma")
def fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """a·b + c with one rounding (correctly rounded, OpenCL C 7.4).

    float16/32: the product is exact in float64; the sum is rounded to odd in
    float64, and rounding that to the narrower type is then correct.
    """
    if rtype == F64:
        return _fma64(a, b, c)
    p = a.astype(F64) * b.astype(F64)
    return done(_round_odd_sum(p, c.astype(F64)), rtype)


@_exact("mad")
def mad(a: np.ndarray, b: np.ndarray, c: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """a·b + c; OpenCL allows any accuracy: one rounding for float16/32, two for double."""
    return done(work(a, rtype) * work(b, rtype) + work(c, rtype), rtype)


def _remquo_w(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """IEEE remainder and the low 7 bits of the rounded quotient, signed like x/y.

    Every subtraction below has operands within a factor 2 (Sterbenz), so the
    remainder is exact.
    """
    a, b = np.abs(x), np.abs(y)
    m = np.fmod(a, b * 128)
    q = np.zeros(m.shape, dtype=np.int64)
    for k in range(6, -1, -1):
        step = b * 2**k
        ge = m >= step
        m = np.where(ge, m - step, m)
        q += ge.astype(np.int64) << k
    up = (m > b / 2) | ((m == b / 2) & ((q & 1) == 1))
    m = np.where(up, m - b, m)
    q = np.where(up, q + 1, q) & 127
    r = np.where(m == 0, np.copysign(0 * m, x), np.copysign(1, x) * m)
    r = np.where(np.isinf(b) & np.isfinite(a), x, r)
    invalid = (b == 0) | np.isinf(a) | np.isnan(a) | np.isnan(b)
    q = np.where((np.signbit(x) != np.signbit(y)), -q, q)
    return np.where(invalid, np.nan, r), np.where(invalid | np.isinf(b), 0, q)


@_exact("remainder")
def remainder(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """IEEE 754 remainder x − n·y, n the integer nearest x/y (ties to even); exact."""
    return done(_remquo_w(work(x, rtype, extended=True), work(y, rtype, extended=True))[0], rtype)


@_exact("remquo")
def remquo(x: np.ndarray, y: np.ndarray, _quo: np.ndarray, *,
           rtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(remainder(x, y), int: the low 7 bits of the quotient with the sign of x/y)."""
    r, q = _remquo_w(work(x, rtype, extended=True), work(y, rtype, extended=True))
    return done(r, rtype), q.astype(np.int32).view(np.uint32)


@_exact("fract")
def fract(x: np.ndarray, _ptr: np.ndarray, *, rtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(fmin(x − floor(x), 0x1.fffffep-1f), floor(x)); fract(±∞) = +0."""
    xr = x.astype(rtype)
    fl = np.floor(xr)
    below_one = np.nextafter(rtype.type(1), rtype.type(0))
    fr = np.minimum(xr - fl, below_one)  # NaN propagates: fract(NaN) = NaN
    fr = np.where(np.isinf(xr), rtype.type(0), fr).astype(rtype)
    return fr, fl


@_exact("modf")
def modf(x: np.ndarray, _ptr: np.ndarray, *, rtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(signed fractional part, integral part); modf(±∞) = (±0, ±∞)."""
    xr = x.astype(rtype)
    t = np.trunc(xr)
    fr = np.where(np.isinf(xr), 0, xr - t)
    return np.copysign(fr, xr).astype(rtype), t


@_exact("frexp")
def frexp(x: np.ndarray, _ptr: np.ndarray, *, rtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(mantissa in [1/2, 1), int exponent) with x = mantissa·2**exponent; exact."""
    m, e = np.frexp(x.astype(F64))
    return m.astype(rtype), e.astype(np.int32).view(np.uint32)


@_exact("sincos")
def sincos(x: np.ndarray, _ptr: np.ndarray, *,
           rtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(sin x, cos x), each as the sin / cos entries compute it."""
    w = work(x, rtype, extended=True)
    return done(np.sin(w), rtype), done(np.cos(w), rtype)


@_exact("lgamma_r")
def lgamma_r(x: np.ndarray, _ptr: np.ndarray, *,
             rtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(lgamma x, the sign of Γ(x) as int: ±1; +1 at NaN and the poles of +0 / −n)."""
    w = x.astype(F64)
    val = _UNARY["lgamma"](w)
    neg = (w < 0) & (w != np.floor(w)) & (np.fmod(np.floor(-w), 2) == 0)
    neg |= (w == 0) & np.signbit(w)
    return done(val, rtype), np.where(neg, -1, 1).astype(np.int32).view(np.uint32)


# -- half_* (≤ 8192 ulp) and native_* (implementation-defined): full precision ---------

_HALF_NATIVE = ["cos", "exp", "exp2", "exp10", "log", "log2", "log10", "powr", "rsqrt",
                "sin", "sqrt", "tan"]


@lanewise
def divide(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x / y, correctly rounded (half_divide / native_divide)."""
    return done(work(x, rtype) / work(y, rtype), rtype)


@lanewise
def recip(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """1 / x, correctly rounded (half_recip / native_recip)."""
    return done(1 / work(x, rtype), rtype)


for _prefix in ("half_", "native_"):
    for _name in _HALF_NATIVE:
        MATH[_prefix + _name] = MATH[_name]
    MATH[_prefix + "divide"] = divide
    MATH[_prefix + "recip"] = recip
