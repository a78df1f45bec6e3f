"""Memory-error reports on the CUDA backend (docs/cuda.md, "Memory errors").

With checks on (``SGVM_CUDA_BOUNDS``, default 1) the renderer guards every access
through a global, constant or local pointer with ``sg_ok`` (prelude.cuh): the address
must lie in one of the launch's *regions* (the buffer arguments' allocations, by-value
copies, program-scope globals) or in the kernel's local memory, aligned as the CPU
engine requires. A pointer whose object the code names (a buffer argument, through
access chains, casts, phis and private variables: ``engine/common/origins.py``) is
checked against that argument's region alone (``sg_ok_in``), as the CPU backends check
it, so an overrun into another argument's buffer faults too; the record names the region.
A faulting access is skipped (loads give 0); the work-item with the lowest global linear
id records it, and after the launch ``error`` turns the record into the CPU engine's
``KernelMemoryError`` message.

The same switch turns on the step budget (docs/cuda.md, "Runaway kernels"): each function
call of a work-item counts its loop back-edges; past ``SGVM_MAX_STEPS`` the work-item
records a timeout in the same record, its block exits, and ``error`` gives
``KernelTimeout``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import KernelMemoryError, KernelTimeout, UnsupportedError
from ...runtime import environment
from ...runtime.ndrange import NDRange
from ..common import faults

ENV = "SGVM_CUDA_BOUNDS"
_RECORD = 64  # bytes of the fault record (prelude.cuh)
_RO = np.uint64(1 << 63)
_FAR = 1 << 40  # further past a region's start than this: not that region's offset


def enabled(settings: environment.Settings | None = None) -> bool:
    """Whether launches check their memory accesses (``SGVM_CUDA_BOUNDS=0`` of ``settings``
    turns it off; None: the environment now)."""
    return (settings or environment.current()).SGVM_CUDA_BOUNDS != "0"


@dataclass
class Region:
    """A device byte range a kernel may access, and how error messages name it."""

    start: int
    size: int
    read_only: bool
    label: str


def table(regions: list[Region]) -> np.ndarray:
    """``[start, size | read-only << 63]`` per region, as ``sg_ok`` reads them."""
    out = np.zeros(2 * max(len(regions), 1), np.uint64)
    for i, r in enumerate(regions):
        out[2 * i] = r.start
        out[2 * i + 1] = np.uint64(r.size) | (_RO if r.read_only else np.uint64(0))
    return out


def _cupy() -> Any:
    import cupy

    return cupy


class Tables:
    """Device copies of region tables, by their regions (a relaunch reuses its own)."""

    def __init__(self) -> None:
        self.cache: dict[tuple[tuple[int, int, bool], ...], Any] = {}

    def device(self, regions: list[Region]) -> Any:
        """The device array of ``regions``' table (a launch keeps it while it uses it)."""
        key = tuple((r.start, r.size, r.read_only) for r in regions)
        dev = self.cache.get(key)
        if dev is None:
            if len(self.cache) > 64:
                self.cache.clear()
            dev = self.cache[key] = _cupy().asarray(table(regions))
        return dev


class FaultRecord:
    """The device record ``sg_fault`` writes, copied after a launch into pinned host memory
    and read after one synchronisation. A record read with no fault in it is still all
    zeros (no work-item wrote it), so it is cleared (an asynchronous memset) only before a
    launch that follows a fault, or a launch whose record was never read."""

    def __init__(self) -> None:
        self.dev: Any = None
        self.host: np.ndarray | None = None
        self.dirty = False  # the device record may hold a fault
        self.runtime: Any = None  # cupy.cuda.runtime
        self.ptrs = (0, 0)  # the device record's and the pinned host copy's addresses

    def address(self) -> int:
        """The device record's address (allocated on first use, zero)."""
        if self.dev is None:
            cp = _cupy()
            self.dev = cp.zeros(8, cp.uint64)
            pinned = cp.cuda.alloc_pinned_memory(_RECORD)
            self.host = np.frombuffer(pinned, np.uint64, 8)
            self.runtime = cp.cuda.runtime
            self.ptrs = (int(self.dev.data.ptr), int(self.host.ctypes.data))
        return self.ptrs[0]

    def arm(self, stream: int) -> None:
        """Clear the record for the next launch on ``stream`` where a fault may be in it."""
        if self.dirty:
            self.runtime.memsetAsync(self.ptrs[0], 0, _RECORD, stream)
        self.dirty = True

    def read(self, stream: int) -> np.ndarray | None:
        """The record after the launch on ``stream``, or None when no work-item faulted."""
        rt, host = self.runtime, self.host
        assert host is not None
        rt.memcpyAsync(self.ptrs[1], self.ptrs[0], _RECORD, rt.memcpyDeviceToHost, stream)
        rt.streamSynchronize(stream)
        if not host[0]:
            self.dirty = False
            return None
        return host.copy()


def _nearest(regions: list[Region], addr: int) -> Region | None:
    """The region an access at device address ``addr`` belongs to: the one holding it, else
    the nearer of the region it overran (ending below ``addr``) and the one it underran
    (starting above: ``out[i - 1]`` at ``i = 0`` is a negative offset), within ``_FAR``."""
    regions = [r for r in regions if r.size]  # not a null argument's empty one
    holding = [r for r in regions if r.start <= addr < r.start + r.size]
    if holding:
        return max(reversed(holding), key=lambda r: r.start)  # a buffer's last argument names it
    near = [r for r in regions if r.start + r.size <= addr < r.start + max(r.size, _FAR)
            or addr < r.start < addr + _FAR]
    if not near:
        return None
    # ties (a region passed twice) go to the last argument
    return min(reversed(near), key=lambda r: addr - r.start - r.size if r.start <= addr
               else r.start - addr)


def error(kernel: str, rec: np.ndarray, regions: list[Region], local_bytes: int,
          nd: NDRange, images: dict[int, tuple[str, Any]], budget: int
          ) -> KernelMemoryError | KernelTimeout | UnsupportedError:
    """The CPU engine's message (``memory_access.fail``, ``Batch.tick``, ``image_ops``) for
    fault record ``rec``; ``images``: each image argument's label and image by handle;
    ``budget``: the launch's step budget."""
    addr, info = int(rec[2]), int(rec[3])
    nbytes, what, why = info & 0xFFFFFFFF, faults.KINDS[(info >> 32) & 0xFF], (info >> 40) & 0xFF
    if why == faults.TIMEOUT:
        return faults.timeout_error(kernel, rec, nd, budget)
    if why == faults.UNREACHABLE:
        return faults.unreachable_error(kernel, faults.recorded_id(rec, nd))
    if why == faults.IMAGE_WRITE:
        return faults.image_write_error(kernel, rec, *images[addr], nd)
    reason = faults.WHY[why & 3]
    slot = info >> 48  # 1 + the region the access's own check tested (sg_ok_in), or 0
    if why & 4:
        off, name = addr, f"local allocation 'local' ({local_bytes} bytes)"
    elif slot and regions[slot - 1].size:
        r = regions[slot - 1]
        off, name = addr - r.start, f"{r.label} ({r.size} bytes)"
    else:
        r = _nearest(regions, addr)
        if r is not None:
            off, name = addr - r.start, f"{r.label} ({r.size} bytes)"
        else:
            reason, off = "invalid", addr
            name = "null pointer" if addr < 1 << 16 else "unknown memory"
    return KernelMemoryError(
        f"kernel '{kernel}': {reason} {what} of {nbytes} bytes at byte offset {off} of {name} "
        f"by work-item with global id {faults.recorded_id(rec, nd)}")
