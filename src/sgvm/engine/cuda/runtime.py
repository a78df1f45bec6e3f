"""Compiling rendered modules with NVRTC (through CuPy), device memory, launching.

* Compiled modules are cached by a hash of the generated code; options
  ``-fmad=false`` (OpenCL forbids contraction unless the program allows it; clang
  already turns allowed contractions into ``fma``) and ``-std=c++17``.
* Device memory: every Allocation a kernel receives gets a device mirror, created
  on first use and kept (``_Mirrors``); it is re-uploaded only when the host may
  have changed the bytes and downloaded only when the host asks for them
  (``runtime.residency.host_access``, called by the host API). Allocations whose
  bytes overlap (sub-buffers) are kept coherent through the host copy.
* Non-uniform NDRanges launch each remainder region separately, with its own
  block shape and its first work-group id (``SgCtx.gofs``), so every work-group
  is one CUDA block of exactly its size.
"""

from __future__ import annotations

import hashlib
import itertools
import time
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import LogicError, UnsupportedError
from ...runtime import residency
from ...runtime.args import BufferArg, ImageArg, KernelArg, LocalArg, NullArg, SamplerArg, ValueArg
from ...runtime.memory import Allocation
from ...runtime.ndrange import NDRange
from ...spirv import Module
from ..clower import ctypes_ as C
from ..common import limits
from ..common import types as T
from . import bounds
from . import printf as P
from .images import Descriptors
from .render import KernelInfo, Renderer

OPTIONS = ("-fmad=false", "-std=c++17")
GUARD = 256
_SOURCES: weakref.WeakKeyDictionary[Module, dict[tuple[int, bool], tuple[str, dict[str, KernelInfo]]]] = \
    weakref.WeakKeyDictionary()
_COMPILED: dict[str, Any] = {}


def cupy() -> Any:
    import cupy as cp

    return cp


def available() -> bool:
    """CuPy imports and sees at least one GPU."""
    try:
        return cupy().cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device: all mean "not here"
        return False


def source_for(module: Module, sub_group_size: int, checked: bool = False,
               ) -> tuple[str, dict[str, KernelInfo]]:
    """The CUDA C of ``module`` for sub-group size S, with bounds checks if ``checked``
    (cached per module, S and checks)."""
    per = _SOURCES.setdefault(module, {})
    key = (sub_group_size, checked)
    if key not in per:
        per[key] = Renderer(module, sub_group_size, checked).render()
    return per[key]


def compiled(source: str) -> Any:
    """The ``cupy.RawModule`` of ``source``, cached by the SHA-256 of the code."""
    key = hashlib.sha256(source.encode()).hexdigest()
    mod = _COMPILED.get(key)
    if mod is None:
        mod = _COMPILED[key] = cupy().RawModule(code=source, options=OPTIONS)
    return mod


class _Mirror:
    __slots__ = ("dev", "host_stale", "dev_stale")

    def __init__(self, dev: Any):
        self.dev = dev
        self.host_stale = False  # the device copy is newer
        self.dev_stale = False  # the host copy is newer


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


class _Mirrors:
    """Device copies of allocations (see the module docstring)."""

    def __init__(self) -> None:
        self.by_alloc: weakref.WeakKeyDictionary[Allocation, _Mirror] = weakref.WeakKeyDictionary()

    def _overlapping(self, alloc: Allocation) -> list[tuple[Allocation, _Mirror]]:
        lo, hi = _span(alloc)
        out = []
        for a, m in list(self.by_alloc.items()):
            alo, ahi = _span(a)
            if alo < hi and lo < ahi:
                out.append((a, m))
        return out

    def host_access(self, alloc: Allocation) -> None:
        for a, m in self._overlapping(alloc):
            if m.host_stale:
                m.dev.get(out=a.data)
                m.host_stale = False
            m.dev_stale = True

    def device(self, alloc: Allocation) -> Any:
        """The up-to-date device array of ``alloc``."""
        for a, m in self._overlapping(alloc):
            if a is not alloc and m.host_stale:
                m.dev.get(out=a.data)
                m.host_stale = False
        m = self.by_alloc.get(alloc)
        if m is None:
            m = self.by_alloc[alloc] = _Mirror(_device_copy(alloc.data))
        elif m.dev_stale:
            m.dev.set(alloc.data)
            m.dev_stale = False
        return m.dev

    def written(self, alloc: Allocation) -> None:
        """A kernel may have written ``alloc`` on the device."""
        for a, m in self._overlapping(alloc):
            if a is alloc:
                m.host_stale = True
            else:
                m.dev_stale = True


MIRRORS = _Mirrors()
residency.register(MIRRORS)
DESCRIPTORS = Descriptors()
TABLES = bounds.Tables()
FAULTS = bounds.FaultRecord()


def _regions(nd: NDRange) -> list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """(first group, group counts, block shape) of each uniform region of ``nd``."""
    per_dim = []
    for g, lsz in zip(nd.global_size, nd.local_size, strict=True):
        full, rem = divmod(g, lsz)
        opts = [(0, full, lsz)] if full else []
        if rem:
            opts.append((full, 1, rem))
        per_dim.append(opts)
    return [tuple(zip(*combo, strict=True)) for combo in itertools.product(*per_dim)]  # type: ignore[misc]


