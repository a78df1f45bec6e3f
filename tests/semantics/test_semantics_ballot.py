"""Properties of the ballot and clustered-reduce rules of sgvm.semantics (hypothesis):
the ballot bit layout ("Bit zero of the first vector component represents the sub-group
local ID zero, with higher-order bits and subsequent vector components representing, in
order, increasing sub-group local IDs"), its inverses and counts, and clustered reductions
as reductions of each run of ``cluster_size`` lanes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sgvm import semantics as sem

SIZES = st.sampled_from([8, 16, 32, 64, 128])


@st.composite
def lanes(draw, dtype=np.int32):
    S = draw(SIZES)
    G = draw(st.integers(1, 3))
    pred = np.array(draw(st.lists(st.booleans(), min_size=G * S, max_size=G * S))).reshape(G, S)
    active = np.array(draw(st.lists(st.booleans(), min_size=G * S, max_size=G * S))).reshape(G, S)
    return pred, active


@settings(max_examples=60, deadline=None)
@given(lanes())
def test_ballot_bit_i_of_component_i_over_32_is_lane_i(data) -> None:
    pred, active = data
    G, S = pred.shape
    field = sem.ballot(pred, active)
    assert field.shape == (G, S, 4) and field.dtype == np.uint32
    for g in range(G):
        for i in range(128):
            bit = (int(field[g, 0, i // 32]) >> (i % 32)) & 1
            assert bit == (i < S and pred[g, i] and active[g, i])
        assert (field[g] == field[g, 0]).all()  # the same bitfield in every lane


@settings(max_examples=60, deadline=None)
@given(lanes())
def test_ballot_counts_scans_and_finds(data) -> None:
    pred, active = data
    G, S = pred.shape
    field = sem.ballot(pred, active)
    setbits = pred & active
    np.testing.assert_array_equal(sem.inverse_ballot(field, S), setbits)
    np.testing.assert_array_equal(sem.ballot_bit_count(field, S)[:, 0], setbits.sum(axis=1))
    np.testing.assert_array_equal(sem.ballot_inclusive_scan(field), np.cumsum(setbits, axis=1))
    np.testing.assert_array_equal(sem.ballot_exclusive_scan(field),
                                  np.cumsum(setbits, axis=1) - setbits)
    for g in range(G):
        idx = np.flatnonzero(setbits[g])
        undefined = sem.find_undefined(field[g, 0], S)
        assert undefined == (len(idx) == 0)
        if len(idx):
            assert sem.ballot_find_lsb(field[g, 0], S) == idx[0]
            assert sem.ballot_find_msb(field[g, 0], S) == idx[-1]
        for k in range(S):
            assert sem.ballot_bit_extract(field[g, 0], k) == setbits[g, k]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 127), SIZES)
def test_masks_partition_the_bits(lane: int, S: int) -> None:
    lane = lane % S
    m = {k: sem.sub_group_mask(k, lane, S) for k in ("eq", "ge", "gt", "le", "lt")}
    below_max = sem.sub_group_mask("le", S - 1, S)
    np.testing.assert_array_equal(m["lt"] | m["eq"], m["le"])
    np.testing.assert_array_equal(m["gt"] | m["eq"], m["ge"])
    np.testing.assert_array_equal((m["lt"] | m["ge"]), below_max)
    assert not (m["lt"] & m["ge"]).any()
    assert sem.ballot_bit_count(m["eq"], S) == 1 and sem.ballot_find_lsb(m["eq"], S) == lane


OPS = ["add", "mul", "min", "max", "and", "or", "xor"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(OPS), st.sampled_from([8, 16, 32]), st.data())
def test_clustered_reduce_is_reduce_per_cluster(op: str, S: int, data) -> None:
    c = data.draw(st.sampled_from([c for c in (1, 2, 4, 8, 16, 32) if c <= S]))
    G = data.draw(st.integers(1, 3))
    x = np.array(data.draw(st.lists(st.integers(-128, 127), min_size=G * S, max_size=G * S)),
                 dtype=np.int8).reshape(G, S)
    active = np.array(data.draw(st.lists(st.booleans(), min_size=G * S, max_size=G * S))).reshape(G, S)
    out = sem.clustered_reduce(op, x, active, c)
    for g in range(G):
        for start in range(0, S, c):
            part = slice(start, start + c)
            want = sem.identity(op, np.int8)
            for v, a in zip(x[g, part], active[g, part], strict=True):
                if a:
                    want = np.int8(_apply(op, int(want), int(v)))
            assert (out[g, part] == want).all()
    assert not sem.cluster_size_undefined(c, S)
    assert sem.cluster_size_undefined(3, S) and sem.cluster_size_undefined(2 * S, S)
    assert sem.cluster_size_undefined(None, S) and sem.cluster_size_undefined(0, S)


def _apply(op: str, a: int, b: int) -> int:
    r = {"add": a + b, "mul": a * b, "min": min(a, b), "max": max(a, b), "and": a & b,
         "or": a | b, "xor": a ^ b}[op]
    return (r + 128) % 256 - 128  # 8-bit wrap


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([8, 16, 32]), st.integers(-70, 70), st.data())
def test_clustered_rotate_stays_in_its_cluster(S: int, delta: int, data) -> None:
    c = data.draw(st.sampled_from([c for c in (1, 2, 4, 8, 16, 32) if c <= S]))
    src = sem.rotate_source(delta, S, c)
    lanes_ = np.arange(S)
    assert (src.lane // c == lanes_ // c).all()
    assert ((src.lane - lanes_) % c == delta % c).all()
    assert not src.out_of_range.any()
