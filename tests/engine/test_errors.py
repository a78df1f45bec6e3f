"""Bad input: out-of-bounds and misaligned accesses, step budget, unsupported code."""

import numpy as np
import pytest

from sgvm import KernelMemoryError, KernelTimeout
from sgvm.errors import UnsupportedError

from .harness import OPTS, Local, build, run

SRC = r"""
kernel void oob(global const float* src, global float* dst) {
  size_t i = get_global_id(0);
  dst[i] = src[i * 2];
}
kernel void misaligned(global const char* src, global int* dst) {
  size_t i = get_global_id(0);
  dst[i] = *(global const int*)(src + i * 4 + (i == 5));
}
kernel void oob_store(global float* dst) {
  size_t i = get_global_id(0);
  dst[i + 60] = 1.0f;
}
kernel void oob_atomic(global int* cnt, global int* old) {
  size_t i = get_global_id(0);
  old[i] = atomic_add(&cnt[i], 1);
}
kernel void oob_local(local int* tmp, global int* out) {
  size_t l = get_local_id(0);
  tmp[l + 4] = (int)l;
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = tmp[l];
}
kernel void oob_2d(global int* out, int w) {
  out[get_global_id(1) * w + get_global_id(0)] = 1;
}
global int gtab[4] = {1, 2, 3, 4};
kernel void oob_global(global int* out) {
  size_t i = get_global_id(0);
  out[i] = gtab[i];
}
kernel void spin(volatile global int* out, int n) {
  int i = get_global_id(0);
  while (out[i] != n) out[i] += 2;
}
kernel void spin_barrier(volatile global int* out, int n) {
  int i = get_global_id(0);
  while (i == 3 && out[i] != n) out[i] += 2;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[i] += 1;
}
"""


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


def test_out_of_bounds_names_argument_and_work_item(module):
    dst = np.zeros(64, np.float32)
    with pytest.raises(KernelMemoryError) as e:
        run(module, "oob", [np.zeros(100, np.float32), dst], 64, 16)
    msg = str(e.value)
    assert "argument #0" in msg and "kernel 'oob'" in msg
    assert "global id (50,)" in msg and "byte offset 400" in msg


def test_out_of_bounds_does_not_touch_other_buffers(module):
    dst = np.zeros(64, np.float32)
    with pytest.raises(KernelMemoryError):
        run(module, "oob", [np.ones(100, np.float32), dst], 64, 64)
    assert not dst.any()


def test_misaligned(module):
    with pytest.raises(KernelMemoryError, match=r"misaligned.*global id \(5,\)"):
        run(module, "misaligned", [np.zeros(64, np.int8), np.zeros(16, np.int32)], 8, 8)


def test_out_of_bounds_store_is_skipped(module):
    with pytest.raises(KernelMemoryError) as e:
        run(module, "oob_store", [np.zeros(64, np.float32)], 64, 16)
    msg = str(e.value)
    assert "out-of-bounds store of 4 bytes at byte offset 256 of argument #0" in msg
    assert "global id (4,)" in msg


def test_out_of_bounds_atomic(module):
    with pytest.raises(KernelMemoryError, match=r"out-of-bounds .*byte offset 32 .*global id \(8,\)"):
        run(module, "oob_atomic", [np.zeros(8, np.int32), np.zeros(16, np.int32)], 16, 16)


def test_out_of_bounds_local(module):
    with pytest.raises(KernelMemoryError, match=r"out-of-bounds store .*local.*global id \(12,\)"):
        run(module, "oob_local", [Local(64), np.zeros(16, np.int32)], 16, 16)


def test_out_of_bounds_2d_names_the_lowest_linear_id(module):
    with pytest.raises(KernelMemoryError, match=r"byte offset 80 .*global id \(4, 2\)"):
        run(module, "oob_2d", [np.zeros(20, np.int32), np.int32(8)], (8, 4), (8, 4))


def test_out_of_bounds_program_scope_global(module):
    with pytest.raises(KernelMemoryError, match=r"global allocation 'gtab'.*global id \(4,\)"):
        run(module, "oob_global", [np.zeros(8, np.int32)], 8, 8)
    (out,), _ = run(module, "oob_global", [np.zeros(4, np.int32)], 4, 4)  # next launch is clean
    np.testing.assert_array_equal(out, [1, 2, 3, 4])


def test_step_budget(module, monkeypatch):
    monkeypatch.setenv("SGVM_MAX_STEPS", "500")
    with pytest.raises(KernelTimeout, match="spin"):
        run(module, "spin", [np.zeros(16, np.int32), np.int32(7)], 16, 16)
    (out,), _ = run(module, "spin", [np.zeros(16, np.int32), np.int32(40)], 16, 16)
    assert (out == 40).all()


def test_step_budget_with_barrier(module, monkeypatch):
    """Work-item 3 never reaches the barrier the others wait at: the launch still ends."""
    monkeypatch.setenv("SGVM_MAX_STEPS", "500")
    with pytest.raises(KernelTimeout, match="spin_barrier"):
        run(module, "spin_barrier", [np.zeros(16, np.int32), np.int32(7)], 16, 16)
    (out,), _ = run(module, "spin_barrier", [np.zeros(16, np.int32), np.int32(40)], 16, 16)
    np.testing.assert_array_equal(out, [1, 1, 1, 41] + [1] * 12)


def test_unreachable_reached():
    """A work-item that reaches OpUnreachable (``__builtin_unreachable``, which clang keeps
    under -cl-opt-disable) stops the launch with UnsupportedError naming the kernel and the
    first work-item that reached it (SPIR-V, OpUnreachable: "Behavior is undefined if this
    instruction is executed")."""
    m = build(r"""
kernel void unreachable(global int* y) {
  int i = get_global_id(0);
  if (y[i] == 5) __builtin_unreachable();
  y[i] = i;
}""", "-cl-opt-disable")
    y = np.zeros(64, np.int32)
    y[[7, 40]] = 5  # work-groups 0 and 2 of 16 work-items: the lower global id is named
    with pytest.raises(UnsupportedError, match=r"kernel 'unreachable': OpUnreachable was "
                       r"reached by work-item with global id \(7,\)"):
        run(m, "unreachable", [y], 64, 16)
