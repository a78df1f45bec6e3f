"""Malformed binaries raise SpirvFormatError naming the word offset and the problem.

The modules are written out word by word from the SPIR-V spec's encoding
(s2.3 physical layout, s3 opcodes and enumerants), independently of sgvm's writer.
"""

from __future__ import annotations

import numpy as np
import pytest

from sgvm import SpirvFormatError
from sgvm.spirv import read

HEADER = [0x07230203, 0x00010400, 0, 10, 0]
CAPABILITY_KERNEL = [2 << 16 | 17, 6]
MEMORY_MODEL = [3 << 16 | 14, 2, 2]  # Physical64 OpenCL
PRELUDE = CAPABILITY_KERNEL + MEMORY_MODEL  # words 5..9
TYPE_INT = [4 << 16 | 21, 1, 32, 0]  # %1 = OpTypeInt 32 0, at word 10
CONSTANT = [4 << 16 | 43, 1, 2, 7]  # %2 = OpConstant %1 7
VOID = [2 << 16 | 19, 3]  # %3 = OpTypeVoid
FN_TYPE = [3 << 16 | 33, 4, 3]  # %4 = OpTypeFunction %3
FUNCTION = [5 << 16 | 54, 3, 5, 0, 4]  # %5 = OpFunction %3 None %4
LABEL = [2 << 16 | 248, 6]  # %6 = OpLabel
RETURN = [1 << 16 | 253]
FUNCTION_END = [1 << 16 | 56]


def _string(s: bytes) -> list[int]:
    raw = s + b"\0" * (4 - len(s) % 4)
    return [int.from_bytes(raw[i:i + 4], "little") for i in range(0, len(raw), 4)]


def _bytes(words: list[int]) -> bytes:
    return np.asarray(words, dtype="<u4").tobytes()


def _error(data: bytes) -> SpirvFormatError:
    with pytest.raises(SpirvFormatError) as info:
        read(data)
    return info.value


def test_the_well_formed_base_reads() -> None:
    body = TYPE_INT + CONSTANT + VOID + FN_TYPE + FUNCTION + LABEL + RETURN + FUNCTION_END
    m = read(_bytes(HEADER + PRELUDE + body))
    assert m.constants[2].value == 7 and len(m.functions) == 1


EXT = [3 << 16 | 10, *_string(b"abcd")]  # OpExtension "abcd": the nul fills word 2

