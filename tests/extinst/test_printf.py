"""OpenCL C printf formatting against Python's C-style % formatting and hand-written
strings (OpenCL C 6.15.14, C99 7.19.6.1, glibc spellings of nan/inf and %a)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sgvm.engine.common.printf import format_printf, parse_format, printf_status

INT_FORMATS = ["%d", "%5d", "%-5d|", "%+d", "% d", "%05d", "%.3d", "%8.3d", "%-+8.3d|", "%x",
               "%#x", "%#X", "%o", "%#o", "%u", "%#10.4x", "%010x", "%+05i"]


@pytest.mark.parametrize("fmt", INT_FORMATS)
def test_integers_match_c_style_python(fmt: str) -> None:
    for v in (0, 1, -1, 42, -12345, 2**31 - 1, -(2**31)):
        py_v = v if fmt[-1] in "di|" or fmt.endswith("d|") else v & 0xFFFFFFFF
        want = fmt % py_v
        if fmt[-1] in "xXo" and "#" in fmt and v == 0:  # C: no prefix for zero (Python adds 0x)
            want = (fmt.replace("#", "")) % 0
        if fmt[-1] == "o" and "#" in fmt and v != 0:
            want = want.replace("0o", "0")
        assert format_printf(fmt, [np.uint32(v & 0xFFFFFFFF)]) == want, (fmt, v)


def test_integer_lengths_and_c_rules() -> None:
    assert format_printf("%hhd %hhu %hd %hu", [300, -1, 70000, -1]) == "44 255 4464 65535"
    assert format_printf("%ld %lu %lx", [np.uint64(2**64 - 1)] * 3) == "-1 18446744073709551615 ffffffffffffffff"
    assert format_printf("%d", [np.uint64(2**32 + 5)]) == "5"  # int conversion
    assert format_printf("[%.0d] [%.0x] [%#.0o]", [0, 0, 0]) == "[] [] [0]"
    assert format_printf("%c%c%5c|%-3c|", [72, np.uint8(105), 33, 63]) == "Hi    !|?  |"
    assert format_printf("%s|%8s|%-8s|%.2s", ["abc", "abc", "abc", "abc"]) == "abc|     abc|abc     |ab"
    assert format_printf("%p %p", [0, 0xDEADBEEF]) == "0x0 0xdeadbeef"
    assert format_printf("100%%", []) == "100%"


FLOAT_FORMATS = ["%f", "%.2f", "%10.3f", "%-10.1f|", "%+e", "%E", "%.0e", "%#.0e", "%g", "%G",
                 "%.3g", "%#g", "%012.4f", "% .3e", "%F", "%.10g", "%#.0f"]


@pytest.mark.parametrize("fmt", FLOAT_FORMATS)
def test_floats_match_c_style_python(fmt: str) -> None:
    for v in (0.0, -0.0, 1.0, -2.5, 3.14159265, 1e-5, 123456789.0, 1e300, 5e-324, 0.1):
        assert format_printf(fmt, [v]) == fmt % v, (fmt, v)
    assert format_printf(fmt, [np.float32(0.1)]) == fmt % float(np.float32(0.1))


def test_nan_inf_spelling() -> None:
    vals = [math.inf, -math.inf, math.nan, np.float32(-np.nan)]
    assert format_printf("%f %f %f %f", vals) == "inf -inf nan -nan"
    assert format_printf("%F %E %G %A", vals) == "INF -INF NAN -NAN"
    assert format_printf("%08f|%-6e|%+g", [math.inf, math.nan, math.inf]) == "     inf|nan   |+inf"


def test_hex_floats_glibc_style() -> None:
    cases = {("%a", 1.0): "0x1p+0", ("%a", 3.0): "0x1.8p+1", ("%a", -0.1): "-0x1.999999999999ap-4",
             ("%A", 0.1): "0X1.999999999999AP-4", ("%a", 0.0): "0x0p+0",
             ("%.3a", 1.0): "0x1.000p+0", ("%.1a", 1.97): "0x2.0p+0", ("%.0a", 1.5): "0x2p+0",
             ("%#.0a", 1.0): "0x1.p+0", ("%a", 5e-324): "0x0.0000000000001p-1022",
             ("%010.2a", -1.5): "-0x1.80p+0", ("%12a", 2.0): "      0x1p+1",
             ("%a", float(np.float32(0.1))): "0x1.99999ap-4", ("%.1a", 1.03125): "0x1.0p+0",
             ("%.1a", 1.09375): "0x1.2p+0"}
    for (fmt, v), want in cases.items():
        assert format_printf(fmt, [v]) == want, (fmt, v)
    assert format_printf("%a", [-0.0]) == "-0x0p+0"  # (a dict key would merge it with 0.0)


def test_vectors() -> None:
    f4 = np.array([1, 2, 3, 4], np.float32)
    assert format_printf("f4 = %2.2v4hlf", [f4]) == "f4 = 1.00,2.00,3.00,4.00"
    assert format_printf("%#v2hhx", [(0x12, 0x34)]) == "0x12,0x34"
    assert format_printf("%v3hd", [(1, -2, np.uint16(65535))]) == "1,-2,-1"
    assert format_printf("%v2ld|%v2lf", [(np.uint64(2**63), 1), (0.5, -1.0)]) == \
        "-9223372036854775808,1|0.500000,-1.000000"
    assert format_printf("%5v2hlu", [np.array([1, 2], np.uint32)]) == "    1,    2"
    assert format_printf("%v2hf", [np.array([0.5, np.inf], np.float16)]) == "0.500000,inf"
    assert format_printf("%v16hhd", [np.arange(16, dtype=np.uint8)]) == ",".join(map(str, range(16)))


@pytest.mark.parametrize("fmt,args,problem", [
    ("%v4f", [(1, 2, 3, 4)], "length modifier"),
    ("%hlf", [1.0], "'hl'"),
    ("%v5hld", [(1,) * 5], "vector size"),
    ("%v2hls", [("a", "b")], "vector specifier"),
    ("%lld", [1], "'ll'"),
    ("%*d", [3, 1], "'*'"),
    ("%n", [0], "%n"),
    ("%k", [0], "unknown conversion"),
    ("abc %", [], "ends inside"),
    ("%d %d", [1], "too few"),
    ("%v2hld", [(1, 2, 3)], "2-component"),
    ("%d", [1.5], "floating-point"),
    ("%f", [1], "integer argument"),
    ("%s", [5], "non-string"),
    ("%lc", [65], "does not apply"),
    ("%hf", [1.0], "does not apply"),
    ("%d", [(1, 2)], "vector"),
])
def test_invalid_formats(fmt: str, args: list, problem: str) -> None:
    with pytest.raises(ValueError, match=problem.replace("*", r"\*").replace("(", r"\(")):
        format_printf(fmt, args)
    assert printf_status(fmt, args) == ("", -1)


def test_status_and_parse_cache() -> None:
    assert printf_status("x=%d\n", [7]) == ("x=7\n", 0)
    assert parse_format("a%5.2fb")[0] == "a" and parse_format("a%5.2fb")[2] == "b"
    assert format_printf("%d", [1, 2, 3]) == "1"  # extra arguments are ignored (C99)
