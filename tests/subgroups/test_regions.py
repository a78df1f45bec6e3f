"""Loops and branches that the native backend runs bundle by bundle (docs/native.md,
"Sub-group regions"), against NumPy expectations computed from the sub-group mapping of
``helpers`` (run on both backends by the differential suite): trip counts that differ per
lane followed by sub-group collectives, collectives inside such loops, shuffles inside
loops (a GEMM), nested loops with breaks and early returns, sub-group sizes 8/16/32 and
partial sub-groups; atomics keep the work-group's lock-step order; a fault and a runaway
loop inside a loop are reported as before."""

import numpy as np
import pytest

from sgvm import KernelMemoryError, KernelTimeout
from sgvm.engine.common.block_order import block_order
from sgvm.engine.native import regions
from sgvm.engine.native.render import Renderer

from .helpers import DEVICE, GID, SHAPES, SIZES, assert_native, build, run, sub_groups, total

SOURCE = r"""
#pragma OPENCL EXTENSION cl_khr_subgroup_non_uniform_arithmetic : enable
#define REQ __attribute__((intel_reqd_sub_group_size(SG)))

REQ kernel void divergent_loop(global const uint *n, global uint *out, global uint *sums,
                               global uint *next) {
  size_t i = GID;
  uint acc = 0;
  for (uint k = 0; k < n[i]; k++) acc = acc * 5u + (k ^ (uint)i);  /* no closed form */
  out[i] = acc;
  sums[i] = sub_group_reduce_add(acc);
  next[i] = intel_sub_group_shuffle(acc, (get_sub_group_local_id() + 1) % get_sub_group_size());
}

REQ kernel void loop_collective(global const uint *n, global uint *out) {
  size_t i = GID;
  uint s = 0;
  for (uint k = 0; k < n[i]; k++) s += sub_group_non_uniform_reduce_add(k + (uint)i);
  out[i] = s;
}

REQ kernel void nested(global const int *n, global int *out, global uint *alive) {
  size_t i = GID;
  int m = n[i];
  if (m < 0) { out[i] = -1; return; }
  int s = 0;
  for (int a = 0; a < m; a++)
    for (int b = 0; b <= a; b++) { if (b == 3 && (i & 1)) break; s = s * 3 + a * b + 1; }
  out[i] = s;
  alive[i] = sub_group_non_uniform_reduce_add(1u);
}

REQ kernel void sg_gemm(global const float *A, global const float *B, global float *C, int K) {
  int col = get_global_id(0), row = get_global_id(1), N = get_global_size(0);
  int lane = get_sub_group_local_id();
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += SG) {
    float a = A[row * K + k0 + lane];
    for (int j = 0; j < SG; j++) acc += intel_sub_group_shuffle(a, j) * B[(k0 + j) * N + col];
  }
  C[row * N + col] = acc;
}

kernel void atomic_loop(global const uint *n, volatile global uint *counter, global uint *out) {
  size_t i = get_global_id(0);
  for (uint k = 0; k < n[0]; k++) out[k * get_global_size(0) + i] = atomic_inc(counter);
}

kernel void loop_fault(global const float *a, global const int *n, global float *out) {
  size_t i = get_global_id(0);
  float s = 0.0f;
  for (int k = 0; k < n[i]; k++) s += a[k];
  out[i] = s;
}

kernel void spin(volatile global int *out, global const int *n) {
  size_t i = get_global_id(0);
  for (int k = 0; k < n[i]; k++) out[i] += 1;
  while (i == 37 && out[i] != -1) out[i] += 2;
}
""".replace("GID", GID)
# work-groups of more lanes than one bundle (regions.BUNDLE), the last one non-uniform
BIG = {"big": ((600,), (300,)), "big-nonuniform": ((700,), (300,))}


@pytest.fixture(scope="module", params=SIZES)
def sized(request):
    S = request.param
    return S, build(SOURCE, f"-cl-std=CL2.0 -DSG={S}")


@pytest.mark.parametrize("shape", ["1d", "1d-partial", "1d-nonuniform", "2d", "3d", *BIG])
def test_divergent_loop_then_collectives(sized, shape):
    S, m = sized
    gs, ls = {**SHAPES, **BIG}[shape]
    n = np.random.default_rng(S).integers(0, 9, total(gs)).astype(np.uint32)
    zeros = np.zeros(total(gs), np.uint32)
    (_, out, sums, nxt), _ = run(m, "divergent_loop", [n, zeros, zeros, zeros], gs, ls)
    assert_native(m, "divergent_loop")
    acc = np.zeros(total(gs), np.uint32)
    for i, ni in enumerate(n):
        for k in range(ni):
            acc[i] = (int(acc[i]) * 5 + (k ^ i)) % 2**32
    np.testing.assert_array_equal(out, acc)
    for ids in sub_groups(gs, ls, S):
        np.testing.assert_array_equal(sums[ids], np.uint32(acc[ids].sum(dtype=np.uint64) % 2**32))
        np.testing.assert_array_equal(nxt[ids], np.roll(acc[ids], -1))


