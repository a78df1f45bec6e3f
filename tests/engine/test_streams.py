"""Streaming stores (``streams.py``, docs/native.md "The code it generates"): a fused loop
storing along a row of a buffer of ``streams.STREAM`` bytes or more gathers a piece of the
row in a stage and copies it to memory, the whole 64-byte lines with non-temporal stores.
Against NumPy, on both backends (the native library's ``sg_streamed_runs`` counts the
pieces streamed, on the ``[native]`` variant):

* a 1-D kernel over 8 MiB of floats in buffers starting on a line streams whole lines, its
  output exact, with checks on and off (``SGVM_BOUNDS=0``: the pre-pass's ranges step the
  addresses);
* lanes that do not store leave their bytes: every other lane stores, and a piece whose
  lanes all stored but one (checks on and off);
* a row starting off a 64-byte line (``out[i + 3]``) and work-groups of 100 lanes (pieces
  ending mid-line): the bytes before and after the stored range keep their values (checks
  on and off);
* 1-, 2- and 8-byte elements;
* a 2-D kernel in 16×16 work-groups (rows of ``SG_SIZE`` lanes, a line each) streams a row
  at a time, and a row in which a lane does not store is written lane by lane;
* below 8 MiB nothing streams; a module with an atomic streams nothing (another work-group
  could see a store through it before the entry point's fence).
"""

import numpy as np
import pytest

from sgvm.engine.native import backend as native_backend
from sgvm.engine.native import streams
from sgvm.engine.native.render import Renderer
from sgvm.runtime import residency
from sgvm.runtime.args import BufferArg, ValueArg
from sgvm.runtime.launch import launch
from sgvm.runtime.memory import Allocation, zeroed
from sgvm.runtime.ndrange import NDRange

from . import harness
from .harness import O2, NativeRuns, build, run

SRC = r"""
kernel void scale(global const float *a, global float *out, uint off) {
  size_t i = get_global_id(0);
  out[i + off] = a[i] * 2.0f + 1.0f;
}

kernel void some(global const float *a, global float *out, uint keep) {
  size_t i = get_global_id(0);
  float v = a[i];
  if (i % keep == 1) {
    if (v < 2.0f) return;
    v = 5.0f;
  }
  out[i] = v * 3.0f;
}

kernel void plane(global const float *a, global float *out, int w, int skip) {
  int x = get_global_id(0), i = get_global_id(1) * w + x;
  if (x != skip) out[i] = a[i] + 3.0f;
}

kernel void narrow(global const uint *a, global uchar *c, global short *s, global ulong *w) {
  size_t i = get_global_id(0);
  uint v = a[i];
  c[i] = (uchar)(v * 7u);
  s[i] = (short)(v ^ 0x5a5au);
  w[i] = (ulong)v * 0x100000001UL;
}
"""

ATOMIC = r"""
kernel void counted(global const float *a, global float *out, global uint *n) {
  size_t i = get_global_id(0);
  out[i] = a[i] + 1.0f;
  if (i == 0) atomic_inc(n);
}
"""

BIG = streams.STREAM // 4  # floats in 8 MiB


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


def _streamed(backend, module) -> NativeRuns:
    return NativeRuns(backend, module, "sg_streamed_runs")


def _aligned(x: np.ndarray) -> Allocation:
    """``x`` in an allocation starting on a 128-byte boundary, as sgvm.cl's buffers do (the
    harness's copies start 16 bytes into a line: their pieces take the copy of partial
    lines)."""
    raw = zeroed(x.nbytes)
    raw[:] = x.view(np.uint8)
    assert raw.ctypes.data % 64 == 0
    return Allocation(raw, "global")


def test_a_large_output_streams(module, backend, checks):
    """8 MiB of floats in buffers starting on a line, work-groups of 256: every piece of 256
    lanes streams as whole lines, checks on or off."""
    a = np.random.default_rng(1).random(BIG, np.float32)
    bufs = [_aligned(a), _aligned(np.zeros(BIG, np.float32))]
    with _streamed(backend, module) as streamed:
        launch(module, "scale", [*map(BufferArg, bufs), ValueArg(np.uint32(0).tobytes())],
               NDRange((BIG,), (256,)), device=harness.DEVICE)
    residency.host_access(bufs[1])
    want = a * np.float32(2) + np.float32(1)
    np.testing.assert_array_equal(bufs[1].data.view(np.float32), want)
    if streamed.native:
        assert streamed.count == BIG // streams.PIECE


