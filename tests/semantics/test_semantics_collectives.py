"""Collectives against the specifications' examples, hand-derived values and a
literal per-lane fold."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sgvm.semantics import (
    all_,
    any_,
    broadcast,
    broadcast_undefined,
    identity,
    reduce,
    scan_exclusive,
    scan_inclusive,
)

SPEC_INPUT = [3, 1, 7, 0, 4, 1, 6, 3]


def _all_active(shape: tuple[int, int]) -> np.ndarray:
    return np.ones(shape, dtype=bool)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.float32, np.float16, np.int8])
def test_spec_example_scans(dtype: type) -> None:
    # opencl_c_work_group_functions.txt: [3 1 7 0 4 1 6 3] -> inclusive
    # [3 4 11 11 15 16 22 25], exclusive [0 3 4 11 11 15 16 22].
    x = np.array([SPEC_INPUT], dtype=dtype)
    active = _all_active(x.shape)
    inc = scan_inclusive("add", x, active)
    exc = scan_exclusive("add", x, active)
    assert inc.dtype == exc.dtype == np.dtype(dtype)
    assert inc.tolist() == [[3, 4, 11, 11, 15, 16, 22, 25]]
    assert exc.tolist() == [[0, 3, 4, 11, 11, 15, 16, 22]]
    assert reduce("add", x, active).tolist() == [[25] * 8]


def test_spec_example_min_max() -> None:
    x = np.array([SPEC_INPUT], dtype=np.int32)
    active = _all_active(x.shape)
    assert scan_inclusive("min", x, active).tolist() == [[3, 1, 1, 0, 0, 0, 0, 0]]
    assert scan_inclusive("max", x, active).tolist() == [[3, 3, 7, 7, 7, 7, 7, 7]]
    int_max, int_min = 2**31 - 1, -(2**31)
    assert scan_exclusive("min", x, active).tolist() == [[int_max, 3, 1, 1, 0, 0, 0, 0]]
    assert scan_exclusive("max", x, active).tolist() == [[int_min, 3, 3, 7, 7, 7, 7, 7]]
    assert reduce("min", x, active).tolist() == [[0] * 8]
    assert reduce("max", x, active).tolist() == [[7] * 8]


IDENTITIES = [
    # dtype, min identity (type max / +INF), max identity (type min / -INF)
    (np.int8, 127, -128),
    (np.uint8, 255, 0),
    (np.int16, 32767, -32768),
    (np.uint16, 65535, 0),
    (np.int32, 2147483647, -2147483648),
    (np.uint32, 4294967295, 0),
    (np.int64, 9223372036854775807, -9223372036854775808),
    (np.uint64, 18446744073709551615, 0),
    (np.float16, float("inf"), float("-inf")),
    (np.float32, float("inf"), float("-inf")),
    (np.float64, float("inf"), float("-inf")),
]


@pytest.mark.parametrize(("dtype", "min_id", "max_id"), IDENTITIES)
def test_identity(dtype: type, min_id: float, max_id: float) -> None:
    for op, want in (("add", 0), ("min", min_id), ("max", max_id)):
        got = identity(op, dtype)
        assert got.dtype == np.dtype(dtype)
        assert got == want


@pytest.mark.parametrize(("dtype", "min_id", "max_id"), IDENTITIES)
def test_exclusive_first_lane_is_identity(dtype: type, min_id: float, max_id: float) -> None:
    x = np.array([[5, 6]], dtype=dtype)
    active = _all_active(x.shape)
    assert scan_exclusive("add", x, active)[0, 0] == 0
    assert scan_exclusive("min", x, active)[0, 0] == min_id
    assert scan_exclusive("max", x, active)[0, 0] == max_id


def test_unknown_op() -> None:
    with pytest.raises(ValueError):
        identity("nand", np.int32)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("dtype", "values", "inclusive"),
    [
        (np.int8, [100, 100, 100], [100, -56, 44]),
        (np.uint8, [200, 100, 255], [200, 44, 43]),
        (np.int16, [30000, 30000, 10000], [30000, -5536, 4464]),
        (np.uint16, [65535, 2, 65535], [65535, 1, 0]),
        (np.int32, [2**31 - 1, 1, 0], [2**31 - 1, -(2**31), -(2**31)]),
        (np.uint64, [2**64 - 1, 2, 0], [2**64 - 1, 1, 1]),
    ],
)
def test_integer_add_wraps(dtype: type, values: list[int], inclusive: list[int]) -> None:
    x = np.array([values], dtype=dtype)
    active = _all_active(x.shape)
    assert scan_inclusive("add", x, active).tolist() == [inclusive]
    assert scan_exclusive("add", x, active).tolist() == [[0] + inclusive[:-1]]
    assert reduce("add", x, active).tolist() == [[inclusive[-1]] * 3]


def test_inactive_lanes_do_not_contribute() -> None:
    x = np.array([[5, 100, 1, -7, 2]], dtype=np.int32)
    active = np.array([[True, False, True, False, True]])
    ok = active[0]
    assert scan_inclusive("add", x, active)[0, ok].tolist() == [5, 6, 8]
    assert scan_exclusive("add", x, active)[0, ok].tolist() == [0, 5, 6]
    assert reduce("add", x, active)[0, ok].tolist() == [8, 8, 8]
    assert scan_inclusive("min", x, active)[0, ok].tolist() == [5, 1, 1]
    assert reduce("min", x, active)[0, 0] == 1
    assert scan_inclusive("max", x, active)[0, ok].tolist() == [5, 5, 5]
    assert reduce("max", x, active)[0, 0] == 5


def test_exclusive_with_leading_inactive_lanes_is_identity() -> None:
    x = np.array([[-9, 7, 3]], dtype=np.int16)
    active = np.array([[False, True, True]])
    assert scan_exclusive("min", x, active)[0, 1:].tolist() == [32767, 7]
    assert scan_exclusive("max", x, active)[0, 1:].tolist() == [-32768, 7]
    assert scan_exclusive("add", x, active)[0, 1:].tolist() == [0, 7]


def test_partial_sub_group() -> None:
    # Max sub-group size 8, a last sub-group of 5 work items: lanes 5..7 are
    # padding holding garbage.
    x = np.array([[1, 2, 3, 4, 5, 99, 99, 99], [1] * 8], dtype=np.uint8)
    active = np.array([[True] * 5 + [False] * 3, [True] * 8])
    assert reduce("add", x, active)[:, 0].tolist() == [15, 8]
    assert reduce("max", x, active)[:, 0].tolist() == [5, 1]
    assert scan_inclusive("add", x, active)[0, :5].tolist() == [1, 3, 6, 10, 15]


def test_half_accumulates_in_half() -> None:
    # 2048 + 1 rounds back to 2048 in half (ties to even) at every step;
    # accumulating in float would give 2050.
    x = np.array([[2048, 1, 1]], dtype=np.float16)
    active = _all_active(x.shape)
    assert scan_inclusive("add", x, active).tolist() == [[2048, 2048, 2048]]
    assert reduce("add", x, active).dtype == np.float16
    assert reduce("add", x, active)[0, 0] == 2048


def test_float_order_is_sequential_in_lane_order() -> None:
    # ((2**24 + 1) + 1) == 2**24 in float32, while 2**24 + (1 + 1) == 2**24 + 2.
    x = np.array([[2.0**24, 1.0, 1.0], [1.0, 1.0, 2.0**24]], dtype=np.float32)
    active = _all_active(x.shape)
    assert reduce("add", x, active)[:, 0].tolist() == [2.0**24, 2.0**24 + 2]
    assert scan_exclusive("add", x, active)[0].tolist() == [0.0, 2.0**24, 2.0**24]


def test_float_reduce_equals_last_inclusive_lane() -> None:
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((64, 16)) * 10.0 ** rng.integers(-8, 8, (64, 16))).astype(np.float32)
    active = rng.random((64, 16)) < 0.7
    inc = scan_inclusive("add", x, active)
    assert np.array_equal(reduce("add", x, active)[:, 0], inc[:, -1])
    # Sequential float32 fold, written out lane by lane.
    for g in range(64):
        acc = None
        for v in x[g][active[g]]:
            acc = v if acc is None else np.float32(acc + v)
        if acc is not None:
            assert reduce("add", x, active)[g, 0] == acc


def test_negative_zero_sum_keeps_its_sign() -> None:
    x = np.array([[-0.0, 5.0, -0.0]], dtype=np.float32)
    active = np.array([[True, False, True]])
    assert np.signbit(reduce("add", x, active)[0, 0])
    exc = scan_exclusive("add", x, active)
    assert exc[0, 0] == 0 and not np.signbit(exc[0, 0])  # I, which is 0
    assert np.signbit(exc[0, 2])  # a0 == -0.0


def test_float_min_max_ignore_nan_and_use_infinities() -> None:
    x = np.array([[np.nan, 1.5, -2.0, np.nan]], dtype=np.float32)
    active = _all_active(x.shape)
    assert reduce("min", x, active)[0, 0] == -2.0
    assert reduce("max", x, active)[0, 0] == 1.5
    assert np.isnan(scan_inclusive("min", x, active)[0, 0])
    assert np.isnan(reduce("min", x[:, :1], active[:, :1])[0, 0])
    assert scan_exclusive("min", x, active)[0, 0] == np.inf
    assert scan_exclusive("max", x, active)[0, 0] == -np.inf


def test_vectors_scan_each_component() -> None:
    x = np.array([[[1, 10], [2, 20], [3, 30]]], dtype=np.int32)
    active = np.array([[True, False, True]])
    inc = scan_inclusive("add", x, active)
    assert inc.shape == (1, 3, 2)
    assert inc[0, [0, 2]].tolist() == [[1, 10], [4, 40]]
    assert scan_exclusive("add", x, active)[0, [0, 2]].tolist() == [[0, 0], [1, 10]]
    assert reduce("max", x, active)[0].tolist() == [[3, 30]] * 3


def _literal_fold(op: str, values: list[int], bits: int, signed: bool) -> tuple[list, list]:
    """Inclusive and exclusive scans of ``values`` by the spec's definition,
    in exact integer arithmetic reduced to the type's width."""

    def wrap(v: int) -> int:
        v %= 2**bits
        return v - 2**bits if signed and v >= 2 ** (bits - 1) else v

    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    ident = {"add": 0, "min": hi, "max": lo}[op]
    fn = {"add": lambda a, b: wrap(a + b), "min": min, "max": max}[op]
    inclusive, exclusive, acc = [], [], ident
    for v in values:
        exclusive.append(acc)
        acc = fn(acc, v)
        inclusive.append(acc)
    return inclusive, exclusive


