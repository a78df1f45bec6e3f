"""Launches re-cut into rows (docs/native.md, "Rows"): a kernel that cannot observe how its
NDRange is cut into work-groups — it reads no built-in but the global ones, holds no
barrier, group or sub-group instruction, atomic, local memory, printf or loop — runs on the
native backend in rows of up to ``regions.ROWS`` lanes, whatever its work-groups' shape.
Every other kernel keeps its work-groups: each of the kernels below reads one built-in
that depends on the cut, or exchanges values within a sub-group, and its results are
checked against values computed here with NumPy from the NDRange (OpenCL 3.0 §3.2.1: the
local id is the global id less the work-group's offset; a sub-group is consecutive
linear local ids, DESIGN.md). Run on every backend by the differential suite; which
launches are re-cut is checked on the native backend's own choice."""

import numpy as np
import pytest

from engine.harness import NativeRuns
from sgvm import KernelMemoryError
from sgvm.engine.cpu import arenas
from sgvm.engine.native import backend as native_backend
from sgvm.engine.native import regions, streams
from sgvm.engine.native.render import Renderer
from sgvm.errors import LogicError
from sgvm.runtime.device import CUDA_DEVICE
from sgvm.runtime.ndrange import NDRange

from . import helpers
from .helpers import assert_native, build, run, sub_groups, total

S = 8
GS, LS = (64, 12), (16, 4)  # rows of 64 lanes on the native backend (regions.rows)
# sub-groups of two rows of a work-group: in rows of 16 lanes they would be of one
GS2, LS2 = (16, 8), (4, 4)

