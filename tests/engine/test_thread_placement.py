"""Where a launch's pool threads run (engine/native/pool.py): each on a CPU other than the
calling thread's, which the scheduler would otherwise often share between the caller and the
helper it just woke, doubling a launch's time."""

import os
import threading

import pytest

from sgvm.engine.native import pool

pytestmark = pytest.mark.skipif(
    pool._GETCPU is None or len(os.sched_getaffinity(0)) < 2,
    reason="needs sched_getcpu/sched_setaffinity and two CPUs to place threads on")


def _placed(n: int) -> tuple[list[int], dict[int, set[int]], set[int]]:
    """Runs ``n`` chunks on ``n`` threads that all wait for each other (so every thread takes
    one); the CPUs a helper could be given, each thread's CPU set while running, the
    caller's CPU set afterwards."""
    meet = threading.Barrier(n, timeout=30)
    seen: dict[int, set[int]] = {}

    def run(first: int, count: int) -> int:
        seen[threading.get_native_id()] = os.sched_getaffinity(0)
        meet.wait()
        return 0

    others = pool._others()
    assert pool.parallel(run, [(i, 1) for i in range(n)], n) == [0] * n
    return others, seen, os.sched_getaffinity(0)


def test_a_helper_runs_on_another_cpu_than_the_caller():
    before = os.sched_getaffinity(0)
    others, seen, after = _placed(2)
    helper = [cpus for tid, cpus in seen.items() if tid != threading.get_native_id()]
    assert len(helper) == 1
    assert helper[0] == {others[0]}, "the helper is held on the CPU after the caller's"
    assert after == before, "the calling thread's own CPU set is left alone"


def test_three_threads_on_two_or_more_cpus():
    others, seen, _ = _placed(3)
    helpers = [cpus for tid, cpus in seen.items() if tid != threading.get_native_id()]
    assert len(helpers) == 2
    assert all(len(c) == 1 and next(iter(c)) in others for c in helpers)
