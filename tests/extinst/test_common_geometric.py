"""Common, geometric, select/bitselect and shuffle entries (OpenCL C 6.15.4, 6.15.5,
6.15.7, 6.15.13) and the half conversions, against hand values and exact rationals."""

from __future__ import annotations

import bisect
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from _refs import ulp_error

from sgvm.engine.cpu.extinst import OPENCL_STD, TAKES_WIDTH, float_to_half_bits, half_bits_to_float

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
RNG = np.random.default_rng(11)


def test_common_hand_values() -> None:
    f = OPENCL_STD
    x = np.array([-2.0, -0.0, 0.0, 0.25, 3.0, np.nan], np.float32)
    assert f["sign"](x, rtype=F32)[:5].tolist() == [-1, 0, 0, 1, 1]
    assert np.signbit(f["sign"](x, rtype=F32)[1]) and f["sign"](x, rtype=F32)[5] == 0
    assert f["step"](np.float32(0.25), x, rtype=F32)[:5].tolist() == [0, 0, 0, 1, 1]
    assert f["fclamp"](x, np.float32(-1), np.float32(1), rtype=F32)[:5].tolist() == [-1, 0, 0, 0.25, 1]
    assert f["mix"](np.float32(2), np.float32(4), np.float32(0.25), rtype=F32) == 2.5
    ss = f["smoothstep"](np.float32(0), np.float32(1), np.array([-1, 0.5, 2], np.float32), rtype=F32)
    assert ss.tolist() == [0, 0.5, 1]
    assert f["fmax_common"](np.float32(1), np.float32(2), rtype=F32) == 2
    assert f["fmin_common"](np.float32(1), np.float32(2), rtype=F32) == 1
    for dt in (F32, F64):
        d = np.array([1e-3, 1.0, 123.456, 1e30], dt)
        got = f["degrees"](d, rtype=dt)
        for di, g in zip(d, got, strict=True):
            assert abs(float(g) - math.degrees(float(di))) <= 2 * float(np.spacing(dt.type(g)))
        assert f["radians"](dt.type(180), rtype=dt) == dt.type(math.pi)


def test_geometric() -> None:
    f = OPENCL_STD
    p = np.array([[3, 4, 0, 0], [1, 2, 2, 0]], np.float32)
    q = np.array([[0, 0, 1, 0], [0, 0, 0, 0]], np.float32)
    assert f["length"](p, rtype=F32).tolist() == [5, 3]
    assert f["distance"](p, q, rtype=F32).tolist() == [np.float32(math.sqrt(26)), 3]
    assert f["fast_length"](p, rtype=F32).tolist() == [5, 3]
    assert f["normalize"](np.array([3, 4], np.float32), rtype=F32).tolist() == [np.float32(0.6), np.float32(0.8)]
    n = f["normalize"](np.array([[0, 0], [np.inf, 1], [-np.inf, np.inf], [np.nan, 1]], np.float32), rtype=F32)
    assert n[0].tolist() == [0, 0] and n[1].tolist() == [1, 0]
    assert np.allclose(n[2], [-math.sqrt(0.5), math.sqrt(0.5)]) and np.isnan(n[3]).all()
    a, b = np.array([1, 0, 0], np.float32), np.array([[0, 1, 0], [0, 0, 1]], np.float32)
    assert f["cross"](a, b, rtype=F32).tolist() == [[0, 0, 1], [0, -1, 0]]
    c4 = f["cross"](np.array([1, 2, 3, 9], np.float64), np.array([4, 5, 6, 9], np.float64), rtype=F64)
    assert c4.tolist() == [-3, 6, -3, 0]
    # no overflow: length of (1e30, 1e30) in float32, tiny components
    assert f["length"](np.array([1e30, 1e30], np.float32), rtype=F32) == np.float32(1e30 * math.sqrt(2))
    assert f["length"](np.array([1e-40, 0], np.float32), rtype=F32) == np.float32(1e-40)
    # the width hint: a 1-D operand as per-lane scalars vs a uniform vector
    lanes = np.array([-3.0, 4.0], np.float32)
    assert f["length"](lanes, rtype=F32, n=1).tolist() == [3, 4]
    assert f["length"](lanes, rtype=F32, n=2) == 5
    assert f["normalize"](lanes, rtype=F32, n=1).tolist() == [-1, 1]
    assert "length" in TAKES_WIDTH and "select" in TAKES_WIDTH


def test_length_accuracy_float64() -> None:
    p = RNG.uniform(-1e100, 1e100, (50, 4))
    got = OPENCL_STD["length"](p, rtype=F64)
    with localcontext() as ctx:
        ctx.prec = 60
        for row, g in zip(p, got, strict=True):
            exact = sum(Decimal(float(v)) ** 2 for v in row).sqrt()
            assert ulp_error(g, Fraction(exact), F64) <= 4  # double length: ≤ 2n ulp


