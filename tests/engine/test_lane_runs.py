"""The native backend's fast paths and their fallbacks: results bit-identical to NumPy
computations, faults named by their first work-item (docs/native.md, "The code it generates").

* a block whose waiting lanes form one run of local ids runs unmasked over that run
  (``if (l < s)``, runs beginning and ending inside rows), any other divergent block with a
  test of each lane (``l % 3 == 1``);
* the pre-pass tests an address affine in the row at the row's two ends: an index that
  wraps at 2^31 inside a row, or between two ends that both lie in the buffer, and a step
  that is not a multiple of the alignment, take the checked loop; a segment of one access
  has a pre-pass too;
* a loop index kept in a lane array is read as one value when every lane of the run holds
  the same (and not when one lane at either end of the run, or every lane, differs).

On the ``[native]`` variant the fault tests check the native backend's own record (its
message, without the NumPy engine's second run), so a fast path that skipped a check or
named the wrong work-item fails here.
"""

import numpy as np
import pytest

from sgvm import KernelMemoryError

from .harness import O2, Local, benchmark_cases, build, run

SRC = r"""
kernel void strided(global const float *in, global float *out) {
  size_t i = get_global_id(0), l = get_local_id(0);
  if (l % 3 == 1) out[i] = in[i] * 2.0f + in[i + 1];
}

kernel void window(global const int *in, global int *out, int lo, int hi, int pad) {
  int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
  int l = get_local_id(1) * get_local_size(0) + get_local_id(0);
  if (l >= lo && l < hi) out[y * w + x] = in[y * w + x] * 3 + x - y + pad;
}

kernel void block3(global int *out, int lo, int hi) {
  int l = get_local_linear_id(), i = get_global_linear_id();
  if (l >= lo && l < hi) out[i] = i * 2 + l;
}

kernel void copy(global const float *a, global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i];
}

kernel void spread(global const int *in, global int *out) {
  size_t i = get_global_id(0);
  out[i] = in[(int)((uint)i * 0x10000000u)];
}

kernel void spread64(global const int *in, global int *out) {
  size_t i = get_global_linear_id();
  out[i] = in[(int)(i * 0x10000000UL)];
}

kernel void across(global const int *in, global int *out, int w) {
  int x = get_global_id(0), y = get_global_id(1);
  if (y != 1) return;
  global const int *p = in - (long)w;
  out[x] = p[y * w + x];
}

kernel void sweep(global const float *in, global float *out, int n, int skew) {
  int l = get_local_id(0);
  int j0 = skew < 0 ? l % -skew : (l == skew ? 1 : 0);
  float acc = 0.0f;
  for (int j = j0; j < n; j += skew < 0 ? -skew : 1) acc += in[j] * (float)(l + 1);
  out[get_global_id(0)] = acc;
}

kernel void halfstep(global const char *in, global int *out) {
  size_t i = get_global_id(0);
  out[i] = *(global const int *)(in + 2 * i);
}
"""


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


def _tree(x: np.ndarray, n: int) -> np.ndarray:
    t = x.reshape(-1, n).copy()
    s = n // 2
    while s:
        t[:, :s] += t[:, s:2 * s]
        s //= 2
    return t[:, 0]


@pytest.mark.parametrize("n", [64, 256])
def test_contiguous_runs_shrinking(n):
    """``if (l < s)``: runs of s lanes from lane 0, each a contiguous run."""
    x = np.random.default_rng(1).random(8 * n, np.float32)
    tree = build(benchmark_cases().REDUCE, O2)
    (_, out), _ = run(tree, "reduce", [x, np.zeros(8, np.float32), Local(4 * n)], 8 * n, n)
    np.testing.assert_array_equal(out, _tree(x, n))


def test_scattered_lanes(module):
    """Lanes 1, 4, 7 … of each work-group: not a run, each lane tested."""
    x = np.random.default_rng(2).random(257, np.float32)
    out = np.full(256, -1, np.float32)
    (_, got), _ = run(module, "strided", [x, out.copy()], 256, 64)
    want = out.copy()
    sel = np.arange(256) % 64 % 3 == 1
    want[sel] = x[:256][sel] * np.float32(2) + x[1:][sel]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("lo,hi", [(5, 27), (8, 16), (0, 32), (31, 32), (3, 4)])
