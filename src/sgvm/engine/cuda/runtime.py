"""Compiling rendered modules with NVRTC (through CuPy), device memory, launching.

* Compiled modules are cached by a hash of the generated code; options
  ``-fmad=false`` (OpenCL forbids contraction unless the program allows it; clang
  already turns allowed contractions into ``fma``) and ``-std=c++17``.
* Device memory: ``mirrors.py``.
* A launch of a kernel already launched reuses what the first one prepared
  (``_Plan``: the compiled function, its globals' regions, the grid per NDRange,
  by-value arguments per value) and, for the same arguments, their packed parameters
  (``packed.py``), so its cost is bringing the buffers' device copies up to date and one
  ``cuLaunchKernel`` per uniform region. With the bounds checks on it ends with one copy
  of the fault record into pinned host memory and one stream synchronisation: a fault is
  reported by the launch that made it (docs/cuda.md, "Launch").
* Non-uniform NDRanges launch each remainder region separately, with its own
  block shape and its first work-group id (``SgCtx.gofs``), so every work-group
  is one CUDA block of exactly its size.
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import LogicError, UnsupportedError
from ...runtime import environment
from ...runtime.args import BufferArg, ImageArg, KernelArg, LocalArg, NullArg, SamplerArg, ValueArg
from ...runtime.memory import Allocation
from ...runtime.ndrange import NDRange
from ...spirv import Module
from ..clower import ctypes_ as C
from ..clower import printf as P
from ..common import limits
from ..common import types as T
from ..common.per_module import PerModule
from . import bounds
from . import packed as packing
from .images import Descriptors
from .mirrors import LOCK, MIRRORS, cupy
from .render import KernelInfo, Renderer

OPTIONS = ("-fmad=false", "-std=c++17")
_SOURCES: weakref.WeakKeyDictionary[Module, dict[tuple[int, bool], tuple[str, dict[str, KernelInfo]]]] = \
    weakref.WeakKeyDictionary()
_COMPILED: dict[str, Any] = {}


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


_LEAF_DTYPES = {"u8": np.dtype(np.uint8), "u16": np.dtype(np.uint16), "u32": np.dtype(np.uint32),
                "u64": np.dtype(np.uint64)}
_LEAVES: dict[tuple[bytes, Any], tuple[Any, ...]] = {}


def _value_leaves(data: bytes, t: Any, ctypes: list[str]) -> tuple[Any, ...]:
    """A by-value argument's leaves as the kernel's scalar parameters (remembered per value:
    hosts pass the same values launch after launch)."""
    hit = _LEAVES.get((data, t))
    if hit is not None:
        return hit
    size = T.size_of(t)
    if len(data) != size and not (t.op == "Vector" and t.count == 3 and len(data) == T.data_size(t)):
        raise LogicError(f"argument: {len(data)} bytes given, parameter takes {size}",
                         "CL_INVALID_ARG_SIZE")
    padded = data.ljust(size, b"\0")
    out = tuple(np.frombuffer(padded, _LEAF_DTYPES[ct], 1, off)[0]
                for off, ct in zip(C.leaf_offsets(t), ctypes, strict=True))
    if len(_LEAVES) >= 4096:
        _LEAVES.clear()
    _LEAVES[(data, t)] = out
    return out


class _Plan:
    """What every launch of one kernel (module, sub-group size, checks) shares: the compiled
    function, the program-scope globals' regions and strings, the grid per NDRange."""

    def __init__(self, module: Module, kernel: str, sub_group_size: int, checked: bool) -> None:
        source, kernels = source_for(module, sub_group_size, checked)
        self.info = info = kernels[kernel]
        self.mod = compiled(source)
        self.fn = self.mod.get_function(info.cuda_name)
        self.fptr = int(self.fn.kernel.ptr)  # the CUfunction cuLaunchKernel takes
        self.cacheable = not info.printf_sites  # printf: a record buffer per launch
        self.packed: dict[tuple[Any, NDRange, int, tuple[str, ...]], packing.Packed] = {}  # per arguments
        self.big_shared = 48 * 1024  # dynamic shared memory the function is set up for
        self.globals = [bounds.Region(int(self.mod.get_global(f"g{vid}").ptr), size, ro,
                                      f"{'constant' if ro else 'global'} allocation '{name}'")
                        for vid, size, ro, name in info.globals] if checked else []
        self.grids: dict[NDRange, list[tuple[Any, Any, tuple[Any, ...]]]] = {}
        # the last launch's packed parameters, by the identity of its argument objects
        # (``runtime.args``: frozen), NDRange, step budget and labels (the regions' names in
        # error messages); forgotten when one of those argument objects goes, so an id in it
        # always names the object it was taken from
        self.last: tuple[tuple[int, ...], NDRange, int, Sequence[str], packing.Packed, list[Any]] | None = None

    def reuse(self, args: Sequence[KernelArg], nd: NDRange, steps: int,
              labels: Sequence[str]) -> packing.Packed | None:
        """The last launch's packed parameters if ``args`` are its very argument objects."""
        last = self.last
        if last is not None and last[1] is nd and last[2] == steps and last[0] == tuple(map(id, args)) \
                and last[3] == labels:
            return last[4]
        return None

    def remember(self, args: Sequence[KernelArg], nd: NDRange, steps: int, labels: Sequence[str],
                 packed: packing.Packed) -> None:
        self.last = (tuple(map(id, args)), nd, steps, type(labels)(labels), packed,
                     [weakref.ref(a, self._forget) for a in args])

    def _forget(self, _: Any) -> None:
        self.last = None

    def grid(self, nd: NDRange) -> list[tuple[Any, Any, tuple[Any, ...]]]:
        """(group counts, block shape, the SgCtx arguments but the printf pointer) per
        uniform region of ``nd``."""
        hit = self.grids.get(nd)
        if hit is None:
            enq = nd.local_size
            geo = [*enq, *nd.global_offset, *nd.global_size,
                   *(-(-g // lsz) for g, lsz in zip(nd.global_size, enq, strict=True))]
            hit = [(counts, block, tuple(np.uint64(x) for x in (*first, *geo)) + (np.uint32(nd.work_dim),))
                   for first, counts, block in _regions(nd)]
            if len(self.grids) >= 64:
                self.grids.clear()
            self.grids[nd] = hit
        return hit


_PLANS: PerModule[_Plan] = PerModule()
_NULL = np.uint64(0)
_THREAD = threading.local()


def _plan(module: Module, kernel: str, sub_group_size: int, checked: bool) -> _Plan:
    per = _PLANS.of(module)
    key = (kernel, sub_group_size, checked)
    plan = per.get(key)
    if plan is None:
        plan = per[key] = _Plan(module, kernel, sub_group_size, checked)
    return plan


def launch_cuda(module: Module, kernel: str, args: Sequence[KernelArg], ndrange: NDRange,
                sub_group_size: int, result: Any, labels: Sequence[str],
                settings: environment.Settings | None = None, max_steps: int | None = None) -> Any:
    """Run ``kernel`` on the GPU; fills and returns ``result`` (a LaunchResult).
    ``labels``: how memory errors name each parameter (``program.arg_label``); ``settings``:
    the environment the launch reads (None: as it is now); ``max_steps``: the step budget
    (None: ``SGVM_MAX_STEPS`` of ``settings``). One launch at a time (``mirrors.LOCK``)."""
    env = settings or environment.current()
    with LOCK:
        return _launch(module, kernel, args, ndrange, sub_group_size, result, labels, env,
                       limits.max_steps(env) if max_steps is None else max_steps)


def _driver() -> tuple[Any, Any]:
    """``launchKernel`` and ``get_current_stream``, once per thread: cuLaunchKernel needs the
    device's context current in the calling thread, which a CUDA runtime call makes so (the
    idiom cudaFree(0))."""
    cp = cupy()
    cp.cuda.runtime.free(0)
    _THREAD.driver = driver = (cp.cuda.driver.launchKernel, cp.cuda.get_current_stream)
    return driver


def _launch(module: Module, kernel: str, args: Sequence[KernelArg], ndrange: NDRange,
            sub_group_size: int, result: Any, labels: Sequence[str], env: environment.Settings,
            budget: int) -> Any:
    t0 = time.perf_counter()
    checked = bounds.enabled(env)
    plan = _plan(module, kernel, sub_group_size, checked)
    steps = budget if checked else 0
    packed = plan.reuse(args, ndrange, steps, labels)
    written = packed.current() if packed is not None else None
    records = None
    if written is None:
        sig = packing.signature(args) if plan.cacheable else None
        key = (sig, ndrange, steps, tuple(labels))
        packed = plan.packed.get(key) if sig is not None else None
        written = packed.current() if packed is not None else None
        if written is None:
            packed, records = _pack(plan, kernel, args, labels, ndrange, checked, steps)
            written = packed.current()
            assert written is not None
            if sig is not None and records is None and packed.cacheable:
                if len(plan.packed) >= 16:
                    plan.packed.clear()
                plan.packed[key] = packed
        if sig is not None and records is None and packed.cacheable:
            plan.remember(args, ndrange, steps, labels, packed)
    dyn = packed.dyn
    if dyn > plan.big_shared:
        plan.fn.max_dynamic_shared_size_bytes = plan.big_shared = dyn
    launch, current_stream = getattr(_THREAD, "driver", None) or _driver()
    stream = current_stream().ptr
    if checked:
        FAULTS.arm(stream)
    fptr = plan.fptr
    for gx, gy, gz, bx, by, bz, params in packed.launches:
        launch(fptr, gx, gy, gz, bx, by, bz, dyn, stream, params, 0)
    MIRRORS.written(written)
    fault = FAULTS.read(stream) if checked else None
    if fault is not None:
        raise bounds.error(kernel, fault, packed.regions, dyn, ndrange, packed.images, budget)
    if records is not None:
        info = plan.info
        strings = {int(plan.mod.get_global(f"g{vid}").ptr): data for vid, data in info.strings.items()}
        result.printf = P.format_records(records.get(), info.printf_sites, strings)
    result.batches = 1
    result.seconds = time.perf_counter() - t0
    return result


def _pack(plan: _Plan, kernel: str, args: Sequence[KernelArg], labels: Sequence[str],
          ndrange: NDRange, checked: bool, steps: int) -> tuple[packing.Packed, Any]:
    """The launch's parameters (``packed.Packed``), and its printf record buffer or None."""
    info = plan.info
    params: list[Any] = []
    keep: list[Any] = []
    written: list[Allocation] = []
    regions: list[bounds.Region] = []
    images: dict[int, tuple[str, Any]] = {}
    cacheable = True
    dyn = info.local_bytes
    for (kind, ctypes, t), arg, label in zip(info.params, args, labels, strict=True):
        if isinstance(arg, BufferArg) and kind != "local":
            a = arg.allocation
            dev = MIRRORS.device(a)
            written.append(a)
            ptr = dev.data.ptr
            params.append(np.uint64(ptr + arg.offset))
            if checked:
                regions.append(bounds.Region(ptr, a.size, a.read_only,
                                             f"{label} (buffer '{a.name}')" if a.name else label))
        elif isinstance(arg, ValueArg) and kind == "value":
            params += _value_leaves(bytes(arg.data), t, ctypes)
        elif kind == "local":
            if not isinstance(arg, LocalArg):
                raise LogicError("a __local parameter needs a LocalArg", "CL_INVALID_ARG_VALUE")
            dyn = -(-dyn // 16) * 16
            params.append(np.uint64(dyn))
            dyn += arg.nbytes
        elif isinstance(arg, NullArg):
            params.append(_NULL)
            if checked:  # keeps each buffer parameter's region at its index (render.regions_of)
                regions.append(bounds.Region(0, 0, False, label))
        elif isinstance(arg, ImageArg):
            dev = MIRRORS.device(arg.image.data)
            written.append(arg.image.data)
            handle = DESCRIPTORS.handle(arg.image, dev.data.ptr, cupy())
            images[handle] = (label, arg.image)
            params.append(np.uint64(handle))
        elif isinstance(arg, SamplerArg):
            params.append(np.uint64(arg.sampler.literal))
        elif isinstance(arg, ValueArg) and kind == "byval":
            # the kernel may change its private copy: a fresh one per launch, never cached
            cacheable = False
            dev = cupy().asarray(np.frombuffer(bytes(arg.data), np.uint8))
            keep.append(dev)
            params.append(np.uint64(dev.data.ptr))
            regions.append(bounds.Region(dev.data.ptr, dev.size, True,
                                         f"private allocation '{label}'"))
        else:
            raise UnsupportedError(f"CUDA backend: argument kind {type(arg).__name__}")
    dyn = -(-dyn // 16) * 16
    if dyn > 64 * 1024:
        raise LogicError(f"kernel '{kernel}' needs {dyn} bytes of local memory, the device has "
                         "65536", "CL_OUT_OF_RESOURCES")
    records = cupy().asarray(P.buffer()) if info.printf_sites else None
    pf = np.uint64(records.data.ptr) if records is not None else _NULL
    if checked:
        regions += plan.globals
        table = TABLES.device(regions)
        keep.append(table)
        checks = (np.uint64(table.data.ptr), np.uint32(len(regions)), np.uint32(dyn),
                  np.uint64(FAULTS.address()),
                  np.uint64(steps))
    else:
        checks = (_NULL, np.uint32(0), np.uint32(dyn), _NULL, _NULL)
    if records is not None:
        keep.append(records)
    packed = packing.Packed(plan.grid(ndrange), (pf, *checks, *params), dyn, regions, written,
                            keep, cacheable)
    packed.images = images
    return packed, records
