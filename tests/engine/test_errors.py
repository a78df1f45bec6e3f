"""Bad input: out-of-bounds and misaligned accesses, step budget, unsupported code."""

import numpy as np
import pytest

from sgvm import KernelMemoryError, KernelTimeout

from .harness import OPTS, build, run

SRC = r"""
kernel void oob(global const float* src, global float* dst) {
  size_t i = get_global_id(0);
  dst[i] = src[i * 2];
}
kernel void misaligned(global const char* src, global int* dst) {
  size_t i = get_global_id(0);
  dst[i] = *(global const int*)(src + i * 4 + (i == 5));
}
kernel void spin(volatile global int* out, int n) {
  int i = get_global_id(0);
  while (out[i] != n) out[i] += 2;
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


def test_step_budget(module, monkeypatch):
    monkeypatch.setenv("SGVM_MAX_STEPS", "500")
    with pytest.raises(KernelTimeout, match="spin"):
        run(module, "spin", [np.zeros(16, np.int32), np.int32(7)], 16, 16)
    (out,), _ = run(module, "spin", [np.zeros(16, np.int32), np.int32(40)], 16, 16)
    assert (out == 40).all()
