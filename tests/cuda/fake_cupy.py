"""A stand-in for CuPy whose "device" memory is host memory, so that the CUDA backend's host
side (packing, device mirrors, the fault record, relaunches) runs and is checked without a GPU.

A kernel is a Python function registered under the CUDA name the renderer gives it
(``sgvm_k<i>``, the module's i-th entry point); ``launchKernel`` calls it with a
:class:`Launch`, which reads the parameters through the pointer array exactly as
``cuLaunchKernel`` is handed them ("Each of kernelParams[0] through kernelParams[N-1] must
point to a region of memory from which the actual kernel parameter will be copied", CUDA
Driver API). The layout is the renderer's: 15 ``u64`` of geometry (first group, enqueued
local size, global offset, global size, group counts), the dimension count, the printf
record, the region table and its length, the dynamic shared bytes, the fault record, the
step budget (``SgCtx`` in ``prelude.cuh``), then the kernel's own arguments.
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import sys
import threading
import types
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

FIRST_ARGUMENT = 22  # index of the kernel's first own parameter
_REGIONS, _REGION_COUNT, _FAULT, _STEPS = 17, 18, 20, 21


def nothing(*args: Any) -> None:
    """A CUDA call that does nothing (timing the host side alone)."""


class _Pointer:
    def __init__(self, ptr: int) -> None:
        self.ptr = ptr


class DeviceArray:
    """A "device" array: a NumPy array whose address stands for the device address."""

    def __init__(self, host: np.ndarray) -> None:
        self.host = host
        self.data = _Pointer(host.ctypes.data)
        self.size = host.size
        self.dtype = host.dtype

    def __getitem__(self, index: Any) -> DeviceArray:
        return DeviceArray(self.host[index])

    def set(self, array: np.ndarray) -> None:
        self.host[...] = np.asarray(array).reshape(self.host.shape)

    def get(self, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            return self.host.copy()
        out[...] = self.host
        return out


def _read(ptr: int, ctype: Any) -> Any:
    return ctype.from_address(ptr).value


class Launch:
    """One ``launchKernel`` call as the kernel sees it."""

    def __init__(self, params: int, grid: tuple[int, int, int], block: tuple[int, int, int],
                 count: int, memory: list[np.ndarray]) -> None:
        self.grid, self.block, self.memory = grid, block, memory
        self.pointers = (ctypes.c_uint64 * count).from_address(params)

    def u64(self, i: int) -> int:
        return _read(self.pointers[i], ctypes.c_uint64)

    def u32(self, i: int) -> int:
        return _read(self.pointers[i], ctypes.c_uint32)

    def f32(self, i: int) -> float:
        return _read(self.pointers[i], ctypes.c_float)

    def i32(self, i: int) -> int:
        return _read(self.pointers[i], ctypes.c_int32)

    @property
    def steps(self) -> int:
        return self.u64(_STEPS)

    def global_ids(self) -> np.ndarray:
        """The 1-D global ids this launch (one uniform region) runs, ascending."""
        first, enq, offset = self.u64(0), self.u64(3), self.u64(6)
        groups = first + np.arange(self.grid[0], dtype=np.int64)
        return (groups[:, None] * enq + np.arange(self.block[0])[None, :] + offset).ravel()

    def regions(self) -> list[tuple[int, int, bool]]:
        """(start, size, read-only) of each region the checks allow (none when unchecked)."""
        table, count = self.u64(_REGIONS), self.u32(_REGION_COUNT)
        raw = [_read(table + 8 * i, ctypes.c_uint64) for i in range(2 * count)]
        return [(raw[2 * i], raw[2 * i + 1] & (2**63 - 1), bool(raw[2 * i + 1] >> 63)) for i in range(count)]

    def store_i32(self, gid: int, addr: int, value: int) -> None:
        """A checked 4-byte store as ``sg_ok`` does it: outside every region it is skipped and
        recorded for the lowest faulting work-item. Unchecked, a store lands if it is inside
        memory the fake handed out (a device copy's spare bytes included), as it would on a
        GPU, and is dropped otherwise (the fake's device memory is this process's memory)."""
        fault = self.u64(_FAULT)
        if not fault:  # unchecked: the store lands wherever memory is, as on a GPU
            if any(a.ctypes.data <= addr and addr + 4 <= a.ctypes.data + a.nbytes for a in self.memory):
                ctypes.c_int32.from_address(addr).value = value
            return
        if any(lo <= addr and addr + 4 <= lo + size and not ro for lo, size, ro in self.regions()):
            ctypes.c_int32.from_address(addr).value = value
        else:
            key = ~gid & (2**64 - 1)
            if key > _read(fault, ctypes.c_uint64):
                ctypes.c_uint64.from_address(fault).value = key
                ctypes.c_uint64.from_address(fault + 16).value = addr
                ctypes.c_uint64.from_address(fault + 24).value = 4 | 1 << 32 | 3 << 40


class Fake(types.ModuleType):
    """The ``cupy`` module stand-in; ``kernels``: CUDA name → Python kernel; ``calls``: how
    often each CUDA runtime or driver call was made."""

    uint64 = np.uint64

    def __init__(self) -> None:
        super().__init__("cupy")
        self.__spec__ = importlib.machinery.ModuleSpec("cupy", None)  # (find_spec reads it)
        self.kernels: dict[str, Callable[[Launch], None]] = {}
        self.calls: dict[str, int] = {}
        self._functions: dict[int, tuple[str, int]] = {}
        self._keep: list[Any] = []
        self._memory: list[weakref.ref[np.ndarray]] = []  # every allocation made, weakly
        fake = self

        class _Function:
            def __init__(self, name: str, code: str) -> None:
                self.name = name
                self.kernel = _Pointer(id(self))
                self.max_dynamic_shared_size_bytes = 48 * 1024
                count = code.split(f" {name}(", 1)[1].split(")", 1)[0].count(",") + 1
                fake._functions[id(self)] = (name, count)
                fake._keep.append(self)

        class RawModule:
            def __init__(self, code: str, options: tuple[str, ...] = ()) -> None:
                self.code = code
                self.globals: dict[str, DeviceArray] = {}

            def get_function(self, name: str) -> _Function:
                return _Function(name, self.code)

            def get_global(self, name: str) -> _Pointer:
                if name not in self.globals:
                    self.globals[name] = DeviceArray(np.zeros(256, np.uint8))
                return self.globals[name].data

        def count(name: str) -> None:
            self.calls[name] = self.calls.get(name, 0) + 1

        def memset(ptr: int, value: int, size: int, stream: int) -> None:
            count("memsetAsync")
            ctypes.memset(ptr, value, size)

        def memcpy(dst: int, src: int, size: int, kind: int, stream: int) -> None:
            count("memcpyAsync")
            ctypes.memmove(dst, src, size)

        def launch_kernel(f: int, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, shared: int,
                          stream: int, params: int, extra: int) -> None:
            count("launchKernel")
            name, n = self._functions[f]
            memory = [a for a in (r() for r in self._memory) if a is not None]
            self.kernels[name](Launch(params, (gx, gy, gz), (bx, by, bz), n, memory))

        stream = types.SimpleNamespace(ptr=0)
        self.RawModule = RawModule
        self.cuda = types.SimpleNamespace(
            runtime=types.SimpleNamespace(free=lambda ptr: count("free"), memsetAsync=memset,
                                          memcpyAsync=memcpy, memcpyDeviceToHost=2,
                                          streamSynchronize=lambda s: count("streamSynchronize"),
                                          getDeviceCount=lambda: 1),
            driver=types.SimpleNamespace(launchKernel=launch_kernel),
            get_current_stream=lambda: stream,
            alloc_pinned_memory=lambda size: bytearray(size),
        )

    def _allocate(self, host: np.ndarray) -> DeviceArray:
        self._memory.append(weakref.ref(host))
        return DeviceArray(host)

    def empty(self, n: int, dtype: Any) -> DeviceArray:
        return self._allocate(np.empty(n, dtype))

    def zeros(self, n: int, dtype: Any = np.float64) -> DeviceArray:
        return self._allocate(np.zeros(n, dtype))

    def asarray(self, array: np.ndarray) -> DeviceArray:
        return self._allocate(np.array(array))


def install(monkeypatch: Any) -> Fake:
    """Make the CUDA backend run on a fresh :class:`Fake` for one test: ``cupy`` imports
    it, and every cache of the backend that holds device state starts empty."""
    from sgvm.engine.cuda import bounds, mirrors, packed, runtime
    from sgvm.runtime import residency

    fake = Fake()
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(mirrors, "_CUPY", [])
    fresh = mirrors.Mirrors()
    for module in (mirrors, runtime, packed):
        monkeypatch.setattr(module, "MIRRORS", fresh)
    monkeypatch.setattr(residency, "_BACKENDS", [fresh])
    monkeypatch.setattr(runtime, "FAULTS", bounds.FaultRecord())
    monkeypatch.setattr(runtime, "TABLES", bounds.Tables())
    monkeypatch.setattr(runtime, "DESCRIPTORS", type(runtime.DESCRIPTORS)())
    monkeypatch.setattr(runtime, "_COMPILED", {})
    monkeypatch.setattr(runtime, "_PLANS", type(runtime._PLANS)())  # noqa: SLF001
    monkeypatch.setattr(runtime, "_THREAD", threading.local())
    return fake
