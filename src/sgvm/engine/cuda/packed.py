"""A launch's kernel parameters packed once for ``cuLaunchKernel`` (docs/cuda.md, "Launch").

CuPy's ``RawKernel.__call__`` converts each of a kernel's parameters (25 and more for an sgvm
kernel: the launch geometry and the checks' tables come first) at every launch. A ``Packed``
holds them converted: each parameter's bytes in one 8-byte slot of a NumPy array, and per
uniform region of the NDRange the array of slot addresses ``cuLaunchKernel`` takes ("If f has
N parameters, then kernelParams needs to be an array of N pointers. Each of kernelParams[0]
through kernelParams[N-1] must point to a region of memory from which the actual kernel
parameter will be copied", CUDA Driver API). A relaunch with the same arguments reuses it
while every buffer and its device copy are still alive (``current``).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...runtime.args import BufferArg, KernelArg, LocalArg, NullArg, SamplerArg, ValueArg
from ...runtime.memory import Allocation
from . import bounds
from .mirrors import MIRRORS, Mirror

Grid = tuple[tuple[int, ...], tuple[int, ...], tuple[Any, ...]]


def signature(args: Sequence[KernelArg]) -> tuple[Any, ...] | None:
    """What a launch's packed parameters depend on among ``args`` (buffers by identity,
    values by their bytes); None where an argument is packed anew at every launch (images:
    their descriptors follow the image)."""
    key: list[Any] = []
    for a in args:
        t = type(a)
        if t is BufferArg:
            key.append((id(a.allocation), a.offset))  # type: ignore[attr-defined]
        elif t is ValueArg:
            key.append(bytes(a.data))  # type: ignore[attr-defined]
        elif t is LocalArg:
            key.append(a.nbytes)  # type: ignore[attr-defined]
        elif t is NullArg:
            key.append(None)
        elif t is SamplerArg:
            key.append(("sampler", a.sampler.literal))  # type: ignore[attr-defined]
        else:
            return None
    return tuple(key)


def _dims(v: tuple[int, ...]) -> tuple[int, int, int]:
    x = (*(int(n) for n in v), 1, 1)
    return x[0], x[1], x[2]


class Packed:
    """One launch's parameters, ready for ``cuLaunchKernel`` (module docstring)."""

    __slots__ = ("launches", "dyn", "regions", "images", "cacheable", "_slots", "_keep", "_mirrors")

    def __init__(self, grids: Sequence[Grid], tail: tuple[Any, ...], dyn: int,
                 regions: list[bounds.Region], written: list[Allocation], keep: list[Any],
                 cacheable: bool) -> None:
        self.dyn = dyn
        self.cacheable = cacheable  # False: a relaunch must pack again (by-value copies)
        self.regions = regions  # for memory-error messages
        self.images: dict[int, tuple[str, Any]] = {}  # image arguments by handle, likewise
        self._keep = keep  # device arrays the parameters point into (tables, by-value copies)
        # the allocations the kernel may write and their mirrors, weakly: a cached launch keeps
        # no buffer alive
        self._mirrors = [(weakref.ref(a), weakref.ref(MIRRORS.mirror(a))) for a in written]
        self._slots = []
        self.launches: list[tuple[int, int, int, int, int, int, int]] = []
        for counts, block, ctx in grids:
            values = ctx + tail
            store = np.zeros(len(values), np.uint64)
            raw = store.view(np.uint8)
            for i, v in enumerate(values):
                b = np.asarray(v).tobytes()
                raw[8 * i:8 * i + len(b)] = np.frombuffer(b, np.uint8)
            ptrs = np.uint64(store.ctypes.data) + np.arange(0, 8 * len(values), 8, dtype=np.uint64)
            self._slots.append((store, ptrs))
            self.launches.append((*_dims(counts), *_dims(block), int(ptrs.ctypes.data)))

    def current(self) -> list[tuple[Allocation, Mirror]] | None:
        """The written allocations with their mirrors, the device copies brought up to date,
        if every one is still alive (a live mirror of a live allocation is still its mirror,
        at the address packed: ``mirrors.Mirror``); else None (pack again)."""
        out = []
        for aref, mref in self._mirrors:
            a, m = aref(), mref()
            if a is None or m is None:
                return None
            if m.dev_stale:
                MIRRORS.mirror(a)  # the host changed it: upload, in place
            out.append((a, m))
        return out
