"""Binary and text forms of SVM_GATHER: hand-encoded examples and exact round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sgvm.visa import EMask, PredControl, Predicate, RawOperand, SvmGather, VisaError, VisaType

# (!P3.any) SVM_GATHER.4.2 (M2_NM, 8) V10.0 V11.32, encoded by hand:
#   4e 03              SVM, GATHER
#   93                 Exec_size: 0b011 (8) | 0b1001 (M2_NM) << 4
#   03 a0              Pred: id 3 | any (0b01) << 13 | inverse << 15 = 0xa003
#   01 01              Block_size 0b01 (4 bytes), Num_blocks 0b01 (2 blocks)
#   0a000000 0000      Addresses: id 10, offset 0
#   0b000000 2000      Dst: id 11, offset 32
EXAMPLE_HEX = "4e0393" "03a0" "0101" "0a0000000000" "0b0000002000"
EXAMPLE_TEXT = "(!P3.any) SVM_GATHER.4.2 (M2_NM, 8) V10.0 V11.32"
EXAMPLE = SvmGather(
    exec_size=8, block_size=4, num_blocks=2, addresses=RawOperand(10, 0),
    dst=RawOperand(11, 32), emask=EMask.M2_NM,
    predicate=Predicate(3, PredControl.ANY, inverse=True),
)


def test_encode_example() -> None:
    assert EXAMPLE.encode().hex() == EXAMPLE_HEX


def test_decode_example() -> None:
    assert SvmGather.decode(bytes.fromhex(EXAMPLE_HEX)) == EXAMPLE


def test_text_example() -> None:
    assert EXAMPLE.to_text() == EXAMPLE_TEXT
    assert SvmGather.parse(EXAMPLE_TEXT) == EXAMPLE


@pytest.mark.parametrize(
    "hex_, fields",
    [
        # SVM_GATHER.1.8 (M1, 8): block 0b00, blocks 0b11, no predicate
        ("4e0303" "0000" "0003" "010000000000" "020000000000", (8, 1, 8, EMask.M1, None)),
        # (P4095.all) SVM_GATHER.8.4 (M1, 16)
        ("4e0304" "ff4f" "0302" "010000000000" "020000000000",
         (16, 8, 4, EMask.M1, Predicate(4095, PredControl.ALL))),
        # (P1) SVM_GATHER.4.1 (M8_NM, 1)
        ("4e03f0" "0100" "0100" "010000000000" "020000000000",
         (1, 4, 1, EMask.M8_NM, Predicate(1))),
    ],
)
def test_decode_fields(hex_: str, fields: tuple) -> None:
    inst = SvmGather.decode(bytes.fromhex(hex_))
    assert (inst.exec_size, inst.block_size, inst.num_blocks, inst.emask, inst.predicate) == fields
    assert inst.encode().hex() == hex_


def test_decode_with_declared_types() -> None:
    inst = SvmGather.decode(bytes.fromhex(EXAMPLE_HEX), types={10: "UQ", 11: VisaType.F})
    assert inst.addresses.type is VisaType.UQ and inst.dst.type is VisaType.F
    with pytest.raises(VisaError, match="Must have type UQ"):
        SvmGather.decode(bytes.fromhex(EXAMPLE_HEX), types={10: "UD"})


def test_spec_text_form_without_mask() -> None:
    """The spec's own form ``[(<P>)] SVM_GATHER.<block_size>.<num_blocks> (<exec_size>) <addresses> <dst>``
    (mask M1), parsed, and written back that way; other masks keep ``(<mask>, <exec_size>)``."""
    spec_form = "(P1.all) SVM_GATHER.1.8 (8) V4.0 V5.64"
    inst = SvmGather.parse(spec_form)
    assert inst == SvmGather(8, 1, 8, RawOperand(4, 0), RawOperand(5, 64), EMask.M1,
                             Predicate(1, PredControl.ALL))
    assert SvmGather.parse("(P1.all) SVM_GATHER.1.8 (M1, 8) V4.0 V5.64") == inst
    assert inst.to_text() == spec_form
    assert SvmGather.parse("svm_gather.4.1 ( 16 ) V54.0 V55.0").exec_size == 16
    assert SvmGather(8, 4, 1, RawOperand(1, 0), RawOperand(2, 0), EMask.M1_NM).to_text() == \
        "SVM_GATHER.4.1 (M1_NM, 8) V1.0 V2.0"


def test_parse_with_declared_types_and_igc_spelling() -> None:
    inst = SvmGather.parse("svm_gather.4.1 (M1, 16) V54.0 V55.0", types={54: "uq", 55: "d"})
    assert inst == SvmGather(16, 4, 1, RawOperand(54, 0, "UQ"), RawOperand(55, 0, "D"))
    with pytest.raises(VisaError, match="same size as <block_size>"):
        SvmGather.parse("SVM_GATHER.8.1 (M1, 8) V1.0 V2.0", types={2: "UD"})


@pytest.mark.parametrize(
    "hex_, rule",
    [
        ("4e0493" "0000" "0101" "0a0000000000" "0b0000002000", "sub-opcode 0x04"),
        ("4d0393" "0000" "0101" "0a0000000000" "0b0000002000", "opcode 0x4d"),
        ("4e0305" "0000" "0000" "0a0000000000" "0b0000002000", "Exec_size byte 0x05"),
        ("4e030b" "0000" "0000" "0a0000000000" "0b0000002000", "Exec_size byte 0x0b"),
        ("4e0303" "0000" "0200" "0a0000000000" "0b0000002000", "Block_size byte 0x02"),
        ("4e0303" "0000" "0500" "0a0000000000" "0b0000002000", "Block_size byte 0x05"),
        ("4e0303" "0000" "0104" "0a0000000000" "0b0000002000", "Num_blocks byte 0x04"),
        ("4e0303" "0110" "0100" "0a0000000000" "0b0000002000", "Reserved, Must be 0"),
        ("4e0303" "0160" "0100" "0a0000000000" "0b0000002000", "reserved"),
        ("4e0303" "0080" "0100" "0a0000000000" "0b0000002000", "no predication"),
        ("4e0303" "0000" "0303" "0a0000000000" "0b0000002000", "execution size 8"),  # 8 blocks, 8B
        ("4e0302" "0000" "0101" "0a0000000000" "0b0000002000", "exec_size must >= 8"),
        ("4e0303" "0000" "0100" "0a0000000000" "0b00000020", "19 bytes, got 18"),
        ("4e0303" "0000" "0100" "0a0000000000" "0b000000200000", "19 bytes, got 20"),
    ],
)
def test_decode_rejects(hex_: str, rule: str) -> None:
    with pytest.raises(VisaError, match=rule):
        SvmGather.decode(bytes.fromhex(hex_))


@pytest.mark.parametrize(
    "text",
    [
        "SVM_GATHER.4.1 (M1 8) V1.0 V2.0",
        "SVM_GATHER.4.1 (M1) V1.0 V2.0",
        "SVM_GATHER.4.1 (, 8) V1.0 V2.0",
        "SVM_GATHER.4.1 (M9, 8) V1.0 V2.0",
        "SVM_GATHER.4.1 (M1, 8) V1 V2.0",
        "SVM_SCATTER.4.1 (M1, 8) V1.0 V2.0",
        "(Q1) SVM_GATHER.4.1 (M1, 8) V1.0 V2.0",
        "(P1.none) SVM_GATHER.4.1 (M1, 8) V1.0 V2.0",
        "SVM_GATHER.2.1 (M1, 8) V1.0 V2.0",
        "SVM_GATHER.4.8 (M1, 16) V1.0 V2.0",
    ],
)
def test_parse_rejects(text: str) -> None:
    with pytest.raises(VisaError):
        SvmGather.parse(text)


def test_parse_tolerates_spacing() -> None:
    assert SvmGather.parse("  ( !P3.any )SVM_GATHER.4.2(M2_NM,8)  V10.0\tV11.32 ") == EXAMPLE


# ---- property tests -----------------------------------------------------------------------------


@st.composite
def instructions(draw: st.DrawFn) -> SvmGather:
    exec_size = draw(st.sampled_from([1, 2, 4, 8, 16]))
    block_size = draw(st.sampled_from([1, 4, 8]))
    blocks = [1] if exec_size < 8 else [1, 2, 4]
    if exec_size == 8 and block_size in (1, 4):
        blocks.append(8)
    emask = draw(st.sampled_from([m for m in EMask if m.offset + exec_size <= 32]))
    pred = draw(st.none() | st.builds(Predicate, st.integers(1, 4095),
                                      st.sampled_from(PredControl), st.booleans()))
    raw = st.builds(RawOperand, st.integers(0, 2**32 - 1), st.integers(0, 2**16 - 1))
    return SvmGather(exec_size, block_size, draw(st.sampled_from(blocks)), draw(raw), draw(raw),
                     emask, pred)


@given(instructions())
def test_binary_round_trip(inst: SvmGather) -> None:
    data = inst.encode()
    assert len(data) == 19 and data[:2] == b"\x4e\x03"
    assert SvmGather.decode(data) == inst
    assert SvmGather.decode(data).encode() == data


@given(instructions())
def test_text_round_trip(inst: SvmGather) -> None:
    text = inst.to_text()
    assert SvmGather.parse(text) == inst
    assert SvmGather.parse(text).to_text() == text


@given(st.binary(min_size=19, max_size=19))
def test_any_19_bytes_decode_exactly_or_raise(data: bytes) -> None:
    data = b"\x4e\x03" + data[2:]
    try:
        inst = SvmGather.decode(data)
    except VisaError:
        return
    assert inst.encode() == data