@pytest.mark.parametrize("shape", ["1d", "1d-nonuniform", "3d", "big-nonuniform"])
def test_collective_inside_divergent_loop(sized, shape):
    """At iteration k the lanes still looping (n > k) reduce together."""
    S, m = sized
    gs, ls = {**SHAPES, **BIG}[shape]
    n = np.random.default_rng(S + 1).integers(0, 7, total(gs)).astype(np.uint32)
    (_, out), _ = run(m, "loop_collective", [n, np.zeros(total(gs), np.uint32)], gs, ls)
    assert_native(m, "loop_collective")
    want = np.zeros(total(gs), np.uint64)
    for ids in sub_groups(gs, ls, S):
        for k in range(int(n[ids].max(initial=0))):
            active = ids[n[ids] > k]
            want[active] += np.uint64((k + active).sum())
    np.testing.assert_array_equal(out, (want % 2**32).astype(np.uint32))


def test_nested_loops_break_early_return(sized):
    S, m = sized
    gs, ls = SHAPES["1d-partial"]
    n = np.random.default_rng(S + 2).integers(-2, 8, total(gs)).astype(np.int32)
    (_, out, alive), _ = run(m, "nested", [n, np.zeros(total(gs), np.int32),
                                          np.zeros(total(gs), np.uint32)], gs, ls)
    assert_native(m, "nested")
    for i, mi in enumerate(n):
        s = 0
        for a in range(mi):
            for b in range(min(a, 2) + 1 if i & 1 else a + 1):
                s = (s * 3 + a * b + 1 + 2**31) % 2**32 - 2**31
        assert out[i] == (-1 if mi < 0 else s), i
    for ids in sub_groups(gs, ls, S):
        living = ids[n[ids] >= 0]
        np.testing.assert_array_equal(alive[living], len(living))


def test_shuffle_gemm(sized):
    S, m = sized
    M, N, K = 6, 3 * S, 4 * S
    rng = np.random.default_rng(S + 3)
    A = rng.standard_normal((M, K)).astype(np.float32)
    B = rng.standard_normal((K, N)).astype(np.float32)
    (_, _, C), _ = run(m, "sg_gemm", [A, B, np.zeros((M, N), np.float32), np.int32(K)],
                       (N, M), (S, 2))
    assert_native(m, "sg_gemm")
    np.testing.assert_allclose(C, A.astype(np.float64) @ B, rtol=1e-4, atol=1e-4)


def test_atomics_keep_lock_step(sized):
    """Each iteration's atomic_inc runs for all 512 work-items in order, as the NumPy
    engine's lock-step schedule has it (a block with an atomic is in no region; a region
    would run the work-group's first 256 lanes through all iterations first). On the CUDA
    device the GPU decides the order of atomics, so only the tickets are checked."""
    S, m = sized
    k, L = 3, 512
    (_, counter, out), _ = run(m, "atomic_loop", [np.array([k], np.uint32), np.zeros(1, np.uint32),
                                                  np.zeros(L * k, np.uint32)], (L,), (L,))
    assert_native(m, "atomic_loop")
    assert counter[0] == L * k
    if DEVICE.engine == "cuda":  # the GPU orders atomics (docs/cuda.md): each ticket once
        out = np.sort(out)
    np.testing.assert_array_equal(out, np.arange(L * k, dtype=np.uint32))


def test_fault_in_loop_reports_lowest_work_item(sized):
    S, m = sized
    n = np.full(64, 5, np.int32)
    n[[33, 20, 50]] = [11, 12, 10]  # a has 10 elements: work-items 20 and 33 read past it
    with pytest.raises(KernelMemoryError, match=r"global id \(20,\)"):
        run(m, "loop_fault", [np.ones(10, np.float32), n, np.zeros(64, np.float32)], (64,), (32,))
    (_, _, out), _ = run(m, "loop_fault", [np.ones(10, np.float32), np.minimum(n, 10),
                                          np.zeros(64, np.float32)], (64,), (32,))
    np.testing.assert_array_equal(out, np.minimum(n, 10))


def test_runaway_loop_times_out(sized, monkeypatch):
    """Work-item 37 spins forever after its loop (out[37] stays even, never -1)."""
    S, m = sized
    monkeypatch.setenv("SGVM_MAX_STEPS", "400")
    n = (np.arange(64) % 7).astype(np.int32)
    with pytest.raises(KernelTimeout, match="spin"):
        run(m, "spin", [np.zeros(64, np.int32), n], (64,), (64,))
    n[37] = 0  # out[37] stays -1: no spin, and the loops fit the budget
    (out, _), _ = run(m, "spin", [np.full(64, -1, np.int32), n], (64,), (64,))
    np.testing.assert_array_equal(out, n - 1)


def _regions(m, kernel: str, S: int) -> tuple[list, list[tuple[int, int]]]:
    r = Renderer(m, S)
    (ep,) = [e for e in r.m.entry_points if e.name == kernel]
    f = r.m.functions[ep.function]
    by_label = {b.label: b for b in f.blocks}
    blocks = [by_label[label] for label in block_order(f)]
    return blocks, regions.intervals(r, f, blocks)


def test_region_boundaries(sized):
    """The kernels above run their loops in regions (the loop of divergent_loop and its
    collectives make one region of the whole kernel); a block with an atomic is in none."""
    S, m = sized
    blocks, spans = _regions(m, "divergent_loop", S)
    assert spans == [(0, len(blocks) - 1)]
    for kernel in ("loop_collective", "nested", "sg_gemm", "loop_fault", "spin"):
        assert _regions(m, kernel, S)[1], kernel
    blocks, spans = _regions(m, "atomic_loop", S)
    atomic = [k for k, b in enumerate(blocks)
              if any(i.opname.startswith("OpAtomic") for i in b.instructions)]
    assert atomic and not any(lo <= k <= hi for lo, hi in spans for k in atomic)
