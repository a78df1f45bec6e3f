"""The native backend's threads (engine/native/pool.cpp), driven with a Python callback as the
kernel: every chunk runs once, statuses and allocation failures come back, and each helper
runs on a CPU other than the calling thread's, which the scheduler would otherwise often
share between the caller and the helper it just woke, doubling a launch's time."""

import ctypes
import os
import signal
import threading

import pytest

from sgvm.engine.native import compile as compiler
from sgvm.engine.native import pool
from sgvm.errors import MemoryError

pytestmark = pytest.mark.skipif(not compiler.available(), reason="needs the ziglang wheel")
KERNEL = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint64,
                          ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                          ctypes.c_uint32)
SIZES = (256, 64, 64)
_GETCPU = getattr(ctypes.CDLL(None), "sched_getcpu", None) if os.name == "posix" else None
placing = pytest.mark.skipif(
    _GETCPU is None or not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs sched_getcpu/sched_setaffinity and two CPUs to place threads on")


def _launch(body, total: int, W: int, n: int) -> tuple[int, int]:
    kernel = KERNEL(body)
    return pool.run(ctypes.cast(kernel, ctypes.c_void_p).value, 0, 0, total, W, n, SIZES, 7)


def test_every_work_group_runs_once_with_its_own_aligned_scratch():
    ranges, frames, seen = [], set(), set()
    lock = threading.Lock()

    def body(ctx, args, first, count, frame, local, priv, pm):
        with lock:  # (an assertion in a callback would not reach the test)
            ranges.append((first, count))
            frames.add((threading.get_native_id(), frame))
            seen.add((pm, frame % 64, local % 64, priv % 64))
        return 0

    code, chunks = _launch(body, 1000, 3, 2)
    assert code == 0 and chunks == len(ranges) == pool.CHUNKS * 2
    assert seen == {(7, 0, 0, 0)}, "lanes per frame passed on; 64-byte aligned scratch"
    covered = sorted(g for first, count in ranges for g in range(first, first + count))
    assert covered == list(range(3000)), "units of W work-groups, each exactly once"
    by_thread: dict[int, set[int]] = {}
    for tid, frame in frames:
        by_thread.setdefault(tid, set()).add(frame)
    assert all(len(f) == 1 for f in by_thread.values()), "a thread keeps its frame"
    if len(by_thread) == 2:
        assert len(set().union(*by_thread.values())) == 2, "threads never share a frame"


def test_the_largest_status_comes_back():
    def body(ctx, args, first, count, frame, local, priv, pm):
        return {0: 0, 2: 1, 5: 2}.get(first, 0)

    assert _launch(body, 8, 1, 2) == (2, 8)
    assert _launch(body, 8, 1, 1) == (0, 1), "one thread: one chunk from work-group 0"


def test_scratch_that_cannot_be_allocated_raises_out_of_host_memory():
    def body(*_):
        return 0

    kernel = KERNEL(body)
    for threads in (1, 2):  # the calling thread's scratch, and the pool's
        with pytest.raises(MemoryError) as e:
            pool.run(ctypes.cast(kernel, ctypes.c_void_p).value, 0, 0, 4, 1, threads, (1 << 62, 64, 64), 1)
        assert e.value.code_name == "CL_OUT_OF_HOST_MEMORY"
    assert _launch(body, 4, 1, 2) == (0, 4), "the pool still runs after the failure"


def test_a_launch_while_the_pool_is_busy_runs_on_its_own_thread():
    release, busy = threading.Event(), threading.Event()
    ran: list[tuple[int, int, int]] = []

    def held(ctx, args, first, count, frame, local, priv, pm):
        busy.set()
        release.wait(30)
        return 0

    def body(ctx, args, first, count, frame, local, priv, pm):
        ran.append((threading.get_native_id(), first, count))
        return 0

    other = threading.Thread(target=_launch, args=(held, 8, 1, 2))
    other.start()
    try:
        assert busy.wait(30)
        assert _launch(body, 8, 2, 2) == (0, 1), "one chunk"
        assert ran == [(threading.get_native_id(), 0, 16)], "all of it, on the calling thread"
    finally:
        release.set()
        other.join(30)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
def test_a_forked_child_starts_helpers_of_its_own():
    """A child of fork() has only the forking thread; its launches start helpers of their own
    (pool.cpp's pthread_atfork handler), where the pool would otherwise believe the parent's
    still there and run every chunk on the calling thread (multiprocessing forks on Linux)."""
    def body(ctx, args, first, count, frame, local, priv, pm):
        return 0

    assert _launch(body, 8, 1, 2) == (0, 8)  # the parent's pool has its helper
    pid = os.fork()
    if pid == 0:  # the child: exits 0 when two threads ran its launch's two chunks
        signal.alarm(60)  # a hung pool ends the child instead of the test run
        try:
            seen, _ = _placed(2)
            os._exit(0 if len(seen) == 2 else 1)
        finally:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status


def _placed(n: int) -> tuple[dict[int, tuple[set[int], int]], int]:
    """Runs ``n`` chunks on ``n`` threads that all wait for each other (so every thread takes
    one): each thread's CPU set and CPU while running, the caller's native id."""
    meet = threading.Barrier(n, timeout=10)
    seen: dict[int, tuple[set[int], int]] = {}

    def body(ctx, args, first, count, frame, local, priv, pm):
        seen[threading.get_native_id()] = (os.sched_getaffinity(0), _GETCPU())
        meet.wait()
        return 0

    assert _launch(body, n, 1, n) == (0, n)
    return seen, threading.get_native_id()


@placing
def test_a_helper_runs_on_another_cpu_than_the_caller():
    """The helper is held on a CPU other than the one the caller launched from. The caller
    itself is not held: it may move during the launch (its chunk waits on a barrier, so it
    sleeps), onto the helper's CPU too under load — there is nothing to compare then."""
    before = os.sched_getaffinity(0)
    for _ in range(20):
        launched_on = _GETCPU()
        seen, me = _placed(2)
        if seen[me][1] == launched_on:
            break
    helper = [cpus for tid, (cpus, _) in seen.items() if tid != me]
    assert len(helper) == 1 and len(helper[0]) == 1 and helper[0] <= before
    assert seen[me][1] == launched_on, "the caller moved in each of 20 launches"
    assert helper[0] != {launched_on}, "the helper is held off the caller's CPU"
    assert os.sched_getaffinity(0) == before, "the calling thread's own CPU set is left alone"


@placing
def test_three_threads_on_two_or_more_cpus():
    allowed = os.sched_getaffinity(0)
    seen, me = _placed(3)
    helpers = [cpus for tid, (cpus, _) in seen.items() if tid != me]
    assert len(helpers) == 2
    assert all(len(c) == 1 and c <= allowed for c in helpers)
