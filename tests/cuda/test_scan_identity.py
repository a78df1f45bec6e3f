"""The first value of a floating-point exclusive add scan is +0.0 on every device.

OpenCL C 2.0 s6.13.15: the exclusive scan "returns [I, a0, (a0 op a1), ...]" and "If op =
add, the identity I is 0". The CUDA backend gave -0.0 (the neutral value it folded from)
to the work-items with no active work-item before them: `sgvm fuzz --seeds 0:100
--backends cpu,cuda` disagreed on seeds 25, 30, 40, 74 and 90 (found on an H200). With
every input -0.0 the expected scan is [+0.0, -0.0, -0.0, ...] (the sums of -0.0s stay
-0.0) and the reduction -0.0, derived by hand. The GPU runs (``gpu``) are skipped without
CuPy and a GPU.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

import sgvm
from sgvm.engine.cuda.runtime import available
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg
from sgvm.runtime.device import CPU_DEVICE, CUDA_DEVICE, NATIVE_DEVICE
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange
from sgvm.spirv import Module, read

DEVICES = [CPU_DEVICE, NATIVE_DEVICE, pytest.param(CUDA_DEVICE, marks=[
    pytest.mark.gpu, pytest.mark.skipif(not available(), reason="needs CuPy and an NVIDIA GPU")])]

SOURCE = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__attribute__((intel_reqd_sub_group_size(8)))
kernel void scans(global const float *x, global uint *sg_f, global ulong *sg_d,
                  global ushort *sg_h, global uint *wg_f, global ulong *wg_d,
                  global uint *red, global uint *part) {
  size_t i = get_global_id(0);
  float v = x[i];
  sg_f[i] = as_uint(sub_group_scan_exclusive_add(v));
  sg_d[i] = as_ulong(sub_group_scan_exclusive_add((double)v));
  sg_h[i] = as_ushort(sub_group_scan_exclusive_add((half)v));
  wg_f[i] = as_uint(work_group_scan_exclusive_add(v));
  wg_d[i] = as_ulong(work_group_scan_exclusive_add((double)v));
  red[i] = as_uint(sub_group_reduce_add(v));
  part[i] = 0xFFFFFFFFu;
  if (get_sub_group_local_id() >= 3) part[i] = as_uint(sub_group_scan_exclusive_add(v));
}
"""
N, L = 32, 16
POS, NEG = 0x00000000, 0x80000000


@functools.cache
def module() -> Module:
    return read(sgvm.compile(SOURCE, "-cl-std=CL2.0"))


def _run(x: np.ndarray, device) -> list[np.ndarray]:
    kinds = [np.uint32, np.uint64, np.uint16, np.uint32, np.uint64, np.uint32, np.uint32]
    allocs = [Allocation(x.view(np.uint8).copy(), "global", "x")] + [
        Allocation(np.zeros(N * np.dtype(k).itemsize, np.uint8), "global", f"o{j}")
        for j, k in enumerate(kinds)]
    launch(module(), "scans", [BufferArg(a) for a in allocs], NDRange((N,), (L,)), device=device)
    for a in allocs:
        residency.host_access(a)
    return [a.data.view(k).copy() for a, k in zip(allocs[1:], kinds, strict=True)]


@pytest.mark.parametrize("device", DEVICES)
def test_exclusive_add_of_negative_zeros(device) -> None:
    sg_f, sg_d, sg_h, wg_f, wg_d, red, part = _run(np.full(N, -0.0, np.float32), device)
    lane, local = np.arange(N) % 8, np.arange(N) % L
    np.testing.assert_array_equal(sg_f, np.where(lane == 0, POS, NEG))
    np.testing.assert_array_equal(sg_d, np.where(lane == 0, np.uint64(0), np.uint64(1 << 63)))
    np.testing.assert_array_equal(sg_h, np.where(lane == 0, 0, 0x8000))
    np.testing.assert_array_equal(wg_f, np.where(local == 0, POS, NEG))
    np.testing.assert_array_equal(wg_d, np.where(local == 0, np.uint64(0), np.uint64(1 << 63)))
    np.testing.assert_array_equal(red, np.full(N, NEG))
    # Lanes 3..7 active: lane 3 has no active lane before it.
    np.testing.assert_array_equal(part, np.where(lane < 3, 0xFFFFFFFF,
                                                 np.where(lane == 3, POS, NEG)))


@pytest.mark.parametrize("device", DEVICES)
def test_exclusive_add_sums_in_order(device) -> None:
    x = np.random.default_rng(5).standard_normal(N).astype(np.float32)
    sg_f, *_ = _run(x, device)
    want = np.zeros(N, np.float32)
    for g in range(0, N, 8):
        acc = None
        for k in range(8):
            want[g + k] = 0.0 if acc is None else acc
            acc = x[g + k] if acc is None else np.float32(acc + x[g + k])
    np.testing.assert_array_equal(sg_f, want.view(np.uint32))
