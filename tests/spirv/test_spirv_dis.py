"""``sgvm dis`` agrees with SPIRV-Tools' spirv-dis, line for line, on every module."""

from __future__ import annotations

import pytest

from sgvm.spirv import read
from sgvm.spirv.disassembler import disassemble, hex_float

from .conftest import spirv_dis


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines()]


def _swap(data: bytes) -> bytes:
    return b"".join(data[i:i + 4][::-1] for i in range(0, len(data), 4))


@pytest.mark.parametrize("raw", [False, True], ids=["friendly", "raw-id"])
def test_matches_spirv_dis(corpus: dict[str, bytes], raw: bool) -> None:
    for name, data in corpus.items():
        # spirv-dis misreads strings of non-native-endian modules (SPIRV-Tools
        # issue #5595), so big-endian modules are compared with the little-endian
        # reference: the text does not depend on the byte order.
        reference = _swap(data) if name.endswith("(big-endian)") else data
        expected = spirv_dis(reference, *(["--raw-id"] if raw else []))
        ours = disassemble(read(data), raw_ids=raw)
        assert _lines(ours) == _lines(expected), name
        assert ours == expected, f"{name}: same tokens, different indentation"


def test_friendly_names(corpus: dict[str, bytes]) -> None:
    """Spot checks against names read off spirv-dis output by hand."""
    text = disassemble(read(corpus["handmade names"]))
    for line in ("%uint = OpTypeInt 32 0",  # OpName "uint" on the uint type
                 "%uint_1 = OpConstant %uint 1", "%uint_1_0 = OpConstant %uint 1",
                 "%_ = OpConstantTrue %bool",  # empty OpName
                 "%a_b_c_d = OpConstantFalse %bool",
                 "%dup = OpFunctionParameter", "%dup_0 = OpLoad", "%dup_0_0 = OpLoad",
                 "%gl_GlobalInvocationID = OpVariable", "%WorkDim = OpVariable",
                 "%Opaque_struct_my_thing = OpTypeOpaque",
                 "%half_0x1p_16 = OpConstant %half 0x1p+16",
                 "%float_0x1_8p_128 = OpConstant %float 0x1.8p+128",
                 "%float_n0 = OpConstant %float -0"):
        assert any(" ".join(x.split()).startswith(line) for x in text.splitlines()), line


@pytest.mark.parametrize(("bits", "exp", "frac", "text"), [
    (0x3E00, 5, 10, "0x1.8p+0"),  # half 1.5
    (0x0001, 5, 10, "0x1p-24"),  # smallest half denormal
    (0x7C00, 5, 10, "0x1p+16"),  # half +inf
    (0x00000001, 8, 23, "0x1p-149"),
    (0x007FFFFF, 8, 23, "0x1.fffffcp-127"),
    (0xFFC00000, 8, 23, "-0x1.8p+128"),
    (0, 11, 52, "0x0p+0"),
])
def test_hex_float(bits: int, exp: int, frac: int, text: str) -> None:
    assert hex_float(bits, exp, frac) == text


def test_header_and_raw_ids(corpus: dict[str, bytes]) -> None:
    text = disassemble(read(corpus["subgroups -cl-std=CL2.0"]), raw_ids=True)
    assert text.splitlines()[:3] == ["; SPIR-V", "; Version: 1.4",
                                     "; Generator: LLVM LLVM SPIR-V Backend; 22"]
    assert "OpCapability SubgroupShuffleINTEL" in text
    assert "OpSubgroupShuffleINTEL" in text
    no_header = disassemble(read(corpus["subgroups -cl-std=CL2.0"]), header=False)
    assert not no_header.startswith(";")
