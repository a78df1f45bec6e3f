"""Shared helpers: build many kernels in one clang run, launch with NumPy arrays, and
the work-item → sub-group mapping the specifications and DESIGN.md prescribe
(linear local id ``x + y*Lx + z*Lx*Ly``, sub-group ``linear // S``, the last one
partial), computed here independently of the engine."""

from __future__ import annotations

import functools
import itertools
import os
from collections.abc import Sequence

import numpy as np

import sgvm
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg, ImageArg, KernelArg, LocalArg, ValueArg
from sgvm.runtime.device import CPU_DEVICE, CUDA_DEVICE
from sgvm.runtime.launch import LaunchResult, launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import Module, read

# SGVM_TEST_DEVICE=cuda runs these kernels on the CUDA backend (tests/cuda, docs/cuda.md).
DEVICE = CUDA_DEVICE if os.environ.get("SGVM_TEST_DEVICE", "").lower() == "cuda" else CPU_DEVICE
# Called after every launch with (module, kernel, args, outs, their bytes before it, ndrange,
# options, variant): tests/oracle runs each launch on a second implementation and compares.
LAUNCH_HOOKS: list = []

SIZES = (8, 16, 32)
OPTIONS = "-cl-std=CL2.0"
# (global size, local size): 1D full, 1D with a partial last sub-group, a 1D non-uniform
# remainder work-group, 2D and 3D work-groups whose last sub-group is partial.
SHAPES = {
    "1d": ((64,), (32,)),
    "1d-partial": ((60,), (20,)),
    "1d-nonuniform": ((70,), (24,)),
    "2d": ((12, 6), (6, 3)),
    "3d": ((6, 4, 6), (3, 2, 3)),
}

PREAMBLE = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
GID = ("(get_global_id(0) + get_global_size(0) * (get_global_id(1) + get_global_size(1) * "
       "get_global_id(2)))")


@functools.cache
def build(source: str, options: str = OPTIONS) -> Module:
    """One program (usually many kernels) per clang invocation, cached per session."""
    return read(sgvm.compile(PREAMBLE + source, options))


def run(module: Module, kernel: str, args: Sequence, global_size: Sequence[int],
        local_size: Sequence[int], *, options=None, observers=()) -> tuple[list, LaunchResult]:
    """Launch with NumPy arrays as buffers (their final contents returned, in order)."""
    kargs: list[KernelArg] = []
    outs = []
    for a in args:
        if isinstance(a, np.ndarray):
            alloc = Allocation(np.ascontiguousarray(a).view(np.uint8).reshape(-1).copy(), "global", "")
            kargs.append(BufferArg(alloc))
            outs.append((alloc, a.dtype, a.shape))
        elif isinstance(a, KernelArg):
            kargs.append(a)
        elif hasattr(a, "element_size"):  # an Image
            kargs.append(ImageArg(a))
        else:
            kargs.append(ValueArg(np.asarray(a).tobytes()))
    ndrange = NDRange(tuple(global_size), tuple(local_size))
    initial = [al.data.copy() for al, _, _ in outs] if LAUNCH_HOOKS else []
    res = launch(module, kernel, kargs, ndrange, options=options, observers=observers,
                 device=DEVICE)
    for al, _, _ in outs:
        residency.host_access(al)
    for hook in LAUNCH_HOOKS:
        hook(module, kernel, kargs, outs, initial, ndrange, options, None)
    return [al.data.view(dt).reshape(shape) for al, dt, shape in outs], res


def assert_native(module: Module, kernel: str) -> None:
    """On the native device, fail when ``kernel`` ran on the NumPy engine instead (the
    backend's record of the kernels it handed over); nothing on other devices."""
    if DEVICE.engine != "native":
        return
    from sgvm.engine.native.backend import fallback_reason

    why = fallback_reason(module, kernel)
    assert why is None, f"kernel '{kernel}' ran on the NumPy engine: {why}"


def local(nbytes: int) -> LocalArg:
    return LocalArg(nbytes)


def work_groups(global_size: Sequence[int], local_size: Sequence[int]) -> list[np.ndarray]:
    """Per work-group, the global linear ids of its work-items in linear local id order."""
    gs = tuple(global_size) + (1,) * (3 - len(global_size))
    ls = tuple(local_size) + (1,) * (3 - len(local_size))
    groups = []
    counts = [-(-g // lsz) for g, lsz in zip(gs, ls, strict=True)]
    for gz, gy, gx in itertools.product(*(range(c) for c in reversed(counts))):
        start = (gx * ls[0], gy * ls[1], gz * ls[2])
        size = [min(lsz, g - s) for lsz, g, s in zip(ls, gs, start, strict=True)]
        ids = []
        for z in range(size[2]):  # linear local id x + y*Lx + z*Lx*Ly (actual sizes)
            for y in range(size[1]):
                for x in range(size[0]):
                    X, Y, Z = start[0] + x, start[1] + y, start[2] + z
                    ids.append(X + gs[0] * (Y + gs[1] * Z))
        groups.append(np.array(ids, dtype=np.int64))
    return groups


def sub_groups(global_size: Sequence[int], local_size: Sequence[int], S: int) -> list[np.ndarray]:
    """Per sub-group, the global linear ids of its work-items in sub-group local id order."""
    return [wg[i:i + S] for wg in work_groups(global_size, local_size) for i in range(0, len(wg), S)]


def total(global_size: Sequence[int]) -> int:
    return int(np.prod(global_size))
