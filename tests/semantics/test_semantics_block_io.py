"""Buffer block IO layout and alignment against cl_intel_subgroups(_char)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgvm.semantics import block_offsets, read_misaligned, write_misaligned


def test_hand_values_ui() -> None:
    # intel_sub_group_block_read2 with max sub-group size 8: lane 3 reads
    # p[3] and p[3 + 8], i.e. bytes 12 and 44.
    offsets = block_offsets(4, 2, 8)
    assert offsets.shape == (8, 2)
    assert offsets[3].tolist() == [12, 44]
    assert offsets[:, 0].tolist() == [0, 4, 8, 12, 16, 20, 24, 28]


def test_hand_values_uc16() -> None:
    offsets = block_offsets(1, 16, 16)
    assert offsets[0].tolist() == list(range(0, 256, 16))
    assert offsets[15, 15] == 255


def test_partial_sub_group_strides_by_max_size() -> None:
    # A sub-group of 5 work items in a kernel with max sub-group size 16:
    # element 1 of lane 0 is p[16], not p[5].
    assert block_offsets(8, 2, 16)[0, 1] == 16 * 8


@pytest.mark.parametrize("bad", [0, 3, 16])
def test_bad_element_size(bad: int) -> None:
    with pytest.raises(ValueError):
        block_offsets(bad, 1, 8)


def test_bad_count() -> None:
    with pytest.raises(ValueError):
        block_offsets(4, 0, 8)


def test_alignment() -> None:
    p = np.array([0, 4, 8, 12, 16, 2, 1, 0x1000, 0x1004, 0x100C])
    assert read_misaligned(p).tolist() == [False] * 5 + [True, True] + [False] * 3
    assert write_misaligned(p).tolist() == [False, True, True, True, False, True, True, False, True, True]
    assert not read_misaligned(np.uint64(2**63 + 4))
    assert write_misaligned(np.uint64(2**63 + 4))


@given(
    elem_size=st.sampled_from([1, 2, 4, 8]),
    count=st.sampled_from([1, 2, 4, 8, 16]),
    max_size=st.sampled_from([1, 8, 16, 32]),
)
def test_layout_matches_spec(elem_size: int, count: int, max_size: int) -> None:
    offsets = block_offsets(elem_size, count, max_size)
    assert offsets.shape == (max_size, count)
    for lane in range(max_size):
        for i in range(count):
            # "element i of lane l is p[l + i*max_sub_group_size]"
            assert offsets[lane, i] == (lane + i * max_size) * elem_size
    # The block is contiguous: every byte covered exactly once.
    starts = sorted(offsets.ravel().tolist())
    assert starts == list(range(0, max_size * count * elem_size, elem_size))