def test_run_across_rows(module, lo, hi):
    """A run of local linear ids beginning and ending inside rows of a 2-D work-group."""
    w, h = 16, 8
    x = np.random.default_rng(3).integers(-1000, 1000, (h, w), np.int32)
    out = np.full((h, w), 7, np.int32)
    (_, got), _ = run(module, "window", [x, out.copy(), np.int32(lo), np.int32(hi),
                                         np.int32(11)], (w, h), (8, 4))
    ys, xs = np.mgrid[0:h, 0:w]
    local = (ys % 4) * 8 + xs % 8
    sel = (local >= lo) & (local < hi)
    want = out.copy()
    want[sel] = (x * 3 + xs - ys + 11)[sel]
    np.testing.assert_array_equal(got, want)


def _block3(lo: int, hi: int):
    """(global ids z, y, x; local linear id; which lanes run) of the (4, 4, 4) launch of
    ``block3`` in (4, 4, 2) groups: two planes of four rows each."""
    z, y, x = np.mgrid[0:4, 0:4, 0:4]
    local = ((z % 2) * 4 + y) * 4 + x
    return z, y, x, local, (local >= lo) & (local < hi)


@pytest.mark.parametrize("lo,hi", [(3, 29), (0, 32), (6, 10), (17, 32)])
def test_run_across_planes(module, lo, hi):
    """Runs over the rows of both planes of 3-D work-groups (the pre-pass counts rows by
    local ids 2 and 1)."""
    out = np.full((4, 4, 4), -3, np.int32)
    (got,), _ = run(module, "block3", [out.copy(), np.int32(lo), np.int32(hi)], (4, 4, 4),
                    (4, 4, 2))
    *_, local, sel = _block3(lo, hi)
    want = out.copy()
    want[sel] = (np.arange(64).reshape(4, 4, 4) * 2 + local)[sel]
    np.testing.assert_array_equal(got, want)


def test_fault_in_a_run_across_planes(module, own_record):
    """The store leaves a buffer of 50 elements first at the lowest global linear id (here
    the element's index) among the lanes of the run whose index is 50 or more: in the
    second plane of the second work-group, the first plane within the buffer."""
    z, y, x, _, sel = _block3(3, 29)
    bad = int(np.flatnonzero(sel.reshape(-1) & (np.arange(64) >= 50))[0])
    gid = ", ".join(str(int(v.reshape(-1)[bad])) for v in (x, y, z))
    with pytest.raises(KernelMemoryError,
                       match=rf"store .*byte offset {4 * bad} .*global id \({gid}\)"):
        run(module, "block3", [np.zeros(50, np.int32), np.int32(3), np.int32(29)], (4, 4, 4),
            (4, 4, 2))


def test_fault_in_a_run_names_its_first_work_item(module, own_record):
    """The store of the run (lanes 4 to 11 of each 16-lane group) leaves the buffer at
    global id (20, 1) first: checked lane by lane after its pre-pass fails."""
    w, h = 32, 4
    x = np.zeros((h, w), np.int32)
    out = np.zeros(w + 20, np.int32)  # rows 0 and the first 20 items of row 1
    with pytest.raises(KernelMemoryError, match=r"store .*byte offset 208 .*global id \(20, 1\)"):
        run(module, "window", [x, out, np.int32(4), np.int32(12), np.int32(0)], (w, h), (16, 1))


def test_fault_in_a_single_store_segment(module, own_record):
    """A segment of one store, tested in a pre-pass: the first faulting work-item is named."""
    a = np.arange(64, dtype=np.float32)
    with pytest.raises(KernelMemoryError, match=r"store .*byte offset 244 .*global id \(61,\)"):
        run(module, "copy", [a, np.zeros(61, np.float32)], 64, 32)


def test_single_store_segment(module):
    a = np.random.default_rng(4).random(1024, np.float32)
    (_, c), _ = run(module, "copy", [a, np.zeros(1024, np.float32)], 1024, 256)
    np.testing.assert_array_equal(c, a)



