"""Addresses the pre-pass found affine in a row, computed once at the row's first lane and
stepped in the lane loop (``lanes.starts``), and values computed from a block's work-group
scalars computed again in each segment of the block that uses them (``segmentation
.classify``): docs/native.md, "The code it generates". Expectations from NumPy; every test
runs on both backends.

* ``int`` indices (a sign extension in every address) with steps 1, 2, 3 and -1 over 2-D
  work-groups with a smaller last one, and an index that wraps inside a row (the
  pre-pass sees the wrap: the checked loop runs and names the work-item);
* a loop counter's multiples used by a load and by a store after a barrier in the same
  block, and carried out of the loop by a phi.
"""

import numpy as np
import pytest

from sgvm import KernelMemoryError
from sgvm.engine.native.render import Renderer

from .harness import O2, build, run

SRC = r"""
kernel void strides(global const float *a, global float *b, int w, int base) {
  int x = get_global_id(0), y = get_global_id(1);
  int i = y * w + x;
  b[2 * i + 1] = a[3 * i + base] + a[base + w * 3 * 8 - i];
}

kernel void strides_from(global const float *a, global float *b, int w, int cut) {
  int x = get_global_id(0), y = get_global_id(1);
  int i = y * w + x;
  if (get_local_linear_id() >= cut) b[2 * i + 1] = a[3 * i + 5] * 2.0f;
}

kernel void wrap(global const int *a, global int *b, char c) {
  int x = get_global_id(0);
  b[x] = a[(char)(x + c)];
}

kernel void counter(global const float *x, global float *y, int n) {
  local float t[64];
  int l = get_local_id(0), g = get_group_id(0);
  float keep = -1.0f;
  for (int k = 0; k < n; k++) {
    int off = (g * n + k) * 64 + l;
    t[l] = x[off];
    barrier(CLK_LOCAL_MEM_FENCE);
    y[off] = t[63 - l] + keep;
    keep = (float)off;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  y[get_num_groups(0) * n * 64 + g * 64 + l] = keep;
}
"""


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


def test_int_indices_step_from_the_first_lane(module):
    """Rows of 8 lanes, 3 rows of work-groups of (8, 3) with a last one of (5, 2)."""
    w, h, base = 21, 8, 40
    a = np.arange(base + 3 * w * 8 + 8, dtype=np.float32) * 0.5
    b = np.full(2 * w * h + 2, -1, np.float32)
    (_, got), _ = run(module, "strides", [a, b, np.int32(w), np.int32(base)], (w, h), (8, 3))
    i = np.arange(w * h)
    want = b.copy()
    want[2 * i + 1] = a[3 * i + base] + a[base + w * 24 - i]
    np.testing.assert_array_equal(got, want)
    source, _ = Renderer(module, 16).render()
    assert "(sg_a" in source and "(s64)(sg_x - sg_xa) * 12)" in source  # a[3 * i + base]


@pytest.mark.parametrize("cut", [0, 13, 23])
def test_a_run_starting_inside_a_row(module, cut):
    """The lanes from local linear id ``cut`` on run the store: in work-groups of (8, 3) the
    run starts at lane 5 of the second row for 13, at the last lane for 23."""
    w, h = 16, 6
    a = np.arange(3 * w * h + 8, dtype=np.float32)
    b = np.full(2 * w * h, -1, np.float32)
    (_, got), _ = run(module, "strides_from", [a, b, np.int32(w), np.int32(cut)], (w, h), (8, 3))
    x, y = np.meshgrid(np.arange(w), np.arange(h))
    i = (y * w + x).ravel()
    on = ((y % 3) * 8 + x % 8).ravel() >= cut
    want = b.copy()
    want[2 * i[on] + 1] = a[3 * i[on] + 5] * 2
    np.testing.assert_array_equal(got, want)


def test_an_index_wrapping_inside_a_row_is_checked(module):
    """``(char)(x + 120)`` wraps to -128 at lane 8 of the row: that lane reads before the
    buffer (the pre-pass's test of the extension fails and the checked loop names it),
    where stepping from lane 0 would read element 128, inside it."""
    a = np.arange(136, dtype=np.int32)
    with pytest.raises(KernelMemoryError, match=r"global id \(8,\)"):
        run(module, "wrap", [a, np.zeros(16, np.int32), np.int8(120)], (16,), (16,))
    (_, got), _ = run(module, "wrap", [a, np.zeros(16, np.int32), np.int8(100)], (16,), (16,))
    np.testing.assert_array_equal(got, np.arange(100, 116))


@pytest.mark.parametrize("n", [1, 3])
def test_loop_counter_multiples_across_a_barrier(module, n):
    groups = 3
    x = np.random.default_rng(n).integers(-9, 9, groups * n * 64).astype(np.float32)
    y = np.zeros(groups * n * 64 + groups * 64, np.float32)
    (_, got), _ = run(module, "counter", [x, y, np.int32(n)], (groups * 64,), (64,))
    want = y.copy()
    l = np.arange(64)
    for g in range(groups):
        keep = np.full(64, -1, np.float32)
        for k in range(n):
            off = (g * n + k) * 64 + l
            want[off] = x[off][63 - l] + keep
            keep = off.astype(np.float32)
        want[groups * n * 64 + g * 64 + l] = keep
    np.testing.assert_array_equal(got, want)
