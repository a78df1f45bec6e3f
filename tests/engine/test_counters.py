"""Each lane's block counter (docs/native.md, "The code it generates"): loops of per-lane
trip counts that split the lanes after branches on work-group scalars, in and out of
sub-group regions, each lane running exactly its own iterations, on both backends against
NumPy. A native scheduler that skipped the counters of steps leaving every lane at one
block ("Eighth round", not kept) failed these where a region's block started from counters
it had not written. A step that runs every lane through a branch all decide alike writes
no counter (counters.py): the kernels of ``left`` check the steps that ran only some lanes
(the others returned, or wait elsewhere), which write their lanes' counters after the lane
loops, and the blocks that read counters left unwritten (a block looping on itself)."""

import numpy as np
import pytest

from .harness import O2, Local, build, run

pytestmark = pytest.mark.usefixtures("runs_natively")

SRC = r"""
kernel void twice(global const int *n, global const int *v, global int *out, int go) {
  int l = get_global_id(0), a = 0, b = 0;
  if (go > 0) {                      // a work-group scalar: every lane one way
    int k = 0;                       // per-lane trips in a block that loops on itself
    do a += v[(l + k) & 63]; while (++k < n[l]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (go > 1) {
    int k = n[l];                    // other per-lane trips, after the lanes met again
    do b += v[(l * 3 + k) & 63]; while (++k < 7);
  }
  out[l] = a * 100 + b;
}

kernel void left(global const int *n, global const int *v, global int *out, int go,
                 global int *count) {
  int l = get_global_id(0), a = 0;
  if (n[l] == 0) { out[l] = -1; return; }  // some lanes end here (with n == 0)
  if (go > 0) atomic_inc(count);           // a branch on an argument: all lanes alike
  int k = 0;                               // per-lane trips in a block that loops on itself
  do { a += v[(k + 2 * l) & 63]; atomic_inc(count); } while (++k < n[l]);
  if (v[l & 63] > 0) { a = a * 3 + n[l]; atomic_inc(count); }  // lanes apart
  if (l % 64 < 20) { a = a * 5 + 1; atomic_inc(count); }       // a run of lanes
  out[l] = a;                              // (atomics: the work-group's scheduler runs it)
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void split(global int *out, int a, int b, int nk, local int *acc) {
  int l = get_local_id(0), k = 0;
  acc[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int t = a; k < nk; t += b, k++) {  // the lanes below t, then the others
    if (l < t) acc[l] += 1 << k; else acc[l] -= k;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = acc[l];
}

__attribute__((intel_reqd_sub_group_size(16)))
kernel void split_collective(global int *out, int a, int b, int nk, local int *acc) {
  int l = get_local_id(0), k = 0;
  acc[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int t = a; k < nk; t += b, k++) {  // a collective reads which lanes run
    if (l < t) acc[l] += sub_group_non_uniform_reduce_add(1) << (4 * (k & 3));
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = acc[l];
}

__attribute__((intel_reqd_sub_group_size(8)))
kernel void regions(global const int *n, global const int *v, global int *out, int go) {
  int l = get_global_id(0), a = 0, t = 0;
  if (go > 0) {
    int k = 0;
    do a += v[(l + k) & 63]; while (++k < n[l]);
  }
  int s = sub_group_reduce_add(a);   // every lane of the sub-group back
  int k = 0;
  do t += v[(l + 5 * k) & 63] + s % 3; while (++k <= n[l]);
  out[l] = s * 1000 + a * 10 + sub_group_scan_inclusive_add(t);
}
"""


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


def _trips(size: int) -> np.ndarray:
    return np.random.default_rng(7).integers(1, 7, size).astype(np.int32)


V = np.random.default_rng(8).integers(-50, 50, 64).astype(np.int32)


def _sums(n: np.ndarray, first, last, at) -> np.ndarray:
    """Per lane l: the sum of V[at(l, k)] for k from first(l) to last(l) (inclusive)."""
    return np.array([sum(int(V[at(i, k) & 63]) for k in range(first(i), last(i) + 1))
                     for i in range(n.size)], np.int64)


