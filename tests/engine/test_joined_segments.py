"""Consecutive lane segments of one block run as one loop behind a run-time test that their
stores meet no other access (``segment_joins.py``, docs/native.md "The code it generates"),
on both backends, against NumPy computations of the lock-step order (every lane's loads
before any lane's store):

* the vector add stored into its own inputs one element either way, in place, and far
  apart in one allocation, and into a buffer of its own: the joined loop runs (counted by
  each native library's ``sg_joined_runs``, on the ``[native]`` variant) exactly where no
  stored byte meets a loaded one, with checks on and off;
* two stores after one load, and local memory written and read across a barrier (each side
  of the barrier a run of its own);
* lanes that are not one run take the segments' loops;
* a store past the end of its buffer is named by its work-item;
* a store into the loaded buffer's own object (``a[i] += b[i]``) is never joined.

The aliasing launches are one work-group: between work-groups an overlap is a data race,
whose outcome no two implementations need share.
"""


import numpy as np
import pytest

from sgvm import KernelMemoryError
from sgvm.engine.native.render import Renderer
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange

from . import harness
from .harness import O2, NativeRuns, build, run

SRC = r"""
kernel void vadd(global const float *a, global const float *b, global float *c) {
  size_t i = get_global_id(0);
  c[i] = a[i] + b[i];
}

kernel void twice(global const float *a, global float *b, global float *c) {
  size_t i = get_global_id(0);
  float v = a[i];
  b[i] = v * 2.0f;
  c[i] = v + 1.0f;
}

kernel void tile(global const float *a, global float *b) {
  local float t[256];
  size_t i = get_global_id(0), l = get_local_id(0);
  t[l] = a[i] * 3.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  b[i] = t[255 - l] + a[i];
}

kernel void odd(global const float *a, global const float *b, global float *c) {
  size_t i = get_global_id(0);
  if (i % 2) c[i] = a[i] + b[i];
}

kernel void inplace(global float *a, global const float *b) {
  size_t i = get_global_id(0);
  a[i] += b[i];
}
"""


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


def _joined_runs(backend, module) -> NativeRuns:
    return NativeRuns(backend, module, "sg_joined_runs")


def test_which_blocks_join(module):
    """The joined copy is rendered for the kernels whose stores may lie apart from their
    loads, not for ``a[i] += b[i]``."""
    for kernel, joins in (("vadd", 1), ("twice", 1), ("tile", 2), ("odd", 1), ("inplace", 0)):
        r = Renderer(module, 16)
        (ep,) = [e for e in r.m.entry_points if e.name == kernel]
        _, text = r._kernel(ep.function, kernel, "k")
        assert text.count("sg_joined += sg_jz;") == joins, kernel


def test_buffers_apart_run_joined(module, backend, checks):
    """Three buffers, four work-groups of 256, which run as one unit (a kernel of one block:
    ``regions.STRAIGHT``): it runs joined."""
    rng = np.random.default_rng(1)
    a, b = rng.random(1024, np.float32), rng.random(1024, np.float32)
    with _joined_runs(backend, module) as joined:
        (_, _, c), _ = run(module, "vadd", [a, b, np.zeros_like(a)], 1024, 256)
    np.testing.assert_array_equal(c, a + b)
    if joined.native:
        assert joined.count == 1


def _in_one(module, kernel: str, x: np.ndarray, at: list[int], n: int) -> Allocation:
    """``kernel`` over ``n`` work-items in one work-group, its buffers at elements ``at`` of
    one allocation holding ``x``."""
    mem = Allocation(x.copy().view(np.uint8), "global", "")
    launch(module, kernel, [BufferArg(mem, 4 * e) for e in at], NDRange((n,), (n,)),
           device=harness.DEVICE)
    residency.host_access(mem)
    return mem


@pytest.mark.parametrize("shift", [1, -1, 0, 255, -255, 256, -256, 1000])
def test_vector_add_into_its_input(module, backend, checks, shift):
    """``a`` at element ``base`` of one allocation, ``b`` far from it, ``c`` at ``base +
    shift``. Lock-step: ``c = a + b`` of the values before the launch. The stored range
    meets ``a``'s for shifts below 256 elements either way, so those run apart."""
    n, base, bb = 256, 1300, 2600
    x = np.random.default_rng(2 + shift % 97).random(3000, np.float32)
    with _joined_runs(backend, module) as joined:
        mem = _in_one(module, "vadd", x, [base, bb, base + shift], n)
    want = x.copy()
    want[base + shift:base + shift + n] = x[base:base + n] + x[bb:bb + n]
    np.testing.assert_array_equal(mem.data.view(np.float32), want)
    if joined.native:
        assert joined.count == (1 if abs(shift) >= n else 0)


