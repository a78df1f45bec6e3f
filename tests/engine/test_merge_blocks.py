"""A merge block run in the lane loop of the chain before it behind a run-time test that its
stores meet no other access (``merge.py``, docs/native.md "The code it generates"), on both
backends, against NumPy computations of the lock-step order (every lane loads before any
lane stores):

* the 5-point stencil stored into its own input, one element and one row either way, and in
  place: the ranges meet, so the blocks run apart; far apart in the same allocation, and in
  two buffers, the fused loop runs (the native backend's count of fused runs, on the
  ``[native]`` variant) with checks on and off;
* a store past the end of its buffer is named by its work-item;
* an image of 8 MiB, whose rows the fused loop prefetches;
* the step budget still counts the merge block's step when every lane returns in it;
* lanes that leave the chain by another edge (an atomic block) wait there while the others
  run the merge block in the fused loop, and run it next;
* a merge block whose one access is its store (nothing to hold it apart from) runs fused
  with checks on and off.

The aliasing launches are one work-group: between work-groups an overlap is a data race,
whose outcome no two implementations need share.
"""


import numpy as np
import pytest

from sgvm import KernelMemoryError, KernelTimeout
from sgvm.engine.native import backend as native_backend
from sgvm.engine.native.render import Renderer
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg, ValueArg
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation
from sgvm.runtime.ndrange import NDRange

from . import harness
from .harness import O2, NativeRuns, build, run

SRC = r"""
kernel void stencil(global const float *a, global float *b, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1), i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { b[i] = a[i]; return; }
  b[i] = 0.2f * (a[i] + a[i - 1] + a[i + 1] + a[i - w] + a[i + w]);
}

kernel void leave(global const float *a, global float *b, global int *d) {
  int i = get_global_id(0);
  global const float *p = a + i;
  float v = p[0];
  if (v > 0.5f) {
    v = v + p[1];
    if (v > 1.7f) { atomic_inc(d + i % 4); return; }
  }
  b[i] = v;
}

kernel void store_only(global int *b, int n) {
  int i = get_global_id(0);
  int v = i * 7;
  if (i % 3 == 0) v = n / (i + 5);
  b[i] = v;
}
"""


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


@pytest.fixture(autouse=True)
def work_groups_kept(monkeypatch):
    """The counts below are of the launches' own work-groups, which a kernel blind to them
    (the stencil) would otherwise run as rows (``regions.rows``; tests/subgroups/test_rows.py
    counts those)."""
    monkeypatch.setattr(native_backend, "_rows", lambda nd, *_: nd)


def _stencil(a: np.ndarray) -> np.ndarray:
    want = a.copy()
    want[1:-1, 1:-1] = np.float32(0.2) * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]
                                          + a[:-2, 1:-1] + a[2:, 1:-1])
    return want


def _fused_runs(backend, module) -> NativeRuns:
    return NativeRuns(backend, module, "sg_merged_runs")


def test_the_stencil_store_merges(module):
    for kernel in ("stencil", "leave", "store_only"):
        r = Renderer(module, 16)
        (ep,) = [e for e in r.m.entry_points if e.name == kernel]
        r._kernel(ep.function, kernel, "k")
        assert r.merges == {0: 2} and r.joined == {1: 0}, kernel


def _fused_stencil(module, backend, w: int, h: int, seed: int) -> int | None:
    """The stencil of a random ``h``×``w`` image in 16×16 work-groups, checked against
    NumPy; the native backend's count of fused runs (None on the NumPy engine)."""
    a = np.random.default_rng(seed).random((h, w), np.float32)
    with _fused_runs(backend, module) as fused:
        (_, b), _ = run(module, "stencil", [a, np.zeros_like(a), np.int32(w), np.int32(h)],
                        (w, h), (16, 16))
    np.testing.assert_array_equal(b, _stencil(a))
    return fused.count if fused.native else None