@pytest.mark.parametrize("go", [0, 1, 2])
def test_loops_of_per_lane_trips_after_uniform_branches(module, go):
    n = _trips(128)
    (*_, got), _ = run(module, "twice", [n, V, np.zeros(128, np.int32), np.int32(go)], 128, 64)
    a = _sums(n, lambda i: 0, lambda i: n[i] - 1, lambda i, k: i + k) if go > 0 else 0
    b = _sums(n, lambda i: n[i], lambda i: 6, lambda i, k: i * 3 + k) if go > 1 else 0
    np.testing.assert_array_equal(got, a * 100 + b)


@pytest.mark.parametrize("go", [0, 1])
def test_sub_group_regions_after_uniform_branches(module, go):
    """Loops of per-lane trips between sub-group functions, which every lane of the
    sub-group reaches together."""
    n = _trips(64)
    (*_, got), _ = run(module, "regions", [n, V, np.zeros(64, np.int32), np.int32(go)], 64, 32)
    a = _sums(n, lambda i: 0, lambda i: n[i] - 1, lambda i, k: i + k) if go > 0 else \
        np.zeros(64, np.int64)
    s = np.repeat(a.reshape(-1, 8).sum(axis=1), 8)
    t = _sums(n, lambda i: 0, lambda i: n[i], lambda i, k: i + 5 * k) + (n + 1) * np.fmod(s, 3)
    scan = t.reshape(-1, 8).cumsum(axis=1).reshape(-1)
    np.testing.assert_array_equal(got, s * 1000 + a * 10 + scan)


@pytest.mark.parametrize("go", [0, 1])
@pytest.mark.parametrize("ends", ["none", "apart", "last"])
def test_alike_branches(module, go, ends):
    """Blocks whose lanes all take one edge, run by every lane (then a block looping on
    itself reads the counters, which must be written first), by lanes apart and by a run of
    lanes, with no lane returned, lanes apart returned, or the last 16 of each work-group."""
    n = np.random.default_rng(9).integers(0 if ends == "apart" else 1, 7, 128).astype(np.int32)
    if ends == "last":
        n[np.arange(128) % 64 >= 48] = 0
    (*_, got, count), _ = run(module, "left", [n, V, np.zeros(128, np.int32), np.int32(go),
                                               np.zeros(1, np.int32)], 128, 64)
    want, atomics = [], 0
    for l, m in enumerate(n.tolist()):
        if m == 0:
            want.append(-1)
            continue
        a = sum(int(V[(k + 2 * l) & 63]) for k in range(m))
        atomics += (go > 0) + m
        if V[l & 63] > 0:
            a, atomics = a * 3 + m, atomics + 1
        if l % 64 < 20:
            a, atomics = a * 5 + 1, atomics + 1
        want.append(a)
    np.testing.assert_array_equal(got, np.array(want, np.int64).astype(np.int32))
    assert count[0] == atomics


@pytest.mark.parametrize("a, b", [(0, 5), (17, 9), (40, -13), (64, 0)])
def test_branches_on_the_local_id(module, a, b):
    """``if (l < t)`` whose lanes split in two runs (prefix.py): the lower run's block goes
    to a block other than the higher run's (the stale counters are written after it), or
    holds a collective (which reads them: the counters are written at the split)."""
    nk, size = 6, 128
    out = [np.zeros(size, np.int32), np.int32(a), np.int32(b), np.int32(nk), Local(256)]
    (got, *_), _ = run(module, "split", out, size, 64)
    (coll, *_), _ = run(module, "split_collective", out, size, 64)
    l = np.arange(size) % 64
    want, want_coll = np.zeros(size, np.int64), np.zeros(size, np.int64)
    for k in range(nk):
        below = l < a + k * b
        want += np.where(below, 1 << k, -k)
        active = below.reshape(-1, 16).sum(axis=1).repeat(16)  # the lanes of each sub-group
        want_coll += np.where(below, active << (4 * (k & 3)), 0)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(coll, want_coll)
