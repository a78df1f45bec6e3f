"""Shuffle index rules against hand-derived values and a per-lane reading of
cl_intel_subgroups.txt."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgvm.semantics import (
    shuffle,
    shuffle_down,
    shuffle_down_source,
    shuffle_source,
    shuffle_up,
    shuffle_up_source,
    shuffle_xor,
    shuffle_xor_source,
    source_inactive,
)

S = 8
CUR = np.arange(S, dtype=np.int32)[None, :] + 100  # lane l holds 100 + l
OTHER = np.arange(S, dtype=np.int32)[None, :] + 200  # lane l holds 200 + l
U32 = 2**32


def _lanes(value: int) -> np.ndarray:
    return np.full((1, S), value, dtype=np.int64)


def test_shuffle_down_hand_values() -> None:
    res, oor = shuffle_down(CUR, OTHER, _lanes(3), S)
    assert res.tolist() == [[103, 104, 105, 106, 107, 200, 201, 202]]
    assert not oor.any()
    res, oor = shuffle_down(CUR, OTHER, _lanes(8), S)
    assert res.tolist() == [[200 + l for l in range(S)]]
    res, oor = shuffle_down(CUR, OTHER, _lanes(9), S)
    assert res[0, :7].tolist() == [201, 202, 203, 204, 205, 206, 207]
    assert oor.tolist() == [[False] * 7 + [True]]  # 7 + 9 == 16 == 2 * max
    _, oor = shuffle_down(CUR, OTHER, _lanes(16), S)
    assert oor.all()


def test_shuffle_up_hand_values() -> None:
    res, oor = shuffle_up(OTHER, CUR, _lanes(3), S)
    assert res.tolist() == [[205, 206, 207, 100, 101, 102, 103, 104]]
    assert not oor.any()
    res, oor = shuffle_up(OTHER, CUR, _lanes(8), S)
    assert res.tolist() == [[200 + l for l in range(S)]]
    res, oor = shuffle_up(OTHER, CUR, _lanes(9), S)
    assert oor.tolist() == [[True] + [False] * 7]  # 0 - 9 < -max
    assert res[0, 1:].tolist() == [200 + l for l in range(7)]


def test_shuffle_and_xor_hand_values() -> None:
    res, oor = shuffle(CUR, np.array([[7, 0, 3, 3, 8, 1, 2, 6]]), S)
    assert res[0, [0, 1, 2, 3, 5, 6, 7]].tolist() == [107, 100, 103, 103, 101, 102, 106]
    assert oor.tolist() == [[False] * 4 + [True] + [False] * 3]
    res, oor = shuffle_xor(CUR, _lanes(1), S)
    assert res.tolist() == [[101, 100, 103, 102, 105, 104, 107, 106]]
    assert not oor.any()
    # l ^ 8 is 8..15 for S == 8: index == max names no work item either.
    _, oor = shuffle_xor(CUR, _lanes(8), S)
    assert oor.all()


def test_out_of_range_results_are_zero() -> None:
    res, oor = shuffle_down(CUR, OTHER, _lanes(20), S)
    assert oor.all() and not res.any()


def test_index_arithmetic_is_32_bit() -> None:
    # Unsigned sum: 1 + 0xFFFFFFFF wraps to 0 -> current[0].
    src = shuffle_down_source(np.array([[0xFFFFFFFF] * S]), S)
    assert src.lane[0, 1] == 0 and not src.second[0, 1] and not src.out_of_range[0, 1]
    assert src.out_of_range[0, 0]  # 0xFFFFFFFF itself
    # Signed difference: l - 0xFFFFFFFF == l + 1 (mod 2**32).
    src = shuffle_up_source(np.array([[U32 - 1] * S]), S)
    assert src.lane[0, :7].tolist() == list(range(1, 8))
    assert src.out_of_range[0].tolist() == [False] * 7 + [True]  # 7 + 1 == max
    # A negative int64 operand is the same 32-bit pattern.
    assert shuffle_up_source(-1, S).lane.tolist() == src.lane[0].tolist()
    assert shuffle_source(U32 + 2, S).lane == 2


def test_vector_data() -> None:
    cur = np.arange(2 * S * 3, dtype=np.float32).reshape(2, S, 3)
    nxt = -cur
    res, oor = shuffle_down(cur, nxt, 2, S)
    assert res.shape == (2, S, 3)
    assert np.array_equal(res[:, : S - 2], cur[:, 2:])
    assert np.array_equal(res[:, S - 2 :], nxt[:, :2])
    res, _ = shuffle_xor(cur.astype(np.uint8), np.array([[3] * S, [1] * S]), S)
    assert res.dtype == np.uint8
    assert res[0, 0].tolist() == cur[0, 3].tolist() and res[1, 0].tolist() == cur[1, 1].tolist()


def test_partial_sub_group_source_inactive() -> None:
    # Sub-group of 5 work items with max size 8: lanes 5..7 do not exist.
    active = np.array([[True] * 5 + [False] * 3])
    src = shuffle_down_source(np.full((1, S), 2), S)
    # Lanes 3, 4 read current[5], current[6], which do not exist; lanes 5..7
    # do not execute, so what they read does not matter.
    assert source_inactive(src, active).tolist() == [[False] * 3 + [True, True] + [False] * 3]
    # Lanes 0, 1 read previous[6], previous[7]: missing lanes of this sub-group.
    src = shuffle_up_source(np.full((1, S), 2), S)
    assert source_inactive(src, active).tolist() == [[True, True] + [False] * 6]
    # Out-of-range lanes are reported by out_of_range, not here.
    src = shuffle_down_source(np.full((1, S), 30), S)
    assert not source_inactive(src, active).any()


def test_wrong_lane_count_rejected() -> None:
    with pytest.raises(ValueError):
        shuffle(CUR, 0, 16)


# Per-lane reading of the spec, written without NumPy.


def _spec_down(lane: int, delta: int, max_size: int) -> tuple[str, int] | None:
    index = (lane + delta) % U32  # "the unsigned shuffle index"
    if index < max_size:
        return "current", index
    if index < 2 * max_size:
        return "next", index - max_size
    return None


def _spec_up(lane: int, delta: int, max_size: int) -> tuple[str, int] | None:
    index = (lane - delta) % U32
    if index >= 2**31:
        index -= U32  # "the signed shuffle index"
    if 0 <= index < max_size:
        return "current", index
    if -max_size <= index < 0:
        return "previous", index + max_size
    return None


def _spec_xor(lane: int, value: int, max_size: int) -> tuple[str, int] | None:
    index = lane ^ value
    return ("data", index) if index < max_size else None


def _spec_shuffle(lane: int, index: int, max_size: int) -> tuple[str, int] | None:
    return ("data", index) if index < max_size else None


_delta = st.one_of(st.integers(0, 80), st.integers(0, U32 - 1))


@settings(max_examples=150, deadline=None)
@given(
    max_size=st.sampled_from([1, 8, 16, 32]),
    groups=st.integers(1, 3),
    kind=st.sampled_from(["down", "up", "xor", "shuffle"]),
    data=st.data(),
)
def test_index_rules_match_spec(max_size, groups, kind, data) -> None:
    deltas = np.array(
        data.draw(st.lists(_delta, min_size=groups * max_size, max_size=groups * max_size)),
        dtype=np.int64,
    ).reshape(groups, max_size)
    first = np.arange(groups * max_size, dtype=np.int64).reshape(groups, max_size) * 7 + 1
    second = -first
    fn, spec, names = {
        "down": (lambda d: shuffle_down(first, second, d, max_size), _spec_down, ("current", "next")),
        "up": (lambda d: shuffle_up(second, first, d, max_size), _spec_up, ("current", "previous")),
        "xor": (lambda d: shuffle_xor(first, d, max_size), _spec_xor, ("data", None)),
        "shuffle": (lambda d: shuffle(first, d, max_size), _spec_shuffle, ("data", None)),
    }[kind]
    result, out_of_range = fn(deltas)
    source = {
        "down": shuffle_down_source,
        "up": shuffle_up_source,
        "xor": shuffle_xor_source,
        "shuffle": shuffle_source,
    }[kind](deltas, max_size)
    for g in range(groups):
        for lane in range(max_size):
            want = spec(lane, int(deltas[g, lane]), max_size)
            assert bool(out_of_range[g, lane]) == (want is None)
            assert bool(source.out_of_range[g, lane]) == (want is None)
            if want is None:
                continue
            operand, src_lane = want
            assert int(source.lane[g, lane]) == src_lane
            assert bool(source.second[g, lane]) == (operand != names[0])
            expected = (first if operand == names[0] else second)[g, src_lane]
            assert result[g, lane] == expected