@pytest.mark.parametrize("at", [(0, 300, 600), (0, 1, 600), (0, 600, 599), (0, 128, 129),
                                (0, 300, 300)])
def test_two_stores(module, backend, checks, at):
    """``twice``: ``b = 2a``, then ``c = a + 1``, the three at elements ``at`` of one
    allocation. Lock-step: every load, then every lane's store of ``b``, then of ``c`` (``c``
    over ``b`` where they meet). Only the first placement has no two ranges meeting."""
    n = 256
    x = np.random.default_rng(3).random(1000, np.float32)
    with _joined_runs(backend, module) as joined:
        mem = _in_one(module, "twice", x, list(at), n)
    a0, b0, c0 = at
    want = x.copy()
    v = x[a0:a0 + n].copy()
    want[b0:b0 + n] = v * np.float32(2)
    want[c0:c0 + n] = v + np.float32(1)
    np.testing.assert_array_equal(mem.data.view(np.float32), want)
    if joined.native:
        assert joined.count == (1 if at == (0, 300, 600) else 0)


def test_local_memory_across_a_barrier(module, backend, checks):
    """``tile``: each side of the barrier joins its loads and store (local ``t`` apart from the
    buffers), twice per work-group."""
    rng = np.random.default_rng(4)
    a = rng.random(1024, np.float32)
    with _joined_runs(backend, module) as joined:
        (_, b), _ = run(module, "tile", [a, np.zeros_like(a)], 1024, 256)
    t = (a * np.float32(3)).reshape(4, 256)[:, ::-1].ravel()
    np.testing.assert_array_equal(b, t + a)
    if joined.native:
        assert joined.count == 8


def test_lanes_not_one_run(module, backend, checks):
    """``odd``: the store's block runs for every second lane, which is not a run: the
    segments' loops run it."""
    rng = np.random.default_rng(5)
    a, b = rng.random(512, np.float32), rng.random(512, np.float32)
    with _joined_runs(backend, module) as joined:
        (_, _, c), _ = run(module, "odd", [a, b, np.full(512, -1, np.float32)], 512, 256)
    np.testing.assert_array_equal(c, np.where(np.arange(512) % 2 == 1, a + b, np.float32(-1)))
    if joined.native:
        assert joined.count == 0


def test_store_past_the_buffer_names_its_work_item(module, own_record):
    """``c`` one element short: the last work-item's store faults (the pre-pass sees it and
    leaves the run to the segments' checked loops)."""
    a = np.random.default_rng(6).random(256, np.float32)
    with pytest.raises(KernelMemoryError, match=r"store of 4 bytes at byte offset 1020 .*"
                                                r"global id \(255,\)"):
        run(module, "vadd", [a, a, np.zeros(255, np.float32)], 256, 256)


def test_in_place(module, backend, checks):
    a = np.random.default_rng(7).random(512, np.float32)
    b = np.random.default_rng(8).random(512, np.float32)
    (out, _), _ = run(module, "inplace", [a, b], 512, 256)
    np.testing.assert_array_equal(out, a + b)


def test_local_size_not_a_row(module, backend, checks):
    """Work-groups of 48 lanes over 100 work-items (the last one of 4 lanes): rows of
    lengths the ``SG_SIZE`` copy does not take."""
    rng = np.random.default_rng(9)
    a, b = rng.random(100, np.float32), rng.random(100, np.float32)
    (_, _, c), _ = run(module, "vadd", [a, b, np.zeros_like(a)], 100, 48)
    np.testing.assert_array_equal(c, a + b)


def test_two_dimensions(module, backend, checks):
    """A difference over 16×16 work-groups of a 64×32 image: each row of a work-group is 16
    lanes of one image row, and the pre-pass bounds every row."""
    rng = np.random.default_rng(10)
    a, b = rng.random(64 * 32, np.float32), rng.random(64 * 32, np.float32)
    kern = build(r"""
kernel void vadd2(global const float *a, global const float *b, global float *c, int w) {
  int i = get_global_id(1) * w + get_global_id(0);
  c[i] = a[i] - b[i];
}""", O2)
    (_, _, c), _ = run(kern, "vadd2", [a, b, np.zeros_like(a), np.int32(64)], (64, 32),
                          (16, 16))
    np.testing.assert_array_equal(c, a - b)
