"""The threads a native launch runs on: the calling thread and a pool kept between launches,
each pool thread held on a CPU other than the caller's.

Why the pool's threads are placed: a thread woken from sleep is put, by Linux's scheduler,
on the CPU of the thread that woke it when it judges that CPU about to go idle. The caller
wakes the pool and then runs chunks itself, so a woken helper shares the caller's CPU until
the load balancer moves one of them — up to a scheduler tick later. On a 2-CPU machine a
4M-element vector add took 4 ms instead of 2 in about half the launches that came after a
pause (traced per chunk: one thread ran seven chunks while the other's single chunk took
4 ms); with each helper held on another CPU the launches took 2.1–2.6 ms.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

_POOL: list[Any] = [None, 0]  # the executor and its size
_LOCAL = threading.local()
_NUMBERS = itertools.count()  # a pool thread's number, for the CPU it is given


def _libc_getcpu() -> Callable[[], int] | None:
    """glibc's ``sched_getcpu`` (the CPU the calling thread runs on), where there is one."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).sched_getcpu
    except (OSError, AttributeError):
        return None
    fn.restype, fn.argtypes = ctypes.c_int, []
    return fn


_GETCPU = _libc_getcpu()


def parallel(run: Callable[[int, int], int], chunks: list[tuple[int, int]], n: int) -> list[int]:
    """``run`` of every chunk on ``n`` threads, the calling one among them: it starts at once
    while the pool's threads wake up (which takes a few hundred microseconds on some
    machines), and each thread takes the next chunk when done with its last. Each pool
    thread first moves to a CPU other than the caller's (module docstring)."""
    todo = iter(chunks)  # next() of a list iterator is atomic under the GIL
    codes: list[int] = []
    cpus = _others() if n > 1 else []

    def work() -> None:
        for chunk in todo:
            codes.append(run(*chunk))

    def helper() -> None:
        if cpus:
            _hold(cpus)
        work()

    helpers = [_pool(n - 1).submit(helper) for _ in range(min(n, len(chunks)) - 1)]
    work()
    for h in helpers:
        h.result()
    return codes


def _others() -> list[int]:
    """The CPUs this process may use, starting after the calling thread's (empty where the
    OS gives no way to place threads or only one CPU is allowed)."""
    if _GETCPU is None:
        return []
    allowed = sorted(os.sched_getaffinity(0))
    here = _GETCPU()
    if len(allowed) < 2 or here not in allowed:
        return []
    at = allowed.index(here)
    return allowed[at + 1:] + allowed[:at]


def _hold(cpus: list[int]) -> None:
    """Keeps this pool thread on one of ``cpus`` (by its number), moving it only when the
    CPU it should be on changed since its last launch."""
    number = getattr(_LOCAL, "number", None)
    if number is None:
        number = _LOCAL.number = next(_NUMBERS)
    cpu = cpus[number % len(cpus)]
    if getattr(_LOCAL, "cpu", None) != cpu:
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError:  # the process's CPUs changed meanwhile: leave the thread where it is
            return
        _LOCAL.cpu = cpu


def _pool(n: int) -> ThreadPoolExecutor:
    """A thread pool of ``n`` workers kept between launches."""
    if _POOL[1] != n:
        if _POOL[0] is not None:
            _POOL[0].shutdown(wait=False)
        _POOL[0], _POOL[1] = ThreadPoolExecutor(n, thread_name_prefix="sgvm-native"), n
    return _POOL[0]
