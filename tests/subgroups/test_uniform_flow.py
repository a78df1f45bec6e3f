"""Loops of one block whose lanes mostly decide alike (docs/native.md, "The code it
generates"): the native backend writes a value computed in such a loop to its lane array
only on the edges whose target reads it, and leaves a looping lane's block number as it is.
NumPy expectations computed from the sub-group mapping of ``helpers``; run on both backends
by the differential suite. Trip counts the same for every lane, except one lane (first,
middle or last of its work-group) that loops once more or once less, so that the exit
becomes divergent on the last iteration only; collectives after the loop see every lane."""

import numpy as np
import pytest

from sgvm.engine.common.block_order import block_order
from sgvm.engine.native.render import Renderer

from .helpers import GID, SHAPES, SIZES, assert_native, build, run, sub_groups, total, work_groups

SOURCE = r"""
#define REQ __attribute__((intel_reqd_sub_group_size(SG)))

REQ kernel void tail(global const uint *n, global uint *out, global uint *sums,
                     global uint *next) {
  size_t i = GID;
  uint m = n[i], acc = (uint)i, k = 0;
  do { acc = acc * 5u + (k ^ (uint)i); k++; } while (k < m);
  out[i] = acc;
  sums[i] = sub_group_reduce_add(acc + 1u);
  next[i] = intel_sub_group_shuffle(k, (get_sub_group_local_id() + 1) % get_sub_group_size());
}
""".replace("GID", GID)
BIG = {"big-nonuniform": ((700,), (300,))}


@pytest.fixture(scope="module", params=SIZES)
def sized(request):
    S = request.param
    return S, build(SOURCE, f"-cl-std=CL2.0 -DSG={S}")


def _expected(n: np.ndarray) -> np.ndarray:
    acc = np.arange(len(n), dtype=np.uint64)
    for i, ni in enumerate(n):
        for k in range(max(int(ni), 1)):
            acc[i] = (int(acc[i]) * 5 + (k ^ i)) % 2**32
    return acc.astype(np.uint32)


@pytest.mark.parametrize("shape", ["1d", "1d-nonuniform", "2d", "3d", *BIG])
@pytest.mark.parametrize("odd", ["none", "first+1", "middle+1", "last+1", "middle-1"])
def test_loop_exit_diverges_on_last_iteration(sized, shape, odd):
    S, m = sized
    gs, ls = {**SHAPES, **BIG}[shape]
    n = np.full(total(gs), 4, np.int64)
    if odd != "none":
        where, step = odd[:-2], int(odd[-2:])
        for ids in work_groups(gs, ls):
            lane = {"first": 0, "middle": len(ids) // 2, "last": len(ids) - 1}[where]
            n[ids[lane]] += step
    n = n.astype(np.uint32)
    zeros = np.zeros(total(gs), np.uint32)
    (_, out, sums, nxt), _ = run(m, "tail", [n, zeros, zeros, zeros], gs, ls)
    assert_native(m, "tail")
    acc = _expected(n)
    np.testing.assert_array_equal(out, acc)
    for ids in sub_groups(gs, ls, S):
        want = np.uint32((acc[ids].astype(np.uint64) + 1).sum() % 2**32)
        np.testing.assert_array_equal(sums[ids], want)
        np.testing.assert_array_equal(nxt[ids], np.roll(n[ids], -1))


def test_loop_values_are_stored_on_edges(sized):
    """The loop of ``tail`` is one block branching to itself; ``acc``'s next value is a C
    local stored only on the exit (the path the tests above exercise)."""
    S, m = sized
    r = Renderer(m, S)
    (ep,) = [e for e in r.m.entry_points if e.name == "tail"]
    f = r.m.functions[ep.function]
    by_label = {b.label: b for b in f.blocks}
    blocks = [by_label[label] for label in block_order(f)]
    loops = [k for k, b in enumerate(blocks) if b.label in b.terminator.ids()]
    assert loops
    source, _ = r.render()
    assert r.sunk and set(r.sunk.values()) <= set(loops)
    assert any(f"s{v} = " in source for v in r.sunk)  # computed into the C local
