"""Message profile: lowering of sub-group accesses to messages, and the per-line aggregation.

Expected messages are worked out by hand from the model in profile.py's docstring.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgvm.visa import (
    Message,
    MessageProfile,
    RawOperand,
    SvmGather,
    VisaError,
    lower_access,
)

ALL16 = np.ones(16, bool)


def lanes(*addrs: int) -> np.ndarray:
    return np.array(addrs, dtype=np.uint64)


def consecutive(base: int, n: int, stride: int = 4) -> np.ndarray:
    return np.array([base + stride * i for i in range(n)], dtype=np.uint64)


def test_block_read_of_16_uints_is_one_message_moving_64_bytes() -> None:
    [m] = lower_access("block_read", consecutive(0x1000, 16), 4, ALL16, 16)
    assert m == Message("OWORD_BLOCK_READ", 1, 16, 4, 64, 64, frozenset({0x40}))


def test_16_scattered_reads_are_a_gather_touching_16_lines() -> None:
    addrs = lanes(*(256 * i for i in (5, 0, 3, 9, 1, 15, 2, 7, 4, 11, 6, 8, 10, 13, 12, 14)))
    [m] = lower_access("load", addrs, 4, ALL16, 16)
    assert (m.kind, m.exec_size, m.block_size, m.num_blocks) == ("SVM_GATHER", 16, 4, 1)
    assert m.cache_lines == frozenset(range(0, 64, 4))
    assert (m.bytes_requested, m.bytes_moved) == (64, 16 * 64)


def test_16_consecutive_plain_loads_one_gather_one_line() -> None:
    [m] = lower_access("load", consecutive(0x1000, 16), 4, ALL16, 16)
    assert m == Message("SVM_GATHER", 16, 4, 1, 64, 64, frozenset({0x40}))


def test_misaligned_run_straddles_two_lines() -> None:
    [m] = lower_access("load", consecutive(0x1020, 16), 4, ALL16, 16)
    assert m.cache_lines == {0x40, 0x41} and m.bytes_moved == 128


def test_store_is_a_scatter() -> None:
    [m] = lower_access("store", consecutive(0, 8), 4, np.ones(8, bool), 8)
    assert m == Message("SVM_SCATTER", 8, 4, 1, 32, 64, frozenset({0}))


def test_simd32_is_two_simd16_messages() -> None:
    msgs = lower_access("load", consecutive(0, 32), 4, np.ones(32, bool), 32)
    assert [(m.exec_size, m.cache_lines) for m in msgs] == [(16, {0}), (16, {1})]


def test_simd32_half_with_no_active_lane_is_not_issued() -> None:
    on = np.array([True] * 3 + [False] * 29)
    [m] = lower_access("load", consecutive(0, 32), 4, on, 32)
    assert (m.exec_size, m.bytes_requested) == (16, 12)


def test_inactive_lanes_request_and_touch_nothing() -> None:
    on = np.zeros(16, bool)
    on[[2, 9]] = True
    [m] = lower_access("load", consecutive(0, 16, stride=64), 4, on, 16)
    assert m.cache_lines == {2, 9} and m.bytes_requested == 8 and m.bytes_moved == 128


def test_no_active_lane_no_message() -> None:
    assert lower_access("load", consecutive(0, 16), 4, np.zeros(16, bool), 16) == []
    assert lower_access("block_read", consecutive(0, 16), 4, np.zeros(16, bool), 16) == []


def test_partial_sub_group_runs_at_full_width() -> None:
    [m] = lower_access("load", consecutive(0, 12), 4, np.ones(12, bool), 16)
    assert (m.exec_size, m.bytes_requested) == (16, 48)


def test_uint4_simd8_is_one_8_byte_2_block_gather() -> None:
    [m] = lower_access("load", consecutive(0, 8, stride=16), 16, np.ones(8, bool), 8)
    assert (m.exec_size, m.block_size, m.num_blocks, m.bytes_requested) == (8, 8, 2, 128)
    assert m.cache_lines == {0, 1}


def test_64_bytes_per_lane_simd16_splits_into_4_block_messages() -> None:
    msgs = lower_access("load", consecutive(0, 16, stride=64), 64, ALL16, 16)
    assert [(m.block_size, m.num_blocks) for m in msgs] == [(8, 4), (8, 4)]
    # first message: bytes 0..31 of every lane's 64-byte line; second: bytes 32..63, same lines
    assert msgs[0].cache_lines == msgs[1].cache_lines == frozenset(range(16))


def test_8_blocks_of_4_bytes_only_at_exec_size_8() -> None:
    addrs = consecutive(4, 8, stride=64)  # 4-aligned, not 8-aligned
    [m] = lower_access("load", addrs, 32, np.ones(8, bool), 8)
    assert (m.exec_size, m.block_size, m.num_blocks) == (8, 4, 8)
    msgs = lower_access("load", consecutive(4, 16, stride=64), 32, ALL16, 16)
    assert [(m.exec_size, m.block_size, m.num_blocks) for m in msgs] == [(16, 4, 4)] * 2


def test_float3_is_2_plus_1_blocks() -> None:
    msgs = lower_access("load", consecutive(0, 16, stride=12), 12, ALL16, 16)
    assert [(m.block_size, m.num_blocks, m.bytes_requested) for m in msgs] == [(4, 2, 128), (4, 1, 64)]


def test_misaligned_8_byte_access_uses_4_byte_blocks() -> None:
    [m] = lower_access("load", consecutive(4, 16, stride=8), 8, ALL16, 16)
    assert (m.block_size, m.num_blocks) == (4, 2)


@pytest.mark.parametrize("size, blocks", [(1, 1), (2, 2)])
def test_chars_and_shorts_are_byte_gathers(size: int, blocks: int) -> None:
    [m] = lower_access("load", consecutive(1, 16, stride=size), size, ALL16, 16)
    assert (m.block_size, m.num_blocks, m.bytes_requested) == (1, blocks, 16 * size)


def test_small_sub_group_uses_single_blocks() -> None:
    msgs = lower_access("load", consecutive(4, 4, stride=8), 8, np.ones(4, bool), 4)
    assert [(m.exec_size, m.block_size, m.num_blocks) for m in msgs] == [(4, 4, 1), (4, 4, 1)]
    [m] = lower_access("load", consecutive(8, 4, stride=8), 8, np.ones(4, bool), 4)
    assert (m.exec_size, m.block_size, m.num_blocks) == (4, 8, 1)


def test_atomics_are_simd8_messages() -> None:
    msgs = lower_access("atomic", lanes(*[128] * 16), 4, ALL16, 16)
    assert msgs == [Message("SVM_ATOMIC", 8, 4, 1, 32, 64, frozenset({2}))] * 2
    with pytest.raises(VisaError, match="4- or 8-byte"):
        lower_access("atomic", lanes(*[128] * 16), 2, ALL16, 16)


def test_block_read4_is_two_8_oword_messages() -> None:
    msgs = lower_access("block_read", consecutive(0x1000, 16), 16, ALL16, 16)
    assert msgs == [
        Message("OWORD_BLOCK_READ", 1, 16, 8, 128, 128, frozenset({0x40, 0x41})),
        Message("OWORD_BLOCK_READ", 1, 16, 8, 128, 128, frozenset({0x42, 0x43})),
    ]


def test_block_write_ignores_inactive_lanes() -> None:
    on = np.zeros(8, bool)
    on[5] = True
    [m] = lower_access("block_write", consecutive(0x40, 8), 4, on, 8)
    assert m == Message("OWORD_BLOCK_WRITE", 1, 16, 2, 32, 64, frozenset({1}))


def test_block_sizes_cut_into_owords() -> None:
    msgs = lower_access("block_read", consecutive(0, 8, stride=6), 6, np.ones(8, bool), 8)
    assert [(m.num_blocks, m.bytes_requested) for m in msgs] == [(2, 32), (1, 16)]
    [m] = lower_access("block_read", consecutive(0, 8, stride=1), 1, np.ones(8, bool), 8)
    assert (m.num_blocks, m.bytes_requested) == (1, 8)


@pytest.mark.parametrize(
    "args, rule",
    [
        (("gather", consecutive(0, 16), 4, ALL16, 16), "unknown access kind"),
        (("load", consecutive(0, 16), 4, ALL16, 8), "16 addresses and 16 active flags"),
        (("load", consecutive(0, 16), 4, ALL16[:8], 16), "16 addresses and 8 active flags"),
        (("load", consecutive(0, 16), 0, ALL16, 16), "not positive"),
    ],
)
def test_bad_input(args: tuple, rule: str) -> None:
    with pytest.raises(VisaError, match=rule):
        lower_access(*args)


@given(
    kind=st.sampled_from(["load", "store"]),
    sg=st.sampled_from([1, 2, 4, 8, 16, 32]),
    size=st.integers(1, 64),
    align=st.sampled_from([1, 2, 4, 8, 16]),
    seed=st.integers(0, 2**32 - 1),
)
def test_gathers_are_valid_svm_gathers_covering_the_request(
    kind: str, sg: int, size: int, align: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    addrs = rng.integers(0, 1 << 20, sg).astype(np.uint64) * np.uint64(align)
    on = rng.random(sg) < 0.7
    msgs = lower_access(kind, addrs, size, on, sg)
    for m in msgs:
        inst = SvmGather(m.exec_size, m.block_size, m.num_blocks, RawOperand(1), RawOperand(2))
        inst.execute(bytes(64), [0] * m.exec_size, channel_enable=0)  # no enabled channel
        assert all(int(a) % m.block_size == 0 for a in addrs[on])
    assert sum(m.bytes_requested for m in msgs) == size * int(on.sum())
    expected_lines = {b // 64 for a in addrs[on] for b in range(int(a), int(a) + size)}
    assert set().union(*(m.cache_lines for m in msgs)) == expected_lines


# ---- aggregation --------------------------------------------------------------------------------


def filled_profile() -> MessageProfile:
    p = MessageProfile()
    for _ in range(3):
        p.record_access("copy", "copy.cl:4", "block_read", consecutive(0, 16), 4, ALL16, 16)
    scattered = np.stack([consecutive(0, 16, stride=256), consecutive(64, 16, stride=256)])
    p.record_access("copy", "copy.cl:7", "load", scattered, 4, np.ones((2, 16), bool), 16)
    p.record_access("copy", "copy.cl:7", "store", consecutive(0, 16), 4, ALL16, 16)
    p.record_access("other", "o.cl:1", "atomic", lanes(*[0] * 16), 4, ALL16, 16)
    return p


def test_entry_sums() -> None:
    p = filled_profile()
    blk = p.entry("copy", "copy.cl:4")
    assert (blk.accesses, blk.messages, blk.bytes_requested, blk.bytes_moved, blk.cache_lines) == (
        3, 3, 192, 192, 3)
    line7 = p.entry("copy", "copy.cl:7")
    # 2 gathers x 16 lines + 1 scatter x 1 line
    assert (line7.accesses, line7.messages, line7.bytes_requested, line7.bytes_moved,
            line7.cache_lines) == (3, 3, 192, 33 * 64, 33)
    assert dict(line7.by_kind) == {"SVM_GATHER": 2, "SVM_SCATTER": 1}
    assert p.entry("nope", "x:1").accesses == 0


def test_totals_and_dict() -> None:
    d = filled_profile().to_dict()
    assert [(r["kernel"], r["source"]) for r in d["lines"]] == [
        ("copy", "copy.cl:7"), ("copy", "copy.cl:4"), ("other", "o.cl:1")]
    assert d["totals"] == {
        "accesses": 7, "messages": 8,
        "by_kind": {"OWORD_BLOCK_READ": 3, "SVM_ATOMIC": 2, "SVM_GATHER": 2, "SVM_SCATTER": 1},
        "bytes_requested": 192 + 192 + 64, "bytes_moved": 192 + 33 * 64 + 128,
        "cache_lines": 3 + 33 + 2, "efficiency": round(448 / 2432, 4),
    }


def test_table() -> None:
    text = str(filled_profile())
    lines = text.splitlines()
    assert lines[0].split() == ["kernel", "source", "accesses", "messages", "requested", "B",
                                "moved", "B", "lines", "efficiency", "messages", "by", "kind"]
    assert lines[2].split()[:8] == ["copy", "copy.cl:7", "3", "3", "192", "2112", "33", "9%"]
    assert "2 SVM_GATHER, 1 SVM_SCATTER" in lines[2]
    assert lines[-1].split()[:7] == ["total", "7", "8", "448", "2432", "38", "18%"]
    assert filled_profile().table() == text


def test_record_precomputed_messages() -> None:
    p = MessageProfile()
    p.record("k", "k.cl:1", [])
    assert p.entry("k", "k.cl:1").accesses == 1 and p.entry("k", "k.cl:1").efficiency == 1.0
