"""Blocks whose collectives are all broadcasts of one lane, run as one lane loop per
sub-group (engine/native/fused.py, "one pass"; docs/native.md, "Sub-group by sub-group"):
each broadcast's source lane is read once per sub-group before the lanes run, which is
exact when the block does not compute the source itself (its own phis it may). Intel's
``intel_sub_group_shuffle(value, c)``: "returns value for the work item with sub group local
ID c" (cl_intel_subgroups); ``sub_group_broadcast(x, id)``: "broadcast the value of x for
work-item identified by sub_group_local_id" (OpenCL C 2.0 sub-group functions).

Expectations are NumPy float32 computations in the kernel's order of operations; every test
runs on both backends (the differential suite). Work-groups of 256 lanes run in chunks of
128 lanes; work-groups of one sub-group run as a region of several sub-groups.
"""

import numpy as np
import pytest

from engine.harness import NativeRuns
from sgvm import KernelMemoryError

from .helpers import SIZES, build, run

SOURCE = r"""
#define REQ __attribute__((intel_reqd_sub_group_size(SG)))

REQ kernel void hoisted(global const float *x, global float *out, int n) {
  int i = get_global_id(0);
  float a = x[i], acc = 0.0f;
  for (int k = 0; k < n; k++)
    acc = acc * 0.5f + intel_sub_group_shuffle(a, k % SG) * x[i + k]
          + sub_group_broadcast(acc, (k * 5) % SG) + intel_sub_group_shuffle(acc, 3);
  out[i] = acc;
}

REQ kernel void computed(global const float *x, global float *out, int n) {
  int i = get_global_id(0);
  float acc = 0.0f;
  for (int k = 0; k < n; k++) {
    float t = x[i + k] * (float)(k + 1);
    acc = acc + intel_sub_group_shuffle(t, k % SG);
  }
  out[i] = acc;
}

REQ kernel void lanes(global const float *in, global float *out, int off, int step, int odd) {
  int i = get_global_id(0), lane = get_sub_group_local_id();
  int at = lane == odd ? off + 300 : off + lane * step;
  out[i] = in[at] + intel_sub_group_shuffle(in[i], 1);
}

REQ kernel void up(global const float *in, global float *out, int off, int step, int odd) {
  int i = get_global_id(0), lane = get_sub_group_local_id();
  out[i] = in[off + lane] + intel_sub_group_shuffle(in[i], 1);
}

REQ kernel void down(global const float *in, global float *out, int off, int step, int odd) {
  int i = get_global_id(0), lane = get_sub_group_local_id();
  out[i] = in[off - lane] + intel_sub_group_shuffle(in[i], 1);
}
"""
N_ITER = 7


@pytest.fixture(scope="module", params=SIZES)
def sized(request):
    S = request.param
    return S, build(SOURCE, f"-cl-std=CL2.0 -DSG={S}")


def _inputs(lanes: int) -> np.ndarray:
    return np.random.default_rng(lanes).integers(-8, 9, lanes + N_ITER).astype(np.float32)


def _hoisted(S: int, x: np.ndarray, lanes: int) -> np.ndarray:
    i = np.arange(lanes)
    first = i - i % S
    a, acc, half = x[:lanes], np.zeros(lanes, np.float32), np.float32(0.5)
    for k in range(N_ITER):
        acc = acc * half + a[first + k % S] * x[i + k] + acc[first + (k * 5) % S] \
            + acc[first + 3 % S]
    return acc


def _computed(S: int, x: np.ndarray, lanes: int) -> np.ndarray:
    i = np.arange(lanes)
    first = i - i % S
    acc = np.zeros(lanes, np.float32)
    for k in range(N_ITER):
        t = x[i + k] * np.float32(k + 1)
        acc = acc + t[first + k % S]
    return acc


@pytest.mark.parametrize("kernel, want", [("hoisted", _hoisted), ("computed", _computed)])
@pytest.mark.parametrize("local", ["group", "sub-group"])
@pytest.mark.parametrize("bounds", ["1", "0"])
def test_broadcasts_in_a_uniform_loop(sized, backend, monkeypatch, kernel, want, local, bounds):
    """Broadcasts from lanes the loop counter names and from a fixed lane, of a value from
    before the loop and of the loop's own accumulator (``hoisted``: read once per sub-group);
    of a value the loop computes (``computed``: the block runs segment by segment)."""
    S, m = sized
    monkeypatch.setenv("SGVM_BOUNDS", bounds)
    lanes = 256
    x = _inputs(lanes)
    with NativeRuns(backend, m, "sg_looped_runs") as looped:
        (_, got), _ = run(m, kernel, [x, np.zeros(lanes, np.float32), np.int32(N_ITER)],
                          (lanes,), (lanes if local == "group" else S,))
    np.testing.assert_array_equal(got, want(S, x, lanes))
    if looped.native:
        assert looped.count > 0


@pytest.mark.parametrize("case", ["in bounds", "past the end", "before the start", "one lane"])
def test_an_access_from_the_sub_group_local_id(sized, backend, case):
    """A block reading the sub-group local id runs sub-group by sub-group; its pre-pass
    tests such an access at each sub-group's two ends, where it is affine along the
    sub-group (``in[off + lane]``, ``in[off - lane]``), else at each lane: a fault is reported
    for the lowest faulting work-item.
    Every sub-group reads the same elements, so the first sub-group's lane faults first."""
    S, m = sized
    kernel, off, step, odd, bad = {
        "in bounds": ("up", 0, 1, -1, None),
        "past the end": ("up", 256 - S + 1, 1, -1, S - 1),  # lane S-1 reads x[256]
        "before the start": ("down", 2, -1, -1, 3),  # lane 3 reads x[-1]
        # lane 5 alone reads x[300]: not affine; 176 bytes past the end, inside the spare
        # bytes the CUDA backend keeps after a buffer (docs/cuda.md, "Memory errors": an
        # overrun of more can land in another argument's region, x[1000] did at times)
        "one lane": ("lanes", 0, 1, 5, 5)}[case]
    x = np.arange(256, dtype=np.float32)
    args = [x, np.zeros(256, np.float32), np.int32(off), np.int32(step), np.int32(odd)]
    if bad is not None:
        with pytest.raises(KernelMemoryError, match=rf"load .*global id \({bad},\)"):
            run(m, kernel, args, (256,), (256,))
        return
    (_, got), _ = run(m, kernel, args, (256,), (256,))
    i = np.arange(256)
    first, lane = i - i % S, i % S
    np.testing.assert_array_equal(got, x[off + lane * step] + x[first + 1])