def _value_leaves(arg: ValueArg, t: Any, ctypes: list[str]) -> list[Any]:
    data = bytes(arg.data)
    size = T.size_of(t)
    if len(data) != size and not (t.op == "Vector" and t.count == 3 and len(data) == T.data_size(t)):
        raise LogicError(f"argument: {len(data)} bytes given, parameter takes {size}",
                         "CL_INVALID_ARG_SIZE")
    data = data.ljust(size, b"\0")
    out = []
    for off, ct in zip(C.leaf_offsets(t), ctypes, strict=True):
        dt = np.dtype({"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}[ct])
        out.append(np.frombuffer(data, dt, 1, off)[0])
    return out


def launch_cuda(module: Module, kernel: str, args: Sequence[KernelArg], ndrange: NDRange,
                sub_group_size: int, result: Any, labels: Sequence[str]) -> Any:
    """Run ``kernel`` on the GPU; fills and returns ``result`` (a LaunchResult).
    ``labels``: how memory errors name each parameter (``program.arg_label``)."""
    cp = cupy()
    t0 = time.perf_counter()
    checked = bounds.enabled()
    source, kernels = source_for(module, sub_group_size, checked)
    info = kernels[kernel]
    mod = compiled(source)
    fn = mod.get_function(info.cuda_name)
    params: list[Any] = []
    keep: list[Any] = []
    written: list[Allocation] = []
    regions: list[bounds.Region] = []
    dyn = info.local_bytes
    for (kind, ctypes, t), arg, label in zip(info.params, args, labels, strict=True):
        if kind == "local":
            if not isinstance(arg, LocalArg):
                raise LogicError("a __local parameter needs a LocalArg", "CL_INVALID_ARG_VALUE")
            dyn = -(-dyn // 16) * 16
            params.append(np.uint64(dyn))
            dyn += arg.nbytes
        elif isinstance(arg, NullArg):
            params.append(np.uint64(0))
        elif isinstance(arg, BufferArg):
            a = arg.allocation
            dev = MIRRORS.device(a)
            written.append(a)
            params.append(np.uint64(dev.data.ptr + arg.offset))
            regions.append(bounds.Region(dev.data.ptr, a.size, a.read_only,
                                         f"{label} (buffer '{a.name}')" if a.name else label))
        elif isinstance(arg, ImageArg):
            dev = MIRRORS.device(arg.image.data)
            written.append(arg.image.data)
            params.append(np.uint64(DESCRIPTORS.handle(arg.image, dev.data.ptr, cp)))
        elif isinstance(arg, SamplerArg):
            params.append(np.uint64(arg.sampler.literal))
        elif isinstance(arg, ValueArg) and kind == "byval":
            dev = cp.asarray(np.frombuffer(bytes(arg.data), np.uint8))
            keep.append(dev)
            params.append(np.uint64(dev.data.ptr))
            regions.append(bounds.Region(dev.data.ptr, dev.size, True,
                                         f"private allocation '{label}'"))
        elif isinstance(arg, ValueArg):
            params += _value_leaves(arg, t, ctypes)
        else:
            raise UnsupportedError(f"CUDA backend: argument kind {type(arg).__name__}")
    dyn = -(-dyn // 16) * 16
    if dyn > 64 * 1024:
        raise LogicError(f"kernel '{kernel}' needs {dyn} bytes of local memory, the device has "
                         "65536", "CL_OUT_OF_RESOURCES")
    if dyn > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = dyn
    enq = ndrange.local_size
    geo = [*enq, *ndrange.global_offset, *ndrange.global_size,
           *(-(-g // lsz) for g, lsz in zip(ndrange.global_size, enq, strict=True))]
    records = P.buffer(cp) if info.printf_sites else None
    pf = np.uint64(records.data.ptr if records is not None else 0)
    checks = [np.uint64(0), np.uint32(0), np.uint32(dyn), np.uint64(0), np.uint64(0)]
    if checked:
        regions += [bounds.Region(int(mod.get_global(f"g{vid}").ptr), size, ro,
                                  f"{'constant' if ro else 'global'} allocation '{name}'")
                    for vid, size, ro, name in info.globals]
        rng = TABLES.device(cp, regions)
        checks = [np.uint64(rng.data.ptr), np.uint32(len(regions)), np.uint32(dyn),
                  np.uint64(FAULTS.arm(cp)), np.uint64(limits.max_steps())]
    for first, counts, block in _regions(ndrange):
        ctx = [np.uint64(x) for x in (*first, *geo)] + [np.uint32(ndrange.work_dim), pf]
        fn(counts, block, tuple(ctx + checks + params), shared_mem=dyn)
    for a in written:
        MIRRORS.written(a)
    del keep
    fault = FAULTS.read() if checked else None
    if fault is not None:
        raise bounds.error(kernel, fault, regions, dyn, ndrange)
    if records is not None:
        strings = {int(mod.get_global(f"g{vid}").ptr): data for vid, data in info.strings.items()}
        result.printf = P.format_records(records.get(), info.printf_sites, strings)
    result.batches = 1
    result.seconds = time.perf_counter() - t0
    return result
