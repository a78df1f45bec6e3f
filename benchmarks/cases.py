"""The OpenCL C kernels and launch helpers the benchmarks share.

``engine_bench.py`` and ``check_bench.py`` time these kernels;
``tests/engine/test_kernels.py`` checks the same sources against NumPy (it loads
this file by path). ``MATMUL`` tiles by ``TILE`` (default 16): define it first for
another tile size.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from sgvm.runtime.args import BufferArg, KernelArg, LocalArg, ValueArg
from sgvm.runtime.memory import Allocation, zeroed

VADD = r"""
kernel void vadd(global const float* a, global const float* b, global float* c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}
"""

LOOP100 = r"""
kernel void loop100(global float* x) {
  size_t i = get_global_id(0);
  float v = x[i];
  for (int k = 0; k < 100; k++) v = v * 0.999f + 0.5f;
  x[i] = v;
}
"""

REDUCE = r"""
kernel void reduce(global const float* in, global float* out, local float* tmp) {
  size_t l = get_local_id(0), n = get_local_size(0);
  tmp[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t s = n / 2; s > 0; s >>= 1) {
    if (l < s) tmp[l] += tmp[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}
"""

MATMUL = r"""
#ifndef TILE
#define TILE 16
#endif
kernel void matmul(global const float* A, global const float* B, global float* C, int N) {
  local float As[TILE][TILE], Bs[TILE][TILE];
  int r = get_global_id(1), c = get_global_id(0);
  int lr = get_local_id(1), lc = get_local_id(0);
  float acc = 0.0f;
  for (int t = 0; t < N / TILE; t++) {
    As[lr][lc] = A[r * N + t * TILE + lc];
    Bs[lr][lc] = B[(t * TILE + lr) * N + c];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < TILE; k++) acc += As[lr][k] * Bs[k][lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  C[r * N + c] = acc;
}
"""

SUBGROUP = r"""
kernel void subgroup(global const uint* in, global uint* out) {
  size_t i = get_global_id(0);
  uint x = intel_sub_group_block_read(in + (i - get_sub_group_local_id()));
  uint y = intel_sub_group_shuffle_down(x, x, 1u);
  out[i] = sub_group_reduce_add(y) + x;
}
"""


def sgvm_args(args: Sequence[Any]) -> list[KernelArg]:
    """Kernel arguments from ndarrays (copied into buffers), ``("local", nbytes)`` and
    NumPy scalars (by value)."""
    out: list[KernelArg] = []
    for a in args:
        if isinstance(a, tuple):
            out.append(LocalArg(a[1]))
        elif isinstance(a, np.ndarray):
            raw = zeroed(a.nbytes)  # aligned as sgvm.cl's buffers are
            raw[:] = np.ascontiguousarray(a).view(np.uint8).reshape(-1)
            out.append(BufferArg(Allocation(raw, "global")))
        else:
            out.append(ValueArg(np.asarray(a).tobytes()))
    return out


def best_time(fn: Callable[[], object], repeat: int) -> float:
    """The shortest wall-clock time of ``repeat`` calls of ``fn``."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best
