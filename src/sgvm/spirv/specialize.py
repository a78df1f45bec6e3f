"""Specialization constants: setting the values of ``OpSpecConstant*`` by SpecId in a SPIR-V
binary before it is built (clSetProgramSpecializationConstant, OpenCL API s5.8.4).

SPIR-V s2.12 "Specialization": a constant decorated ``SpecId`` may be given a value at
specialization time; ``OpSpecConstantTrue``/``False`` become the other opcode for a boolean.
Literals narrower than 32 bits fill the low-order bits of their word, zero-extended for
unsigned and floating-point types and sign-extended for signed integers (s2.2.1 "Literal").
"""

from __future__ import annotations

import struct

from ..errors import SpirvFormatError

_OP_DECORATE, _OP_TYPE_BOOL, _OP_TYPE_INT, _OP_TYPE_FLOAT = 71, 20, 21, 22
_OP_SPEC_TRUE, _OP_SPEC_FALSE, _OP_SPEC_CONSTANT = 48, 49, 50
_SPEC_ID = 1


def _words(spirv: bytes) -> list[int]:
    if len(spirv) % 4 or len(spirv) < 20:
        raise SpirvFormatError("not a whole number of words")
    order = "<" if spirv[:4] == b"\x03\x02\x23\x07" else ">"
    return list(struct.unpack(f"{order}{len(spirv) // 4}I", spirv))


def _instructions(words: list[int]):
    i = 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if count == 0 or i + count > len(words):
            raise SpirvFormatError("instruction runs past the end", i)
        yield i, opcode, words[i + 1:i + count]
        i += count


def spec_constants(spirv: bytes) -> dict[int, int]:
    """SpecId → the constant's size in bytes (1 for booleans, as cl_bool-sized values are not
    required: OpenCL passes ``sizeof`` the OpenCL C type, and a bool is 1 byte)."""
    words = _words(spirv)
    ids: dict[int, int] = {}  # result id → SpecId
    widths: dict[int, int] = {}  # type id → bytes
    result_types: dict[int, int] = {}
    for _, op, ops in _instructions(words):
        if op == _OP_DECORATE and len(ops) >= 3 and ops[1] == _SPEC_ID:
            ids[ops[0]] = ops[2]
        elif op == _OP_TYPE_BOOL:
            widths[ops[0]] = 1
        elif op in (_OP_TYPE_INT, _OP_TYPE_FLOAT):
            widths[ops[0]] = ops[1] // 8
        elif op in (_OP_SPEC_TRUE, _OP_SPEC_FALSE, _OP_SPEC_CONSTANT):
            result_types[ops[1]] = ops[0]
    return {spec: widths[result_types[rid]] for rid, spec in ids.items() if rid in result_types}


def specialize(spirv: bytes, values: dict[int, bytes]) -> bytes:
    """``spirv`` with the constants of the given SpecIds set to ``values`` (little-endian bytes
    of exactly the constant's size; see :func:`spec_constants`)."""
    words = _words(spirv)
    ids: dict[int, int] = {}
    signed: dict[int, bool] = {}
    for _, op, ops in _instructions(words):
        if op == _OP_DECORATE and len(ops) >= 3 and ops[1] == _SPEC_ID:
            ids[ops[0]] = ops[2]
        elif op == _OP_TYPE_INT:
            signed[ops[0]] = bool(ops[2])
    for at, op, ops in _instructions(words):
        if op not in (_OP_SPEC_TRUE, _OP_SPEC_FALSE, _OP_SPEC_CONSTANT) or ids.get(ops[1]) not in values:
            continue
        raw = values[ids[ops[1]]]
        if op != _OP_SPEC_CONSTANT:
            words[at] = (words[at] & 0xFFFF0000) | (_OP_SPEC_TRUE if any(raw) else _OP_SPEC_FALSE)
            continue
        value = int.from_bytes(raw, "little", signed=signed.get(ops[0], False))
        for k in range(len(ops) - 2):  # one or two literal words
            words[at + 3 + k] = (value >> (32 * k)) & 0xFFFFFFFF
    return struct.pack(f"<{len(words)}I", *words)