# one kernel per built-in that depends on how the NDRange is cut: name → (OpenCL C, its
# value per work-item from the global ids x, y)
_lid = (lambda x, y: x % LS[0], lambda x, y: y % LS[1])
CUT = {
    "local_id0": ("get_local_id(0)", lambda x, y: _lid[0](x, y)),
    "local_id1": ("get_local_id(1)", lambda x, y: _lid[1](x, y)),
    "group_id0": ("get_group_id(0)", lambda x, y: x // LS[0]),
    "group_id1": ("get_group_id(1)", lambda x, y: y // LS[1]),
    "local_size0": ("get_local_size(0)", lambda x, y: np.full_like(x, LS[0])),
    "local_size1": ("get_local_size(1)", lambda x, y: np.full_like(x, LS[1])),
    "enqueued": ("get_enqueued_local_size(0)", lambda x, y: np.full_like(x, LS[0])),
    "num_groups": ("get_num_groups(0)", lambda x, y: np.full_like(x, GS[0] // LS[0])),
    "linear": ("get_local_linear_id()", lambda x, y: _lid[0](x, y) + LS[0] * _lid[1](x, y)),
    "sub_group_id": ("get_sub_group_id()",
                     lambda x, y: (_lid[0](x, y) + LS[0] * _lid[1](x, y)) // S),
    "sub_group_lid": ("get_sub_group_local_id()",
                      lambda x, y: (_lid[0](x, y) + LS[0] * _lid[1](x, y)) % S),
    "num_sub_groups": ("get_num_sub_groups()", lambda x, y: np.full_like(x, LS[0] * LS[1] // S)),
}

SOURCE = r"""
#define REQ __attribute__((intel_reqd_sub_group_size(8)))

REQ kernel void stencil(global const float *a, global float *b) {
  int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0),
      h = get_global_size(1), i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { b[i] = a[i]; return; }
  b[i] = 0.2f * (a[i] + a[i - 1] + a[i + 1] + a[i - w] + a[i + w]);
}

REQ kernel void stencil_private(global const float *a, global float *b) {
  int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0), i = y * w + x;
  float t[16];
  for (int k = 0; k < 16; k++) t[k] = a[i] * (float)k;   /* unrolled: no loop left */
  b[i] = t[x % 16];
}

REQ kernel void linear(global uint *out) {
  out[get_global_linear_id()] = (uint)(get_global_id(0) + 1000 * get_global_id(1));
}

REQ kernel void shuffled(global uint *out) {
  size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);
  out[i] = intel_sub_group_shuffle((uint)i, 0);
}

/* launched in GS2/LS2: (x, y) and (x, y + 1), y even, are of one sub-group, whose barrier
   orders the second's store before the first's load */
REQ kernel void sub_group_barrier_exchange(global uint *out) {
  size_t w = get_global_size(0), i = get_global_id(0) + w * get_global_id(1);
  out[i] = (uint)i;
  sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
  if ((get_global_id(1) & 1) == 0) out[i] += 100000u * out[i + w];
}

REQ kernel void looped(global uint *out, uint n) {
  size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);
  uint v = (uint)i + 1u, s = 0;
  while (v != 1u && s < n) { v = (v & 1u) ? 3u * v + 1u : v / 2u; s++; }  /* Collatz */
  out[i] = s;
}

REQ kernel void say(global uint *out) {
  size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);
  out[i] = (uint)i;
  if (i == 5) printf("%d\n", (int)i);
}
""" + "".join(f"""
REQ kernel void cut_{name}(global uint *out) {{
  size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);
  out[i] = (uint)({expr});
}}
""" for name, (expr, _) in CUT.items())


@pytest.fixture(scope="module")
def module():
    return build(SOURCE, "-cl-std=CL2.0")


def _info(module, kernel: str):
    return native_backend.compiled(module, S, True)[1][kernel]


def _ran_in(module, kernel: str, gs=GS, ls=LS) -> tuple[int, ...]:
    """The local size the native backend runs a launch of ``gs`` in ``ls`` with."""
    info = _info(module, kernel)
    nd = NDRange(gs, ls)
    return native_backend._rows(nd, S, info.private_bytes > 0).local_size if info.blind \
        else nd.local_size


def test_rows_chosen():
    assert regions.rows((16, 16, 1), (3072, 3072, 1), 16, False) == (1024, 1, 1)
    assert regions.rows((16, 16, 1), (3072, 3072, 1), 16, True) == (256, 1, 1)  # private
    assert regions.rows((16, 4, 1), (64, 12, 1), 8, False) == (64, 1, 1)
    assert regions.rows((8, 8, 2), (40, 16, 4), 8, False) == (40, 1, 1)
    assert regions.rows((256, 1, 1), (4096, 2, 1), 16, False) is None  # rows already
    assert regions.rows((4, 4, 1), (36, 36, 1), 8, False) is None  # no whole sub-groups
    assert regions.rows((16, 16, 1), (16, 16, 1), 16, False) is None  # no longer row


def test_stencil_in_rows(module, backend):
    rng = np.random.default_rng(1)
    a = rng.random((GS[1], GS[0]), np.float32)
    (_, b), _ = run(module, "stencil", [a, np.zeros_like(a)], GS, LS)
    assert_native(module, "stencil")
    if backend == "native":
        assert _ran_in(module, "stencil") == (64, 1, 1)
    want = a.copy()
    want[1:-1, 1:-1] = np.float32(0.2) * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]
                                          + a[:-2, 1:-1] + a[2:, 1:-1])
    np.testing.assert_allclose(b, want, rtol=1e-6)


def test_large_stencil_in_rows_prefetches_and_streams(module, backend):
    """2048×1024 floats (8 MiB a buffer) in 16×16 work-groups run as rows of 1024 lanes: the
    fused loop (merge.py) runs in every row but the first and last (whose ``a[i - w]`` or
    ``a[i + w]`` leaves the buffer), streams its stores and prefetches each piece's next
    piece of the three rows it reads, hints that change no result."""
    w, h = 2048, 1024
    a = np.random.default_rng(2).random((h, w), np.float32)
    with NativeRuns(backend, module, "sg_merged_runs") as fused, \
            NativeRuns(backend, module, "sg_streamed_runs") as streamed:
        (_, b), _ = run(module, "stencil", [a, np.zeros_like(a)], (w, h), (16, 16))
    want = a.copy()
    want[1:-1, 1:-1] = np.float32(0.2) * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]
                                          + a[:-2, 1:-1] + a[2:, 1:-1])
    np.testing.assert_allclose(b, want, rtol=1e-6)
    if fused.native:
        assert native_backend._rows(NDRange((w, h), (16, 16)), S, False).local_size == (1024, 1, 1)
        assert fused.count == 2 * (h - 2)
        assert streamed.count == 2 * (h - 2) * 1024 // streams.PIECE
        source, _ = Renderer(module, S).render("stencil")
        assert source.count(f"sg_k < {4 * streams.PIECE}; sg_k += 64) __builtin_prefetch(") == 3


def test_private_memory_keeps_the_work_groups_lanes(module, backend):
    """A kernel with private memory runs in rows of at most its work-groups' lanes: 128 floats
    across, work-groups of 16×4, rows of 64 (128 without private memory)."""
    gs = (128, 4)
    a = np.arange(total(gs), dtype=np.float32).reshape(gs[1], gs[0])
    (_, b), _ = run(module, "stencil_private", [a, np.zeros_like(a)], gs, LS)
    assert_native(module, "stencil_private")
    if backend == "native":
        assert _info(module, "stencil_private").private_bytes > 0
        assert _ran_in(module, "stencil_private", gs) == (64, 1, 1)
        assert _ran_in(module, "stencil", gs) == (128, 1, 1)
    x = np.arange(gs[0])[None, :]
    np.testing.assert_array_equal(b, a * (x % 16))


@pytest.mark.skipif(helpers.DEVICE is CUDA_DEVICE, reason="the CPU backends' limit")
def test_private_memory_limit_is_the_work_groups(module, monkeypatch, backend):
    """The NumPy engine's limit on a work-group's private memory holds for the launch's own
    work-groups (16×4 lanes of 64 bytes: ``t``), not the rows of 32 it runs in:
    CL_OUT_OF_RESOURCES on both CPU backends."""
    monkeypatch.setattr(arenas, "PRIVATE_BATCH_BYTES", 64 * 48)
    if backend == "native":
        assert _ran_in(module, "stencil_private", (32, 8)) == (32, 1, 1)
    a = np.zeros((8, 32), np.float32)
    with pytest.raises(LogicError, match="OUT_OF_RESOURCES .*work-group of 64 work-items"):
        run(module, "stencil_private", [a, a.copy()], (32, 8), LS)


def test_global_linear_id(module, backend):
    (out,), _ = run(module, "linear", [np.zeros(total(GS), np.uint32)], GS, LS)
    y, x = np.mgrid[0:GS[1], 0:GS[0]]
    np.testing.assert_array_equal(out, (x + 1000 * y).reshape(-1))
    if backend == "native":
        assert _ran_in(module, "linear") == (64, 1, 1)


@pytest.mark.parametrize("name", list(CUT))
def test_built_ins_of_the_cut_keep_the_work_groups(module, name, backend):
    kernel = f"cut_{name}"
    (out,), _ = run(module, kernel, [np.zeros(total(GS), np.uint32)], GS, LS)
    assert_native(module, kernel)
    if backend == "native":
        assert _ran_in(module, kernel) == (*LS, 1)
    y, x = np.mgrid[0:GS[1], 0:GS[0]]
    np.testing.assert_array_equal(out, CUT[name][1](x, y).reshape(-1))


def test_sub_group_shuffle_keeps_the_work_groups(module, backend):
    (out,), _ = run(module, "shuffled", [np.zeros(total(GS2), np.uint32)], GS2, LS2)
    if backend == "native":
        assert _ran_in(module, "shuffled", GS2, LS2) == (*LS2, 1)
    for ids in sub_groups(GS2, LS2, S):
        np.testing.assert_array_equal(out[ids], ids[0])


def test_sub_group_barrier_keeps_the_work_groups(module, backend):
    (out,), _ = run(module, "sub_group_barrier_exchange", [np.zeros(total(GS2), np.uint32)],
                    GS2, LS2)
    if backend == "native":
        assert _ran_in(module, "sub_group_barrier_exchange", GS2, LS2) == (*LS2, 1)
    y, x = np.mgrid[0:GS2[1], 0:GS2[0]]
    i = (x + GS2[0] * y).astype(np.uint32)
    want = np.where(y % 2 == 0, i + 100000 * (i + GS2[0]), i)
    np.testing.assert_array_equal(out, want.reshape(-1))


def test_loops_and_printf_keep_the_work_groups(module, backend):
    (out,), _ = run(module, "looped", [np.zeros(total(GS), np.uint32), np.uint32(50)], GS, LS)
    np.testing.assert_array_equal(out, [_collatz(i + 1, 50) for i in range(total(GS))])
    (out,), res = run(module, "say", [np.zeros(total(GS), np.uint32)], GS, LS)
    assert res.printf == "5\n"
    if backend == "native":
        assert _ran_in(module, "looped") == _ran_in(module, "say") == (*LS, 1)


def _collatz(v: int, most: int) -> int:
    s = 0
    while v != 1 and s < most:
        v, s = 3 * v + 1 if v & 1 else v // 2, s + 1
    return s


def test_fault_names_its_work_item(module, backend, monkeypatch):
    """The output holds 5 rows and 3 elements: work-items from (3, 5) on store past it (on
    the native backend, its own record: no re-run on the NumPy engine)."""
    if backend == "native":
        monkeypatch.setattr(native_backend, "_explain", lambda request: None)
        assert _ran_in(module, "linear") == (64, 1, 1)
    with pytest.raises(KernelMemoryError, match=r"store .*byte offset 1292 .*global id \(3, 5\)"):
        run(module, "linear", [np.zeros(5 * GS[0] + 3, np.uint32)], GS, LS)
