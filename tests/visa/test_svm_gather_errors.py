"""Invalid SVM_GATHER combinations are rejected with a VisaError naming the rule."""

from __future__ import annotations

import pytest

from sgvm.errors import SgvmError
from sgvm.visa import EMask, Predicate, RawOperand, SvmGather, VisaError

A = RawOperand(1)
D = RawOperand(2)


def test_visa_error_is_an_sgvm_error() -> None:
    assert issubclass(VisaError, SgvmError)


@pytest.mark.parametrize("exec_size, block_size", [(16, 4), (16, 1), (8, 8), (16, 8)])
def test_eight_blocks_outside_exec_8_4_or_1_byte(exec_size: int, block_size: int) -> None:
    with pytest.raises(VisaError, match="only valid for 4 byte blocks and execution size 8"):
        SvmGather(exec_size, block_size, 8, A, D)


@pytest.mark.parametrize("block_size", [4, 1])
def test_eight_blocks_allowed_at_exec_8(block_size: int) -> None:
    # 4-byte: the Num_blocks field; 1-byte: sgvm's reading of the '1 byte gather, 8 block' table.
    assert SvmGather(8, block_size, 8, A, D).num_blocks == 8


@pytest.mark.parametrize("exec_size", [1, 2, 4])
@pytest.mark.parametrize("num_blocks", [2, 4])
@pytest.mark.parametrize("block_size", [1, 4, 8])
def test_multiple_blocks_need_exec_size_8(exec_size: int, num_blocks: int, block_size: int) -> None:
    with pytest.raises(VisaError, match=r"When num_blocks > 1, exec_size must >= 8"):
        SvmGather(exec_size, block_size, num_blocks, A, D)


def test_eight_blocks_at_small_exec_size_names_a_rule() -> None:
    with pytest.raises(VisaError, match="exec_size must >= 8|execution size 8"):
        SvmGather(4, 4, 8, A, D)


@pytest.mark.parametrize("block_size, address", [(4, 2), (4, 0x1001), (8, 4), (8, 0x100C)])
def test_unaligned_address(block_size: int, address: int) -> None:
    inst = SvmGather(8, block_size, 1, A, D)
    addrs = [0, 8, 16, 24, 32, 40, 48, address]
    with pytest.raises(VisaError, match="channel 7 .*Each address must be aligned to the <block_size>"):
        inst.execute(bytes(0x2000), addrs)


@pytest.mark.parametrize("type_name", ["UD", "D", "Q", "UW", "UB", "F", "DF"])
def test_addresses_must_be_uq(type_name: str) -> None:
    with pytest.raises(VisaError, match="Must have type UQ"):
        SvmGather(8, 4, 1, RawOperand(1, type=type_name), D)
    assert SvmGather(8, 4, 1, RawOperand(1, type="UQ"), D)


@pytest.mark.parametrize(
    "block_size, bad, good",
    [(4, ["UQ", "UW", "UB", "DF", "HF"], ["UD", "D", "F"]),
     (8, ["UD", "D", "F", "UB"], ["UQ", "Q", "DF"]),
     (1, ["UD", "UW", "UQ"], ["UB", "B"])],
)
def test_dst_type_size_must_match_block_size(block_size: int, bad: list[str], good: list[str]) -> None:
    for t in bad:
        with pytest.raises(VisaError, match="must be the same size as <block_size>"):
            SvmGather(8, block_size, 1, A, RawOperand(2, type=t))
    for t in good:
        assert SvmGather(8, block_size, 1, A, RawOperand(2, type=t))


@pytest.mark.parametrize("exec_size", [0, 3, 32])
def test_bad_exec_size(exec_size: int) -> None:
    with pytest.raises(VisaError, match="Exec_size"):
        SvmGather(exec_size, 4, 1, A, D)


@pytest.mark.parametrize("block_size", [0, 2, 16])
def test_bad_block_size(block_size: int) -> None:
    with pytest.raises(VisaError, match="Block_size"):
        SvmGather(8, block_size, 1, A, D)


@pytest.mark.parametrize("num_blocks", [0, 3, 16])
def test_bad_num_blocks(num_blocks: int) -> None:
    with pytest.raises(VisaError, match="Num_blocks"):
        SvmGather(8, 4, num_blocks, A, D)


@pytest.mark.parametrize("emask, exec_size", [(EMask.M8, 8), (EMask.M7_NM, 16), (EMask.M6, 16)])
def test_mask_control_past_channel_31(emask: EMask, exec_size: int) -> None:
    with pytest.raises(VisaError, match="32 bit mask"):
        SvmGather(exec_size, 4, 1, A, D, emask)


def test_mask_control_up_to_channel_31_is_fine() -> None:
    assert SvmGather(4, 4, 1, A, D, EMask.M8)
    assert SvmGather(16, 4, 1, A, D, EMask.M5_NM)


def test_operand_field_ranges() -> None:
    with pytest.raises(VisaError, match="ud id"):
        RawOperand(1 << 32)
    with pytest.raises(VisaError, match="uw offset"):
        RawOperand(1, 1 << 16)
    with pytest.raises(VisaError, match="0-4095"):
        Predicate(4096)
    with pytest.raises(VisaError, match="0-4095"):
        Predicate(0)


def test_execute_operand_shapes() -> None:
    inst = SvmGather(8, 4, 1, A, D)
    with pytest.raises(VisaError, match="7 addresses for exec size 8"):
        inst.execute(bytes(64), [0] * 7)
    with pytest.raises(VisaError, match="dst has 4 elements; this gather uses 8"):
        inst.execute(bytes(64), [0] * 8, dst=[0] * 4)


def test_out_of_bounds() -> None:
    inst = SvmGather(8, 4, 2, A, D)
    with pytest.raises(VisaError, match="channel 1 reads 8 bytes at 0x3c, past the 64-byte memory"):
        inst.execute(bytes(64), [0, 60, 0, 0, 0, 0, 0, 0])
    assert inst.execute(bytes(64), [56] * 8).tolist() == [0] * 16
