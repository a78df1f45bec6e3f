"""OpenCL C printf formatting (OpenCL C 6.15.14 "printf", C99 7.19.6.1).

A conversion is ``%[flags][width][.precision][vn][length]conversion``:

* flags ``- + space # 0``; width and precision are decimal integers (OpenCL C
  has no ``*``);
* ``vn`` (n = 2, 3, 4, 8, 16) formats a vector argument component by
  component, separated by ``,``; it needs a length modifier and applies to
  ``d i o u x X f F e E g G a A`` only;
* length: ``hh`` (char), ``h`` (short; half for vector floats), ``hl`` (int /
  float, vectors only), ``l`` (long = 64 bits; double); ``ll``, ``j``, ``z``,
  ``t``, ``L`` and ``%n`` do not exist in OpenCL C;
* integers are converted to the modifier's width first, so ``%hhd`` of 300
  prints 44 and a uint32 holding -1 prints -1 under ``%d``;
* floats print as C99 does; NaN and infinity as "nan", "inf", "-inf"
  (uppercase for F E G A), with "-nan" for a NaN whose sign bit is set (glibc);
* ``%p`` prints ``0x`` and lowercase hex digits (implementation-defined; null
  is ``0x0``).

An invalid format or argument list raises ``ValueError`` naming the problem;
``printf_status`` turns that into OpenCL's return value (0 / −1).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_SPEC = re.compile(
    r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d*))?"
    r"(?:v(?P<vec>\d+))?(?P<length>hh|hl|h|ll|l|[jztL])?(?P<conv>.?)",
    re.DOTALL,
)
_INT_CONV = set("diouxX")
_FLOAT_CONV = set("fFeEgGaA")
_INT_BITS = {None: 32, "hh": 8, "h": 16, "hl": 32, "l": 64}


@dataclass(frozen=True)
class Spec:
    """One parsed conversion specification."""

    flags: str
    width: int
    precision: int | None
    vector: int  # 0 for a scalar
    length: str | None
    conv: str


def _parse_spec(m: re.Match[str]) -> Spec:
    """Validate one conversion against OpenCL C's rules."""
    text, conv, length = m.group(0), m.group("conv"), m.group("length")
    if conv == "":
        raise ValueError(f"printf format ends inside the conversion {text!r}")
    if m.group("width") == "*" or m.group("prec") == "*":
        raise ValueError(f"printf conversion {text!r}: OpenCL C has no '*' width or precision")
    if conv == "n":
        raise ValueError("printf conversion %n is not supported by OpenCL C")
    if conv not in _INT_CONV | _FLOAT_CONV | set("csp%"):
        raise ValueError(f"printf conversion {text!r}: unknown conversion {conv!r}")
    if length in ("ll", "j", "z", "t", "L"):
        raise ValueError(f"printf conversion {text!r}: OpenCL C has no {length!r} length "
                         "modifier (use 'l' for 64-bit values)")
    vec = int(m.group("vec")) if m.group("vec") is not None else 0
    if m.group("vec") is not None:
        if vec not in (2, 3, 4, 8, 16):
            raise ValueError(f"printf conversion {text!r}: vector size must be 2, 3, 4, 8 or 16")
        if conv not in _INT_CONV | _FLOAT_CONV:
            raise ValueError(f"printf conversion {text!r}: a vector specifier needs one of "
                             "d i o u x X f F e E g G a A")
        if length is None:
            raise ValueError(f"printf conversion {text!r}: a vector specifier needs a length "
                             "modifier (hh, h, hl or l)")
        if conv in _FLOAT_CONV and length == "hh":
            raise ValueError(f"printf conversion {text!r}: 'hh' does not apply to floats")
    elif length == "hl":
        raise ValueError(f"printf conversion {text!r}: 'hl' is only allowed with a vector "
                         "specifier")
    elif length is not None and conv not in _INT_CONV and not (conv in _FLOAT_CONV and length == "l"):
        raise ValueError(f"printf conversion {text!r}: length modifier {length!r} does not "
                         f"apply to %{conv}")
    if conv == "%" and text != "%%":
        raise ValueError(f"printf conversion {text!r}: '%%' takes no flags, width or precision")
    prec = m.group("prec")
    return Spec(m.group("flags"), int(m.group("width") or 0),
                None if prec is None else int(prec or 0), vec, length, conv)


@functools.lru_cache(maxsize=1024)
def parse_format(fmt: str) -> tuple[str | Spec, ...]:
    """Split a format into literal text and ``Spec`` items; ValueError if invalid."""
    items: list[str | Spec] = []
    pos = 0
    while (start := fmt.find("%", pos)) >= 0:
        if start > pos:
            items.append(fmt[pos:start])
        m = _SPEC.match(fmt, start)
        assert m is not None  # the pattern matches any "%…" prefix
        spec = _parse_spec(m)
        items.append("%" if spec.conv == "%" else spec)
        pos = m.end()
    if pos < len(fmt):
        items.append(fmt[pos:])
    return tuple(items)


def _pad(body: str, prefix: str, spec: Spec, zero_ok: bool) -> str:
    """Apply width: left-justify with '-', zero-fill after the sign/prefix with '0'."""
    fill = spec.width - len(prefix) - len(body)
    if fill <= 0:
        return prefix + body
    if "-" in spec.flags:
        return prefix + body + " " * fill
    if "0" in spec.flags and zero_ok:
        return prefix + "0" * fill + body
    return " " * fill + prefix + body


