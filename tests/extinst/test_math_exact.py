"""Correctly rounded and exact OpenCL.std math entries, pointer-storing entries and
the special values of OpenCL C 7.5.1, against exact rationals and hand values."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from _refs import edge_values, ulp_error

from sgvm.engine.cpu.extinst import OPENCL_STD, STORES_THROUGH_POINTER

RNG = np.random.default_rng(7)
F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
FLOATS = [F16, F32, F64]


def _mixed(dtype: np.dtype, n: int) -> np.ndarray:
    """Random bit patterns (all exponents, subnormals included) plus edge values."""
    ut = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dtype.itemsize]
    bits = RNG.integers(0, np.iinfo(ut).max, n, dtype=ut, endpoint=True)
    vals = bits.view(dtype)
    return np.concatenate([vals[np.isfinite(vals)], np.array(edge_values(dtype), dtype)])


@pytest.mark.parametrize("dtype", FLOATS)
def test_fma_correctly_rounded(dtype) -> None:
    n = 300
    a, b, c = _mixed(dtype, n)[:n], _mixed(dtype, n)[:n], _mixed(dtype, n)[:n]
    # products near c's magnitude exercise cancellation
    with np.errstate(all="ignore"):
        c[: n // 3] = (-(a[: n // 3].astype(F64) * b[: n // 3].astype(F64))).astype(dtype)
        got = OPENCL_STD["fma"](a, b, c, rtype=dtype)
    for x, y, z, g in zip(a, b, c, got, strict=True):
        x, y, z = float(x), float(y), float(z)
        if not all(map(math.isfinite, (x, y, z))):
            continue
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        assert ulp_error(g, exact, dtype) <= 0.5, (x, y, z, g)
        if exact == 0 and x * y != 0:
            assert math.copysign(1, g) == 1.0


def test_fma_specials_and_range_edges() -> None:
    f = OPENCL_STD["fma"]
    big, tiny = 2.0**1000, 2.0**-1070
    cases = [(big, big, -math.inf, -math.inf), (math.inf, 0.0, 1.0, math.nan),
             (1.0, 1.0, math.nan, math.nan), (-0.0, 1.0, -0.0, -0.0), (0.0, -1.0, 0.0, 0.0),
             (big, big, 1.0, math.inf), (tiny, 0.5, 0.0, 2.0**-1071), (2.0**-600, 2.0**-600, 1.0, 1.0),
             (1 + 2.0**-52, 1 - 2.0**-52, -1.0, -(2.0**-104))]
    for a, b, c, want in cases:
        got = float(f(np.float64(a), np.float64(b), np.float64(c), rtype=F64))
        assert (math.isnan(got) and math.isnan(want)) or (got == want and
                                                            math.copysign(1, got) == math.copysign(1, want)), (a, b, c, got)


@pytest.mark.parametrize("dtype", FLOATS)
def test_remainder_remquo_fmod_exact(dtype) -> None:
    x, y = _mixed(dtype, 250), _mixed(dtype, 250)
    x, y = x[: min(len(x), len(y))], y[: min(len(x), len(y))]
    rem = OPENCL_STD["remainder"](x, y, rtype=dtype)
    rq, quo = OPENCL_STD["remquo"](x, y, np.uint64(0), rtype=dtype)
    fm = OPENCL_STD["fmod"](x, y, rtype=dtype)
    for xi, yi, r, r2, q, m in zip(x, y, rem, rq, quo.view(np.int32), fm, strict=True):
        xi, yi = float(xi), float(yi)
        if not (math.isfinite(xi) and math.isfinite(yi)) or yi == 0:
            assert math.isnan(r) == (not math.isfinite(xi) or yi == 0 or math.isnan(yi))
            continue
        assert float(r) == math.remainder(xi, yi) and float(r2) == float(r)
        assert float(m) == math.fmod(xi, yi)
        k = round(Fraction(xi) / Fraction(yi))  # Python rounds ties to even, like IEEE
        assert abs(int(q)) == abs(k) % 128 or k % 128 == 0 and q == 0
        if q:
            assert (q < 0) == ((xi < 0) != (yi < 0))


@pytest.mark.parametrize("dtype", FLOATS)
def test_frexp_ldexp_ilogb_logb(dtype) -> None:
    x = _mixed(dtype, 300)
    m, e = OPENCL_STD["frexp"](x, np.uint64(0), rtype=dtype)
    ilogb = OPENCL_STD["ilogb"](x, rtype=np.dtype(np.uint32)).view(np.int32)
    logb = OPENCL_STD["logb"](x, rtype=dtype)
    for xi, mi, ei, il, lb in zip(x, m, e.view(np.int32), ilogb, logb, strict=True):
        xi = float(xi)
        if math.isfinite(xi) and xi != 0:
            rm, re_ = math.frexp(xi)
            assert (float(mi), int(ei)) == (rm, re_)
            assert int(il) == re_ - 1 and float(lb) == re_ - 1
    assert ilogb[np.isnan(x)].tolist() == [2**31 - 1] * int(np.isnan(x).sum())
    assert set(ilogb[x == 0].tolist()) == {-(2**31)}
    assert (logb[x == 0] == -np.inf).all() and (logb[np.isinf(x)] == np.inf).all()
    k = RNG.integers(-60, 60, len(x)).astype(np.int32)
    got = OPENCL_STD["ldexp"](x, k.view(np.uint32), rtype=dtype)
    for xi, ki, g in zip(x, k, got, strict=True):
        if math.isfinite(float(xi)):
            exact = Fraction(float(xi)) * Fraction(2) ** int(ki)
            assert ulp_error(g, exact, dtype) <= 0.5


@pytest.mark.parametrize("dtype", FLOATS)
def test_rounding_family(dtype) -> None:
    x = np.concatenate([_mixed(dtype, 100), np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997,
                                                      -1e-3, 7.0], dtype)])
    fin = np.isfinite(x)
    for name, ref in (("round", None), ("trunc", math.trunc), ("ceil", math.ceil),
                      ("floor", math.floor), ("rint", round)):
        got = OPENCL_STD[name](x, rtype=dtype)
        for xi, g in zip(x[fin], got[fin], strict=True):
            v = float(xi)
            if name == "round":
                want = math.copysign(math.floor(Fraction(abs(v)) + Fraction(1, 2)), v)
            else:
                want = float(ref(Fraction(v)))
            assert float(g) == want and (want != 0 or math.copysign(1, g) == math.copysign(1, v)), (name, v, g)
    fr, fl = OPENCL_STD["fract"](x, np.uint64(0), rtype=dtype)
    mf, mi = OPENCL_STD["modf"](x, np.uint64(0), rtype=dtype)
    below_one = float(np.nextafter(dtype.type(1), dtype.type(0)))
    for xi, a, b, c, d in zip(x[fin], fr[fin], fl[fin], mf[fin], mi[fin], strict=True):
        v = float(xi)
        assert float(b) == math.floor(v)
        assert ulp_error(a, min(Fraction(v) - math.floor(v), Fraction(below_one)), dtype) <= 0.5
        assert float(d) == math.trunc(v) and float(c) == v - math.trunc(v)
    assert OPENCL_STD["fract"](np.array([np.inf, -np.inf, np.nan], dtype), 0, rtype=dtype)[0][:2].tolist() == [0, 0]


def test_special_values_7_5_1() -> None:
    f = OPENCL_STD
    nan, inf = math.nan, math.inf
    cases = [  # (name, args, expected) for float32, from OpenCL C 7.5.1 / C99 Annex F
        ("fmax", (1.0, nan), 1.0), ("fmax", (nan, 2.0), 2.0), ("fmin", (nan, -3.0), -3.0),
        ("maxmag", (-3.0, 2.0), -3.0), ("minmag", (-3.0, 2.0), 2.0), ("maxmag", (2.0, -2.0), 2.0),
        ("pow", (nan, 0.0), 1.0), ("pow", (1.0, nan), 1.0), ("pow", (-0.0, -3.0), -inf),
        ("pown", (nan, 0), 1.0), ("pown", (-0.0, -3), -inf), ("pown", (2.0, -2), 0.25),
        ("powr", (-1.0, 2.0), nan), ("powr", (0.0, 0.0), nan), ("powr", (inf, 0.0), nan),
        ("powr", (1.0, inf), nan), ("powr", (0.0, -1.0), inf), ("powr", (4.0, 0.5), 2.0),
        ("rootn", (8.0, 0), nan), ("rootn", (-8.0, 2), nan), ("rootn", (-8.0, 3), -2.0),
        ("rootn", (-0.0, -3), -inf), ("rootn", (0.0, -2), inf), ("rootn", (-0.0, 3), -0.0),
        ("sinpi", (1.0,), 0.0), ("sinpi", (-1.0,), -0.0), ("sinpi", (-0.0,), -0.0),
        ("cospi", (0.5,), 0.0), ("cospi", (1.5,), 0.0), ("tanpi", (1.0,), -0.0),
        ("tanpi", (2.0,), 0.0), ("tanpi", (0.5,), inf), ("tanpi", (1.5,), -inf),
        ("tanpi", (-1.0,), 0.0), ("exp", (-inf,), 0.0), ("log", (0.0,), -inf),
        ("log", (-1.0,), nan), ("sqrt", (-0.0,), -0.0), ("rsqrt", (0.0,), inf),
        ("fdim", (1.0, nan), nan), ("fdim", (1.0, 3.0), 0.0), ("copysign", (1.0, -0.0), -1.0),
        ("tgamma", (0.0,), inf), ("tgamma", (-0.0,), -inf), ("tgamma", (-2.0,), nan),
        ("lgamma", (0.0,), inf), ("lgamma", (-3.0,), inf), ("erf", (inf,), 1.0), ("erfc", (inf,), 0.0),
        ("remainder", (1.0, inf), 1.0), ("remainder", (inf, 1.0), nan), ("fmod", (1.0, 0.0), nan),
        ("nextafter", (0.0, 1.0), 1e-45), ("nextafter", (1.0, 1.0), 1.0), ("hypot", (inf, nan), inf),
        ("ldexp", (1.0, 2**32 - 5), 2.0**-5), ("atan2", (0.0, -0.0), math.pi), ("expm1", (-0.0,), -0.0),
    ]
    for name, args, want in cases:
        ops = [np.int64(a).astype(np.uint32) if isinstance(a, int) else np.float32(a) for a in args]
        got = float(f[name](*ops, rtype=F32))
        want32 = float(np.float32(want))
        same = (math.isnan(got) and math.isnan(want32)) or (
            got == want32 and math.copysign(1, got) == math.copysign(1, want32))
        assert same, (name, args, got, want)


def test_nan_codes_and_vectors() -> None:
    code = np.array([0, 1, 0x3FFFFF], np.uint32)
    assert OPENCL_STD["nan"](code, rtype=F32).view(np.uint32).tolist() == [0x7FC00000, 0x7FC00001, 0x7FFFFFFF]
    assert OPENCL_STD["nan"](np.uint64(5), rtype=F64).view(np.uint64) == 0x7FF8000000000005
    assert OPENCL_STD["nan"](np.uint16(3), rtype=F16).view(np.uint16) == 0x7E03
    # (L, n) lanes with a uniform (n,) operand, and a per-lane scalar with a uniform one
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    got = OPENCL_STD["fmax"](x, np.array([3, 3], np.float32), rtype=F32)
    assert got.shape == (4, 2) and got.tolist() == np.maximum(x, 3).tolist()
    assert OPENCL_STD["pow"](np.float32(2), np.arange(3, dtype=np.float32), rtype=F32).tolist() == [1, 2, 4]


def test_pointer_entries_return_the_stored_value() -> None:
    x = np.array([2.75, -0.5, 8.0], np.float32)
    assert set(STORES_THROUGH_POINTER) == {"fract", "frexp", "lgamma_r", "modf", "remquo", "sincos"}
    s, c = OPENCL_STD["sincos"](x, 0, rtype=F32)
    assert np.allclose(s, np.sin(x.astype(F64)), rtol=1e-7) and np.allclose(c, np.cos(x.astype(F64)), rtol=1e-7)
    v, sign = OPENCL_STD["lgamma_r"](np.array([0.5, -0.5, -1.5, 3.0], np.float32), 0, rtype=F32)
    assert sign.view(np.int32).tolist() == [1, -1, 1, 1]
    assert abs(float(v[1]) - math.lgamma(-0.5)) < 1e-6
    for name, idx in STORES_THROUGH_POINTER.items():
        ops = [x] * idx + [np.uint64(0)] + ([x] if idx == 1 and name == "remquo" else [])
        res = OPENCL_STD[name](*ops, rtype=F32)
        assert isinstance(res, tuple) and len(res) == 2
