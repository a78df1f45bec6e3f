"""Launches that repeat one before them: the native backend reuses the earlier launch's
context (its argument words and objects' table, ``backend._reused_context``) when the
kernel, the sizes and every argument are the same. Each test changes one thing between two
launches and expects the second launch to see it, on both backends (the NumPy engine's
expectations are the same: NumPy computations)."""

import gc
import weakref

import numpy as np
import pytest

from sgvm.errors import KernelMemoryError
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
