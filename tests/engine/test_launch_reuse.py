"""Launches that repeat one before them: the native backend reuses the earlier launch's
context (its argument words and objects' table, ``backend._reused_context``) when the
kernel, the sizes and every argument are the same, and from the third launch on the runtime
runs the backend's prepared run of it (``runtime.repeats``, ``Backend.again``). Each test
changes one thing between launches and expects the next launch to see it, on both backends
(the NumPy engine's expectations are the same: NumPy computations)."""

import gc
import threading
import weakref

import numpy as np
import pytest

from sgvm.engine.cpu.collective import CollectiveEvent
from sgvm.engine.native.backend import NativeBackend
from sgvm.errors import KernelMemoryError, KernelTimeout
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg, ValueArg
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation, zeroed
from sgvm.runtime.ndrange import NDRange

from . import harness
from .harness import O2, build

pytestmark = pytest.mark.usefixtures("runs_natively")

SRC = r"""
kernel void axpb(global const int *x, global int *y, int a, int b) {
  size_t i = get_global_id(0);
  y[i] = a * x[i] + b;
}
kernel void pick(global const int *x, global const int *at, global int *y) {
  size_t i = get_global_id(0);
  y[i] = x[at[i]];
}
kernel void sum_to(global const int *x, global int *y, int n) {
  int s = 0;
  for (int k = 0; k < n; k++) s = s * 3 + x[k & 63];
  y[get_global_id(0)] = s;
}
__attribute__((intel_reqd_sub_group_size(8)))
kernel void sg_sum(global int *y) {
  y[get_global_id(0)] = sub_group_reduce_add(y[get_global_id(0)]);
}
"""
N = 1 << 10


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


def _buffer(values: np.ndarray) -> BufferArg:
    data = zeroed(values.nbytes)
    data[:] = values.view(np.uint8)
    return BufferArg(Allocation(data, "global"))


def _ints(arg: BufferArg) -> np.ndarray:
    """The buffer's ints as they are now (a device with its own copy hands it back; the
    host may then change them)."""
    residency.host_access(arg.allocation)
    return arg.allocation.data.view(np.int32)


def _launch(module, args, n=N, local=64) -> None:
    launch(module, "axpb", args, NDRange((n,), (local,)), device=harness.DEVICE)


def test_a_changed_value_is_seen(module):
    x, y = _buffer(np.arange(N, dtype=np.int32)), _buffer(np.zeros(N, np.int32))
    _launch(module, [x, y, ValueArg(np.int32(2).tobytes()), ValueArg(np.int32(1).tobytes())])
    _launch(module, [x, y, ValueArg(np.int32(3).tobytes()), ValueArg(np.int32(1).tobytes())])
    np.testing.assert_array_equal(_ints(y), 3 * np.arange(N) + 1)


def test_a_new_buffer_of_the_same_size_is_written(module):
    """The first output buffer is freed before the second is made: the new array may lie
    where the old one did, and must still be the one written."""
    x = _buffer(np.arange(N, dtype=np.int32))
    a, b = ValueArg(np.int32(5).tobytes()), ValueArg(np.int32(-7).tobytes())
    y = _buffer(np.zeros(N, np.int32))
    _launch(module, [x, y, a, b])
    first = weakref.ref(y.allocation.data)
    del y
    gc.collect()
    y2 = _buffer(np.full(N, 9, np.int32))
    _launch(module, [x, y2, a, b])
    np.testing.assert_array_equal(_ints(y2), 5 * np.arange(N) - 7)
    assert first() is None, "a launch kept its output buffer alive"


def test_an_allocation_given_new_bytes_is_written(module):
    x, y = _buffer(np.arange(N, dtype=np.int32)), _buffer(np.zeros(N, np.int32))
    args = [x, y, ValueArg(np.int32(1).tobytes()), ValueArg(np.int32(0).tobytes())]
    _launch(module, args)
    old = _ints(y)
    y.allocation.data = zeroed(old.nbytes)
    y.allocation.views.clear()
    _launch(module, args)
    np.testing.assert_array_equal(_ints(y), np.arange(N))


