"""Each lane's block counter (docs/native.md, "The code it generates"): loops of per-lane
trip counts that split the lanes after branches on work-group scalars, in and out of
sub-group regions, each lane running exactly its own iterations, on both backends against
NumPy. A native scheduler that skipped the counters of steps leaving every lane at one
block ("Eighth round", not kept) failed these where a region's block started from counters
it had not written."""

import numpy as np
import pytest

from .harness import O2, build, run

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
