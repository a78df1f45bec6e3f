"""OpenCL.std integer instructions (OpenCL C 6.15.3), exact at every width.

Operands arrive in the engine's unsigned dtypes; ``s_*`` entries view them as
signed two's complement, ``u_*`` entries use them as they are. Results are
returned in ``rtype`` (the unsigned engine dtype of the result width).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .extinst_base import lanewise, signed, signed_dtype, unsigned, unsigned_dtype

INTEGER: dict[str, Callable[..., np.ndarray]] = {}


def _entry(name: str) -> Callable[[Callable[..., np.ndarray]], Callable[..., np.ndarray]]:
    def deco(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        INTEGER[name] = lanewise(fn)
        return INTEGER[name]

    return deco


def _u(a: np.ndarray) -> np.ndarray:
    """The operand as its unsigned dtype (engine values already are)."""
    return unsigned(np.asarray(a))


def _out(a: np.ndarray, rtype: np.dtype) -> np.ndarray:
    """A same-width integer result in ``rtype``'s bits."""
    return np.asarray(a).view(unsigned_dtype(np.asarray(a).dtype)).astype(rtype, copy=False)


def _limits(dt: np.dtype) -> tuple[int, int, int]:
    """(bit width, signed MIN, signed MAX) of an integer dtype."""
    bits = np.dtype(dt).itemsize * 8
    return bits, -(1 << (bits - 1)), (1 << (bits - 1)) - 1


# -- abs, abs_diff -------------------------------------------------------------------


