"""The fast bounds checks of loads and stores (uniform, affine and gathered pointers) agree
with the exact per-work-item check (``memory_access.faults``): every invalid access is a
KernelMemoryError, every valid one runs, and nothing else is ever raised. An affine address
(one pointer plus a step per work-item) whose work-items land in different allocations is
out of bounds of the object it came from, though each address alone lies in some allocation
(such an access raised a NumPy ValueError)."""

import random

import numpy as np
import pytest

from sgvm import KernelMemoryError
from sgvm.engine.cpu import memory_access as M
from sgvm.engine.cpu.arenas import arena
from sgvm.engine.cpu.values import Affine, affine
from sgvm.runtime.device import CPU_DEVICE
from sgvm.runtime.memory import Allocation

from .harness import DEVICE

CPU_ONLY = pytest.mark.skipif(DEVICE is not CPU_DEVICE, reason="the CPU engine's access paths")
U64 = np.dtype(np.uint64)

class _Batch:
    """What the access paths read of a batch."""

    def __init__(self, L: int, mask: np.ndarray | None):
        self.L, self.mask, self.kernel, self.names = L, mask, "k", {}
        self.obs_memory, self.obs_fault = [], []

    def gid_of(self, lane: int) -> tuple[int]:
        return (lane,)


def _case(rng: random.Random, allocs: list, L: int):
    """A random access: (pointer, mask, dtype, count, align, write, target allocation)."""
    a = rng.choice(allocs)
    mask = None if rng.random() < 0.4 else np.array([rng.random() < 0.6 for _ in range(L)])
    if mask is not None and not mask.any():
        mask[rng.randrange(L)] = True
    dt = np.dtype(rng.choice([np.uint8, np.uint16, np.uint32, np.uint64]))
    count, align = rng.choice([1, 1, 2, 4]), rng.choice([1, dt.itemsize, 16])
    first = 0 if mask is None else int(np.argmax(mask))
    own = int(a.lane_base[first]) if hasattr(a, "lane_base") else 0
    base = a.base + own + rng.randrange(-8, 40)
    kind = rng.choice(["uniform", "affine", "gather"])
    if kind == "uniform":
        ptr = np.uint64(base % (1 << 64))
    elif kind == "affine":
        region = getattr(a, "region", 4)
        other = rng.choice(allocs)
        stride = rng.choice([region, region, 0, 2, 4, -4, other.base - a.base])
        ptr = affine(base - stride * first, stride, L, U64)
    else:
        ptr = np.array([(base + rng.randrange(-8, 24)) % (1 << 64) for _ in range(L)], U64)
    return ptr, mask, dt, count, align, rng.random() < 0.5


@CPU_ONLY
def test_fast_access_checks_agree_with_the_exact_check(backend):
    if backend == "native":
        pytest.skip("no kernel is launched: the [numpy] variant covers it")
    rng = random.Random(5)
    for _ in range(1500):
        G, P = rng.choice([1, 2]), rng.choice([4, 8])
        L = G * P
        allocs = [Allocation(np.zeros(rng.choice([16, 64]), np.uint8), "global"),
                  Allocation(np.zeros(32, np.uint8), "constant", read_only=True),
                  arena("local", "t", rng.choice([8, 24]), 4, G, P),
                  arena("private", "a", rng.choice([4, 12]), 4, L, 1)]
        ptr, mask, dt, count, align, write = _case(rng, allocs, L)
        lanes = np.arange(L) if mask is None else np.flatnonzero(mask)
        full = np.broadcast_to(np.asarray(ptr.materialize() if type(ptr) is Affine else ptr, U64), (L,))
        bad = M.faults(full[lanes], lanes, dt.itemsize * count, align, write)[0].any()
        ids = {int(p) >> 40 for p in full[lanes]}
        spans = type(ptr) is Affine and len(ids) > 1
        st = _Batch(L, mask)
        try:
            if write:
                M._store(st, ptr, np.zeros((L, count) if count > 1 else L, dt), dt, count, align)
            else:
                M._load(st, ptr, dt, count, align)
            raised = False
        except KernelMemoryError:
            raised = True
        assert raised == (bad or spans), (ptr, mask, dt, count, align, write, bad)
