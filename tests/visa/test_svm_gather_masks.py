"""Channel enables: execution mask controls M1…M8 and the _NM forms, predicates, prior dst.

Rules checked (vISA operands chapter, referenced by the spec's ``ChEn[i]``):
"ChEn[n] = EM[n + mask_control_offset]" unless NoMask; "a value of {M3} means the
first element will be pred_id(8)"; any/all combine first, then inverse.
"""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.visa import EMask, PredControl, Predicate, RawOperand, SvmGather, VisaError

OLD = 0xDEADBEEF
# memory word k holds 1000 + k; channel i reads word 2*i + 1
MEM = (np.arange(64, dtype="<u4") + 1000).tobytes()


def addrs(n: int) -> list[int]:
    return [4 * (2 * i + 1) for i in range(n)]


def fresh(i: int) -> int:
    return 1000 + 2 * i + 1


def run(inst: SvmGather, **kw: object) -> list[int]:
    prior = np.full(inst.dst_elements, OLD, np.uint32)
    return inst.execute(MEM, addrs(inst.exec_size), dst=prior, **kw).tolist()


def expect(enabled: list[int]) -> list[int]:
    return [fresh(i) if on else OLD for i, on in enumerate(enabled)]


def gather(exec_size: int, emask: EMask = EMask.M1, pred: Predicate | None = None) -> SvmGather:
    return SvmGather(exec_size, 4, 1, RawOperand(1), RawOperand(2), emask, pred)


@pytest.mark.parametrize(
    "emask, offset",
    [(EMask.M1, 0), (EMask.M2, 4), (EMask.M3, 8), (EMask.M4, 12), (EMask.M5, 16),
     (EMask.M6, 20), (EMask.M7, 24), (EMask.M8, 28)],
)
def test_mask_control_offsets(emask: EMask, offset: int) -> None:
    assert emask.offset == offset
    em = 0b1010 << offset  # channels offset+1 and offset+3 on, all others off
    assert run(gather(4, emask), channel_enable=em) == expect([0, 1, 0, 1])


def test_m1_exec_8_reads_low_channels() -> None:
    em = 0b1100_0101 | 0xFFFF_FF00  # higher channels must not matter
    assert run(gather(8), channel_enable=em) == expect([1, 0, 1, 0, 0, 0, 1, 1])


def test_m5_exec_16_reads_upper_half_of_simd32() -> None:
    em = 0x0000FFFF | (0b1000_0000_0000_0001 << 16)
    assert run(gather(16, EMask.M5), channel_enable=em) == expect([1] + [0] * 14 + [1])


def test_mask_as_bool_sequence() -> None:
    em = [False] * 8 + [True, False, True, True] + [False] * 20
    assert run(gather(4, EMask.M3), channel_enable=em) == expect([1, 0, 1, 1])


def test_mask_sequence_too_short_is_rejected() -> None:
    with pytest.raises(VisaError, match="channels 4..11"):
        run(gather(8, EMask.M2), channel_enable=[True] * 8)


@pytest.mark.parametrize("emask", [EMask.M1_NM, EMask.M2_NM, EMask.M3_NM, EMask.M4_NM,
                                   EMask.M5_NM, EMask.M6_NM, EMask.M7_NM, EMask.M8_NM])
def test_no_mask_forms_ignore_the_execution_mask(emask: EMask) -> None:
    assert emask.no_mask
    assert run(gather(4, emask), channel_enable=0) == expect([1, 1, 1, 1])


def test_no_mask_keeps_offset_for_the_predicate() -> None:
    pred = Predicate(5)
    assert run(gather(4, EMask.M2_NM, pred), channel_enable=0, predicate=0b0110 << 4) == expect(
        [0, 1, 1, 0])


def test_none_enables_every_channel() -> None:
    assert run(gather(8)) == expect([1] * 8)


@pytest.mark.parametrize(
    "control, inverse, pred_bits, expected",
    [
        (PredControl.SEQUENTIAL, False, 0b1001_0110, [0, 1, 1, 0, 1, 0, 0, 1]),
        (PredControl.SEQUENTIAL, True, 0b1001_0110, [1, 0, 0, 1, 0, 1, 1, 0]),
        (PredControl.ANY, False, 0b0001_0000, [1] * 8),
        (PredControl.ANY, False, 0, [0] * 8),
        (PredControl.ANY, True, 0b0001_0000, [0] * 8),
        (PredControl.ALL, False, 0xFF, [1] * 8),
        (PredControl.ALL, False, 0x7F, [0] * 8),
        (PredControl.ALL, True, 0x7F, [1] * 8),
    ],
)
def test_predicates(control: PredControl, inverse: bool, pred_bits: int, expected: list[int]) -> None:
    inst = gather(8, pred=Predicate(2, control, inverse))
    assert run(inst, predicate=pred_bits) == expect(expected)


def test_predicate_and_execution_mask_combine() -> None:
    inst = gather(8, pred=Predicate(2))
    assert run(inst, channel_enable=0b1111_0000, predicate=0b1010_1010) == expect(
        [0, 0, 0, 0, 0, 1, 0, 1])


def test_any_combines_only_channels_of_this_instruction() -> None:
    # M2, exec 4: the predicate is read at channels 4..7; bit 0 set elsewhere must not count.
    inst = gather(4, EMask.M2, Predicate(2, PredControl.ANY))
    assert run(inst, predicate=0b1) == expect([0, 0, 0, 0])
    assert run(inst, predicate=0b1 << 7) == expect([1, 1, 1, 1])


def test_predicate_value_required_and_only_when_predicated() -> None:
    with pytest.raises(VisaError, match="predicated on P2"):
        run(gather(8, pred=Predicate(2)))
    with pytest.raises(VisaError, match="without predicate"):
        run(gather(8), predicate=0xFF)


def test_disabled_channels_keep_every_block_of_prior_dst() -> None:
    inst = SvmGather(8, 4, 2, RawOperand(1), RawOperand(2))
    prior = np.arange(16, dtype=np.uint32)
    result = inst.execute(MEM, addrs(8), channel_enable=0b0000_0001, dst=prior).tolist()
    words = np.frombuffer(MEM, "<u4")
    assert result == [int(words[1])] + list(range(1, 8)) + [int(words[2])] + list(range(9, 16))


def test_disabled_channel_address_is_not_checked() -> None:
    a = addrs(8)
    a[3] = 2  # misaligned
    a[5] = 1 << 40  # far out of bounds
    result = gather(8).execute(MEM, a, channel_enable=0b1101_0111).tolist()
    assert result[3] == 0 and result[5] == 0 and result[0] == fresh(0)


def test_1_byte_disabled_slot_kept() -> None:
    inst = SvmGather(8, 1, 4, RawOperand(1), RawOperand(2))
    prior = np.full(32, 7, np.uint8)
    mem = bytes(range(64))
    result = inst.execute(mem, [0, 8, 16, 24, 32, 40, 48, 56], channel_enable=0b10, dst=prior)
    assert result.tolist() == [7] * 4 + [8, 9, 10, 11] + [7] * 24


def test_channel_enables_helper() -> None:
    inst = gather(8, EMask.M2, Predicate(1, inverse=True))
    got = inst.channel_enables(exec_mask=0xFF0, predicate=0x0F0)
    assert got.tolist() == [False] * 4 + [True] * 4