def test_rows_of_a_large_image_are_prefetched(module, backend):
    """2048×1024 floats, 8 MiB a buffer (``merge.PREFETCH``): the fused loop prefetches the
    rows of the work-group after next, a hint that changes no result."""
    w, h = 2048, 1024
    count = _fused_stencil(module, backend, w, h, 2)
    if count is not None:
        assert count == (w // 16) * (h // 16 - 2)
        source, _ = Renderer(module, 16).render("stencil")
        assert "if (sg_sz0 >= 8388608ULL) __builtin_prefetch(" in source


def test_apart_runs_fused(module, backend, checks):
    """64×48 in 16×16 work-groups. With checks on, the four groups of the middle row run
    fused: the pre-pass tests the addresses of every lane, those a border lane computes and
    does not load (``a[i - w]`` in the first row) included, so the groups of the first and
    last rows run apart. With checks off all twelve do."""
    count = _fused_stencil(module, backend, 64, 48, 1)
    if count is not None:
        assert count == (4 if checks == "checked" else 12)


def _in_place(module, x: np.ndarray, a: int, b: int) -> Allocation:
    """The stencil of the 16×16 floats at element ``a`` of one allocation holding ``x`` into
    element ``b`` of it, in one work-group."""
    mem = Allocation(x.copy().view(np.uint8), "global", "")
    args = [BufferArg(mem, 4 * a), BufferArg(mem, 4 * b), ValueArg(np.int32(16).tobytes()),
            ValueArg(np.int32(16).tobytes())]
    launch(module, "stencil", args, NDRange((16, 16), (16, 16)), device=harness.DEVICE)
    residency.host_access(mem)
    return mem


@pytest.mark.parametrize("shift", [1, -1, 16, -16, 0, 17 * 16, -17 * 16])
def test_store_into_the_loaded_buffer(module, backend, checks, shift):
    """``a`` at element ``base`` of one allocation, ``b`` at ``base + shift``: every load of
    every lane lies in the allocation. Lock-step: ``b = stencil(a before)``. The stored and
    loaded ranges meet for shifts up to a row and a column beyond the image (the loads reach
    one row above and below it), so only ±17 rows run fused.

    Where they meet, work-items store what others load with nothing ordering them: a data
    race, which "results in undefined behavior" (C11 s5.1.2.4p25, the OpenCL 2.0 memory
    model; docs/checker.md). The CPU backends run a work-group in lock-step (every load
    before the store), the answer tested; a CUDA block's warps run in no set order (one run
    of the CUDA suite failed at shift 1: some lanes loaded values other warps had stored)."""
    if harness.on_cuda() and abs(shift) != 17 * 16:
        pytest.skip("racing work-items: the CPU backends' lock-step order, which CUDA's "
                    "warps do not keep (undefined behaviour)")
    n, base = 256, 48 + 17 * 16
    x = np.random.default_rng(2 + shift % 97).random(n + 96 + 2 * 17 * 16, np.float32)
    with _fused_runs(backend, module) as fused:
        mem = _in_place(module, x, base, base + shift)
    want = x.copy()
    want[base + shift:base + shift + n] = _stencil(x[base:base + n].reshape(16, 16)).ravel()
    np.testing.assert_array_equal(mem.data.view(np.float32), want)
    if fused.native:
        assert fused.count == (1 if abs(shift) == 17 * 16 else 0)


def test_a_lone_store_runs_fused(module, backend, checks):
    """No other access for the store to meet: the run-time test is the pre-pass alone (with
    checks on its C was an empty condition, so the module did not build and every kernel
    of it ran on the NumPy engine)."""
    i = np.arange(64, dtype=np.int64)
    with _fused_runs(backend, module) as fused:
        (b,), _ = run(module, "store_only", [np.zeros(64, np.int32), np.int32(1000)], 64, 16)
    want = np.where(i % 3 == 0, 1000 // (i + 5), i * 7)
    np.testing.assert_array_equal(b, want.astype(np.int32))
    if fused.native:
        assert fused.count >= 1  # (work-groups may run together: one run for all)


def test_store_past_the_buffer_names_its_work_item(module, own_record):
    """``b`` holds one element fewer than the image: the last work-item's store faults (the
    fused loop's pre-pass sees it and leaves the run to the checked loops)."""
    a = np.random.default_rng(3).random((16, 16), np.float32)
    with pytest.raises(KernelMemoryError, match=r"store of 4 bytes at byte offset 1020 .*"
                                                r"global id \(15, 15\)"):
        run(module, "stencil", [a, np.zeros(255, np.float32), np.int32(16), np.int32(16)],
            (16, 16), (16, 16))


def test_step_budget_counts_the_merge_block(module, backend, monkeypatch):
    """The interior lanes run three blocks (test, interior, store): a budget of two stops
    the launch, also where the fused loop ran the three and every lane returned in it (as
    it does under a budget of three: the same placement runs fused)."""
    x = np.random.default_rng(4).random(1024, np.float32)
    monkeypatch.setenv("SGVM_MAX_STEPS", "2")
    if not harness.on_cuda():  # (CUDA counts loop back-edges: this kernel has none)
        with pytest.raises(KernelTimeout):
            _in_place(module, x, 32, 512)
    monkeypatch.setenv("SGVM_MAX_STEPS", "3")
    with _fused_runs(backend, module) as fused:
        mem = _in_place(module, x, 32, 512)
    np.testing.assert_array_equal(mem.data.view(np.float32)[512:768],
                                  _stencil(x[32:288].reshape(16, 16)).ravel())
    if fused.native:
        assert fused.count == 1


def test_lanes_leaving_the_chain(module, backend, checks):
    """``leave``: lanes with ``a[i] > 0.5`` add ``a[i + 1]``; those above 1.7 count in ``d``
    and skip the store of ``b`` (their ``b[i]`` stays -1), the others store ``v``."""
    n = 1024
    a = np.random.default_rng(5).random(n + 1, np.float32)
    with _fused_runs(backend, module) as fused:
        (_, b, d), _ = run(module, "leave", [a, np.full(n, -1, np.float32), np.zeros(4, np.int32)],
                           n, 256)
    v = np.where(a[:n] > 0.5, a[:n] + a[1:], a[:n])
    skip = (a[:n] > 0.5) & (v > 1.7)
    np.testing.assert_array_equal(b, np.where(skip, np.float32(-1), v))
    np.testing.assert_array_equal(d, np.bincount(np.arange(n)[skip] % 4, minlength=4))
    if fused.native:
        assert skip.any() and fused.count == 4
