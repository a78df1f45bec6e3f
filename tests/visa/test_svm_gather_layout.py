"""Each layout table of visa_SVM_GATHER.md, reproduced with a distinct value per address and block.

Expected values come from the tables as drawn in the spec (one list per GRF row
of 32 bytes, labels ``Ai[j]``), never from the implementation. ``Ai[j]`` is
the j-th block read from address i; the memory holds a value that names it.
"""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.visa import RawOperand, SvmGather

GRF = 32
# Scattered, non-monotonic addresses, 64 bytes apart so up to 8 8-byte blocks never overlap.
ADDRS = [0x340, 0x040, 0x700, 0x1C0, 0x5C0, 0x080, 0x3C0, 0x600,
         0x100, 0x480, 0x2C0, 0x740, 0x000, 0x680, 0x240, 0x500]


def gather(exec_size: int, block_size: int, num_blocks: int) -> SvmGather:
    return SvmGather(exec_size, block_size, num_blocks, RawOperand(1), RawOperand(2))


def value(i: int, j: int, block_size: int) -> int:
    """The distinct value stored as block j of address i."""
    if block_size == 1:
        return 16 * i + j + 1  # fits a byte for i < 16, j < 8
    if block_size == 4:
        return 0xA0000000 + 0x100 * i + j
    return 0xB000000000000000 + (i << 32) + j


def memory(block_size: int) -> bytearray:
    mem = bytearray(0x800)
    for i, a in enumerate(ADDRS):
        for j in range(8):
            at = a + j * block_size
            mem[at : at + block_size] = value(i, j, block_size).to_bytes(block_size, "little")
    return mem


def cell(label: str, block_size: int) -> int:
    """Value of a table cell ``Ai[j]``."""
    i, j = label[1:-1].split("[")
    return value(int(i), int(j), block_size)


def check_rows(result: np.ndarray, rows: list[list[str]], block_size: int) -> None:
    for r, row in enumerate(rows):
        assert len(row) * block_size == GRF or block_size == 1, "each table row is one GRF"
        per_row = len(row)
        got = result[r * per_row : (r + 1) * per_row]
        assert [int(x) for x in got] == [cell(c, block_size) for c in row], f"row {r}"


# ---- 4 byte gather ------------------------------------------------------------------------------

FOUR_BYTE_1_BLOCK = [
    ["A0[0]", "A1[0]", "A2[0]", "A3[0]", "A4[0]", "A5[0]", "A6[0]", "A7[0]"],
]
FOUR_BYTE_2_BLOCKS = [
    ["A0[0]", "A1[0]", "A2[0]", "A3[0]", "A4[0]", "A5[0]", "A6[0]", "A7[0]"],
    ["A0[1]", "A1[1]", "A2[1]", "A3[1]", "A4[1]", "A5[1]", "A6[1]", "A7[1]"],
]
FOUR_BYTE_4_BLOCKS = FOUR_BYTE_2_BLOCKS + [
    ["A0[2]", "A1[2]", "A2[2]", "A3[2]", "A4[2]", "A5[2]", "A6[2]", "A7[2]"],
    ["A0[3]", "A1[3]", "A2[3]", "A3[3]", "A4[3]", "A5[3]", "A6[3]", "A7[3]"],
]
FOUR_BYTE_8_BLOCKS = FOUR_BYTE_4_BLOCKS + [
    ["A0[4]", "A1[4]", "A2[4]", "A3[4]", "A4[4]", "A5[4]", "A6[4]", "A7[4]"],
    ["A0[5]", "A1[5]", "A2[5]", "A3[5]", "A4[5]", "A5[5]", "A6[5]", "A7[5]"],
    ["A0[6]", "A1[6]", "A2[6]", "A3[6]", "A4[6]", "A5[6]", "A6[6]", "A7[6]"],
    ["A0[7]", "A1[7]", "A2[7]", "A3[7]", "A4[7]", "A5[7]", "A6[7]", "A7[7]"],
]


@pytest.mark.parametrize(
    "num_blocks, rows",
    [(1, FOUR_BYTE_1_BLOCK), (2, FOUR_BYTE_2_BLOCKS), (4, FOUR_BYTE_4_BLOCKS),
     (8, FOUR_BYTE_8_BLOCKS)],
)
def test_4_byte_table_exec_8(num_blocks: int, rows: list[list[str]]) -> None:
    result = gather(8, 4, num_blocks).execute(memory(4), ADDRS[:8])
    assert result.dtype == np.uint32 and result.size == 8 * num_blocks
    check_rows(result, rows, 4)


@pytest.mark.parametrize("num_blocks", [1, 2, 4])
def test_4_byte_exec_16_block_j_spans_two_grfs(num_blocks: int) -> None:
    # dst[j*exec_size+i]: block j of 16 channels fills two GRF rows, A0..A7 then A8..A15.
    rows = []
    for j in range(num_blocks):
        rows.append([f"A{i}[{j}]" for i in (0, 1, 2, 3, 4, 5, 6, 7)])
        rows.append([f"A{i}[{j}]" for i in (8, 9, 10, 11, 12, 13, 14, 15)])
    check_rows(gather(16, 4, num_blocks).execute(memory(4), ADDRS), rows, 4)


@pytest.mark.parametrize("exec_size, expected", [
    (1, ["A0[0]"]), (2, ["A0[0]", "A1[0]"]), (4, ["A0[0]", "A1[0]", "A2[0]", "A3[0]"]),
])
def test_4_byte_small_exec_sizes(exec_size: int, expected: list[str]) -> None:
    result = gather(exec_size, 4, 1).execute(memory(4), ADDRS[:exec_size])
    assert [int(x) for x in result] == [cell(c, 4) for c in expected]