def test_select_and_bitselect() -> None:
    f = OPENCL_STD
    a = np.array([[1, 2], [3, 4]], np.float32)
    b = np.array([[10, 20], [30, 40]], np.float32)
    c = np.array([[0xFFFFFFFF, 1], [0x80000000, 0]], np.uint32)
    assert f["select"](a, b, c, rtype=F32).tolist() == [[10, 2], [30, 4]]  # vector: MSB
    cs = np.array([1, 0], np.uint32)
    assert f["select"](np.array([1, 2], np.float32), np.array([5, 6], np.float32), cs, rtype=F32).tolist() == [5, 2]
    assert f["select"](np.array([1, 2], np.float32), np.array([5, 6], np.float32), cs, rtype=F32, n=2).tolist() == [1, 2]
    bs = f["bitselect"](np.float32(1.0), np.float32(-1.0), np.array(0x80000000, np.uint32).view(np.float32), rtype=F32)
    assert bs == -1.0
    ints = f["bitselect"](np.uint8(0xF0), np.uint8(0x0F), np.uint8(0x3C), rtype=np.uint8)
    assert ints == (0xF0 & ~0x3C | 0x0F & 0x3C) & 0xFF


def test_shuffles() -> None:
    f = OPENCL_STD
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    m = np.array([3, 2, 1, 0, 4, 7, 8, 13], np.uint32)  # taken modulo 4
    assert f["shuffle"](x, m, rtype=F32).tolist() == [[3, 2, 1, 0, 0, 3, 0, 1], [7, 6, 5, 4, 4, 7, 4, 5]]
    per_lane = np.array([[0, 0], [1, 1]], np.uint32)
    assert f["shuffle"](np.array([5, 6, 7, 8], np.uint8), per_lane, rtype=np.uint8).tolist() == [[5, 5], [6, 6]]
    # 2 lanes and a uniform 2-component mask: not mistaken for per-lane scalars
    m2 = np.array([1, 1], np.uint32)
    assert f["shuffle"](x[:, :2], m2, rtype=F32).tolist() == [[1, 1], [5, 5]]
    y = np.array([100, 101], np.float32)
    s2 = f["shuffle2"](x[:, :2], y, np.array([0, 3, 2, 5], np.uint32), rtype=F32)
    assert s2.tolist() == [[0, 101, 100, 1], [4, 101, 100, 5]]


_HALVES = [Fraction(float(np.uint16(b).view(np.float16))) for b in range(0x7C00)]


def _half_ref(v: float, mode: str) -> int:
    """Round an exact double to binary16 by enumerating the neighbours (exact rationals)."""
    if math.isnan(v):
        return 0x7E00
    sign = 0x8000 if math.copysign(1, v) < 0 else 0
    a = Fraction(abs(v)) if math.isfinite(v) else None
    if a is None:
        return sign | 0x7C00
    i = bisect.bisect_right(_HALVES, a) - 1  # _HALVES[i] ≤ a < _HALVES[i + 1]
    lower = (_HALVES[i], i)
    upper = (_HALVES[i + 1], i + 1) if i + 1 < len(_HALVES) else (None, 0x7C00)
    if lower[0] == a:
        return sign | lower[1]
    toward_zero = mode == "rtz" or (mode == "rtp" and sign) or (mode == "rtn" and not sign)
    if mode != "rte":
        if toward_zero:
            return sign | lower[1]
        return sign | upper[1]
    hi = upper[0] if upper[0] is not None else Fraction(65536)
    if a - lower[0] < hi - a or (a - lower[0] == hi - a and lower[1] % 2 == 0):
        return sign | lower[1]
    return sign | upper[1]


@pytest.mark.parametrize("mode", ["rte", "rtz", "rtp", "rtn"])
def test_float_to_half_bits(mode: str) -> None:
    vals = [0.0, -0.0, 1.0, 1 / 3, -1 / 3, 65504.0, 65519.0, 65520.0, 1e6, -1e6, 2.0**-24,
            2.0**-25, 3 * 2.0**-26, -(2.0**-26), 1e-10, -1e-10, 2.0**-14 * 1.0009765625 / 2,
            math.inf, -math.inf, math.nan, 1.00048828125, 1.00146484375, -2.5e-8]
    vals += list(RNG.uniform(-7e4, 7e4, 40)) + list(np.exp(RNG.uniform(-20, 0, 40)))
    got = float_to_half_bits(np.array(vals, np.float64), mode)
    for v, g in zip(vals, got, strict=True):
        want = _half_ref(v, mode)
        assert int(g) == want or (math.isnan(v) and (int(g) & 0x7FFF) > 0x7C00), (v, mode, hex(g), hex(want))
    # float32 input, and the SPIR-V FPRoundingMode enumerant spelling
    f32 = np.array([1 / 3], np.float32)
    assert float_to_half_bits(f32, {"rte": 0, "rtz": 1, "rtp": 2, "rtn": 3}[mode])[0] == _half_ref(float(f32[0]), mode)


def test_half_bits_to_float() -> None:
    bits = np.array([0x0000, 0x8000, 0x0001, 0x3C00, 0x7BFF, 0x7C00, 0xFC00], np.uint16)
    assert half_bits_to_float(bits, np.float32).tolist() == [0, -0.0, 2.0**-24, 1, 65504, math.inf, -math.inf]
    assert np.isnan(half_bits_to_float(np.uint16(0x7E00), np.float64))