CASES = {
    # name: (words or bytes, word offset, message fragment)
    "bad magic": ([0xDEADBEEF, *HEADER[1:]], 0, "bad magic number 0xdeadbeef"),
    "short header": (_bytes(HEADER)[:12], 0, "too short"),
    "ragged length": (_bytes(HEADER + PRELUDE)[:-2], 9, "not a multiple of 4"),
    "version 2.0": ([HEADER[0], 0x00020000, *HEADER[2:]], 1, "unsupported SPIR-V version"),
    "version 1.7": ([HEADER[0], 0x00010700, *HEADER[2:]], 1, "unsupported SPIR-V version"),
    "bound 0": ([*HEADER[:3], 0, 0], 3, "id bound is 0"),
    "word count 0": (HEADER + [0 << 16 | 17, 6], 5, "word count is 0"),
    "truncated instruction": (HEADER + PRELUDE + TYPE_INT[:2], 10, "needs 4 words, 2 remain"),
    "operand overrun": (HEADER + PRELUDE + [3 << 16 | 21, 1, 32], 10, "operand overrun"),
    "extra words": (HEADER + PRELUDE + [5 << 16 | 21, 1, 32, 0, 0], 10, "1 unexpected extra"),
    "id == bound": (HEADER + PRELUDE + [4 << 16 | 21, 10, 32, 0], 10, "id 10 out of range"),
    "id 0": (HEADER + PRELUDE + [4 << 16 | 21, 0, 32, 0], 10, "id 0 out of range"),
    "unknown opcode": (HEADER + [1 << 16 | 0xFFFF], 5, "unknown opcode 65535"),
    "unknown enumerant": (HEADER + [2 << 16 | 17, 9999], 5, "unknown Capability enumerant 9999"),
    "unknown mask bit": (HEADER + PRELUDE + TYPE_INT + [5 << 16 | 61, 1, 3, 2, 0x40000000], 14,
                         "unknown MemoryAccess bits 0x40000000"),
    "duplicate id": (HEADER + PRELUDE + TYPE_INT + TYPE_INT, 14, "duplicate result id %1"),
    "type before definition": (HEADER + PRELUDE + CONSTANT + TYPE_INT, 10,
                               "result type %1 is not a type defined before its use"),
    "vector of undefined": (HEADER + PRELUDE + [4 << 16 | 23, 3, 1, 4], 10,
                            "%1 is used before it is defined"),
    "pointer to a constant": (HEADER + PRELUDE + TYPE_INT + CONSTANT + [4 << 16 | 32, 3, 7, 2],
                              18, "%2 is not a type"),
    "array length not constant": (HEADER + PRELUDE + TYPE_INT + VOID[:1] + [4] +
                                  [4 << 16 | 28, 5, 1, 4], 16, "not an integer constant"),
    "int width 0": (HEADER + PRELUDE + [4 << 16 | 21, 1, 0, 0], 10, "width 0"),
    "string padding": (HEADER + [EXT[0], EXT[1], 0x41000000], 5, "padding is not zero"),
    "string unterminated": (HEADER + [3 << 16 | 10, 0x61616161, 0x62626262], 5, "overrun"),
    "not UTF-8": (HEADER + [2 << 16 | 10, 0x0000FFFE], 5, "not valid UTF-8"),
    "spec constant op": (HEADER + PRELUDE + TYPE_INT + [5 << 16 | 52, 1, 2, 9999, 1], 14,
                         "OpSpecConstantOp: invalid opcode 9999"),
    "ext inst without import": (HEADER + PRELUDE + TYPE_INT + CONSTANT +
                                [6 << 16 | 12, 1, 3, 2, 0, 2], 18, "not an OpExtInstImport"),
    "unknown ext set": (HEADER + [4 << 16 | 11, 1, *_string(b"Foo.bar")] + PRELUDE +
                        [4 << 16 | 21, 2, 32, 0] + [5 << 16 | 12, 2, 3, 1, 0], 18,
                        "unknown extended instruction set 'Foo.bar'"),
    "unknown ext instruction": (HEADER + [5 << 16 | 11, 1, *_string(b"OpenCL.std")] + PRELUDE +
                                [3 << 16 | 22, 2, 32] + [5 << 16 | 12, 2, 3, 1, 9999], 18,
                                "unknown OpenCL.std instruction 9999"),
    "label outside function": (HEADER + PRELUDE + LABEL, 10, "OpLabel: outside a function"),
    "missing function end": (HEADER + PRELUDE + VOID + FN_TYPE + FUNCTION + LABEL + RETURN,
                             None, "without OpFunctionEnd"),
    "block without terminator": (HEADER + PRELUDE + VOID + FN_TYPE + FUNCTION + LABEL +
                                 FUNCTION_END, 22, "last block without a terminator"),
    "forward pointer never defined": (HEADER + PRELUDE + [3 << 16 | 39, 7, 5], None,
                                      "OpTypeForwardPointer %7 is never defined"),
}


@pytest.mark.parametrize("case", CASES)
def test_malformed(case: str) -> None:
    words, offset, fragment = CASES[case]
    data = words if isinstance(words, bytes) else _bytes(words)
    err = _error(data)
    assert err.offset == offset
    assert fragment in str(err)
    if offset is not None:
        assert str(err).startswith(f"malformed SPIR-V: word {offset}: ")


def test_big_endian_errors_name_the_same_offsets() -> None:
    words = HEADER + PRELUDE + TYPE_INT + TYPE_INT
    err = _error(np.asarray(words, dtype=">u4").tobytes())
    assert err.offset == 14 and "duplicate result id" in str(err)
