"""Launches on several threads (``SGVM_THREADS``): every work-group runs once, whichever
thread takes it, and a fault in any of them is the launch's error (docs/native.md, "Using
it"). Large enough to be split (backend.SMALL work-items run on the calling thread)."""

import numpy as np
import pytest

from sgvm.errors import KernelMemoryError
from sgvm.runtime.args import BufferArg, ValueArg
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange

from . import harness
from .harness import O2, build, run

SRC = r"""
kernel void stamp(global int *out, global int *runs, int limit) {
  size_t i = get_global_id(0), g = get_group_id(0);
  if (get_local_id(0) == 0) runs[g] += 1;
  out[i < (size_t)limit ? i : i + 64] = (int)g * 3 + 1;
}
"""
N, L = 1 << 17, 64


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_every_work_group_runs_once(module, monkeypatch, threads):
    monkeypatch.setenv("SGVM_THREADS", threads)
    (out, runs), _ = run(module, "stamp", [np.zeros(N, np.int32), np.zeros(N // L, np.int32),
                                           np.int32(N)], N, L)
    np.testing.assert_array_equal(out, np.arange(N) // L * 3 + 1)
    np.testing.assert_array_equal(runs, np.ones(N // L, np.int32))


@pytest.mark.parametrize("threads", ["2", "3"])
def test_a_fault_in_a_late_work_group_is_the_error(module, own_record, monkeypatch, threads):
    """Only the last work-group's lanes from global id N - 5 store out of bounds."""
    monkeypatch.setenv("SGVM_THREADS", threads)
    at = r"store of 4 bytes at byte offset 524524 .*global id \(131067,\)"  # (N - 5 + 64) * 4
    with pytest.raises(KernelMemoryError, match=at):
        run(module, "stamp", [np.zeros(N, np.int32), np.zeros(N // L, np.int32),
                              np.int32(N - 5)], N, L)


ADJACENT = r"""
kernel void locals(global int *out, int k) {
  local int a[16];
  local int b[16];
  int l = get_local_id(0);
  a[l] = l;
  b[l] = 2 * l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = a[l + k] + b[l];
}
"""


def test_an_overrun_into_the_next_buffer_names_its_own(module, own_record):
    """``out`` and ``runs`` lie back to back (views of one array): the store past ``out``'s end
    lands inside ``runs``, and is an overrun of ``out`` (the object its pointer came from)."""
    whole = np.zeros(N + N // L, np.int32).view(np.uint8)
    out, runs = (Allocation(whole[:4 * N], "global"), Allocation(whole[4 * N:], "global"))
    args = [BufferArg(out), BufferArg(runs), ValueArg(np.int32(N - 5).tobytes())]
    at = r"store of 4 bytes at byte offset 524524 of argument #0 .*global id \(131067,\)"
    with pytest.raises(KernelMemoryError, match=at):
        launch(module, "stamp", args, NDRange((N,), (L,)), device=harness.DEVICE)


def test_an_overrun_into_the_next_local_array_names_its_own(own_record):
    """``a[l + 16]`` reads ``b``'s elements where the two lie back to back in local memory:
    an overrun of ``a``."""
    if harness.on_cuda():
        pytest.skip("the CUDA backend tests local accesses against the work-group's whole "
                    "local memory (docs/cuda.md, 'Memory errors')")
    m = build(ADJACENT, O2)
    at = r"load of 4 bytes at byte offset 64 of local variable 'locals.a'"
    with pytest.raises(KernelMemoryError, match=at):
        run(m, "locals", [np.zeros(16, np.int32), np.int32(16)], 16, 16)
