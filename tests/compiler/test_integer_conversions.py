"""Integer → integer conversions (OpenCL C 2.0 s6.2.3), every source × destination × width
and every rounding / saturation suffix, run on the CPU engine against NumPy.

Plain conversions keep the value modulo 2^n of the destination (s6.2.3.3: "... the
result is the value modulo 2^n"), i.e. sign extension from signed sources and zero
extension from unsigned ones; ``_sat`` clamps to the destination's range; a rounding
suffix does not change an integer-to-integer conversion.
"""

from __future__ import annotations

import numpy as np
import pytest

from .conversion_harness import (
    DTYPES,
    INTEGERS,
    WIDTHS,
    Conversion,
    integer_inputs,
    run_conversions,
    windows,
)

SUFFIXES = ("", "_rte", "_rtz", "_rtp", "_rtn", "_sat", "_sat_rte", "_sat_rtz", "_sat_rtp", "_sat_rtn")
PAIRS = [(s, d) for s in INTEGERS for d in INTEGERS]


def _expected(values: np.ndarray, dst: str, saturate: bool) -> np.ndarray:
    info = np.iinfo(DTYPES[dst])
    exact = [int(v) for v in values.ravel()]
    if saturate:
        exact = [min(max(v, info.min), info.max) for v in exact]
    bits = 8 * np.dtype(DTYPES[dst]).itemsize
    wrapped = [(v % 2**bits) for v in exact]
    return np.array(wrapped, np.uint64).astype(f"u{bits // 8}").view(DTYPES[dst]).reshape(values.shape)


@pytest.fixture(scope="module")
def explicit() -> tuple[dict, dict]:
    """All 8 × 8 × 6 × 10 explicit conversions, one kernel."""
    inputs = integer_inputs()
    convs = [Conversion(s, d, n, x) for s, d in PAIRS for n in WIDTHS for x in SUFFIXES]
    return inputs, run_conversions(convs, inputs)


@pytest.mark.parametrize("src,dst", PAIRS)
def test_explicit_integer_conversion(explicit, src: str, dst: str) -> None:
    inputs, results = explicit
    for n in WIDTHS:
        for suffix in SUFFIXES:
            conv = Conversion(src, dst, n, suffix)
            want = windows(_expected(inputs[src], dst, "_sat" in suffix), n)
            got = results[conv]
            bad = np.argwhere(got != want)
            assert not bad.size, (f"{conv.name}({src}): input {windows(inputs[src], n)[tuple(bad[0])]} "
                                  f"gave {got[tuple(bad[0])]}, expected {want[tuple(bad[0])]}")


def test_implicit_integer_conversions() -> None:
    """Assignment and cast conversions (s6.2.1, s6.2.2: as C99) wrap like the plain ``convert_``
    forms; usual arithmetic promotions widen the same way (``(uint)x + 0u``, ``x + 0L``)."""
    inputs = integer_inputs()
    convs = [Conversion(s, d, 1, form) for s, d in PAIRS for form in ("cast", "arith")]
    convs += [Conversion(s, d, n, "vector") for s, d in PAIRS for n in (2, 4)]

    def statement(c: Conversion, operand: str) -> str:
        if c.suffix == "cast":
            return f"({c.dst})({operand})"
        if c.suffix == "arith":  # promotion to the destination through a binary operator
            return f"({c.dst})(({operand}) + ({c.dst})0)"
        return f"__builtin_convertvector({operand}, {c.dst}{c.width})"

    results = run_conversions(convs, inputs, statement)
    for c in convs:
        want = windows(_expected(inputs[c.src], c.dst, False), c.width)
        assert np.array_equal(results[c], want), (c, results[c][:4], want[:4])
