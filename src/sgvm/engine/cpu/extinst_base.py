"""Shared plumbing of the OpenCL.std tables: operand shapes, dtypes, precision.

Operand shapes follow docs/internals.md: ``(L,)`` / ``(L, n)`` per lane, NumPy
scalars / ``(n,)`` arrays for uniform values. OpenCL.std gives every operand of
an instruction the same component count (geometric ones and shuffles aside), so
plain NumPy broadcasting combines a per-lane ``(L, n)`` vector with a uniform
``(n,)`` one. The only extra rule: a 1-D operand next to a 2-D ``(L, n)`` one
whose length is ``L`` but not ``n`` is a per-lane scalar and gets a trailing
axis (OpenCL C's ``ldexp(floatn, int)`` form, should a front end emit it).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
#: The extended type used for float64 results where float64 itself would not
#: meet the ULP limit (x86-64: 80-bit, 64-bit significand).
FX = np.dtype(np.longdouble)

_SIGNED = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def operands(*ops: object) -> list[np.ndarray]:
    """The operands as arrays that broadcast against each other (module rule)."""
    arrs = [np.asarray(o) for o in ops]
    wide = next((a for a in arrs if a.ndim == 2), None)
    if wide is None:
        return arrs
    lanes, comps = wide.shape
    return [a[:, None] if a.ndim == 1 and a.shape[0] == lanes != comps else a for a in arrs]


def signed(a: np.ndarray) -> np.ndarray:
    """View an unsigned integer array as the signed type of its width."""
    return a.view(_SIGNED[a.dtype.itemsize]) if a.dtype.kind == "u" else a


def unsigned(a: np.ndarray) -> np.ndarray:
    """View a signed integer array as the unsigned type of its width."""
    return a.view(_UNSIGNED[a.dtype.itemsize]) if a.dtype.kind == "i" else a


def signed_dtype(dt: np.dtype) -> np.dtype:
    """The signed integer dtype of ``dt``'s width."""
    return np.dtype(_SIGNED[np.dtype(dt).itemsize])


def unsigned_dtype(dt: np.dtype) -> np.dtype:
    """The unsigned integer dtype of ``dt``'s width."""
    return np.dtype(_UNSIGNED[np.dtype(dt).itemsize])


def work(x: np.ndarray, rtype: np.dtype, *, extended: bool = False) -> np.ndarray:
    """``x`` in the working precision for a result of ``rtype``.

    float16/float32 results are computed in float64: with ≥ 29 extra bits the
    final rounding to ``rtype`` leaves at most 0.5 ulp + 2**-29 ulp. float64
    results are computed in float64, or in long double when ``extended``.
    """
    if np.dtype(rtype) == F64 and extended:
        return np.asarray(x, dtype=FX)
    return np.asarray(x, dtype=F64)


def done(x: np.ndarray, rtype: np.dtype) -> np.ndarray:
    """Round a working-precision result to ``rtype`` (a single rounding)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(x).astype(rtype)


def ints_as_i64(a: np.ndarray) -> np.ndarray:
    """An integer operand (unsigned engine dtype, any width) as signed int64."""
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return a.astype(np.int64)
    return signed(a).astype(np.int64)


def to_rtype_int(a: np.ndarray, rtype: np.dtype) -> np.ndarray:
    """Wrap an integer array into the (unsigned) engine dtype ``rtype``."""
    rt = np.dtype(rtype)
    return np.asarray(a).astype(signed_dtype(rt)).view(rt) if rt.kind == "u" else np.asarray(a).astype(rt)


def lanewise(fn: Callable[..., Any], *, align: bool = True) -> Callable[..., Any]:
    """Table entry decorator: operands as arrays (aligned by the module rule unless
    ``align`` is false), FP warnings quiet, ``rtype`` a dtype."""

    @functools.wraps(fn)
    def entry(*ops: object, rtype: np.dtype, **kw: Any) -> Any:
        arrs = operands(*ops) if align else [np.asarray(o) for o in ops]
        with np.errstate(all="ignore"):
            return fn(*arrs, rtype=np.dtype(rtype), **kw)

    return entry