def _int_value(arg: object, bits: int, signed: bool) -> int:
    """The argument converted to the conversion's integer type (C's conversion rules)."""
    if isinstance(arg, (float, np.floating)):
        raise ValueError(f"printf: integer conversion given a floating-point argument {arg!r}")
    v = int(arg) & ((1 << bits) - 1)  # type: ignore[call-overload]
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def _format_int(arg: object, spec: Spec) -> str:
    conv = spec.conv
    v = _int_value(arg, _INT_BITS[spec.length], conv in "di")
    prefix = "-" if v < 0 else ("+" if "+" in spec.flags else " " if " " in spec.flags else "")
    if conv not in "di":
        prefix = ""
    mag = abs(v)
    digits = {"o": f"{mag:o}", "x": f"{mag:x}", "X": f"{mag:X}"}.get(conv, str(mag))
    if spec.precision == 0 and mag == 0:
        digits = ""
    if spec.precision is not None:
        digits = digits.rjust(spec.precision, "0")
    if "#" in spec.flags:
        if conv == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif conv in "xX" and mag != 0:
            prefix = "0" + conv
    return _pad(digits, prefix, spec, spec.precision is None)


def _hex_float(x: float, spec: Spec) -> str:
    """C99 %a of a finite non-negative double, glibc style (no renormalisation after
    rounding, so 1.97 at precision 0 is 0x2p+0)."""
    lead_s, rest = x.hex()[2:].split(".") if x else ("0", "0p+0")
    frac_s, exp_s = rest.split("p")
    lead, mant, exp = int(lead_s), int(frac_s.ljust(13, "0"), 16), int(exp_s)
    frac = mant  # 52 bits = 13 hex digits
    ndig = 13
    if spec.precision is not None and spec.precision < ndig:
        drop = 4 * (ndig - spec.precision)
        full = (lead << 52) | frac
        q, r = divmod(full, 1 << drop)
        half = 1 << (drop - 1)
        if r > half or (r == half and q & 1):
            q += 1
        lead, frac, ndig = q >> (4 * spec.precision), q & ((1 << (4 * spec.precision)) - 1), spec.precision
    digits = f"{frac:0{ndig}x}" if ndig else ""
    if spec.precision is None:
        digits = digits.rstrip("0")
    elif spec.precision > 13:
        digits += "0" * (spec.precision - 13)
    point = "." if digits or "#" in spec.flags else ""
    return f"{lead:x}{point}{digits}p{exp:+d}"


def _format_float(arg: object, spec: Spec) -> str:
    if not isinstance(arg, (int, float, np.integer, np.floating)) or isinstance(arg, bool):
        raise ValueError(f"printf: %{spec.conv} given a non-numeric argument {arg!r}")
    if isinstance(arg, (int, np.integer)):
        raise ValueError(f"printf: %{spec.conv} given an integer argument {arg!r}")
    x = float(arg)
    upper = spec.conv in "FEGA"
    neg = math.copysign(1.0, x) < 0
    sign = "-" if neg else ("+" if "+" in spec.flags else " " if " " in spec.flags else "")
    if not math.isfinite(x):
        body = "nan" if math.isnan(x) else "inf"
        return _pad(body.upper() if upper else body, sign, spec, False)
    if spec.conv in "aA":
        body = _hex_float(abs(x), spec)
        if upper:
            body = body.upper()
        return _pad(body, sign + ("0X" if upper else "0x"), spec, True)
    flags = "".join(f for f in spec.flags if f in "#")
    prec = 6 if spec.precision is None else spec.precision
    body = ("%" + flags + "." + str(prec) + spec.conv) % abs(x)
    return _pad(body, sign, spec, True)


def _format_one(arg: object, spec: Spec) -> str:
    if spec.conv in _INT_CONV:
        return _format_int(arg, spec)
    if spec.conv in _FLOAT_CONV:
        return _format_float(arg, spec)
    if spec.conv == "c":
        return _pad(chr(_int_value(arg, 8, False)), "", spec, False)
    if spec.conv == "s":
        if isinstance(arg, (bytes, bytearray)):
            arg = bytes(arg).decode("latin-1")
        if not isinstance(arg, str):
            raise ValueError(f"printf: %s given a non-string argument {arg!r}")
        text = arg if spec.precision is None else arg[: spec.precision]
        return _pad(text, "", spec, False)
    # %p
    return _pad(f"0x{_int_value(arg, 64, False):x}", "", spec, False)


def format_printf(fmt: str, args: Sequence[object]) -> str:
    """Format ``args`` by the OpenCL C printf format ``fmt``; ValueError if invalid.

    Scalars arrive as Python or NumPy scalars, vectors as tuples / arrays with
    exactly the vector specifier's component count. Extra arguments are ignored
    (C99 7.19.6.1p2); missing ones are an error.
    """
    out: list[str] = []
    i = 0
    for item in parse_format(fmt):
        if isinstance(item, str):
            out.append(item)
            continue
        if i >= len(args):
            raise ValueError(f"printf: too few arguments for format {fmt!r} "
                             f"(conversion {i + 1} has none)")
        arg = args[i]
        i += 1
        if item.vector:
            comps = list(np.asarray(arg).reshape(-1)) if not isinstance(arg, (list, tuple)) else list(arg)
            if len(comps) != item.vector:
                raise ValueError(f"printf: conversion {i} expects a {item.vector}-component "
                                 f"vector, got {len(comps)} components")
            out.append(",".join(_format_one(c, item) for c in comps))
        else:
            if isinstance(arg, (tuple, list, np.ndarray)) and np.ndim(arg) > 0:
                raise ValueError(f"printf: conversion {i} is scalar but its argument is a vector")
            out.append(_format_one(arg, item))
    return "".join(out)


def printf_status(fmt: str, args: Sequence[object]) -> tuple[str, int]:
    """(output, 0) on success, ("", −1) when the format or arguments are invalid:
    OpenCL C printf's return value (6.15.14.3)."""
    try:
        return format_printf(fmt, args), 0
    except ValueError:
        return "", -1
