""":class:`~sgvm.spirv.module.Module` → SPIR-V binary, encoded from the decoded operands."""

from __future__ import annotations

import numpy as np

from . import grammar as _grammar
from .module import MAGIC, Instruction, Module, Operand


def _string_words(s: str) -> list[int]:
    raw = s.encode("utf-8") + b"\0"
    raw += b"\0" * (-len(raw) % 4)
    return [int.from_bytes(raw[i:i + 4], "little") for i in range(0, len(raw), 4)]


def encode_operand(op: Operand) -> list[int]:
    """The words of one operand (enumerant parameters are separate operands)."""
    v = op.value
    if isinstance(v, str):
        return _string_words(v)
    if op.kind == "PairLiteralIntegerIdRef":
        return [*v[0], v[1]]
    if isinstance(v, tuple):
        return [w for part in v for w in (part if isinstance(part, tuple) else (part,))]
    return [int(v)]


def encode_instruction(inst: Instruction) -> list[int]:
    """All words of ``inst``, the opcode/word-count word first."""
    words: list[int] = []
    if inst.result_type is not None:
        words.append(inst.result_type)
    if inst.result_id is not None:
        words.append(inst.result_id)
    for op in inst.operands:
        words.extend(encode_operand(op))
    return [((len(words) + 1) << 16) | inst.opcode, *words]


def write(module: Module) -> bytes:
    """Encode ``module`` in the endianness it was read in."""
    h = module.header
    version = (h.version[0] << 16) | (h.version[1] << 8)
    words = [MAGIC, version, h.generator, h.bound, h.schema]
    for inst in module.instructions:
        words.extend(encode_instruction(inst))
    return np.asarray(words, dtype=">u4" if h.big_endian else "<u4").tobytes()


def make_instruction(opname: str, result_type: int | None = None, result_id: int | None = None,
                     *operands: Operand) -> Instruction:
    """Build an instruction by name (for hand-assembled modules)."""
    info = _grammar.load().by_name[opname]
    return Instruction(info.opname, info.opcode, result_type, result_id, tuple(operands))
