"""Blocks the native backend runs inside their predecessor's lane loop (``chains.py``,
docs/native.md "The code it generates"), against NumPy computations, on both backends:

* a boundary test whose lanes go on to the interior block or skip it, in work-groups where
  every lane, no lane or some lanes do (a 5-point stencil with a one-lane border);
* a collective after the joined block sees every lane of its sub-group;
* loads of a lane that skips the joined block are never made: lanes past the end of the
  input skip it without a fault, and a lane that does fault is named;
* a block that writes what its predecessor reads is not joined: every lane reads before
  any lane writes, as in lock-step;
* a block after a loop's exit test is not joined: lanes that leave the loop early wait
  there until the last lane has left it.
"""

import numpy as np
import pytest

from sgvm import KernelMemoryError
from sgvm.engine.native.render import Renderer

from . import harness
from .harness import O2, build, run

SRC = r"""
kernel void stencil(global const float *a, global float *b, int w, int h) {
  int x = get_global_id(0), y = get_global_id(1), i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { b[i] = a[i]; return; }
  b[i] = 0.2f * (a[i] + a[i - 1] + a[i + 1] + a[i - w] + a[i + w]);
}

__attribute__((intel_reqd_sub_group_size(8)))
kernel void pairs(global const int *a, global int *out, global int *sums, int n) {
  int i = get_global_id(0);
  int v = -1;
  if (i < n) v = a[i] * 3 + a[i + 1];
  out[i] = v;
  sums[i] = sub_group_reduce_add(v);
}

kernel void evens(global const int *a, global int *out, int n) {
  int i = get_global_id(0);
  int v = -1;
  if (i < n) v = a[2 * i];
  out[i] = v;
}

kernel void chase(volatile global int *cnt, global int *out, global const int *n) {
  int l = get_global_id(0);
  int k = 0, seen = -1;
  for (;;) {
    atomic_inc(cnt);
    k++;
    if (k >= n[l]) { seen = cnt[1] + *cnt; break; }
  }
  if (seen >= 0) out[l] = seen;
}

kernel void shift(global int *buf) {
  int i = get_global_id(0);
  int v = buf[i > 0 ? i - 1 : 0];
  if (v >= 0) buf[i] = v * 2;
}
"""


@pytest.fixture(scope="module")
def module():
    return build(SRC, O2)


def _joined(m, kernel: str) -> dict[int, int]:
    r = Renderer(m, 8)
    (ep,) = [e for e in r.m.entry_points if e.name == kernel]
    r._kernel(ep.function, kernel, "k")
    return r.joined


def test_which_blocks_join(module):
    """The stencil's interior and the guarded loads join their tests; the store after a
    load of the same buffer does not (the tests below run those paths)."""
    for kernel in ("stencil", "pairs", "evens"):
        joined = _joined(module, kernel)
        assert joined and all(k == j + 1 for k, j in joined.items()), kernel
    assert _joined(module, "shift") == {}
    assert _joined(module, "chase") == {}


@pytest.mark.parametrize("bounds", ["1", "0"])
@pytest.mark.parametrize("shape,local", [((48, 40), (16, 8)), ((30, 21), (6, 7)),
                                         ((16, 16), (16, 16))])
def test_stencil_border_and_interior(module, shape, local, bounds, monkeypatch):
    """Work-groups of border lanes only, interior lanes only and both; with checks on and
    off (SGVM_BOUNDS: the joined loop's unchecked copy)."""
    monkeypatch.setenv("SGVM_BOUNDS", bounds)
    w, h = shape
    a = np.random.default_rng(w).random((h, w), np.float32)
    (_, b), _ = run(module, "stencil", [a, np.zeros_like(a), np.int32(w), np.int32(h)],
                          shape, local)
    want = a.copy()
    want[1:-1, 1:-1] = np.float32(0.2) * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:]
                                          + a[:-2, 1:-1] + a[2:, 1:-1])
    np.testing.assert_array_equal(b, want)


@pytest.mark.parametrize("n", [0, 5, 8, 13, 40])
def test_guarded_loads_then_collective(module, n):
    """Lanes below ``n`` load ``a[i]`` and ``a[i + 1]`` (``a`` has ``n + 1`` elements: the
    others' addresses lie past it and must not be read); the reduction after sees all."""
    a = np.random.default_rng(n).integers(-100, 100, n + 1).astype(np.int32)
    (_, out, sums), _ = run(module, "pairs", [a, np.zeros(40, np.int32),
                                                 np.zeros(40, np.int32), np.int32(n)], 40, 40)
    want = np.full(40, -1, np.int32)
    want[:n] = a[:n] * 3 + a[1:n + 1]
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(sums, np.repeat(want.reshape(5, 8).sum(axis=1), 8))


def test_fault_in_joined_block_names_its_work_item(module, own_record):
    """``a`` holds 30 elements: work-item 15 is the first whose joined block reads past it
    (lanes from 20 on skip the block)."""
    with pytest.raises(KernelMemoryError, match=r"load .*byte offset 120 .*global id \(15,\)"):
        run(module, "evens", [np.zeros(30, np.int32), np.zeros(40, np.int32), np.int32(20)],
            40, 40)
    (_, out), _ = run(module, "evens", [np.arange(30, dtype=np.int32), np.zeros(40, np.int32),
                                        np.int32(15)], 40, 40)
    np.testing.assert_array_equal(out, np.where(np.arange(40) < 15, 2 * np.arange(40), -1))


def test_write_after_read_of_the_same_buffer_is_not_joined(module):
    """Every lane reads ``buf[i - 1]`` before any writes ``buf[i]``."""
    buf = np.arange(64, dtype=np.int32) - 3
    (got,), _ = run(module, "shift", [buf.copy()], 64, 64)
    old = np.concatenate([buf[:1], buf[:-1]])
    want = np.where(old >= 0, old * 2, buf)
    np.testing.assert_array_equal(got, want)


def test_exit_of_a_loop_waits_for_every_lane(module):
    """Each lane counts ``n[l]`` atomic increments (a lock-step block: no region); the block
    reading the counter after the loop's exit test runs when every lane has left the loop,
    so all read the total (joined to the test, a lane leaving early would read less). The
    CUDA backend runs no lock-step: there a lane reads at least its own increments."""
    n = np.random.default_rng(4).integers(1, 6, 64).astype(np.int32)
    (cnt, out, _), _ = run(module, "chase", [np.zeros(2, np.int32), np.zeros(64, np.int32), n],
                           64, 64)
    assert cnt[0] == n.sum()
    if harness.on_cuda():  # no lock-step: a lane leaving early reads the count so far
        assert ((out >= n) & (out <= n.sum())).all()
    else:
        np.testing.assert_array_equal(out, np.full(64, n.sum(), np.int32))
