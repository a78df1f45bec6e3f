"""Whole kernels: local-memory reduction with barriers, atomic histogram, tiled
matrix multiply, prefix sum, bitonic sort, atomics of every kind. The reduction and
the matrix multiply are the benchmarks' own sources (benchmarks/cases.py)."""

import numpy as np
import pytest

from sgvm.runtime.device import CPU_DEVICE

from . import harness
from .harness import OPTS, Local, benchmark_cases, build, run

_CASES = benchmark_cases()

SRC = _CASES.REDUCE + "#define TILE 8\n" + _CASES.MATMUL + r"""
kernel void histogram(global const uchar* data, global uint* hist, int n) {
  local uint bins[16];
  int l = get_local_id(0);
  if (l < 16) bins[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int i = get_global_id(0); i < n; i += get_global_size(0))
    atomic_inc(&bins[data[i] & 15]);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l < 16) atomic_add(&hist[l], bins[l]);
}

kernel void scan(global const int* in, global int* out, local int* tmp) {
  int l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);
  tmp[l] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int d = 1; d < n; d <<= 1) {
    int v = l >= d ? tmp[l - d] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[l] += v;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[g] = tmp[l];
}

kernel void bitonic(global int* a, int j, int k) {
  uint i = get_global_id(0), ixj = i ^ j;
  if (ixj > i) {
    int x = a[i], y = a[ixj];
    bool up = (i & k) == 0;
    if ((up && x > y) || (!up && x < y)) { a[i] = y; a[ixj] = x; }
  }
}

kernel void atomics(global int* s, global uint* u, global long* w, global int* old) {
  int i = get_global_id(0);
  old[i] = atomic_add(&s[0], i);
  atomic_min(&s[1], 100 - i);
  atomic_max(&s[2], i * 3 - 50);
  atomic_or(&u[0], 1u << (i & 31));
  atomic_xor(&u[1], (uint)i);
  atomic_and(&u[2], ~(1u << (i & 7)));
  atomic_cmpxchg(&s[3], i - 1, i);
  atom_add(&w[0], (long)i << 33);
  atomic_sub(&u[3], 2u);
  atomic_fetch_max_explicit((volatile global atomic_int*)&s[4], i % 7, memory_order_relaxed,
                            memory_scope_device);
}
"""


@pytest.fixture(scope="module", params=OPTS)
def module(request):
    return build(SRC, request.param)


def test_reduction(module):
    x = np.random.default_rng(4).random(1024).astype(np.float32)
    (_, out), _ = run(module, "reduce", [x, np.zeros(16, np.float32), Local(64 * 4)], 1024, 64)
    np.testing.assert_allclose(out, x.reshape(16, 64).sum(axis=1), rtol=1e-5)


def test_histogram(module):
    data = np.random.default_rng(5).integers(0, 256, 5000).astype(np.uint8)
    (_, hist), _ = run(module, "histogram", [data, np.zeros(16, np.uint32), np.int32(5000)],
                       256, 64)
    np.testing.assert_array_equal(hist, np.bincount(data & 15, minlength=16))


def test_matmul(module):
    N = 32
    rng = np.random.default_rng(6)
    A = rng.random((N, N)).astype(np.float32)
    B = rng.random((N, N)).astype(np.float32)
    (_, _, C), _ = run(module, "matmul", [A, B, np.zeros((N, N), np.float32), np.int32(N)],
                       (N, N), (8, 8))
    np.testing.assert_allclose(C, A @ B, rtol=1e-5)


def test_prefix_sum(module):
    x = np.random.default_rng(7).integers(-100, 100, 256).astype(np.int32)
    (_, out), _ = run(module, "scan", [x, np.zeros(256, np.int32), Local(128 * 4)], 256, 128)
    np.testing.assert_array_equal(out, np.cumsum(x.reshape(2, 128), axis=1).reshape(-1))


def test_bitonic_sort(module):
    x = np.random.default_rng(8).integers(-1000, 1000, 128).astype(np.int32)
    buf = x.copy()
    from sgvm.runtime.args import BufferArg, ValueArg
    from sgvm.runtime.launch import launch
    from sgvm.runtime.memory import Allocation
    from sgvm.runtime.ndrange import NDRange
    alloc = Allocation(buf.view(np.uint8).copy(), "global", "a")
    k = 2
    while k <= 128:
        j = k // 2
        while j > 0:
            launch(module, "bitonic", [BufferArg(alloc), ValueArg(np.int32(j).tobytes()),
                                       ValueArg(np.int32(k).tobytes())], NDRange((128,), (32,)))
            j //= 2
        k *= 2
    np.testing.assert_array_equal(alloc.data.view(np.int32), np.sort(x))


def test_atomics(module):
    n = 100
    s = np.array([0, 1000, -1000, 0, -5], np.int32)
    u = np.array([0, 0, 0xFFFFFFFF, 1000], np.uint32)
    (s_out, u_out, w, old), _ = run(module, "atomics", [s, u, np.zeros(1, np.int64),
                                                         np.zeros(n, np.int32)], n, 20)
    i = np.arange(n)
    xor = 0
    for v in i:
        xor ^= int(v)
    # s[3]: the cmpxchg chain i-1 -> i completes only when work-items run in order (the
    # NumPy engine's order); OpenCL orders no atomics, and the GPU's order breaks the chain,
    # as the native backend's work-groups on several threads may.
    serial = harness.DEVICE is CPU_DEVICE
    s3 = n - 1 if serial else s_out[3]
    np.testing.assert_array_equal(s_out, [i.sum(), 100 - 99, 3 * 99 - 50, s3, 6])
    np.testing.assert_array_equal(u_out, [0xFFFFFFFF, xor, 0xFFFFFF00, 1000 - 2 * n])
    assert w[0] == (i.sum() << 33)
    if serial:
        np.testing.assert_array_equal(old, np.cumsum(i) - i)  # serial in work-item order
    else:  # some serial order: each old value is the sum of the work-items added before it
        order = np.argsort(old, kind="stable")
        np.testing.assert_array_equal(old[order], np.cumsum(i[order]) - i[order])
