"""Build an OpenCL C source once and launch it over 1-D work-groups on a device, with
buffers of 32-bit words (the GPU regression tests of tests/cuda compare such launches on
the CPU and CUDA devices)."""

from __future__ import annotations

import functools

import numpy as np

import sgvm
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import Module, read


@functools.cache
def build(source: str) -> Module:
    return read(sgvm.compile(source, "-cl-std=CL2.0"))


def run_words(source: str, kernel: str, arrays: list[np.ndarray], groups: int, local: int,
              device) -> list[np.ndarray]:
    """Copies of ``arrays`` as the kernel leaves them, viewed as uint32."""
    allocs = [Allocation(a.view(np.uint8).reshape(-1).copy(), "global", f"a{i}")
              for i, a in enumerate(arrays)]
    launch(build(source), kernel, [BufferArg(a) for a in allocs],
           NDRange((groups * local,), (local,)), device=device)
    for a in allocs:
        residency.host_access(a)
    return [a.data.view(np.uint32).copy() for a in allocs]