@pytest.mark.parametrize("kernel", ["spread", "spread64"])
def test_index_wrapping_between_the_rows_ends(module, own_record, kernel):
    """``(int)(i * 2^28)`` is 0 at lanes 0 and 16 of a row of 17 and wraps between them:
    both ends lie in the buffer, lane 1 reads 1 GiB past its start. (``spread``: a 32-bit
    product sign extended; ``spread64``: a 64-bit one, whose low half clang sign extends
    with a shift left and right.)"""
    with pytest.raises(KernelMemoryError,
                       match=r"load .*global id \(1,\)"):
        run(module, kernel, [np.zeros(64, np.int32), np.zeros(17, np.int32)], 17, 17)


def test_index_wrapping_inside_a_row(module, own_record):
    """Row 1 of ``y * w + x`` with w = 2^31 - 8 wraps at x = 8: lanes 0 to 7 read, lane 8
    is the first fault."""
    w = (1 << 31) - 8
    with pytest.raises(KernelMemoryError, match=r"load .*global id \(8, 1\)"):
        run(module, "across", [np.arange(16, dtype=np.int32), np.zeros(16, np.int32),
                               np.int32(w)], (16, 2), (16, 2))


def test_index_not_wrapping_inside_a_row(module):
    """The same row with w = 2^31 - 16 stays below 2^31: every lane reads."""
    w = (1 << 31) - 16
    x = np.arange(16, dtype=np.int32) * 5
    (_, got), _ = run(module, "across", [x, np.zeros(16, np.int32), np.int32(w)], (16, 2),
                      (16, 2))
    np.testing.assert_array_equal(got, x)


def test_step_not_a_multiple_of_the_alignment(module, own_record):
    """Addresses two bytes apart are each tested for alignment (the row's ends, lanes 0 and
    62, are aligned): lane 1 is misaligned."""
    with pytest.raises(KernelMemoryError, match=r"misaligned .*global id \(1,\)"):
        run(module, "halfstep", [np.zeros(256, np.int8), np.zeros(63, np.int32)], 63, 63)


def _sweep(x: np.ndarray, n: int, skew: int, lanes: int, groups: int) -> np.ndarray:
    out = np.zeros(lanes * groups, np.float32)
    for g in range(groups):
        for lane in range(lanes):
            j0 = lane % -skew if skew < 0 else int(lane == skew)
            acc = np.float32(0)
            for j in range(j0, n, -skew if skew < 0 else 1):
                acc = np.float32(acc + np.float32(x[j] * np.float32(lane + 1)))
            out[g * lanes + lane] = acc
    return out


@pytest.mark.parametrize("bounds", ["1", "0"])
@pytest.mark.parametrize("skew", [64, 63, 0, -4])
def test_loop_index_the_same_at_every_lane_or_not(module, skew, bounds, monkeypatch):
    """``in[j]`` with j the same at every lane (skew 64: no lane is skewed), one lane's j
    ahead of the others' (the run's last lane, 63, or its first, 0: the loop's lanes differ
    at one end of the run), every lane's different (skew -4: j = l % 4, step 4); with checks
    and without (``SGVM_BOUNDS=0``: no pre-pass, the copy reading one value still)."""
    monkeypatch.setenv("SGVM_BOUNDS", bounds)
    n = 40
    x = np.random.default_rng(5).random(n, np.float32)
    (_, got), _ = run(module, "sweep", [x, np.zeros(128, np.float32), np.int32(n),
                                        np.int32(skew)], 128, 64)
    np.testing.assert_array_equal(got, _sweep(x, n, skew, 64, 2))


def test_fault_with_the_same_index_at_every_lane(module, own_record):
    """Every lane reads in[40] first past the buffer: the lowest work-item is named."""
    with pytest.raises(KernelMemoryError, match=r"load .*byte offset 160 .*global id \(0,\)"):
        run(module, "sweep", [np.zeros(40, np.float32), np.zeros(64, np.float32),
                              np.int32(41), np.int32(64)], 64, 64)
