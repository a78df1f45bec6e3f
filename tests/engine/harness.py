"""Helpers for engine tests: compile once per option set, run with NumPy arrays."""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np

import sgvm
from sgvm.engine.native import backend as native_backend
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg, LocalArg, ValueArg
from sgvm.runtime.device import CPU_DEVICE, CUDA_DEVICE
from sgvm.runtime.launch import LaunchResult, launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import Module, read

# SGVM_TEST_DEVICE=cuda runs these kernels on the CUDA backend (tests/cuda, docs/cuda.md).
DEVICE = CUDA_DEVICE if os.environ.get("SGVM_TEST_DEVICE", "").lower() == "cuda" else CPU_DEVICE


def on_cuda() -> bool:
    """Whether this test's launches run on the CUDA backend, whose step budget counts loop
    back-edges per work-item (docs/cuda.md, "Runaway kernels") where the CPU backends count
    block executions per work-group, and whose fault record keeps the lowest faulting
    work-item of the launch, as the native backend's own record does."""
    return DEVICE is CUDA_DEVICE
# Called after every launch with (module, kernel, args, outs, their bytes before it, ndrange,
# options, variant): tests/oracle runs each launch on a second implementation and compares.
LAUNCH_HOOKS: list = []

O2 = "-cl-std=CL2.0"
O0 = "-cl-std=CL2.0 -cl-opt-disable"
OPTS = [O2, O0]


@dataclass
class Local:
    nbytes: int


@functools.cache
def benchmark_cases() -> ModuleType:
    """``benchmarks/cases.py``: the kernel sources the benchmarks time, tested here too."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "cases.py"
    spec = importlib.util.spec_from_file_location("benchmark_cases", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@functools.cache
def build(source: str, options: str) -> Module:
    return read(sgvm.compile(source, options))


def run(module: Module, kernel: str, args: list, global_size, local_size=None, offset=None,
        variant=None, device=None) -> tuple[list, LaunchResult]:
    """Launch with NumPy arrays as buffers (copied back), NumPy scalars/bytes as values;
    ``variant``: a ``runtime.variant.Variant`` (None: the defaults)."""
    kargs, outs = [], []
    for a in args:
        if isinstance(a, np.ndarray):
            alloc = Allocation(np.ascontiguousarray(a).view(np.uint8).reshape(-1).copy(), "global",
                               "")
            kargs.append(BufferArg(alloc))
            outs.append((alloc, a.dtype, a.shape))
        elif isinstance(a, Local):
            kargs.append(LocalArg(a.nbytes))
        elif isinstance(a, bytes):
            kargs.append(ValueArg(a))
        else:
            kargs.append(ValueArg(np.asarray(a).tobytes()))
    gs = global_size if isinstance(global_size, tuple) else (global_size,)
    ls = local_size if local_size is None or isinstance(local_size, tuple) else (local_size,)
    ndrange = NDRange(gs, ls or (1,) * len(gs), offset)
    initial = [al.data.copy() for al, _, _ in outs] if LAUNCH_HOOKS else []
    res = launch(module, kernel, kargs, ndrange, device=device or DEVICE, variant=variant)
    for al, _, _ in outs:
        residency.host_access(al)
    for hook in LAUNCH_HOOKS:
        hook(module, kernel, kargs, outs, initial, ndrange, None, variant)
    return [al.data.view(dt).reshape(shape) for al, dt, shape in outs], res


class NativeRuns:
    """How many times the native libraries of ``module`` ran one fast path during the
    ``with`` block (``count``): the counter each keeps in ``symbol`` (``sg_merged_runs``,
    ``sg_joined_runs`` …), summed over the module's builds; 0 on another backend."""

    def __init__(self, backend: str | None, module: Module, symbol: str) -> None:
        self.native, self.module, self.symbol = backend == "native", module, symbol
        self.count = 0

    def _total(self) -> int:
        builds = native_backend._SOURCES.get(self.module, {}).values()
        return sum(ctypes.c_uint64.in_dll(b[0], self.symbol).value for b in builds
                   if not isinstance(b, Exception))

    def __enter__(self) -> NativeRuns:
        self.start = self._total() if self.native else 0
        return self

    def __exit__(self, *exc: object) -> None:
        self.count = self._total() - self.start if self.native else 0