@_entry("s_abs")
def s_abs(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """|x| as unsigned: abs(MIN) = 2**(n−1) (OpenCL C: abs returns ugentype)."""
    u = _u(x)
    return _out(np.where(signed(u) < 0, -u, u), rtype)


@_entry("u_abs")
def u_abs(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """|x| of an unsigned value is x."""
    return _out(_u(x), rtype)


@_entry("s_abs_diff")
def s_abs_diff(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """|x − y| without overflow, as unsigned (modular subtraction of the larger)."""
    ux, uy = np.broadcast_arrays(_u(x), _u(y))
    return _out(np.where(signed(ux) > signed(uy), ux - uy, uy - ux), rtype)


@_entry("u_abs_diff")
def u_abs_diff(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """|x − y| of unsigned values."""
    ux, uy = _u(x), _u(y)
    return _out(np.maximum(ux, uy) - np.minimum(ux, uy), rtype)


# -- saturating add / sub, halving add -----------------------------------------------------


@_entry("u_add_sat")
def u_add_sat(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x + y clamped to the unsigned MAX."""
    ux, uy = _u(x), _u(y)
    s = ux + uy
    return _out(np.where(s < ux, np.iinfo(s.dtype).max, s), rtype)


@_entry("s_add_sat")
def s_add_sat(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x + y clamped to [MIN, MAX] of the signed type."""
    sx, sy = signed(_u(x)), signed(_u(y))
    s = signed(_u(x) + _u(y))
    info = np.iinfo(s.dtype)
    over = ((sx < 0) == (sy < 0)) & ((s < 0) != (sx < 0))
    return _out(np.where(over, np.where(sx < 0, info.min, info.max), s).astype(s.dtype), rtype)


@_entry("u_sub_sat")
def u_sub_sat(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x − y clamped at 0."""
    ux, uy = _u(x), _u(y)
    return _out(np.where(ux < uy, 0, ux - uy).astype(ux.dtype), rtype)


@_entry("s_sub_sat")
def s_sub_sat(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x − y clamped to [MIN, MAX] of the signed type."""
    sx, sy = signed(_u(x)), signed(_u(y))
    d = signed(_u(x) - _u(y))
    info = np.iinfo(d.dtype)
    over = ((sx < 0) != (sy < 0)) & ((d < 0) != (sx < 0))
    return _out(np.where(over, np.where(sx < 0, info.min, info.max), d).astype(d.dtype), rtype)


def _halving(x: np.ndarray, y: np.ndarray, signed_op: bool, round_up: bool) -> np.ndarray:
    """(x + y) >> 1 without overflow: (x >> 1) + (y >> 1) + carry of the low bits."""
    a, b = (signed(_u(x)), signed(_u(y))) if signed_op else (_u(x), _u(y))
    low = (a | b) if round_up else (a & b)
    return (a >> 1) + (b >> 1) + (low & 1)


def _halving_entry(name: str, signed_op: bool, round_up: bool, doc: str) -> None:
    """Register the halving add ``name`` (``_halving``)."""

    def entry(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
        return _out(_halving(x, y, signed_op, round_up), rtype)

    entry.__name__ = entry.__qualname__ = name
    entry.__doc__ = doc
    _entry(name)(entry)


for _name, _signed, _up, _doc in (
    ("s_hadd", True, False, "(x + y) >> 1, signed, the intermediate sum not overflowing."),
    ("u_hadd", False, False, "(x + y) >> 1, unsigned, the intermediate sum not overflowing."),
    ("s_rhadd", True, True, "(x + y + 1) >> 1, signed, without overflow."),
    ("u_rhadd", False, True, "(x + y + 1) >> 1, unsigned, without overflow."),
):
    _halving_entry(_name, _signed, _up, _doc)


# -- min / max / clamp -------------------------------------------------------------------


def _extremum_entry(name: str, f: np.ufunc, signed_op: bool, doc: str) -> None:
    """Register ``f`` (np.maximum / np.minimum) over the signed or unsigned view."""
    view = (lambda v: signed(_u(v))) if signed_op else _u

    def entry(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
        return _out(f(view(x), view(y)), rtype)

    entry.__name__ = entry.__qualname__ = name
    entry.__doc__ = doc
    _entry(name)(entry)


for _name, _f, _signed, _doc in (
    ("s_max", np.maximum, True, "Signed maximum."),
    ("u_max", np.maximum, False, "Unsigned maximum."),
    ("s_min", np.minimum, True, "Signed minimum."),
    ("u_min", np.minimum, False, "Unsigned minimum."),
):
    _extremum_entry(_name, _f, _signed, _doc)


@_entry("s_clamp")
def s_clamp(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """min(max(x, lo), hi), signed; undefined for lo > hi (this returns hi)."""
    return _out(np.minimum(np.maximum(signed(_u(x)), signed(_u(lo))), signed(_u(hi))), rtype)


@_entry("u_clamp")
def u_clamp(x: np.ndarray, lo: np.ndarray, hi: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """min(max(x, lo), hi), unsigned; undefined for lo > hi (this returns hi)."""
    return _out(np.minimum(np.maximum(_u(x), _u(lo)), _u(hi)), rtype)


# -- bit counts and rotate ------------------------------------------------------------------


def _popcount(u: np.ndarray) -> np.ndarray:
    return np.bitwise_count(u)


@_entry("popcount")
def popcount(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """The number of set bits."""
    return _popcount(_u(x)).astype(rtype)


@_entry("clz")
def clz(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """Leading zero bits; clz(0) is the bit width."""
    u = _u(x).copy()
    bits = u.dtype.itemsize * 8
    shift = 1
    while shift < bits:
        u |= u >> u.dtype.type(shift)
        shift *= 2
    return (bits - _popcount(u).astype(np.int64)).astype(rtype)


@_entry("ctz")
def ctz(x: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """Trailing zero bits; ctz(0) is the bit width."""
    u = _u(x)
    return _popcount(~u & (u - u.dtype.type(1))).astype(rtype)


@_entry("rotate")
def rotate(v: np.ndarray, i: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """Rotate left by i modulo the bit width (bits shifted out re-enter on the right)."""
    u = _u(v)
    bits = u.dtype.itemsize * 8
    s = (_u(i).astype(np.uint64) % np.uint64(bits)).astype(u.dtype)
    back = (u.dtype.type(bits) - s) % u.dtype.type(bits)
    return _out(np.where(s == 0, u, (u << s) | (u >> back)), rtype)


# -- products ------------------------------------------------------------------------------


def _mul_hi_u64(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """High 64 bits of the 128-bit unsigned product, by 32-bit limbs."""
    m = np.uint64(0xFFFFFFFF)
    s32 = np.uint64(32)
    xl, xh, yl, yh = x & m, x >> s32, y & m, y >> s32
    ll, hl, lh, hh = xl * yl, xh * yl, xl * yh, xh * yh
    cross = (ll >> s32) + (hl & m) + lh  # ≤ 2**64 − 1: no wrap
    return hh + (hl >> s32) + (cross >> s32)


def _mul_hi(x: np.ndarray, y: np.ndarray, signed_op: bool) -> np.ndarray:
    """High half of the double-width product, in the operands' unsigned dtype."""
    ux, uy = np.broadcast_arrays(_u(x), _u(y))
    dt = ux.dtype
    bits = dt.itemsize * 8
    if bits < 64:
        wide = np.int64 if signed_op else np.uint64
        a = (signed(ux) if signed_op else ux).astype(wide)
        b = (signed(uy) if signed_op else uy).astype(wide)
        return ((a * b) >> bits).astype(signed_dtype(dt) if signed_op else dt).view(dt)
    hi = _mul_hi_u64(ux, uy)
    if signed_op:  # signed high = unsigned high − (x<0 ? y : 0) − (y<0 ? x : 0)  (mod 2**64)
        hi = hi - np.where(signed(ux) < 0, uy, 0).astype(dt) - np.where(signed(uy) < 0, ux, 0).astype(dt)
    return hi


@_entry("s_mul_hi")
def s_mul_hi(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """High half of the signed double-width product x·y."""
    return _out(_mul_hi(x, y, True), rtype)


@_entry("u_mul_hi")
def u_mul_hi(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """High half of the unsigned double-width product x·y."""
    return _out(_mul_hi(x, y, False), rtype)


@_entry("s_mad_hi")
def s_mad_hi(a: np.ndarray, b: np.ndarray, c: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """mul_hi(a, b) + c (wrapping), signed."""
    return _out(_mul_hi(a, b, True) + _u(c), rtype)


@_entry("u_mad_hi")
def u_mad_hi(a: np.ndarray, b: np.ndarray, c: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """mul_hi(a, b) + c (wrapping), unsigned."""
    return _out(_mul_hi(a, b, False) + _u(c), rtype)


@_entry("u_mad_sat")
def u_mad_sat(x: np.ndarray, y: np.ndarray, z: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x·y + z saturated to [0, MAX] (exact double-width intermediate)."""
    ux, uy, uz = np.broadcast_arrays(_u(x), _u(y), _u(z))
    dt = ux.dtype
    if dt.itemsize < 8:  # (2**32 − 1)**2 + 2**32 − 1 < 2**64
        full = ux.astype(np.uint64) * uy.astype(np.uint64) + uz.astype(np.uint64)
        return np.minimum(full, np.uint64(np.iinfo(dt).max)).astype(rtype)
    lo = ux * uy
    s = lo + uz
    over = (_mul_hi_u64(ux, uy) != 0) | (s < lo)
    return np.where(over, np.iinfo(dt).max, s).astype(rtype)


@_entry("s_mad_sat")
def s_mad_sat(x: np.ndarray, y: np.ndarray, z: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x·y + z saturated to [MIN, MAX] of the signed type (exact intermediate)."""
    ux, uy, uz = np.broadcast_arrays(_u(x), _u(y), _u(z))
    dt = ux.dtype
    bits, lo_lim, hi_lim = _limits(dt)
    if bits < 64:  # |x·y| ≤ 2**62, + z fits in int64
        full = signed(ux).astype(np.int64) * signed(uy).astype(np.int64) + signed(uz).astype(np.int64)
        return np.clip(full, lo_lim, hi_lim).astype(signed_dtype(dt)).view(dt).astype(rtype)
    lo = ux * uy
    hi = signed(_mul_hi(ux, uy, True))
    s = lo + uz
    carry = (s < lo).astype(np.int64)
    hi = hi + np.where(signed(uz) < 0, -1, 0) + carry  # 128-bit sum's high word
    fits = hi == (signed(s) >> 63)
    sat = np.where(hi < 0, np.int64(lo_lim), np.int64(hi_lim))
    return np.where(fits, signed(s), sat).view(np.uint64).astype(rtype)


@_entry("u_upsample")
def u_upsample(hi: np.ndarray, lo: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """(hi << n) | lo, n the width of lo; the result is twice as wide."""
    uhi, ulo = _u(hi), _u(lo)
    bits = ulo.dtype.itemsize * 8
    rt = unsigned_dtype(rtype)
    return ((uhi.astype(rt) << rt.type(bits)) | ulo.astype(rt)).astype(rtype)


@_entry("s_upsample")
def s_upsample(hi: np.ndarray, lo: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """(signed hi << n) | unsigned lo: the same bits as u_upsample."""
    return u_upsample(hi, lo, rtype=rtype)


@_entry("s_mul24")
def s_mul24(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x·y for x, y in [−2**23, 2**23 − 1] (undefined outside; this wraps the
    32-bit product of the full operands)."""
    return _out(_u(x) * _u(y), rtype)


@_entry("u_mul24")
def u_mul24(x: np.ndarray, y: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """x·y for x, y in [0, 2**24 − 1] (undefined outside; this wraps)."""
    return _out(_u(x) * _u(y), rtype)


@_entry("s_mad24")
def s_mad24(x: np.ndarray, y: np.ndarray, z: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """mul24(x, y) + z (wrapping), signed."""
    return _out(_u(x) * _u(y) + _u(z), rtype)


@_entry("u_mad24")
def u_mad24(x: np.ndarray, y: np.ndarray, z: np.ndarray, *, rtype: np.dtype) -> np.ndarray:
    """mul24(x, y) + z (wrapping), unsigned."""
    return _out(_u(x) * _u(y) + _u(z), rtype)
