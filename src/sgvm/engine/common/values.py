"""Constant values and their bytes, as every backend holds them.

A value of a scalar type is a NumPy scalar of ``types.dtype_of``, a vector a ``(n,)``
array, a struct or array a tuple of member values; a value with a leading lane axis
(``(L,)``/``(L, n)``) is one per lane. ``pack``/``unpack`` convert between values and
their OpenCL C memory layout (``types.size_of``, ``types.member_offsets``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...spirv import Constant, Module, Type
from . import types as T
from .constants import constant_sampler

U8 = np.dtype(np.uint8)


def constant_value(module: Module, c: Constant, values: dict[int, Any]) -> Any:
    """The value of constant ``c``; ``values`` holds those of the constants it names."""
    t = c.type
    if c.op == "OpConstantSampler":
        return constant_sampler(c.value)
    if c.value is None:
        return zero(t)
    if t.op == "Bool":
        return np.bool_(c.value)
    if t.op in ("Int", "Float"):
        dt = T.dtype_of(t)
        if t.op == "Int":
            return dt.type(int(c.value) % (1 << t.width))
        return dt.type(c.value)
    if t.op == "Vector":
        return np.array([values[i] for i in c.value], dtype=T.dtype_of(t))
    if t.op in ("Struct", "Array"):
        return tuple(values[i] for i in c.value)
    raise UnsupportedError(f"constant of type {t!r}")


def zero(t: Type) -> Any:
    """The null value of ``t``."""
    if t.op == "Vector":
        return np.zeros(t.count, T.dtype_of(t))
    if t.op == "Struct":
        return tuple(zero(m) for m in t.members)
    if t.op == "Array":
        return tuple(zero(t.component) for _ in range(t.count))
    if t.op in ("Int", "Float", "Bool", "Pointer", "Event"):
        return T.dtype_of(t).type(0)
    return np.uint64(0)


def unpack(t: Type, raw: np.ndarray) -> Any:
    """Bytes ``(..., size)`` → a value of type ``t``."""
    if T.is_aggregate(t):
        members = t.members if t.op == "Struct" else (t.component,) * t.count
        return tuple(unpack(m, raw[..., o:o + T.size_of(m)])
                     for m, o in zip(members, T.member_offsets(t), strict=False))
    dt, n = T.dtype_of(t), T.width(t)
    v = np.ascontiguousarray(raw[..., : dt.itemsize * n]).view(dt)
    if n == 1:
        v = v[..., 0]
    return v[()] if v.ndim == 0 else v


def pack(t: Type, value: Any, L: int) -> np.ndarray:
    """A value of type ``t`` → bytes ``(L, size)`` (or ``(size,)`` when uniform). A lazy
    value (one with ``materialize()``, the CPU engine's Affine) is materialised first."""
    size = T.size_of(t)
    if T.is_aggregate(t):
        members = t.members if t.op == "Struct" else (t.component,) * t.count
        parts = [pack(m, v, L) for m, v in zip(members, value, strict=False)]
        rows = L if any(p.ndim == 2 for p in parts) else None
        out = np.zeros((rows, size) if rows else (size,), U8)
        for p, o in zip(parts, T.member_offsets(t), strict=False):
            out[..., o:o + p.shape[-1]] = p
        return out
    dt, n = T.dtype_of(t), T.width(t)
    if hasattr(value, "materialize"):
        value = value.materialize()
    v = np.ascontiguousarray(value, dtype=dt)
    uniform = v.ndim == (1 if n > 1 else 0)
    return v.reshape((1 if uniform else v.shape[0], n)).view(U8)[0 if uniform else slice(None)]
