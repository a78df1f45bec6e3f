"""Uniform loops that the native backend runs sub-group by sub-group, each sub-group to the
loop's end (docs/native.md, "Uniform loops"): a block that branches back to itself on a
value every lane holds alike and writes no memory another lane sees. Expectations are
computed with NumPy from the sub-group mapping of helpers.py; every test runs on both
backends (the differential suite).

* the shuffle GEMM of examples/ (each lane's row element broadcast from lane ``j``, a
  uniform loop counter) at sub-group sizes 8, 16 and 32, work-groups of one and two rows,
  run alone and several together (the loop runs by chunks of 128 lanes, ``SG_CH``, where
  rows hold whole chunks);
* a loop with a sub-group reduction reading local memory after a barrier;
* a read that leaves the buffer at a late iteration in an early sub-group and at an early
  iteration in a late one (the loop then runs step by step, which reports it); a read
  whose ``ushort`` index wraps around, inside the buffer at the first, second and last
  iteration and outside it in between; the step budget, one short of the loop's steps and
  exactly enough;
* loops that must run step by step: a store in the loop, an exit that differs per lane.
"""

import numpy as np
import pytest

from engine import harness
from engine.harness import NativeRuns
from sgvm import KernelMemoryError, KernelTimeout
from sgvm.engine.native import backend as native_backend

from .helpers import SIZES, build, run

SOURCE = r"""
#define REQ __attribute__((intel_reqd_sub_group_size(SG)))

REQ kernel void gemm(global const float *A, global const float *B, global float *C, int N,
                     int K) {
  int col = get_global_id(0), row0 = get_global_id(1) * 2, lane = get_sub_group_local_id();
  float acc0 = 0.0f, acc1 = 0.0f;
  for (int k0 = 0; k0 < K; k0 += SG) {
    float a0 = A[row0 * K + k0 + lane], a1 = A[(row0 + 1) * K + k0 + lane];
    for (int j = 0; j < SG; ++j) {
      float b = B[(k0 + j) * N + col];
      acc0 += intel_sub_group_shuffle(a0, j) * b;
      acc1 += intel_sub_group_shuffle(a1, j) * b;
    }
  }
  C[row0 * N + col] = acc0;
  C[(row0 + 1) * N + col] = acc1;
}

REQ kernel void tiles(global const float *in, global float *out, int n) {
  local float t[128];
  size_t l = get_local_id(0), m = get_local_size(0);
  t[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  float acc = 0.0f;
  for (int k = 0; k < n; k++)
    acc = acc * 0.5f + t[(l + k) % m] + sub_group_reduce_max(t[l] * (float)k);
  out[get_global_id(0)] = acc;
}

REQ kernel void walk(global const int *in, global int *out, int n) {
  int i = get_global_id(0), acc = 0;
  for (int k = 0; k < n; k++) acc = acc * 3 + in[i + 16 * k] + intel_sub_group_shuffle(acc, 1);
  out[i] = acc;
}

REQ kernel void wraps(global const int *in, global int *out, ushort base, ushort step, int n) {
  int i = get_global_id(0), acc = 0;
  ushort at = base;
  for (int k = 0; k < n; k++) { acc = acc * 3 + in[at + i] + intel_sub_group_shuffle(acc, 1); at += step; }
  out[i] = acc;
}

REQ kernel void spin(global const int *in, global int *out, int n) {
  int i = get_global_id(0), acc = 0;
  for (int k = 0; k < n; k++) acc = acc * 3 + in[i + (k & 7)] + intel_sub_group_shuffle(acc, 1);
  out[i] = acc;
}

REQ kernel void folds(global const int *in, global int *out, int n) {
  int i = get_global_id(0), acc = in[i];
  for (int k = 0; k < n; k++)
    acc = sub_group_reduce_max(acc) - sub_group_scan_inclusive_add(acc) + sub_group_broadcast(acc, k % SG) + k;
  out[i] = acc;
}

REQ kernel void vectors(global const int2 *in, global int2 *out, int n) {
  int i = get_global_id(0);
  int2 acc = in[i];
  for (int k = 0; k < n; k++)
    acc = acc * 3 + intel_sub_group_shuffle(acc, (k * 3) % SG) + (int2)(k, -k);
  out[i] = acc;
}

REQ kernel void stores(global int *out, int n) {
  int i = get_global_id(0), acc = 0;
  for (int k = 0; k < n; k++) { acc += intel_sub_group_shuffle(acc, 1) + k; out[i * n + k] = acc; }
}

REQ kernel void own_trips(global const int *in, global int *out) {
  int i = get_global_id(0), acc = 0, k = 0;
  do { acc = acc * 2 + in[i] + k; k++; } while (k < in[i]);
  out[i] = acc;
}
"""


@pytest.fixture(scope="module", params=SIZES)
def sized(request):
    S = request.param
    return S, build(SOURCE, f"-cl-std=CL2.0 -DSG={S}")