INT_DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64]


@settings(max_examples=200, deadline=None)
@given(
    dtype=st.sampled_from(INT_DTYPES),
    op=st.sampled_from(["add", "min", "max"]),
    groups=st.integers(1, 4),
    lanes=st.sampled_from([1, 8, 16, 32]),
    data=st.data(),
)
def test_integer_collectives_match_literal_fold(dtype, op, groups, lanes, data) -> None:
    info = np.iinfo(dtype)
    values = data.draw(
        st.lists(st.integers(int(info.min), int(info.max)), min_size=groups * lanes, max_size=groups * lanes)
    )
    mask = data.draw(st.lists(st.booleans(), min_size=groups * lanes, max_size=groups * lanes))
    x = np.array(values, dtype=dtype).reshape(groups, lanes)
    active = np.array(mask).reshape(groups, lanes)
    inc = scan_inclusive(op, x, active)
    exc = scan_exclusive(op, x, active)
    red = reduce(op, x, active)
    for g in range(groups):
        lanes_on = [i for i in range(lanes) if active[g, i]]
        want_inc, want_exc = _literal_fold(
            op, [int(x[g, i]) for i in lanes_on], info.bits, info.min < 0
        )
        assert [int(inc[g, i]) for i in lanes_on] == want_inc
        assert [int(exc[g, i]) for i in lanes_on] == want_exc
        if lanes_on:
            assert {int(red[g, i]) for i in lanes_on} == {want_inc[-1]}


