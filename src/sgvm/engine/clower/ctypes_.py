"""SPIR-V types as C leaves.

The renderer flattens every SSA value into *leaves*: scalars in the order of a
depth-first walk of its type (a vector's components, a struct's members, an
array's elements). Integers are unsigned of their width (SPIR-V integers are
signless; signed instructions cast), half is its binary16 bits (``hbits``),
bool is ``bool``, pointers are ``char*`` (generic addressing covers global,
local and private memory), images, samplers and events are ``u64`` handles.
Memory layout (sizes, member offsets) is the CPU engine's (``engine.common.types``,
OpenCL C 3.0 s6.3.5).
"""

from __future__ import annotations

import functools
import struct

from ...errors import UnsupportedError
from ...spirv import Type
from ..common import types as T

_INT = {8: "u8", 16: "u16", 32: "u32", 64: "u64"}
_SINT = {8: "s8", 16: "s16", 32: "s32", 64: "s64"}
_FLOAT = {16: "hbits", 32: "float", 64: "double"}
HANDLES = ("Event", "DeviceEvent", "Queue", "ReserveId", "Sampler", "Image", "SampledImage",
           "Opaque")


def scalar_ctype(t: Type) -> str:
    """The C type of a scalar (or pointer / handle) type."""
    if t.op == "Int":
        return _INT[t.width]
    if t.op == "Float":
        return _FLOAT[t.width]
    if t.op == "Bool":
        return "bool"
    if t.op == "Pointer":
        return "char*"
    if t.op in HANDLES:
        return "u64"
    raise UnsupportedError(f"no C type for {t!r}")


def signed_ctype(t: Type) -> str:
    return _SINT[t.width]


@functools.cache
def leaf_types(t: Type) -> tuple[Type, ...]:
    """The scalar types of ``t``'s leaves (see the module docstring)."""
    if t.op == "Vector":
        return (t.component,) * t.count
    if t.op == "Struct":
        return tuple(x for m in t.members for x in leaf_types(m))
    if t.op == "Array":
        return leaf_types(t.component) * t.count
    if t.op == "Void":
        return ()
    return (t,)


@functools.cache
def leaf_offsets(t: Type) -> tuple[int, ...]:
    """Byte offset in memory of each leaf of ``t``."""
    if t.op == "Vector":
        s = T.size_of(t.component)
        return tuple(i * s for i in range(t.count))
    if t.op in ("Struct", "Array"):
        members = t.members if t.op == "Struct" else (t.component,) * t.count
        return tuple(base + o for base, m in zip(T.member_offsets(t), members, strict=True)
                     for o in leaf_offsets(m))
    return (0,)


def leaf_range(t: Type, indices: list[int]) -> tuple[int, int, Type]:
    """(first leaf, leaf count, type) of the member of ``t`` named by literal ``indices``."""
    start = 0
    for i in indices:
        if t.op == "Vector":
            start += i
            t = t.component
        elif t.op == "Array":
            start += i * len(leaf_types(t.component))
            t = t.component
        elif t.op == "Struct":
            start += sum(len(leaf_types(m)) for m in t.members[:i])
            t = t.members[i]
        else:
            raise UnsupportedError(f"composite index into {t!r}")
    return start, len(leaf_types(t)), t


def literal(t: Type, value: object) -> str:
    """A C expression for a scalar constant of type ``t`` (floats by their exact bits)."""
    if t.op == "Bool":
        return "true" if value else "false"
    if t.op == "Int":
        v = int(value) % (1 << t.width)  # type: ignore[call-overload]
        return f"(({_INT[t.width]}){v:#x}ULL)"
    if t.op == "Float":
        if t.width == 16:
            bits = struct.unpack("<H", struct.pack("<e", float(value)))[0]  # type: ignore[arg-type]
            return f"((hbits){bits:#x})"
        if t.width == 32:
            bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]  # type: ignore[arg-type]
            return f"__int_as_float({bits:#x})"
        bits = struct.unpack("<Q", struct.pack("<d", float(value)))[0]  # type: ignore[arg-type]
        return f"__longlong_as_double({bits:#x}LL)"
    if t.op == "Pointer":
        return "((char*)0)"
    return "0ULL"


def zero(t: Type) -> str:
    return literal(t, False if t.op == "Bool" else 0)
