"""The threads a native launch runs on: the calling thread and helpers kept between launches
(``pool.cpp``, built once by the bundled clang like a kernel), each helper held on a CPU
other than the caller's.

* Chunks: a launch's work-groups are cut into 16 chunks per thread that the threads take
  by an atomic counter, in C: the caller starts at once while the helpers wake up, a helper
  that wakes late takes fewer chunks, and no thread touches the GIL (a pool of Python threads
  spent 0.15–0.2 ms of a 2 ms vector add waking its thread and handing it chunks).
* Waking: after a launch a helper spins for 50 µs (launches often come back to back), then
  sleeps on a condition variable; ``wake`` rouses it, at the start of a threaded launch, to
  spin for up to 2 ms while the launch is prepared (an idle CPU of a virtual machine took
  0.1–0.2 ms to wake).
* One launch at a time runs on the pool; a launch from another thread meanwhile runs on its
  calling thread alone. A child of ``fork()`` starts helpers of its own.
* Placement: a thread woken from sleep is put, by Linux's scheduler, on the CPU of the thread
  that woke it when it judges that CPU about to go idle. The caller wakes the pool and then
  runs chunks itself, so a woken helper shares the caller's CPU until the load balancer moves
  one of them — up to a scheduler tick later. On a 2-CPU machine a 4M-element vector add took
  4 ms instead of 2 in about half the launches that came after a pause; with each helper held
  on another CPU the launches took 2.1–2.6 ms.
* Each thread's frame, local memory and private arena are its own, grown as launches need;
  the kernel clears local and private memory for each work-group itself.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...errors import MemoryError
from . import compile as compiler

# per thread, so uneven work-groups and threads slowed by others balance: against 4, the
# median of 40-100 launches alternated in one process was lower in 17 of 18 comparisons of
# the benchmark's rows, by 0.5-8% (docs/native.md, "Fifteenth round"); in the vector add the
# caller, out of chunks, waited for the helper's last one 0.03-0.18 ms (median of a run) at
# 4, 0.01-0.02 ms at 16
CHUNKS = 16
NO_MEMORY = 0x7FFFFFFF  # the status of a chunk whose thread got no scratch (pool.cpp)
_SIGNATURE = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64,
              ctypes.c_uint32, ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_uint64,
              ctypes.c_uint64, ctypes.c_uint32]


@functools.cache
def _library() -> Any:
    lib = compiler.library(Path(__file__).with_name("pool.cpp").read_text())
    lib.sg_pool_run.restype, lib.sg_pool_run.argtypes = ctypes.c_int64, _SIGNATURE
    lib.sg_pool_wake.restype, lib.sg_pool_wake.argtypes = None, []
    return lib


def wake() -> None:
    """Wakes the helpers for a launch on its way (while its arguments are prepared)."""
    _library().sg_pool_wake()


def run(kernel: int, ctx: int, args: int, total: int, W: int, n: int,
        sizes: tuple[int, int, int], pm: int) -> tuple[int, int]:
    """Kernel entry point ``kernel`` (its address) over work-groups [0, ``total``) in units
    of ``W`` on ``n`` threads, each with a frame, local memory and private arena of
    ``sizes`` bytes; the largest status a chunk returned and the number of chunks it ran as
    (one where another thread's launch holds the pool: it runs on the calling thread alone)."""
    return _status(_library().sg_pool_run(kernel, ctx, args, total, W, *_chunks(total, n), n,
                                          *sizes, pm), sizes)


def runner(kernel: int, ctx: int, args: int, total: int, W: int, n: int,
           sizes: tuple[int, int, int], pm: int) -> Callable[[], tuple[int, int]]:
    """``run`` of these arguments as a function of none, its chunks worked out once
    (``Backend.again``: a repeated launch calls the pool and nothing else). Sleeping helpers
    are woken by the call itself."""
    call = functools.partial(_library().sg_pool_run, kernel, ctx, args, total, W,
                             *_chunks(total, n), n, *sizes, pm)
    return lambda: _status(call(), sizes)


def _chunks(total: int, n: int) -> tuple[int, int]:
    """How many chunks ``total`` work-group units are cut into for ``n`` threads, and the
    units of each."""
    step = -(-total // min(total, CHUNKS * n)) if n > 1 else total
    return -(-total // step), step


def _status(code: int, sizes: tuple[int, int, int]) -> tuple[int, int]:
    """sg_pool_run's result as (status, chunks); raises where a thread had no scratch."""
    if code >> 32 == NO_MEMORY:
        raise MemoryError(f"no host memory for the native threads' {sum(sizes)} bytes of "
                          "scratch", "CL_OUT_OF_HOST_MEMORY", "clEnqueueNDRangeKernel")
    return code >> 32, code & 0xFFFFFFFF
