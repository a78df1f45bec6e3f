"""Branches on the local id against a value every lane holds alike (``if (l < s)``), which the
native backend runs without a loop over the lanes in one-dimensional work-groups
(engine/native/prefix.py): the lanes below the bound take one edge, the others the other.
Expectations are computed with NumPy; every test runs on both backends (the differential
suite), and on the native one checks where the path ran.

* ``<``, ``<=``, ``>``, ``>=``, the local id on either side, signed and unsigned, 32 and 64
  bits, bounds below zero, inside the work-group and past it (a negative ``int`` converted to
  ``uint`` or ``ulong`` is reduced modulo 2**32 or 2**64, C99 6.3.1.3, which OpenCL C's
  scalar conversions follow: every lane is below it);
* the tree reduction of the benchmarks (``size_t`` counters) and one with ``int`` counters,
  in work-groups of 256, 64 and 2 (the ``int`` one's first ``s`` is computed in a block of
  its own after the entry's ``n > 1``: a work-group scalar only since such a block stays out
  of the entry's lane loop, chains.py);
* a bound that is a kernel argument, negative, zero, inside the work-group, its size and past
  (its loop counter enters the loop from the empty block after ``nk > 0``, which stays out
  of the entry's lane loop so that the counter is a work-group scalar, chains.py);
* two-dimensional work-groups and work-groups of a size that is not a power of two, where
  lane and local id differ or the path does not apply: the same results.
"""

import numpy as np
import pytest

from engine.harness import Local, NativeRuns, benchmark_cases, build, run

# name → (the local id's type, the test in OpenCL C, the same in NumPy of l and t as Python
# ints). The last three reach clang's output in other shapes (a widened loop counter), which
# the path does not take (yet): they test the results only.
SPLITS = {
    "lt": ("int", "l < t", lambda l, t: l < t),
    "le": ("int", "l <= t", lambda l, t: l <= t),
    "gt_mirrored": ("int", "t > l", lambda l, t: t > l),
    "ge": ("int", "l >= t", lambda l, t: l >= t),
    "lt_uint": ("int", "(uint)l < (uint)t", lambda l, t: l < t % 2**32),
    "ge_ulong_mirrored": ("int", "(ulong)t >= (ulong)l", lambda l, t: t % 2**64 >= l),
    "lt_size_t": ("size_t", "l < (size_t)t", lambda l, t: l < t % 2**64),
    "le_long": ("long", "l <= (long)t", lambda l, t: l <= t),
}
NATIVE_PATH = {"lt", "le", "gt_mirrored", "ge", "lt_uint", "reduce", "tree_int"}
SOURCE = "".join(f"""
kernel void {name}(global int *out, int a, int b, int nk, local int *acc) {{
  {T} l = get_local_id(0);
  size_t me = get_local_id(1) * get_local_size(0) + get_local_id(0);
  acc[me] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  int k = 0;
  for (int t = a; k < nk; t += b, k++) {{
    if ({test}) acc[me] += 1 << k;
    barrier(CLK_LOCAL_MEM_FENCE);
  }}
  out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = acc[me];
}}
""" for name, (T, test, _) in SPLITS.items()) + benchmark_cases().REDUCE + r"""
kernel void below_argument(global int *out, long n, int nk, local int *acc) {
  long l = get_local_id(0);
  acc[l] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int k = 0; k < nk; k++) {
    if (l < n) acc[l] += 1 << k;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[get_global_id(0)] = acc[l];
}

kernel void tree_int(global const int *in, global int *out, local int *tmp) {
  int l = get_local_id(0), n = get_local_size(0);
  tmp[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = n / 2; s > 0; s >>= 1) {
    if (s > l) tmp[l] += tmp[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) out[get_group_id(0)] = tmp[0];
}
"""


@pytest.fixture(scope="module")
def module():
    return build(SOURCE, "-cl-std=CL2.0")


def _marks(test, lid: np.ndarray, a: int, b: int, nk: int) -> np.ndarray:
    """Each work-item's sum of ``1 << k`` over the ``k`` whose test holds."""
    out = np.zeros(lid.size, np.int64)
    for k in range(nk):
        out += np.where(test(lid.astype(object), a + k * b), 1 << k, 0).astype(np.int64)
    return out.astype(np.int32)


@pytest.mark.parametrize("name", SPLITS)
@pytest.mark.parametrize("a,b", [(-3, 37), (300, -41)])
def test_comparisons_of_the_local_id_in_one_dimension(module, backend, name, a, b):
    n, local, nk = 512, 256, 9  # bounds below 0, inside the work-group and past it
    with NativeRuns(backend, module, "sg_prefix_runs") as split:
        (out,), _ = run(module, name, [np.zeros(n, np.int32), np.int32(a), np.int32(b),
                                       np.int32(nk), Local(4 * local)], n, local)
    np.testing.assert_array_equal(out, _marks(SPLITS[name][2], np.arange(n) % local, a, b, nk))
    if split.native and name in NATIVE_PATH:
        assert split.count == 2 * nk, "every test of every work-group without lane loops"


@pytest.mark.parametrize("n", [-5, 0, 100, 256, 300])
def test_a_bound_that_is_an_argument(module, backend, n):
    size, local, nk = 512, 256, 5
    with NativeRuns(backend, module, "sg_prefix_runs") as split:
        (out,), _ = run(module, "below_argument", [np.zeros(size, np.int32), np.int64(n),
                                                   np.int32(nk), Local(4 * local)], size, local)
    np.testing.assert_array_equal(out, np.where(np.arange(size) % local < n, 2**nk - 1, 0))
    if split.native:
        assert split.count == 2 * nk


@pytest.mark.parametrize("name", ["lt", "ge_ulong_mirrored"])
@pytest.mark.parametrize("global_size,local_size", [((48, 8), (16, 4)), ((300,), (100,))])
def test_two_dimensions_and_other_sizes_agree(module, backend, name, global_size, local_size):
    rows = global_size[1] if len(global_size) > 1 else 1
    lid = np.tile(np.arange(global_size[0]) % local_size[0], rows)
    (out,), _ = run(module, name, [np.zeros(lid.size, np.int32), np.int32(-3), np.int32(7),
                                   np.int32(8), Local(4 * int(np.prod(local_size)))], global_size,
                    local_size)
    np.testing.assert_array_equal(out, _marks(SPLITS[name][2], lid, -3, 7, 8))


@pytest.mark.parametrize("kernel,dtype", [("reduce", np.float32), ("tree_int", np.int32)])
@pytest.mark.parametrize("local", [256, 64, 2])
def test_the_tree_reduction(module, backend, kernel, dtype, local):
    rng = np.random.default_rng(local)
    v = rng.integers(-50, 50, 4096).astype(dtype)  # small integers: exact in any order
    with NativeRuns(backend, module, "sg_prefix_runs") as split:
        (_, out), _ = run(module, kernel, [v, np.zeros(4096 // local, dtype), Local(4 * local)],
                          4096, local)
    np.testing.assert_array_equal(out, v.reshape(-1, local).sum(axis=1))
    if split.native and kernel in NATIVE_PATH:
        assert split.count == (4096 // local) * (local.bit_length() - 1)
