"""SPIR-V types → NumPy dtypes and OpenCL C memory layout.

Integers are stored unsigned (internals.md), bools as ``bool``, pointers as
``uint64``. Sizes and alignments follow OpenCL C 3.0 s6.3.5: a 3-component
vector occupies and aligns like a 4-component one; structs use C layout, except
structs decorated ``CPacked`` (OpenCL C's ``__attribute__((packed))``), whose members
follow each other without padding (SPIR-V: "the compiler must not add padding between
members"; such a struct aligns to 1 byte).
"""

from __future__ import annotations

import functools

import numpy as np

from ...errors import UnsupportedError
from ...spirv import Type

_UINT = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32), 64: np.dtype(np.uint64)}
_SINT = {8: np.dtype(np.int8), 16: np.dtype(np.int16), 32: np.dtype(np.int32), 64: np.dtype(np.int64)}
_FLOAT = {16: np.dtype(np.float16), 32: np.dtype(np.float32), 64: np.dtype(np.float64)}
POINTER = np.dtype(np.uint64)


def signed(dt: np.dtype) -> np.dtype:
    """The signed integer dtype of ``dt``'s width."""
    return _SINT[dt.itemsize * 8]


def unsigned(dt: np.dtype) -> np.dtype:
    return _UINT[dt.itemsize * 8]


def dtype_of(t: Type) -> np.dtype:
    """The NumPy dtype of a scalar type or of a vector's components."""
    t = t.scalar
    if t.op == "Int":
        return _UINT[t.width]
    if t.op == "Float":
        return _FLOAT[t.width]
    if t.op == "Bool":
        return np.dtype(bool)
    if t.op in ("Pointer", "Event", "DeviceEvent", "Queue", "ReserveId", "Sampler", "Image",
                "SampledImage", "Opaque"):
        return POINTER
    raise UnsupportedError(f"no scalar dtype for type {t!r}")


def width(t: Type) -> int:
    """Vector component count (1 for scalars)."""
    return t.count if t.op == "Vector" else 1


@functools.cache
def _size_align(t: Type) -> tuple[int, int]:
    if t.op in ("Int", "Float"):
        n = t.width // 8
        return n, n
    if t.op == "Bool":
        return 1, 1
    if t.op == "Pointer":
        return 8, 8
    if t.op == "Vector":
        s, _ = _size_align(t.component)
        n = 4 if t.count == 3 else t.count
        return s * n, s * n
    if t.op == "Array":
        s, a = _size_align(t.component)
        return s * t.count, a
    if t.op == "Struct" and t.packed:
        return sum(_size_align(m)[0] for m in t.members), 1
    if t.op == "Struct":
        off, align = 0, 1
        for m in t.members:
            s, a = _size_align(m)
            off = -(-off // a) * a + s
            align = max(align, a)
        return -(-off // align) * align, align
    if t.op in ("Event", "Sampler", "Image", "Opaque", "Queue"):
        return 8, 8
    raise UnsupportedError(f"no memory layout for type {t!r}")


def size_of(t: Type) -> int:
    """``sizeof`` in bytes."""
    return _size_align(t)[0]


def align_of(t: Type) -> int:
    return _size_align(t)[1]


def data_size(t: Type) -> int:
    """Bytes a load or store of ``t`` touches (a 3-vector touches 3 components)."""
    if t.op == "Vector":
        return size_of(t.component) * t.count
    return size_of(t)


@functools.cache
def member_offsets(t: Type) -> tuple[int, ...]:
    """Byte offset of each struct member (C layout), or of each array element."""
    if t.op == "Array":
        s = size_of(t.component)
        return tuple(i * s for i in range(t.count))
    offs, off = [], 0
    for m in t.members:
        a = 1 if t.packed else align_of(m)
        off = -(-off // a) * a
        offs.append(off)
        off += size_of(m)
    return tuple(offs)


def is_aggregate(t: Type) -> bool:
    return t.op in ("Struct", "Array")
