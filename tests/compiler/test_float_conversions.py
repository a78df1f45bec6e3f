"""Conversions with a floating-point side (OpenCL C 2.0 s6.2.3): integer → half/float/double,
half/float/double → every integer type (plain and ``_sat``), and between the float types,
every width and rounding suffix, run on the CPU engine against exactly rounded expectations.

s6.2.3.2: the default rounding mode is round-to-nearest-even for conversions to
floating-point types and round-toward-zero for conversions to integers.
s6.2.3.3: ``_sat`` conversions clamp to the destination range and NaN becomes 0;
a non-saturated float → integer conversion of an out-of-range value is
implementation-defined, so those elements are not compared.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from .conversion_harness import (
    DTYPES,
    INTEGERS,
    ITEMS,
    WIDTHS,
    Conversion,
    integer_inputs,
    run_conversions,
    windows,
)

FLOATS = ("half", "float", "double")
MODES = ("", "_rte", "_rtz", "_rtp", "_rtn")


def _float_inputs(seed: int = 6) -> dict[str, np.ndarray]:
    """ITEMS + 16 values per float type: ties, range edges, specials, then random magnitudes."""
    edges = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 127.5, 128.5, -128.5, -129.5, 255.5,
             256.0, 32767.5, -32768.5, 65504.0, 65519.99, 65520.0, -65536.0, 2.0**31, -2.0**31 - 1, 2.0**32,
             2.0**63, 2.0**64, -2.0**63, 1e10, -1e10, math.inf, -math.inf, math.nan, 1 + 2.0**-30,
             3.4028235677973366e38, 1e39, 5.96e-8, 1e-40, 2.0**-149, -3.0000001, 16777217.0, 0.1, 1 / 3]
    rng = np.random.default_rng(seed)
    count = ITEMS + 16 - len(edges)
    rand = rng.standard_normal(count) * 10.0 ** rng.integers(-6, 22, count)
    base = np.array(edges + list(rand), np.float64)
    with np.errstate(over="ignore"):
        return {name: base.astype(DTYPES[name]) for name in FLOATS}


def _round(value: Fraction, dtype: np.dtype, mode: str):
    """``value`` rounded to ``dtype`` with an OpenCL rounding suffix (IEEE 754 rules, overflow included)."""
    dtype = np.dtype(dtype)
    top, inf = np.finfo(dtype).max, dtype.type(np.inf)
    with np.errstate(over="ignore"):
        x = dtype.type(float(value))  # within an ulp of the exact result, or infinite
    if np.isinf(x):
        x = top if value > 0 else -top

    def exact(v) -> Fraction:
        if np.isinf(v):  # the overflow threshold of IEEE rounding: one ulp above the largest finite value
            ulp = Fraction(float(top)) - Fraction(float(np.nextafter(top, 0, dtype=dtype)))
            return (1 if v > 0 else -1) * (Fraction(float(top)) + ulp)
        return Fraction(float(v))

    with np.errstate(over="ignore"):
        while not np.isneginf(x) and exact(x) > value:
            x = np.nextafter(x, -inf, dtype=dtype)
        lo = x
        hi = lo if np.isfinite(lo) and exact(lo) == value else np.nextafter(lo, inf, dtype=dtype)
    mode = mode or "_rte"
    if lo == hi or mode == "_rtn":
        return lo
    if mode == "_rtp":
        return hi
    if mode == "_rtz":
        return lo if value > 0 else hi
    below, above = value - exact(lo), exact(hi) - value
    if below != above:
        return lo if below < above else hi
    even = np.isinf(hi) or not int(np.array(hi, dtype).view(f"u{dtype.itemsize}")) & 1
    return hi if even else lo


def _to_float(values: np.ndarray, dst: str, mode: str) -> np.ndarray:
    out = np.empty(values.shape, DTYPES[dst])
    for idx, v in np.ndenumerate(values):
        if isinstance(v, np.floating) and (not np.isfinite(v) or v == 0):  # NaN, infinities, signed zeros
            out[idx] = v
        else:
            out[idx] = _round(Fraction(int(v)) if v.dtype.kind in "iu" else Fraction(float(v)), out.dtype, mode)
    return out


def _to_int(values: np.ndarray, dst: str, suffix: str) -> tuple[np.ndarray, np.ndarray]:
    """Expected results and the mask of elements the spec defines."""
    info = np.iinfo(DTYPES[dst])
    out, defined = np.zeros(values.shape, DTYPES[dst]), np.ones(values.shape, bool)
    rounding = {"_rte": round, "_rtp": math.ceil, "_rtn": math.floor}.get(suffix.replace("_sat", ""), math.trunc)
    for idx, v in np.ndenumerate(values):
        if np.isnan(v):
            r = 0 if "_sat" in suffix else None
        elif np.isinf(v):
            r = (info.max if v > 0 else info.min) if "_sat" in suffix else None
        else:
            r = rounding(Fraction(float(v)))  # round() on a Fraction rounds halves to even
            if "_sat" in suffix:
                r = min(max(r, info.min), info.max)
            elif not info.min <= r <= info.max:
                r = None
        if r is None:
            defined[idx] = False
        else:
            out[idx] = r
    return out, defined


def _check(results: dict, inputs: dict, expect) -> None:
    """Compare each result with ``expect(conv, values) -> (expected, defined)`` over its windows."""
    failures, memo = [], {}
    for conv, got in results.items():
        key = (conv.src, conv.dst, conv.suffix)
        if key not in memo:  # windows are slices of one input array: expect it once per conversion
            memo[key] = expect(conv, inputs[conv.src])
        want, defined = (windows(a, conv.width) for a in memo[key])
        same = (got == want) | (np.isnan(got) & np.isnan(want)) if got.dtype.kind == "f" else got == want
        if got.dtype.kind == "f":  # signed zeros must match too
            same &= np.signbit(got) == np.signbit(want)
        bad = np.argwhere(~same & defined)
        if bad.size:
            i = tuple(bad[0])
            failures.append(f"{conv.name}({conv.src}) of {windows(inputs[conv.src], conv.width)[i]!r}: "
                            f"got {got[i]!r}, expected {want[i]!r} ({len(bad)} elements)")
    assert not failures, "\n".join(failures)


def test_integer_to_float() -> None:
    inputs = integer_inputs()
    convs = [Conversion(s, d, n, m) for s in INTEGERS for d in FLOATS for n in WIDTHS for m in MODES]
    results = run_conversions(convs, inputs)
    _check(results, inputs, lambda c, w: (_to_float(w, c.dst, c.suffix), np.ones(w.shape, bool)))


@pytest.mark.parametrize("src", FLOATS)
def test_float_to_integer(src: str) -> None:
    inputs = _float_inputs()
    suffixes = [s + m for s in ("", "_sat") for m in MODES]
    convs = [Conversion(src, d, n, x) for d in INTEGERS for n in WIDTHS for x in suffixes]
    results = run_conversions(convs, inputs)
    _check(results, inputs, lambda c, w: _to_int(w, c.dst, c.suffix))


def test_float_to_float() -> None:
    inputs = _float_inputs()
    convs = [Conversion(s, d, n, m) for s in FLOATS for d in FLOATS for n in WIDTHS for m in MODES]
    results = run_conversions(convs, inputs)
    _check(results, inputs, lambda c, w: (_to_float(w, c.dst, c.suffix), np.ones(w.shape, bool)))