@pytest.mark.parametrize("keep", [2, 4096])
def test_lanes_that_do_not_store_keep_their_bytes(module, backend, keep, checks):
    """``some``: lane ``i`` returns before its store where ``i % keep == 1`` (its float
    stays -7): a piece with such a lane is written lane by lane, the others stream."""
    a = np.random.default_rng(2).random(BIG, np.float32)
    out0 = np.full(BIG, -7, np.float32)
    with _streamed(backend, module) as streamed:
        (_, out), _ = run(module, "some", [a, out0, np.uint32(keep)], BIG, 256)
    want = a * np.float32(3)
    want[np.arange(BIG) % keep == 1] = -7
    np.testing.assert_array_equal(out, want)
    if streamed.native:
        pieces = BIG // streams.PIECE
        assert streamed.count == (0 if keep == 2 else pieces - BIG // keep)


@pytest.mark.parametrize("off, local", [(3, 256), (0, 100), (5, 100)])
def test_rows_off_a_line_and_short_pieces(module, backend, off, local, checks):
    """The stored range starts ``off`` floats into a line, or work-groups of 100 lanes end
    pieces mid-line: the floats before and after it keep their values."""
    n = BIG - 400
    a = np.random.default_rng(3).random(n, np.float32)
    out0 = np.full(BIG, 9, np.float32)
    with _streamed(backend, module) as streamed:
        (_, out), _ = run(module, "scale", [a, out0, np.uint32(off)], n, local)
    want = out0.copy()
    want[off:off + n] = a * np.float32(2) + np.float32(1)
    np.testing.assert_array_equal(out, want)
    if streamed.native:
        assert streamed.count > 0


@pytest.mark.parametrize("skip", [-1, 37])
def test_rows_of_a_sub_group_stream_a_row_at_a_time(module, backend, skip, checks, monkeypatch):
    """``plane`` over 2048 × 1024 floats (8 MiB) in 16×16 work-groups: each row of 16 lanes
    streams as one line; with ``skip`` = 37 lane 5 of the rows of one column of
    work-groups does not store (its float stays -1), and those rows are written lane by
    lane. (The launch keeps its work-groups, which ``plane``, blind to them, would otherwise
    run as rows: ``regions.rows``.)"""
    monkeypatch.setattr(native_backend, "_rows", lambda nd, *_: nd)
    w, h = 2048, 1024
    a = np.random.default_rng(7).random(w * h, np.float32)
    out0 = np.full(w * h, -1, np.float32)
    bufs = [_aligned(a), _aligned(out0)]
    with _streamed(backend, module) as streamed:
        launch(module, "plane", [*map(BufferArg, bufs), ValueArg(np.int32(w).tobytes()),
                                 ValueArg(np.int32(skip).tobytes())],
               NDRange((w, h), (16, 16)), device=harness.DEVICE)
    residency.host_access(bufs[1])
    want = a + np.float32(3)
    if skip >= 0:
        want.reshape(h, w)[:, skip] = -1
    np.testing.assert_array_equal(bufs[1].data.view(np.float32), want)
    if streamed.native:
        assert streamed.count == w * h // 16 - (h if skip >= 0 else 0)


def test_one_two_and_eight_byte_elements(module, backend):
    """``narrow``: ``uchar``, ``short`` and ``ulong`` stores of 8 MiB or more (the bytes and
    shorts below it: not streamed, still exact)."""
    n = BIG
    a = np.random.default_rng(4).integers(0, 2**32, n, dtype=np.uint32)
    outs = [np.zeros(n, np.uint8), np.zeros(n, np.int16), np.zeros(n, np.uint64)]
    with _streamed(backend, module) as streamed:
        (_, c, s, w), _ = run(module, "narrow", [a, *outs], n, 256)
    np.testing.assert_array_equal(c, (a * np.uint32(7)).astype(np.uint8))
    np.testing.assert_array_equal(s, (a ^ np.uint32(0x5A5A)).astype(np.uint16).view(np.int16))
    np.testing.assert_array_equal(w, a.astype(np.uint64) * np.uint64(0x100000001))
    if streamed.native:
        assert streamed.count == n // streams.PIECE  # the ulongs only


def test_a_small_output_does_not_stream(module, backend):
    """4 MiB: stored through the stage with plain stores."""
    n = BIG // 2
    a = np.random.default_rng(5).random(n, np.float32)
    with _streamed(backend, module) as streamed:
        (_, out), _ = run(module, "scale", [a, np.zeros(n, np.float32), np.uint32(0)], n, 256)
    np.testing.assert_array_equal(out, a * np.float32(2) + np.float32(1))
    assert streamed.count == 0


def test_a_module_with_an_atomic_does_not_stream(backend):
    """The fused loop of ``counted`` stores as before (no stage), the output exact."""
    module = build(ATOMIC, O2)
    assert not Renderer(module, 16).streamable
    a = np.random.default_rng(6).random(BIG, np.float32)
    with _streamed(backend, module) as streamed:
        (_, out, n), _ = run(module, "counted", [a, np.zeros(BIG, np.float32),
                                                 np.zeros(1, np.uint32)], BIG, 256)
    np.testing.assert_array_equal(out, a + np.float32(1))
    assert n[0] == 1 and streamed.count == 0


def test_which_loops_stream(module):
    """The loops for rows of any length and the copies for rows of ``SG_SIZE`` hold the
    stages, each copy one ``sg_put`` per streamed store; neither prefetches for writing."""
    r = Renderer(module, 16)
    for kernel, puts in (("scale", 1), ("some", 1), ("narrow", 3), ("plane", 1)):
        (ep,) = [e for e in r.m.entry_points if e.name == kernel]
        _, text = r._kernel(ep.function, kernel, "k")
        assert text.count("sg_streamed += sg_put(") == 2 * puts, kernel
        whole = text.split("sg_l0 += SG_SIZE) {")[1].split("} } else")[0]
        assert whole.count("sg_streamed += sg_put(") == puts, kernel
        assert ", 1, 3);" not in text, kernel  # no __builtin_prefetch(…, 1, 3) of a store
