"""OpenCL handles: C objects whose first member is the dispatch table (cl_khr_icd).

Every handle the library gives out is a small C struct ``{dispatch}`` owned by a
:class:`Handle`, which also holds the sgvm object behind it, its reference count
and what it keeps alive. A pointer the application passes in is looked up by its
address; an unknown address, one of another kind, or one already released gets
the OpenCL error the caller names (CL_INVALID_CONTEXT, CL_INVALID_MEM_OBJECT …).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import Error
from . import state

PLATFORM, DEVICE, CONTEXT, QUEUE, MEM, PROGRAM, KERNEL, EVENT, SAMPLER = (
    "platform", "device", "context", "command queue", "memory object", "program", "kernel", "event",
    "sampler")

INVALID = {PLATFORM: "CL_INVALID_PLATFORM", DEVICE: "CL_INVALID_DEVICE", CONTEXT: "CL_INVALID_CONTEXT",
           QUEUE: "CL_INVALID_COMMAND_QUEUE", MEM: "CL_INVALID_MEM_OBJECT", PROGRAM: "CL_INVALID_PROGRAM",
           KERNEL: "CL_INVALID_KERNEL", EVENT: "CL_INVALID_EVENT", SAMPLER: "CL_INVALID_SAMPLER"}


@dataclass(eq=False)
class Handle:
    """One OpenCL object as the application sees it."""

    kind: str
    obj: Any
    cdata: Any
    refs: int = 1
    holds: list[Handle] = field(default_factory=list)  # retained for as long as this lives
    on_free: list[Callable[[], None]] = field(default_factory=list)
    permanent: bool = False
    extra: dict[str, Any] = field(default_factory=dict)  # kind-specific state (maps, host pointer …)


_by_address: dict[int, Handle] = {}
_by_object: dict[int, Handle] = {}


def address(ptr: Any) -> int:
    return int(state.ffi.cast("uintptr_t", ptr))


def new(kind: str, obj: Any, *, holds: tuple[Handle, ...] = (), cdata: Any = None,
        permanent: bool = False) -> Handle:
    """A handle for ``obj`` with reference count 1 that retains ``holds``."""
    ffi = state.ffi
    if cdata is None:
        cdata = ffi.new("sgvm_object *")
        cdata.dispatch = state.lib.sgvm_dispatch()
    h = Handle(kind, obj, cdata, holds=list(holds), permanent=permanent)
    for other in holds:
        other.refs += 1
    _by_address[address(cdata)] = h
    _by_object[id(obj)] = h
    return h


def get(ptr: Any, kind: str, code: str | None = None) -> Handle:
    """The live handle of ``kind`` at ``ptr``, else the kind's CL_INVALID_* error."""
    h = _by_address.get(address(ptr)) if ptr != state.ffi.NULL else None
    if h is None or h.kind != kind:
        what = "NULL" if ptr == state.ffi.NULL else ("a released or unknown object" if h is None
                                                      else f"a {h.kind}")
        raise Error(f"expected a {kind}, got {what}", code or INVALID[kind])
    return h


def find(ptr: Any) -> Handle | None:
    """The handle at ``ptr`` of any kind, or None."""
    return _by_address.get(address(ptr))


def of(obj: Any) -> Handle | None:
    """The handle that wraps ``obj`` (None for objects the application never saw)."""
    return _by_object.get(id(obj))


def retain(h: Handle) -> None:
    h.refs += 1


def release(h: Handle) -> None:
    """Drop one reference; at zero the object goes away and releases what it held."""
    if h.permanent:
        return
    h.refs -= 1
    if h.refs > 0:
        return
    _by_address.pop(address(h.cdata), None)
    if _by_object.get(id(h.obj)) is h:
        del _by_object[id(h.obj)]
    for fn in reversed(h.on_free):  # "called in the reverse order of their registration"
        fn()
    for other in h.holds:
        release(other)
    h.holds.clear()