def _lanes(S: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each lane's sub-group's first lane and its own place in it (1-D, full sub-groups)."""
    i = np.arange(n)
    return i - i % S, i % S


@pytest.mark.parametrize("ls, by_chunks", [((0, 1), True), ((64, 1), True), ((0, 2), False)])
@pytest.mark.parametrize("bounds", ["1", "0"])
def test_shuffle_gemm(sized, backend, monkeypatch, ls, by_chunks, bounds):
    """``C = A @ B`` with lane ``j``'s element of A's row broadcast by the shuffle; work-groups
    of one sub-group and of 64 lanes (run together, 256 lanes at a time: chunks of 128
    lanes), and of one sub-group per row over two rows (rows narrower than a chunk: the
    loop runs step by step); checks on and off (at sub-group size 8 clang unrolls the inner
    loop, and the outer one, reading the sub-group local id, runs by chunks)."""
    S, m = sized
    monkeypatch.setenv("SGVM_BOUNDS", bounds)
    M, N, K = 8, 256, 2 * S
    rng = np.random.default_rng(S)
    A = rng.integers(-4, 5, (M, K)).astype(np.float32)
    B = rng.integers(-4, 5, (K, N)).astype(np.float32)
    local = (ls[0] or S, ls[1])
    with NativeRuns(backend, m, "sg_looped_runs") as looped:
        (_, _, C), _ = run(m, "gemm", [A, B, np.zeros((M, N), np.float32), np.int32(N),
                                       np.int32(K)], (N, M // 2), local)
    np.testing.assert_array_equal(C, A @ B)  # small integers: exact in any order
    if looped.native:
        assert (looped.count > 0) == by_chunks


@pytest.mark.parametrize("m_lanes", [128, 96])
def test_sub_group_reduction_over_local_memory(sized, backend, m_lanes):
    S, m = sized
    x = np.random.default_rng(7).integers(-8, 9, 2 * m_lanes).astype(np.float32)
    n = 5
    (_, got), _ = run(m, "tiles", [x, np.zeros_like(x), np.int32(n)], (2 * m_lanes,), (m_lanes,))
    want = np.zeros_like(x)
    for g in range(2):
        t = x[g * m_lanes:(g + 1) * m_lanes]
        first, _ = _lanes(S, m_lanes)
        acc = np.zeros(m_lanes, np.float32)
        for k in range(n):
            red = np.array([(t[f:f + S] * np.float32(k)).max() for f in first], np.float32)
            acc = acc * np.float32(0.5) + t[(np.arange(m_lanes) + k) % m_lanes] + red
        want[g * m_lanes:(g + 1) * m_lanes] = acc
    np.testing.assert_array_equal(got, want)


def _walk(S: int, x: np.ndarray, n: int, lanes: int) -> np.ndarray:
    acc = np.zeros(lanes, np.int64)
    first, lane = _lanes(S, lanes)
    for k in range(n):
        acc = (acc * 3 + x[np.arange(lanes) + 16 * k] + acc[first + (1 % S)]) % 2**32
    return acc.astype(np.uint32).view(np.int32)


@pytest.mark.parametrize("bounds", ["1", "0"])
def test_walk_results(sized, backend, monkeypatch, bounds):
    """Checks on and off (``SGVM_BOUNDS=0``: no pre-pass; the loop still runs by sub-group)."""
    S, m = sized
    monkeypatch.setenv("SGVM_BOUNDS", bounds)
    x = np.arange(128 + 16 * 6, dtype=np.int32) * 7 % 23
    with NativeRuns(backend, m, "sg_looped_runs") as looped:
        (_, got), _ = run(m, "walk", [x, np.zeros(128, np.int32), np.int32(7)], (128,), (128,))
    np.testing.assert_array_equal(got, _walk(S, x, 7, 128))
    if looped.native:
        assert looped.count > 0


@pytest.mark.parametrize("bounds", ["1", "0"])
def test_collectives_in_the_loop(sized, backend, monkeypatch, bounds):
    """A reduction, a scan and a broadcast from the lane the counter names, each iteration,
    over 256 lanes (two chunks of 128)."""
    S, m = sized
    monkeypatch.setenv("SGVM_BOUNDS", bounds)
    x = np.random.default_rng(S).integers(-50, 50, 256).astype(np.int64)
    n = 5
    with NativeRuns(backend, m, "sg_looped_runs") as looped:
        (_, got), _ = run(m, "folds", [x.astype(np.int32), np.zeros(256, np.int32), np.int32(n)],
                          (256,), (256,))
    acc = x.copy()
    g = acc.reshape(-1, S)
    for k in range(n):
        g = acc.reshape(-1, S)
        acc = (g.max(axis=1)[:, None] - np.cumsum(g, axis=1) + g[:, k % S][:, None] + k).ravel()
    np.testing.assert_array_equal(got, acc.astype(np.int32))
    if looped.native:
        assert looped.count > 0


@pytest.mark.parametrize("items", [384, 320])
def test_vector_values_and_a_smaller_last_group(sized, backend, items):
    """An ``int2`` accumulator and its shuffle; work-groups of 256 lanes and a last one of
    128 (chunks) or 64 (rows narrower than a chunk: step by step)."""
    S, m = sized
    x = np.random.default_rng(items).integers(-9, 9, (items, 2)).astype(np.int64)
    n = 6
    with NativeRuns(backend, m, "sg_looped_runs") as looped:
        (_, got), _ = run(m, "vectors", [x.astype(np.int32), np.zeros((items, 2), np.int32),
                                         np.int32(n)], (items,), (256,))
    acc = x.copy()
    first, _ = _lanes(S, items)
    for k in range(n):
        acc = (acc * 3 + acc[first + k * 3 % S] + [k, -k]) % 2**32
    np.testing.assert_array_equal(got, acc.astype(np.uint32).view(np.int32))
    if looped.native:
        assert looped.count > 0


@pytest.mark.parametrize("own_record", [False, True])
def test_fault_at_the_earliest_step(sized, backend, monkeypatch, own_record):
    """Lane ``i`` reads ``in[i + 16k]`` of 181 elements: lanes 117 to 127 leave it first, at
    k = 4, the first sub-group's lanes from 5 on at k = 11, each at byte offset 724. The
    NumPy engine names the lowest work-item of the earliest faulting step, 117; the native
    backend's own record (``own_record``: without the re-run on the NumPy engine) keeps the
    lowest of every faulting work-item, 5 (docs/native.md, "Memory errors")."""
    S, m = sized
    if own_record and backend != "native":
        pytest.skip("the native backend's own record")
    if own_record:
        monkeypatch.setattr(native_backend, "_explain", lambda request: None)
    item = 5 if own_record or harness.on_cuda() else 117  # (CUDA: its own record)
    with pytest.raises(KernelMemoryError, match=rf"byte offset 724 .*global id \({item},\)"):
        run(m, "walk", [np.ones(181, np.int32), np.zeros(128, np.int32), np.int32(12)],
            (128,), (128,))


def test_fault_between_the_iterations_tested(sized, backend):
    """``in[at + i]``, ``at`` a ``ushort`` from 10 by 1024 over 65 iterations: 10, 1034, then
    2058 (outside the 1200 elements: every lane faults at k = 2), …, and 10 again at the
    last (1024 * 64 = 2^16); 128 lanes, a chunk (``SG_CH``). The native pre-pass tests the
    loop's addresses at its first, second and last iteration only, with the widened
    index's progression, which wraps (iterations.py): it must send the loop step by step,
    which reports the fault. (CUDA names the allocation nearest the address, 3.4 KiB past
    ``in``: the one after it where the device placed ``out`` there.)"""
    S, m = sized
    args = [np.ones(1200, np.int32), np.zeros(128, np.int32), np.uint16(10), np.uint16(1024),
            np.int32(65)]
    where = r"byte offset \d+ .*" if harness.on_cuda() else r"byte offset 8232 of argument #0 .*"
    with pytest.raises(KernelMemoryError, match=where + r"global id \(0,\)"):
        run(m, "wraps", args, (128,), (128,))


def test_step_budget(sized, backend, monkeypatch):
    """The entry block, the loop's preheader, its 20 iterations and the exit: 23 steps."""
    S, m = sized
    x = np.arange(128 + 16 * 20, dtype=np.int32) % 5
    args = [x, np.zeros(128, np.int32), np.int32(20)]
    monkeypatch.setenv("SGVM_MAX_STEPS", "22")
    if not harness.on_cuda():  # (CUDA counts the loop's 20 back-edges per work-item)
        with pytest.raises(KernelTimeout):
            run(m, "walk", args, (128,), (128,))
    with pytest.raises(KernelTimeout):  # 2^30 iterations: stopped at the budget, not run
        run(m, "spin", [x, np.zeros(128, np.int32), np.int32(1 << 30)], (128,), (128,))
    monkeypatch.setenv("SGVM_MAX_STEPS", "23")
    with NativeRuns(backend, m, "sg_looped_runs") as looped:
        (_, got), _ = run(m, "walk", args, (128,), (128,))
    np.testing.assert_array_equal(got, _walk(S, x, 20, 128))
    if looped.native:
        assert looped.count > 0


def test_loops_that_run_step_by_step(sized, backend):
    """A store in the loop (each lane's own elements) and a loop whose lanes leave at their
    own iterations."""
    S, m = sized
    n = 6
    with NativeRuns(backend, m, "sg_looped_runs") as looped:
        (out,), _ = run(m, "stores", [np.zeros(64 * n, np.int32), np.int32(n)], (64,), (64,))
        trips = np.arange(64, dtype=np.int32) % 4 + 1
        (_, got), _ = run(m, "own_trips", [trips, np.zeros(64, np.int32)], (64,), (64,))
    acc = np.zeros(64, np.int64)
    first, _ = _lanes(S, 64)
    want = np.zeros((64, n), np.int64)
    for k in range(n):
        acc = acc + acc[first + (1 % S)] + k
        want[:, k] = acc
    np.testing.assert_array_equal(out, want.ravel().astype(np.int32))
    want = [0] * 64
    for i, t in enumerate(trips):
        for k in range(t):
            want[i] = want[i] * 2 + int(t) + k
    np.testing.assert_array_equal(got, want)
    assert looped.count == 0
