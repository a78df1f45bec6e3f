"""ULP accuracy of the OpenCL.std math entries against the OpenCL C limits
(OpenCL C 3.0 table 7.1 for float, 7.2 for double, half_* ≤ 8192 ulp)."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from _refs import dec_cos, dec_erf, dec_pi, dec_sin, decimal_ref, edge_values, ulp_error

from sgvm.engine.cpu.extinst import OPENCL_STD

RNG = np.random.default_rng(20261101)
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)


def _sample(lo: float, hi: float, n: int, dtype: np.dtype, log: bool = False) -> np.ndarray:
    """n values of ``dtype`` in [lo, hi] (log-uniform magnitudes when ``log``)."""
    if log:
        mags = np.exp(RNG.uniform(np.log(lo), np.log(hi), n))
        vals = mags * RNG.choice([-1, 1], n)
    else:
        vals = RNG.uniform(lo, hi, n)
    return vals.astype(dtype)


def _mathref(f):  # C-like wrapper: math domain / range errors → NaN / inf, skipped below
    def ref(*xs: float) -> float | None:
        try:
            return f(*xs)
        except (ValueError, OverflowError, ZeroDivisionError):
            return None

    return ref


def _check(name: str, args: list[np.ndarray], ref, dtype: np.dtype, limit: float) -> None:
    got = OPENCL_STD[name](*args, rtype=dtype)
    assert got.dtype == dtype
    worst, where = 0.0, None
    for i in range(len(got)):
        r = ref(*[float(a[i]) for a in args])
        if r is None:
            continue
        err = ulp_error(float(got[i]), r, dtype)
        if err > worst:
            worst, where = err, [float(a[i]) for a in args]
    assert worst <= limit, f"{name} {dtype}: {worst:.3g} ulp at {where}"


POS = (1e-30, 1e30)  # log-uniform magnitudes
F32_UNARY = [  # name, reference, domain (lo, hi, log?), float limit
    ("acos", math.acos, (-1, 1, False), 4), ("acosh", math.acosh, (1, 1e30, False), 4),
    ("asin", math.asin, (-1, 1, False), 4), ("asinh", math.asinh, (*POS, True), 4),
    ("atan", math.atan, (*POS, True), 5), ("atanh", math.atanh, (-1, 1, False), 5),
    ("acospi", lambda x: math.acos(x) / math.pi, (-1, 1, False), 5),
    ("asinpi", lambda x: math.asin(x) / math.pi, (-1, 1, False), 5),
    ("atanpi", lambda x: math.atan(x) / math.pi, (*POS, True), 5),
    ("cbrt", lambda x: math.copysign(abs(x) ** (1 / 3), x), (*POS, True), 2),
    ("cos", math.cos, (-1e4, 1e4, False), 4), ("cosh", math.cosh, (-80, 80, False), 4),
    ("cospi", "decimal", (-1e3, 1e3, False), 4),
    ("erf", math.erf, (-6, 6, False), 16), ("erfc", math.erfc, (-6, 9, False), 16),
    ("exp", math.exp, (-100, 88, False), 3), ("exp2", lambda x: 2.0**x, (-140, 127, False), 3),
    ("exp10", lambda x: 10.0**x, (-40, 38, False), 3), ("expm1", math.expm1, (*POS, True), 3),
    ("log", math.log, (1e-38, 1e38, False), 3), ("log2", math.log2, (1e-40, 1e38, False), 3),
    ("log10", math.log10, (1e-40, 1e38, False), 3), ("log1p", math.log1p, (-0.99, 1e30, False), 2),
    ("rsqrt", lambda x: 1 / math.sqrt(x), (1e-44, 1e38, False), 2),
    ("sin", math.sin, (-1e4, 1e4, False), 4), ("sinh", math.sinh, (-80, 80, False), 4),
    ("sinpi", "decimal", (-1e3, 1e3, False), 4),
    ("sqrt", math.sqrt, (0, 1e38, False), 0.5), ("tan", math.tan, (-1e4, 1e4, False), 5),
    ("tanh", math.tanh, (*POS, True), 5),
    ("tgamma", math.gamma, (-30, 34, False), 16),
    ("half_exp", math.exp, (-80, 80, False), 8192), ("native_sin", math.sin, (-10, 10, False), 8192),
]


@pytest.mark.parametrize("name,ref,domain,limit", F32_UNARY, ids=[t[0] for t in F32_UNARY])
def test_float32_unary(name, ref, domain, limit) -> None:
    lo, hi, log = domain
    x = np.concatenate([_sample(lo, hi, 400, F32, log), np.array(edge_values(F32), F32)])
    _check(name, [x], _mathref(ref) if ref != "decimal" else _PI_REFS[name], F32, limit)


@pytest.mark.parametrize("name,ref,domain,limit", F32_UNARY[:12], ids=[t[0] for t in F32_UNARY[:12]])
def test_float16_unary_sample(name, ref, domain, limit) -> None:
    lo, hi, log = domain
    x = np.concatenate([_sample(max(lo, -6e4), min(hi, 6e4), 100, F16, log),
                        np.array(edge_values(F16), F16)])
    _check(name, [x], _mathref(ref) if ref != "decimal" else _PI_REFS[name], F16, limit)


def _finite_pi_ref(f):
    def ref(x: float) -> Fraction | float | None:
        return None if not math.isfinite(x) else decimal_ref(f, x)

    return ref


_PI_REFS = {
    "sinpi": _finite_pi_ref(lambda x: dec_sin(dec_pi() * x)),
    "cospi": _finite_pi_ref(lambda x: dec_cos(dec_pi() * x)),
}

F32_BINARY = [
    ("atan2", math.atan2, 6), ("atan2pi", lambda y, x: math.atan2(y, x) / math.pi, 6),
    ("hypot", math.hypot, 4), ("fmod", math.fmod, 0), ("remainder", math.remainder, 0),
    ("pow", lambda x, y: math.pow(abs(x), y), 16), ("powr", lambda x, y: math.pow(abs(x), y), 16),
    ("fdim", lambda x, y: max(x - y, 0.0), 0.5), ("half_divide", lambda x, y: x / y, 8192),
]


# half_divide exists for float only; float64 atan2/atan2pi have no reference here that
# is independent of the implementation (both would be long double), so they run at float32.
_BINARY_CASES = [(*t, dtype) for t in F32_BINARY for dtype in (F32, F64)
                 if not (dtype == F64 and t[0] in ("atan2", "atan2pi", "half_divide"))]


@pytest.mark.parametrize("name,ref,limit,dtype", _BINARY_CASES,
                         ids=[f"{c[0]}-{np.dtype(c[3]).name}" for c in _BINARY_CASES])
def test_binary(name, ref, limit, dtype) -> None:
    x = _sample(1e-20, 1e20, 300, dtype, True)
    y = _sample(1e-5, 1e5, 300, dtype, True)
    if name in ("pow", "powr"):
        x, y = np.abs(x), _sample(-30, 30, 300, dtype)
    if dtype == F64 and name in ("pow", "powr"):
        _check(name, [x, y], lambda a, b: decimal_ref(lambda p, q: (q * p.ln()).exp(), a, b), dtype, 16)
    elif dtype == F64 and name in ("hypot", "fdim"):
        exact = {"hypot": lambda a, b: (a * a + b * b).sqrt(), "fdim": lambda a, b: max(a - b, 0)}
        _check(name, [x, y], lambda a, b: decimal_ref(exact[name], a, b), dtype, limit)
    elif dtype == F64:  # fmod / remainder: exact in Python's float64 too (C99 F.9.7)
        _check(name, [x, y], _mathref(ref), dtype, 0)
    else:
        _check(name, [x, y], _mathref(ref), dtype, limit)


def test_pown_rootn() -> None:
    for dtype, limit in ((F32, 16), (F64, 16)):
        x = _sample(1e-3, 1e3, 200, dtype, True)
        n = RNG.integers(-12, 13, 200).astype(np.int32).view(np.uint32)
        got = OPENCL_STD["pown"](x, n, rtype=dtype)
        for xi, ni, gi in zip(x, n.view(np.int32), got, strict=True):
            assert ulp_error(gi, Fraction(float(xi)) ** int(ni), dtype) <= limit
    x64 = _sample(1e-300, 1e300, 200, F64, True)
    n = RNG.integers(1, 40, 200).astype(np.uint32)
    got = OPENCL_STD["rootn"](np.abs(x64), n, rtype=F64)
    for xi, ni, gi in zip(np.abs(x64), n, got, strict=True):
        ref = decimal_ref(lambda p, k=int(ni): (p.ln() / k).exp(), float(xi))
        assert ulp_error(gi, ref, F64) <= 19  # double rootn limit


def _d(f):
    return lambda *xs: decimal_ref(f, *xs)


F64_UNARY = [  # float64 results against 60-digit decimal references
    ("exp", _d(lambda x: x.exp()), (-700, 700, False), 3),
    ("exp2", _d(lambda x: (x * Decimal(2).ln()).exp()), (-1000, 1000, False), 3),
    ("exp10", _d(lambda x: (x * Decimal(10).ln()).exp()), (-300, 300, False), 3),
    ("expm1", _d(lambda x: x.exp() - 1), (1e-15, 700, True), 3),
    ("log", _d(lambda x: x.ln()), (1e-300, 1e300, True), 3),
    ("log2", _d(lambda x: x.ln() / Decimal(2).ln()), (1e-300, 1e300, True), 3),
    ("log10", _d(lambda x: x.log10()), (1e-300, 1e300, True), 3),
    ("log1p", _d(lambda x: (1 + x).ln()), (-0.999, 1e30, False), 2),
    ("sqrt", _d(lambda x: x.sqrt()), (1e-300, 1e300, True), 0.5),
    ("rsqrt", _d(lambda x: 1 / x.sqrt()), (1e-300, 1e300, True), 2),
    ("cbrt", _d(lambda x: (x.ln() / 3).exp()), (1e-300, 1e300, True), 2),
    ("sin", _d(dec_sin), (-100, 100, False), 4),
    ("cos", _d(dec_cos), (-100, 100, False), 4),
    ("tan", _d(lambda x: dec_sin(x) / dec_cos(x)), (-100, 100, False), 5),
    ("sinpi", _d(lambda x: dec_sin(dec_pi() * x)), (-100, 100, False), 4),
    ("cospi", _d(lambda x: dec_cos(dec_pi() * x)), (-100, 100, False), 4),
    ("tanpi", _d(lambda x: dec_sin(dec_pi() * x) / dec_cos(dec_pi() * x)), (-100, 100, False), 6),
    ("sinh", _d(lambda x: (x.exp() - (-x).exp()) / 2), (-700, 700, False), 4),
    ("cosh", _d(lambda x: (x.exp() + (-x).exp()) / 2), (-700, 700, False), 4),
    ("tanh", _d(lambda x: (x.exp() - (-x).exp()) / (x.exp() + (-x).exp())), (-20, 20, False), 5),
    ("asinh", _d(lambda x: (abs(x) + (x * x + 1).sqrt()).ln().copy_sign(x)), (1e-10, 1e100, True), 4),
    ("acosh", _d(lambda x: (x + (x * x - 1).sqrt()).ln()), (1.0001, 1e100, False), 4),
    ("atanh", _d(lambda x: ((1 + x) / (1 - x)).ln() / 2), (-0.999, 0.999, False), 5),
    ("erf", _d(dec_erf), (-3, 3, False), 16),
    ("erfc", _d(lambda x: 1 - dec_erf(x)), (-3, 3, False), 16),
    ("degrees", _d(lambda x: x * 180 / dec_pi()), (1e-300, 1e300, True), 2),
    ("radians", _d(lambda x: x * dec_pi() / 180), (1e-300, 1e300, True), 2),
]


@pytest.mark.parametrize("name,ref,domain,limit", F64_UNARY, ids=[t[0] for t in F64_UNARY])
def test_float64_unary(name, ref, domain, limit) -> None:
    lo, hi, log = domain
    x = _sample(lo, hi, 60, F64, log)
    if log and name not in ("asinh",):
        x = np.abs(x)
    _check(name, [x], ref, F64, limit)


def test_tgamma_lgamma_exact_points() -> None:
    """Γ(n) = (n−1)!, Γ(n + 1/2) = (2n)!·√π / (4ⁿ·n!)."""
    for dtype in (F32, F64):
        n = np.arange(1, 30, dtype=dtype)
        got = OPENCL_STD["tgamma"](n, rtype=dtype)
        for k, g in zip(range(1, 30), got, strict=True):
            assert ulp_error(g, Fraction(math.factorial(k - 1)), dtype) <= 16
        half = np.arange(0, 20, dtype=dtype) + dtype.type(0.5)
        got = OPENCL_STD["tgamma"](half, rtype=dtype)
        for k, g in enumerate(got):
            ref = decimal_ref(lambda p, k=k: Decimal(math.factorial(2 * k)) * dec_pi().sqrt()
                              / (Decimal(4) ** k * math.factorial(k)), 0.0)
            assert ulp_error(g, ref, dtype) <= 16
        lg = OPENCL_STD["lgamma"](n, rtype=dtype)
        for k, g in zip(range(1, 30), lg, strict=True):
            assert abs(float(g) - math.log(math.factorial(k - 1))) <= 1e-5 * max(1, float(g))
