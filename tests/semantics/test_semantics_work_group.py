"""Work-item to sub-group mapping, work-group broadcast and uniformity checks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgvm.semantics import (
    broadcast_undefined,
    enqueued_num_sub_groups,
    first_active,
    linear_local_id,
    local_id_from_linear,
    local_id_out_of_range,
    not_uniform,
    num_sub_groups,
    reduce,
    scan_exclusive,
    scan_inclusive,
    sub_group_id,
    sub_group_local_id,
    sub_group_size,
    work_group_broadcast,
)


def test_linear_local_id() -> None:
    assert linear_local_id((3,), (8,)) == 3
    assert linear_local_id((1, 2), (4, 5)) == 1 + 2 * 4
    assert linear_local_id((1, 2, 3), (4, 5, 6)) == 1 + 2 * 4 + 3 * 4 * 5
    ids = linear_local_id((np.array([0, 3]), np.array([1, 4])), (4, 5))
    assert ids.tolist() == [4, 19]
    with pytest.raises(ValueError):
        linear_local_id((1, 2), (4,))


@given(
    sizes=st.lists(st.integers(1, 9), min_size=1, max_size=3),
    data=st.data(),
)
def test_local_id_round_trip(sizes: list[int], data) -> None:
    linear = data.draw(st.integers(0, int(np.prod(sizes)) - 1))
    coords = local_id_from_linear(linear, sizes)
    assert all(0 <= int(c) < s for c, s in zip(coords, sizes, strict=True))
    assert linear_local_id(coords, sizes) == linear
    # x varies fastest: x + y*Lx + z*Lx*Ly
    rest, want = linear, []
    for s in sizes:
        want.append(rest % s)
        rest //= s
    assert [int(c) for c in coords] == want


def test_sub_group_decomposition() -> None:
    # 100 work-items with sub-group size 16: 6 full sub-groups and one of 4.
    linear = np.arange(100)
    assert num_sub_groups(100, 16) == 7
    assert num_sub_groups(96, 16) == 6
    assert sub_group_id(linear, 16)[[0, 15, 16, 99]].tolist() == [0, 0, 1, 6]
    assert sub_group_local_id(linear, 16)[[0, 15, 16, 99]].tolist() == [0, 15, 0, 3]
    assert sub_group_size(np.arange(7), 100, 16).tolist() == [16] * 6 + [4]
    assert sub_group_size(0, 5, 16) == 5


def test_enqueued_num_sub_groups() -> None:
    # Enqueued local size 10x10 (100 items, 7 sub-groups of 16); an edge
    # work-group of 10x3 has 2, but get_enqueued_num_sub_groups stays 7.
    assert enqueued_num_sub_groups((10, 10), 16) == 7
    assert num_sub_groups(10 * 3, 16) == 2
    assert enqueued_num_sub_groups((64,), 8) == 8


def test_work_group_broadcast_2d_3d() -> None:
    x = np.arange(2 * 8, dtype=np.float32).reshape(2, 8)
    active = np.ones((2, 8), dtype=bool)
    # 4x2 work-groups: local id (1, 1) is linear 5.
    assert work_group_broadcast(x, (1, 1), (4, 2), active)[:, 0].tolist() == [5.0, 13.0]
    # 2x2x2: (1, 0, 1) is linear 1 + 0 + 4 = 5; per-group ids.
    ids = (np.array([1, 0]), np.array([0, 1]), np.array([1, 1]))
    assert work_group_broadcast(x, ids, (2, 2, 2), active)[:, 3].tolist() == [5.0, 14.0]
    assert work_group_broadcast(x, (7,), (8,), active)[:, 0].tolist() == [7.0, 15.0]


def test_local_id_out_of_range() -> None:
    # (4, 0) in a 4x2 work-group has linear id 4 but names no work-item.
    assert local_id_out_of_range((4, 0), (4, 2))
    assert not local_id_out_of_range((3, 1), (4, 2))
    assert local_id_out_of_range((np.array([0, -1]),), (8,)).tolist() == [False, True]


def test_work_group_scan_over_padded_sub_groups() -> None:
    # A work-group of 12 with sub-group size 8: lanes 12..15 are padding of
    # the partial second sub-group; scans follow linear local id.
    x = np.array([[3, 1, 7, 0, 4, 1, 6, 3, 1, 1, 1, 1, 50, 50, 50, 50]], dtype=np.int32)
    active = np.arange(16)[None, :] < 12
    inc = scan_inclusive("add", x, active)[0, :12].tolist()
    assert inc == [3, 4, 11, 11, 15, 16, 22, 25, 26, 27, 28, 29]
    assert scan_exclusive("add", x, active)[0, :12].tolist() == [0] + inc[:-1]
    assert reduce("add", x, active)[0, 0] == 29
    assert broadcast_undefined(12, active).tolist() == [True]


def test_not_uniform() -> None:
    active = np.array([[False, True, True], [True, True, True], [True, False, True]])
    v = np.array([[9, 4, 4], [1, 2, 1], [5, 0, 5]])
    assert first_active(active).tolist() == [1, 0, 0]
    assert not_uniform(v, active).tolist() == [False, True, False]
    coords = np.array([[[0, 1], [0, 1], [0, 2]]] * 3)
    assert not_uniform(coords, active).tolist() == [True, True, True]
    assert not_uniform(coords, np.array([[True, True, False]] * 3)).tolist() == [False] * 3
