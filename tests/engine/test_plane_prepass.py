"""The pre-pass over a plane of whole rows (``lanes._corners``, docs/native.md, "Memory
errors"): an address affine along the row and across the rows is computed at the plane's
first lane and the first lane of its second row only, and its least and greatest corner
tested inside its object. Expectations from NumPy and hand-derived faulting work-items;
every test runs on both backends (the NumPy engine tests each lane).

* a copy in 2-D and 3-D work-groups, rows addressed upwards (a step across rows below zero)
  and with a last work-group smaller in both dimensions;
* a buffer one element short, so that only a corner never computed faults: the last lane
  of the last row reading past the end, or with rows addressed upwards the last lane of the
  first row;
* a ``char`` index that wraps inside the plane, at its fifth row, to before the buffer,
  where the linear function from the first two rows stays inside it: the extension's test
  fails, the checked loop runs and names the work-item;
* rows whose addresses are not linear in the row (``y * y``): they are tested row by row;
* rows whose step is not a multiple of the access's alignment, also where the plane's
  corners are aligned.
"""

import numpy as np
import pytest

from sgvm import KernelMemoryError
from sgvm.engine.native.render import Renderer

from .harness import O2, build, run

SRC = r"""
kernel void copy2d(global const float *a, global float *b, int w) {
  int x = get_global_id(0), y = get_global_id(1);
  b[y * w + x] = a[y * w + x] * 2.0f;
}

kernel void upwards(global const float *a, global float *b, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1);
  b[y * w + x] = a[(h - 1 - y) * w + x];
}

kernel void copy3d(global const float *a, global float *b, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  int i = (z * h + y) * w + x;
  b[i] = a[i] + 1.0f;
}

kernel void chars(global const int *a, global int *b, char c) {
  int x = get_global_id(0), y = get_global_id(1);
  b[y * 16 + x] = a[(char)(y * 8 + c) + x];
}

kernel void squares(global const int *a, global int *b) {
  int x = get_global_id(0), y = get_global_id(1);
  b[y * 16 + x] = a[y * y * 16 + x];
}

kernel void odd_rows(global const char *a, global int *b, int w) {
  int x = get_global_id(0), y = get_global_id(1);
  b[y * 16 + x] = ((global const int *)(a + y * w))[x];
}
"""


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


def test_the_plane_test_is_generated(module):
    source, _ = Renderer(module, 16).render("copy2d")
    assert "sg_whole && sg_yb - sg_ya >= 2" in source


@pytest.mark.parametrize("w, h, local", [(48, 32, (16, 16)), (37, 21, (16, 8))])
def test_copy_in_2d(module, w, h, local):
    a = np.random.default_rng(w).standard_normal(w * h).astype(np.float32)
    (_, got), _ = run(module, "copy2d", [a, np.zeros(w * h, np.float32), np.int32(w)],
                      (w, h), local)
    np.testing.assert_array_equal(got, a * 2)


def test_rows_addressed_upwards(module):
    w, h = 32, 32
    a = np.arange(w * h, dtype=np.float32)
    (_, got), _ = run(module, "upwards", [a, np.zeros(w * h, np.float32), np.int32(w),
                                          np.int32(h)], (w, h), (16, 16))
    np.testing.assert_array_equal(got, a.reshape(h, w)[::-1].ravel())


def test_copy_in_3d(module):
    w, h, d = 16, 8, 6
    a = np.arange(w * h * d, dtype=np.float32)
    (_, got), _ = run(module, "copy3d", [a, np.zeros(w * h * d, np.float32), np.int32(w),
                                         np.int32(h)], (w, h, d), (16, 4, 2))
    np.testing.assert_array_equal(got, a + 1)


def test_the_last_lane_of_the_plane_faults(module):
    """a is one float short: only work-item (47, 31), the far corner of the last
    work-group's plane, reads past it."""
    w, h = 48, 32
    a = np.zeros(w * h - 1, np.float32)
    with pytest.raises(KernelMemoryError, match=r"load .* argument #0 .* global id \(47, 31\)"):
        run(module, "copy2d", [a, np.zeros(w * h, np.float32), np.int32(w)], (w, h), (16, 16))


def test_the_last_store_of_the_plane_faults(module):
    w, h = 48, 32
    with pytest.raises(KernelMemoryError, match=r"store .* argument #1 .* global id \(47, 31\)"):
        run(module, "copy2d", [np.zeros(w * h, np.float32), np.zeros(w * h - 1, np.float32),
                               np.int32(w)], (w, h), (16, 16))


def test_rows_addressed_upwards_fault_at_the_first_row(module):
    """Row 0 reads the last row of a, one float short: its last lane, (31, 0), faults; the
    plane's greatest address is at that corner, not at the two lanes computed."""
    w, h = 32, 32
    with pytest.raises(KernelMemoryError, match=r"load .* argument #0 .* global id \(31, 0\)"):
        run(module, "upwards", [np.zeros(w * h - 1, np.float32), np.zeros(w * h, np.float32),
                                np.int32(w), np.int32(h)], (w, h), (16, 16))


def test_a_char_index_wrapping_at_the_fifth_row_is_checked(module):
    """``(char)(y * 8 + 100)`` is 100, 108, 116, 124, then -124 at row 4: that row reads
    before the buffer. From the first two rows the index would run linearly up to 235,
    inside a."""
    a = np.arange(256, dtype=np.int32)
    with pytest.raises(KernelMemoryError, match=r"load .* argument #0 .* global id \(0, 4\)"):
        run(module, "chars", [a, np.zeros(256, np.int32), np.int8(100)], (16, 16), (16, 16))
    (_, got), _ = run(module, "chars", [a, np.zeros(256, np.int32), np.int8(0)],
                      (16, 16), (16, 16))
    y, x = np.mgrid[0:16, 0:16]
    np.testing.assert_array_equal(got, a[(y * 8 + x).ravel()])


@pytest.mark.parametrize("rows", [16, 3])
def test_rows_of_a_step_not_a_multiple_of_the_alignment(module, rows):
    """Rows 18 bytes apart: the first row's ints are aligned, the second's are not (in
    planes of 3 rows, the first and last rows of each are: only the step says)."""
    a = np.arange(20 * 16 + 64, dtype=np.uint8)
    with pytest.raises(KernelMemoryError, match=r"misaligned load .* global id \(0, 1\)"):
        run(module, "odd_rows", [a, np.zeros(256, np.int32), np.int32(18)], (16, rows),
            (16, rows))
    (_, got), _ = run(module, "odd_rows", [a, np.zeros(256, np.int32), np.int32(20)],
                      (16, 16), (16, 16))
    y, x = np.mgrid[0:16, 0:16]
    np.testing.assert_array_equal(got, a[:20 * 15 + 64].view(np.int32)[(y * 5 + x).ravel()])


def test_rows_not_linear_are_tested_row_by_row(module):
    """``a[y * y * 16 + x]``: from the first two rows a linear function would stay inside a
    (up to element 255); row 4 reads element 256."""
    a = np.arange(256, dtype=np.int32)
    with pytest.raises(KernelMemoryError, match=r"load .* argument #0 .* global id \(0, 4\)"):
        run(module, "squares", [a, np.zeros(256, np.int32)], (16, 16), (16, 16))
    (_, got), _ = run(module, "squares", [np.arange(4096, dtype=np.int32),
                                          np.zeros(256, np.int32)], (16, 16), (16, 16))
    y, x = np.mgrid[0:16, 0:16]
    np.testing.assert_array_equal(got, (y * y * 16 + x).ravel())