# ---- 8 byte gather ------------------------------------------------------------------------------

EIGHT_BYTE_2_BLOCKS = [
    ["A0[0]", "A1[0]", "A2[0]", "A3[0]"],
    ["A4[0]", "A5[0]", "A6[0]", "A7[0]"],
    ["A0[1]", "A1[1]", "A2[1]", "A3[1]"],
    ["A4[1]", "A5[1]", "A6[1]", "A7[1]"],
]
EIGHT_BYTE_4_BLOCKS = EIGHT_BYTE_2_BLOCKS + [
    ["A0[2]", "A1[2]", "A2[2]", "A3[2]"],
    ["A4[2]", "A5[2]", "A6[2]", "A7[2]"],
    ["A0[3]", "A1[3]", "A2[3]", "A3[3]"],
    ["A4[3]", "A5[3]", "A6[3]", "A7[3]"],
]


@pytest.mark.parametrize(
    "num_blocks, rows", [(1, EIGHT_BYTE_2_BLOCKS[:2]), (2, EIGHT_BYTE_2_BLOCKS),
                         (4, EIGHT_BYTE_4_BLOCKS)])
def test_8_byte_table_exec_8(num_blocks: int, rows: list[list[str]]) -> None:
    result = gather(8, 8, num_blocks).execute(memory(8), ADDRS[:8])
    assert result.dtype == np.uint64 and result.size == 8 * num_blocks
    check_rows(result, rows, 8)


def test_8_byte_exec_16_two_blocks() -> None:
    rows = [
        ["A0[0]", "A1[0]", "A2[0]", "A3[0]"], ["A4[0]", "A5[0]", "A6[0]", "A7[0]"],
        ["A8[0]", "A9[0]", "A10[0]", "A11[0]"], ["A12[0]", "A13[0]", "A14[0]", "A15[0]"],
        ["A0[1]", "A1[1]", "A2[1]", "A3[1]"], ["A4[1]", "A5[1]", "A6[1]", "A7[1]"],
        ["A8[1]", "A9[1]", "A10[1]", "A11[1]"], ["A12[1]", "A13[1]", "A14[1]", "A15[1]"],
    ]
    check_rows(gather(16, 8, 2).execute(memory(8), ADDRS), rows, 8)


# ---- 1 byte gather ------------------------------------------------------------------------------

PRIOR = 0xEE  # prior dst contents: bytes Ai[N], N >= num_blocks, are "undefined" and not written


@pytest.mark.parametrize("exec_size", [8, 16])
@pytest.mark.parametrize("num_blocks", [1, 2, 4])
def test_1_byte_table_1_2_4_blocks(exec_size: int, num_blocks: int) -> None:
    # One GRF row: A0[0:3] | A1[0:3] | ... | A7[0:3]  (4 bytes per address).
    expected = []
    for i in range(exec_size):
        for j in range(4):
            expected.append(value(i, j, 1) if j < num_blocks else PRIOR)
    prior = np.full(exec_size * 4, PRIOR, np.uint8)
    result = gather(exec_size, 1, num_blocks).execute(memory(1), ADDRS[:exec_size], dst=prior)
    assert result.dtype == np.uint8
    assert result.tolist() == expected
    assert len(expected[: 8 * 4]) == GRF  # A0..A7 fill exactly one GRF


def test_1_byte_table_8_blocks() -> None:
    # Two GRF rows of four 8-byte slots: A0[0:7] .. A3[0:7], then A4[0:7] .. A7[0:7].
    rows = [["A0", "A1", "A2", "A3"], ["A4", "A5", "A6", "A7"]]
    expected = [value(int(a[1:]), j, 1) for row in rows for a in row for j in range(8)]
    result = gather(8, 1, 8).execute(memory(1), ADDRS[:8])
    assert result.tolist() == expected
    assert result.size == 2 * GRF


@pytest.mark.parametrize("exec_size", [1, 2, 4])
def test_1_byte_small_exec_sizes(exec_size: int) -> None:
    prior = np.full(exec_size * 4, PRIOR, np.uint8)
    result = gather(exec_size, 1, 1).execute(memory(1), ADDRS[:exec_size], dst=prior)
    expected = [[value(i, 0, 1), PRIOR, PRIOR, PRIOR] for i in range(exec_size)]
    assert result.tolist() == sum(expected, [])


def test_unaligned_addresses_fine_for_bytes() -> None:
    mem = bytes(range(256))
    result = gather(8, 1, 2).execute(mem, [3, 17, 101, 255 - 1, 7, 9, 11, 13])
    assert result.reshape(8, 4)[:, :2].tolist() == [
        [3, 4], [17, 18], [101, 102], [254, 255], [7, 8], [9, 10], [11, 12], [13, 14]]


def test_declared_types_give_the_element_dtype() -> None:
    inst = SvmGather(8, 4, 1, RawOperand(1, type="UQ"), RawOperand(2, type="F"))
    mem = np.arange(8, dtype="<f4").tobytes()
    result = inst.execute(mem, [28, 24, 20, 16, 12, 8, 4, 0])
    assert result.dtype == np.float32
    assert result.tolist() == [7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0]


def test_memory_as_numpy_array_of_any_dtype() -> None:
    words = np.array([10, 20, 30, 40], dtype=np.uint32)
    result = gather(4, 4, 1).execute(words, [12, 0, 8, 4])
    assert result.tolist() == [40, 10, 30, 20]
