"""Reading C arguments and writing info answers (the clGet*Info protocol).

OpenCL API s4.1 (clGetPlatformInfo) and every other query: "If param_value is
NULL, it is ignored"; CL_INVALID_VALUE "if size in bytes specified by
param_value_size is < size of return type" and param_value is not NULL;
``param_value_size_ret`` receives "the actual size in bytes of data being queried".
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import Error
from . import handles, state

UINT, ULONG, SIZE = "I", "Q", "Q"  # struct codes: cl_uint, cl_ulong, size_t (64-bit hosts)


def is_null(ptr: Any) -> bool:
    return ptr == state.ffi.NULL


def answer(data: bytes, size: int, value: Any, size_ret: Any) -> None:
    """Write ``data`` to ``value`` (when given) and its size to ``size_ret`` (when given)."""
    if not is_null(value):
        if size < len(data):
            raise Error(f"param_value_size is {size} bytes; the answer needs {len(data)}", "CL_INVALID_VALUE")
        state.ffi.memmove(value, data, len(data))
    if not is_null(size_ret):
        size_ret[0] = len(data)


def pack_string(text: str) -> bytes:
    return text.encode() + b"\0"


def pack_handle(obj: Any) -> bytes:
    """A handle value (NULL for None or an object the application never saw)."""
    h = handles.of(obj) if obj is not None else None
    return struct.pack("<Q", handles.address(h.cdata) if h else 0)


def pack_name_versions(items: Iterable[tuple[str, int]]) -> bytes:
    """``cl_name_version`` array: a cl_uint version then a 64-byte NUL-padded name."""
    out = b""
    for name, version in items:
        raw = name.encode()[:63]
        out += struct.pack("<I", version) + raw + b"\0" * (64 - len(raw))
    return out


def pack(value: Any, scalar: str = UINT) -> bytes:
    """A Python info value in its C form; ``scalar`` is the struct code of integer values."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return pack_string(value)
    if isinstance(value, bool):
        return struct.pack("<I", int(value))
    if isinstance(value, int):
        return struct.pack("<" + scalar, value)
    if isinstance(value, (list, tuple)):
        if value and isinstance(value[0], tuple):
            return pack_name_versions(value)
        if all(isinstance(v, int) for v in value):
            return struct.pack(f"<{len(value)}{scalar}", *value)
        return b"".join(pack_handle(v) for v in value)
    return pack_handle(value)


def give(value: Any, scalar: str, size: int, out: Any, size_ret: Any) -> None:
    """Answer an info query with ``value``."""
    answer(pack(value, scalar), size, out, size_ret)


def scalar_of(param: int, ulong: frozenset[int] = frozenset(), size_t: frozenset[int] = frozenset()) -> str:
    """The integer form of ``param``'s answer: cl_ulong / bitfield, size_t, else cl_uint."""
    return ULONG if param in ulong else SIZE if param in size_t else UINT


def sizes(ptr: Any, count: int, what: str, *, required: bool = True) -> list[int] | None:
    """``count`` size_t values at ``ptr`` (None for NULL when not ``required``)."""
    if is_null(ptr):
        if required:
            raise Error(f"{what} is NULL", "CL_INVALID_VALUE")
        return None
    return [int(ptr[i]) for i in range(count)]


def events_in(num: int, events: Any) -> list[Any]:
    """An event wait list: CL_INVALID_EVENT_WAIT_LIST when ``events`` and ``num`` disagree
    or an entry is not a valid event (OpenCL API s5.11)."""
    if (num == 0) != is_null(events):
        raise Error("event_wait_list is NULL and num_events_in_wait_list > 0, or the other way round",
                    "CL_INVALID_EVENT_WAIT_LIST")
    out = []
    for i in range(num):
        h = handles.find(events[i])
        if h is None or h.kind != handles.EVENT:
            raise Error(f"event_wait_list[{i}] is not a valid event", "CL_INVALID_EVENT_WAIT_LIST")
        out.append(h)
    return out


def handle_list(num: int, ptr: Any, kind: str, what: str) -> list[handles.Handle]:
    """``num`` handles of ``kind`` at ``ptr``."""
    if num == 0 or is_null(ptr):
        raise Error(f"{what}: give a non-NULL list of at least one {kind}", "CL_INVALID_VALUE")
    return [handles.get(ptr[i], kind) for i in range(num)]


def c_string(ptr: Any, what: str) -> str:
    if is_null(ptr):
        raise Error(f"{what} is NULL", "CL_INVALID_VALUE")
    return state.ffi.string(ptr).decode("utf-8", "replace")


def properties(ptr: Any) -> list[tuple[int, int]]:
    """A zero-terminated (name, value) property list as pairs."""
    out: list[tuple[int, int]] = []
    if is_null(ptr):
        return out
    i = 0
    while int(ptr[i]) != 0:
        out.append((int(ptr[i]), int(ptr[i + 1])))
        i += 2
    return out


def flat(pairs: Sequence[tuple[int, int]]) -> list[int]:
    """A property list as the terminated flat array info queries return (empty when none)."""
    return [x for p in pairs for x in p] + [0] if pairs else []