def test_all_any() -> None:
    pred = np.array([[1, 0, 5, 0], [0, 0, 0, 0], [2, 3, 4, 1]], dtype=np.int32)
    active = np.array([[True, False, True, False], [True, True, True, True], [True] * 4])
    assert all_(pred, active).tolist() == [[True] * 4, [False] * 4, [True] * 4]
    assert any_(pred, active).tolist() == [[True] * 4, [False] * 4, [True] * 4]
    only_zero_active = np.array([[False, True, False, False]] * 3)
    assert any_(pred, only_zero_active)[:, 0].tolist() == [False, False, True]
    assert all_(pred, only_zero_active)[:, 0].tolist() == [False, False, True]


def test_broadcast() -> None:
    x = np.arange(12, dtype=np.int64).reshape(3, 4) * 10
    active = np.ones((3, 4), dtype=bool)
    assert broadcast(x, 2, active).tolist() == [[20] * 4, [60] * 4, [100] * 4]
    per_group = np.array([0, 3, 1])
    assert broadcast(x, per_group, active)[:, 0].tolist() == [0, 70, 90]
    per_lane = np.repeat(per_group[:, None], 4, axis=1)
    assert broadcast(x, per_lane, active)[:, 3].tolist() == [0, 70, 90]
    assert not broadcast_undefined(per_lane, active).any()


def test_broadcast_vector_and_char() -> None:
    x = np.arange(16, dtype=np.uint8).reshape(1, 4, 4)
    assert broadcast(x, 1, np.ones((1, 4), bool)).tolist() == [[[4, 5, 6, 7]] * 4]
    c = np.array([[-1, -128, 7]], dtype=np.int8)
    out = broadcast(c, 1, np.ones((1, 3), bool))
    assert out.dtype == np.int8 and out.tolist() == [[-128] * 3]


def test_broadcast_undefined_cases() -> None:
    active = np.array([[True, True, True, False]] * 4)  # partial sub-group of 3
    ids = np.array(
        [
            [1, 1, 1, 0],  # uniform over active lanes: fine
            [1, 2, 1, 1],  # differs between active lanes
            [3, 3, 3, 3],  # names the missing lane
            [4, 4, 4, 4],  # outside the sub-group
        ]
    )
    assert broadcast_undefined(ids, active).tolist() == [False, True, True, True]
    assert broadcast_undefined(np.array([0, 2, -1, 9]), active).tolist() == [False, False, True, True]
    x = np.ones((4, 4), dtype=np.int32)
    assert broadcast(x, np.array([0, 1, -1, 9]), active)[:, 0].tolist() == [1, 1, 0, 0]