def test_other_sizes_run_their_own_work_items(module):
    """Twice and four times the native backend's unit of work-groups run together (2048
    lanes of this one-block kernel, regions.STRAIGHT): the same unit, other counts."""
    n = 8192
    x, y = _buffer(np.arange(n, dtype=np.int32)), _buffer(np.zeros(n, np.int32))
    args = [x, y, ValueArg(np.int32(1).tobytes()), ValueArg(np.int32(100).tobytes())]
    _launch(module, args, n // 2)
    np.testing.assert_array_equal(_ints(y)[n // 2:], 0)
    _launch(module, args, n)
    np.testing.assert_array_equal(_ints(y), np.arange(n) + 100)
    _ints(y)[:] = 0
    _launch(module, args, n, 128)
    np.testing.assert_array_equal(_ints(y), np.arange(n) + 100)


def test_a_clean_launch_after_a_fault(module):
    """The same launch twice, its index buffer rewritten in between: the first reads past
    ``x``, the second runs clean (the reused context's fault record starts empty)."""
    x, y = _buffer(np.arange(N, dtype=np.int32)), _buffer(np.zeros(N, np.int32))
    at = _buffer(np.arange(N, dtype=np.int32)[::-1].copy())
    _ints(at)[5] = N + 3
    args, nd = [x, at, y], NDRange((N,), (64,))
    with pytest.raises(KernelMemoryError, match="load of 4 bytes at byte offset 4108"):
        launch(module, "pick", args, nd, device=harness.DEVICE)
    _ints(at)[5] = 7
    launch(module, "pick", args, nd, device=harness.DEVICE)
    expected = np.arange(N)[::-1].copy()
    expected[5] = 7
    np.testing.assert_array_equal(_ints(y), expected)


def _value(v: int) -> ValueArg:
    return ValueArg(np.int32(v).tobytes())


def test_repeated_launches_run_the_prepared_run(module, backend, monkeypatch):
    """From the third launch of the same kind on, the native backend prepares nothing: each
    launch runs what the second prepared, and reads its buffers as they are then."""
    x, y = _buffer(np.zeros(N, np.int32)), _buffer(np.zeros(N, np.int32))
    args = [x, y, _value(3), _value(-1)]
    _launch(module, args)
    _launch(module, args)
    if backend == "native":
        def refused(*_):
            raise AssertionError("a repeated launch was prepared again")
        monkeypatch.setattr(NativeBackend, "_plan", refused)
    for k in range(4):
        _ints(x)[:] = np.arange(N) * (k + 1)
        _launch(module, args)
        np.testing.assert_array_equal(_ints(y), 3 * np.arange(N) * (k + 1) - 1)


def test_a_new_value_after_repeats_is_seen(module):
    x, y = _buffer(np.arange(N, dtype=np.int32)), _buffer(np.zeros(N, np.int32))
    b = _value(1)
    for _ in range(3):
        _launch(module, [x, y, _value(2), b])
    _launch(module, [x, y, _value(7), b])
    np.testing.assert_array_equal(_ints(y), 7 * np.arange(N) + 1)


def test_an_allocation_given_new_bytes_after_repeats_is_written(module):
    """The argument objects are the same, the array their allocation holds is not: the
    prepared run (which knows the old array's address) is not the launch."""
    x, y = _buffer(np.arange(N, dtype=np.int32)), _buffer(np.zeros(N, np.int32))
    args = [x, y, _value(1), _value(5)]
    for _ in range(3):
        _launch(module, args)
    old = _ints(y)
    y.allocation.data = zeroed(old.nbytes)
    y.allocation.views.clear()
    old[:] = -1
    _launch(module, args)
    np.testing.assert_array_equal(_ints(y), np.arange(N) + 5)
    assert (old == -1).all(), "the launch wrote the allocation's old array"


def test_every_repeated_fault_is_reported_then_a_clean_launch_runs(module):
    """The same faulting launch four times (the third and fourth through the prepared run):
    each raises the first one's error; then, its index rewritten, the launch runs clean
    (the fault record is cleared once read)."""
    x, y = _buffer(np.arange(N, dtype=np.int32)), _buffer(np.zeros(N, np.int32))
    at = _buffer(np.arange(N, dtype=np.int32))
    _ints(at)[9] = -2
    args, nd = [x, at, y], NDRange((N,), (64,))
    for _ in range(4):
        with pytest.raises(KernelMemoryError, match=r"out-of-bounds load of 4 bytes at byte offset "
                                                    r"-8 of argument #0 \(4096 bytes\) by "
                                                    r"work-item with global id \(9,\)$"):
            launch(module, "pick", args, nd, device=harness.DEVICE)
    _ints(at)[9] = 9
    launch(module, "pick", args, nd, device=harness.DEVICE)
    np.testing.assert_array_equal(_ints(y), np.arange(N))


def test_a_changed_step_budget_is_kept(module, monkeypatch):
    """SGVM_MAX_STEPS set after three launches: the fourth launch runs under it (the
    environment is part of what makes a launch the same), as does a launch given a budget
    (which the CUDA backend ignored, and the native one's message misnamed)."""
    x, y = _buffer(np.arange(64, dtype=np.int32)), _buffer(np.zeros(64, np.int32))
    args, nd = [x, y, _value(500)], NDRange((64,), (64,))
    s = 0
    for k in range(500):
        s = (s * 3 + k % 64) & 0xFFFFFFFF
    expected = np.uint32(s).view(np.int32)
    for _ in range(3):
        launch(module, "sum_to", args, nd, device=harness.DEVICE)
    np.testing.assert_array_equal(_ints(y), expected)
    monkeypatch.setenv("SGVM_MAX_STEPS", "50")
    with pytest.raises(KernelTimeout, match="step budget of 50 "):
        launch(module, "sum_to", args, nd, device=harness.DEVICE)
    monkeypatch.delenv("SGVM_MAX_STEPS")
    with pytest.raises(KernelTimeout, match="step budget of 40 "):
        launch(module, "sum_to", args, nd, device=harness.DEVICE, max_steps=40)
    _ints(y)[:] = 0
    launch(module, "sum_to", args, nd, device=harness.DEVICE)
    np.testing.assert_array_equal(_ints(y), expected)


class _Recorder:
    def __init__(self) -> None:
        self.events: list[CollectiveEvent] = []

    def collective(self, batch, event: CollectiveEvent) -> None:
        self.events.append(event)


def test_a_launch_with_observers_after_repeats_is_observed(module):
    """Three launches, then the same launch with an observer: it runs on the reference engine,
    which reports the sub-group reduction to the observer."""
    y = _buffer(np.ones(64, np.int32))
    args, nd = [y], NDRange((64,), (64,))
    for k in range(3):
        launch(module, "sg_sum", args, nd, device=harness.DEVICE)
        np.testing.assert_array_equal(_ints(y), 8 ** (k + 1))
    rec = _Recorder()
    _ints(y)[:] = 1
    launch(module, "sg_sum", args, nd, device=harness.DEVICE, observers=[rec])
    assert [e.op for e in rec.events] == ["OpGroupIAdd"]
    np.testing.assert_array_equal(_ints(y), 8)


def test_threads_repeat_their_own_launches(module):
    """Four threads launch the same kernel with buffers of their own, each many times: every
    thread's prepared run writes its own buffers (the table is per thread)."""
    n = 1 << 16  # past the native backend's one-thread size: each launch uses the pool
    failures: list[str] = []

    def work(t: int) -> None:
        x, y = _buffer(np.arange(n, dtype=np.int32)), _buffer(np.zeros(n, np.int32))
        args = [x, y, _value(t + 2), _value(t)]
        for k in range(6):
            _ints(x)[:] = np.arange(n) + k
            _launch(module, args, n, 256)
            if not np.array_equal(_ints(y), (t + 2) * (np.arange(n) + k) + t):
                failures.append(f"thread {t}, launch {k}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures


def test_the_table_holds_no_buffer(module):
    x, y = _buffer(np.arange(N, dtype=np.int32)), _buffer(np.zeros(N, np.int32))
    for _ in range(3):
        _launch(module, [x, y, _value(1), _value(1)])
    arrays = [weakref.ref(x.allocation.data), weakref.ref(y.allocation.data)]
    del x, y
    gc.collect()
    assert all(r() is None for r in arrays), "a remembered launch kept its buffers alive"
