"""Device copies of Allocations (docs/cuda.md, "Using it").

Every Allocation a kernel receives gets a device mirror, created on first use and kept;
it is re-uploaded only when the host may have changed the bytes and downloaded only when
the host asks for them (``runtime.residency.host_access``, called by the host API).
Allocations whose bytes overlap (a buffer and its sub-buffers) are kept coherent through
the host copy: each mirror knows the mirrors it overlaps, found once when it is made, so
a launch touches only those instead of every mirror there is.

Invariant: a mirror that is not ``dev_stale`` overlaps no mirror that is ``host_stale``
(``written`` marks every overlapping mirror ``dev_stale``; ``device`` downloads the
overlapping ``host_stale`` ones before making a mirror), so an up-to-date mirror is
returned without looking at any other.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from ...runtime import residency
from ...runtime.memory import Allocation

GUARD = 256
# Launches and host accesses from several threads take turns: the mirrors' flags, the fault
# record and the region tables are shared (a launch synchronises before it returns anyway).
LOCK = threading.RLock()


_CUPY: list[Any] = []


def cupy() -> Any:
    """The ``cupy`` module (imported on first use: sgvm runs without it)."""
    if not _CUPY:
        import cupy as cp

        _CUPY.append(cp)
    return _CUPY[0]


class Mirror:
    """One allocation's device copy. ``dev`` is made once: a mirror keeps its device address
    for as long as it lives, and is its allocation's for as long as both live."""

    __slots__ = ("dev", "host_stale", "dev_stale", "overlaps", "__weakref__")

    def __init__(self, dev: Any) -> None:
        self.dev = dev
        self.host_stale = False  # the device copy is newer
        self.dev_stale = False  # the host copy is newer
        self.overlaps: list[weakref.ref[Allocation]] = []  # other mirrored allocations overlapping


def _device_copy(data: np.ndarray) -> Any:
    """A device copy of ``data`` followed by ``GUARD`` spare bytes, so that an access just
    past the end lands in no other buffer (the bounds checks name the right one)."""
    raw = cupy().empty(data.nbytes + GUARD, np.uint8)
    dev = raw[:data.nbytes]
    dev.set(data)
    return dev


def _span(alloc: Allocation) -> tuple[int, int]:
    start = alloc.data.__array_interface__["data"][0]
    return start, start + alloc.data.nbytes


class Mirrors:
    """Device copies of allocations (see the module docstring)."""

    def __init__(self) -> None:
        self.by_alloc: weakref.WeakKeyDictionary[Allocation, Mirror] = weakref.WeakKeyDictionary()

    def _scan(self, alloc: Allocation) -> list[tuple[Allocation, Mirror]]:
        """Every mirrored allocation overlapping ``alloc`` (``alloc`` itself included)."""
        lo, hi = _span(alloc)
        out = []
        for a, m in list(self.by_alloc.items()):
            alo, ahi = _span(a)
            if alo < hi and lo < ahi:
                out.append((a, m))
        return out

    def _related(self, alloc: Allocation, m: Mirror) -> list[tuple[Allocation, Mirror]]:
        """``alloc`` and the mirrored allocations overlapping it, from its mirror's list."""
        out = [(alloc, m)]
        for ref in m.overlaps:
            a = ref()
            other = self.by_alloc.get(a) if a is not None else None
            if other is not None:
                out.append((a, other))
        return out

    def host_access(self, alloc: Allocation) -> None:
        with LOCK:
            m = self.by_alloc.get(alloc)
            for a, o in (self._related(alloc, m) if m is not None else self._scan(alloc)):
                if o.host_stale:
                    try:
                        o.dev.get(out=a.data)
                    except Exception as exc:
                        from .failures import cuda_failure

                        error = cuda_failure(exc, f"copying {a.name!r} back from the GPU")
                        if error is None:
                            raise
                        raise error from exc
                    o.host_stale = False
                o.dev_stale = True

    def device(self, alloc: Allocation) -> Any:
        """The up-to-date device array of ``alloc``."""
        return self.mirror(alloc).dev

    def mirror(self, alloc: Allocation) -> Mirror:
        """``alloc``'s mirror, its device copy up to date."""
        m = self.by_alloc.get(alloc)
        if m is not None and not m.dev_stale:
            return m
        related = self._related(alloc, m) if m is not None else self._scan(alloc)
        for a, o in related:
            if a is not alloc and o.host_stale:
                o.dev.get(out=a.data)
                o.host_stale = False
        if m is None:
            m = self.by_alloc[alloc] = Mirror(_device_copy(alloc.data))
            for a, o in related:
                m.overlaps.append(weakref.ref(a))
                o.overlaps.append(weakref.ref(alloc))
        elif m.dev_stale:
            m.dev.set(alloc.data)
            m.dev_stale = False
        return m

    def written(self, written: list[tuple[Allocation, Mirror]]) -> None:
        """A kernel may have written each allocation of ``written`` (with its mirror) on the
        device."""
        for alloc, m in written:
            m.host_stale = True
            if m.overlaps:
                for _, o in self._related(alloc, m)[1:]:
                    o.dev_stale = True


MIRRORS = Mirrors()
residency.register(MIRRORS)
