"""A module launched on the CPU device is freed once the program drops it.

The NumPy engine kept each module's decoded programs in a table keyed weakly by the module,
but a decoded program refers to its module, so no launched module was ever freed: a host
that builds programs in a loop grew without bound. The engine's other caches (idle
batches, launch schedules) hold the last few dozen launches only.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np

import sgvm
from sgvm.runtime.args import BufferArg
from sgvm.runtime.device import CPU_DEVICE
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import read

SOURCE = "kernel void triple(global uint *o) { o[get_global_id(0)] = get_global_id(0) * 3u; }"
MODULES = 150
RECENT = 80  # the bounded caches keep fewer launches than this (16 idle batches, 64 schedules)


def test_launched_modules_are_freed() -> None:
    spirv = sgvm.compile(SOURCE, "-cl-std=CL2.0")
    refs = []
    for _ in range(MODULES):
        module = read(spirv)
        out = Allocation(np.zeros(64 * 4, np.uint8), "global", "o")
        launch(module, "triple", [BufferArg(out)], NDRange((64,), (16,)), device=CPU_DEVICE)
        np.testing.assert_array_equal(out.data.view(np.uint32), np.arange(64) * 3)
        refs.append(weakref.ref(module))
        del module
    gc.collect()
    alive = [k for k, r in enumerate(refs) if r() is not None]
    assert all(k >= MODULES - RECENT for k in alive), f"{len(alive)} modules still alive"
