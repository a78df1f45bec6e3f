"""SPIR-V binary → :class:`~sgvm.spirv.module.Module`.

Two passes: :class:`_Reader` splits the word stream into instructions and
decodes every operand against the grammar (SPIR-V spec s2.3 "Physical Layout",
s2.2.1 "Instructions"); :mod:`sgvm.spirv.builder` then builds the Module's
indexes. Every malformation raises :class:`~sgvm.errors.SpirvFormatError`
naming the word offset; nothing else escapes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import SpirvFormatError
from . import grammar as _grammar
from .builder import build_module
from .module import MAGIC, Header, Instruction, Module, Operand

_ID_KINDS = frozenset(("IdRef", "IdScope", "IdMemorySemantics", "IdResultType", "IdResult"))
_EXT_INST_OPS = frozenset(("OpExtInst", "OpExtInstWithForwardRefsKHR"))
_SWAPPED_MAGIC = int.from_bytes(MAGIC.to_bytes(4, "little"), "big")
# SPIR-V spec s2.17 "Universal Limits": Result <id> bound, 4,194,303 (also spirv-val's default).
MAX_ID_BOUND = 4_194_303


class _Decoder:
    """Decodes the operand words of one instruction against the grammar."""

    def __init__(self, g: _grammar.Grammar, words: Sequence[int], start: int, end: int,
                 bound: int):
        self.g = g
        self.words = words
        self.pos = start + 1
        self.end = end
        self.offset = start
        self.bound = bound
        self.kinds: dict[str, _grammar.OperandKind] = {}
        self.out: list[Operand] = []

    def fail(self, msg: str) -> SpirvFormatError:
        return SpirvFormatError(msg, self.offset)

    def take(self, what: str) -> int:
        if self.pos >= self.end:
            raise self.fail(f"operand overrun: missing {what}")
        w = self.words[self.pos]
        self.pos += 1
        return w

    def take_id(self, what: str) -> int:
        v = self.take(what)
        if v == 0 or v >= self.bound:
            raise self.fail(f"id {v} out of range (bound {self.bound}) in {what}")
        return v

    def take_string(self) -> str:
        """A nul-terminated UTF-8 string, zero-padded to a word (spec s2.2.1)."""
        raw = bytearray()
        while True:
            chunk = self.take("literal string").to_bytes(4, "little")
            if 0 in chunk:
                nul = chunk.index(0)
                if any(chunk[nul:]):
                    raise self.fail("literal string padding is not zero")
                raw += chunk[:nul]
                break
            raw += chunk
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail("literal string is not valid UTF-8") from None

    def take_words(self, n: int, what: str) -> tuple[int, ...]:
        return tuple(self.take(what) for _ in range(n))

    def operand(self, kind: str, literal_words: int = 1) -> None:
        """Decode one operand of ``kind`` (and an enumerant's parameters)."""
        if kind in _ID_KINDS:
            self.out.append(Operand(kind, self.take_id(kind)))
        elif kind in ("LiteralInteger", "LiteralExtInstInteger"):
            self.out.append(Operand(kind, self.take(kind)))
        elif kind == "LiteralString":
            self.out.append(Operand(kind, self.take_string()))
        elif kind in ("LiteralContextDependentNumber", "LiteralFloat"):
            self.out.append(Operand(kind, self.take_words(literal_words, kind)))
        elif kind == "PairLiteralIntegerIdRef":
            lit = self.take_words(literal_words, "switch literal")
            self.out.append(Operand(kind, (lit, self.take_id("switch target"))))
        elif kind == "PairIdRefLiteralInteger":
            self.out.append(Operand(kind, (self.take_id(kind), self.take(kind))))
        elif kind == "PairIdRefIdRef":
            self.out.append(Operand(kind, (self.take_id(kind), self.take_id(kind))))
        elif kind == "LiteralSpecConstantOpInteger":
            self.spec_constant_op()
        else:
            self.enum(kind)

    def spec_constant_op(self) -> None:
        """OpSpecConstantOp: the opcode, then that opcode's operands (spec s3.52.11)."""
        opcode = self.take("OpSpecConstantOp opcode")
        info = self.g.by_opcode.get(opcode)
        if info is None or not (info.has_result and info.has_result_type):
            raise self.fail(f"OpSpecConstantOp: invalid opcode {opcode}")
        self.out.append(Operand("LiteralSpecConstantOpInteger", opcode))
        self.operands([o for o in info.operands if o.kind not in ("IdResultType", "IdResult")])

    def enum(self, kind: str) -> None:
        info = self.kinds.get(kind) or self.g.operand_kinds.get(kind)
        if info is None:
            raise self.fail(f"unknown operand kind {kind}")
        value = self.take(kind)
        self.out.append(Operand(kind, value))
        if info.is_bit_enum:  # parameters follow in order of their bits, lowest first
            known = 0
            for bit in sorted(info.by_value):
                if bit and value & bit == bit:
                    known |= bit
                    for p in info.by_value[bit].parameters:
                        self.operand(p.kind)
            if value & ~known:
                raise self.fail(f"unknown {kind} bits 0x{value & ~known:x}")
        else:
            en = info.by_value.get(value)
            if en is None:
                raise self.fail(f"unknown {kind} enumerant {value}")
            for p in en.parameters:
                self.operand(p.kind)

    def operands(self, infos: Sequence[_grammar.OperandInfo], literal_words: int = 1) -> None:
        for info in infos:
            if info.quantifier == "?":
                if self.pos < self.end:
                    self.operand(info.kind, literal_words)
            elif info.quantifier == "*":
                while self.pos < self.end:
                    self.operand(info.kind, literal_words)
            else:
                self.operand(info.kind, literal_words)


class _Reader:
    """First pass: header, instruction boundaries, operands; id and type bookkeeping."""

    def __init__(self, data: bytes):
        self.g = _grammar.load()
        first = int.from_bytes(data[:4], "little")
        if len(data) >= 4 and first not in (MAGIC, _SWAPPED_MAGIC):
            raise SpirvFormatError(f"bad magic number 0x{first:08x} (not a SPIR-V binary)", 0)
        if len(data) < 20:
            raise SpirvFormatError(f"too short for a SPIR-V header ({len(data)} bytes)", 0)
        if len(data) % 4:
            raise SpirvFormatError(f"length {len(data)} is not a multiple of 4 bytes",
                                   len(data) // 4)
        self.big = first == _SWAPPED_MAGIC
        self.words: list[int] = np.frombuffer(data, dtype=">u4" if self.big else "<u4").tolist()
        v = self.words[1]
        major, minor = (v >> 16) & 0xFF, (v >> 8) & 0xFF
        if v & 0xFF0000FF or major != 1 or minor > 6:
            raise SpirvFormatError(f"unsupported SPIR-V version word 0x{v:08x}", 1)
        self.bound = self.words[3]
        if self.bound == 0:
            raise SpirvFormatError("id bound is 0", 3)
        if self.bound > MAX_ID_BOUND:
            raise SpirvFormatError(f"id bound {self.bound} exceeds {MAX_ID_BOUND}, the limit of SPIR-V's "
                                   "universal limits (spec s2.17) and spirv-val", 3)
        self.header = Header((major, minor), self.words[2], self.bound, self.words[4], self.big)
        self.defined: set[int] = set()
        self.type_ids: set[int] = set()
        self.forward_pointers: set[int] = set()
        self.value_types: dict[int, int] = {}
        self.widths: dict[int, int] = {}  # int/float type id → bit width
        self.ext_sets: dict[int, str] = {}

    def instructions(self) -> list[Instruction]:
        out = []
        pos = 5
        n = len(self.words)
        while pos < n:
            word = self.words[pos]
            count, opcode = word >> 16, word & 0xFFFF
            if count == 0:
                raise SpirvFormatError("instruction word count is 0", pos)
            if pos + count > n:
                raise SpirvFormatError(
                    f"truncated: instruction needs {count} words, {n - pos} remain", pos)
            out.append(self.instruction(opcode, pos, pos + count))
            pos += count
        return out

    def instruction(self, opcode: int, start: int, end: int) -> Instruction:
        info = self.g.by_opcode.get(opcode)
        if info is None:
            raise SpirvFormatError(f"unknown opcode {opcode}", start)
        d = _Decoder(self.g, self.words, start, end, self.bound)
        result_type = result_id = None
        rest = list(info.operands)
        if rest and rest[0].kind == "IdResultType":
            result_type = d.take_id("result type")
            if result_type not in self.type_ids:
                raise SpirvFormatError(f"{info.opname}: result type %{result_type} is not a "
                                       "type defined before its use", start)
            rest.pop(0)
        if rest and rest[0].kind == "IdResult":
            result_id = d.take_id("result id")
            if result_id in self.defined:
                raise SpirvFormatError(f"{info.opname}: duplicate result id %{result_id}", start)
            rest.pop(0)
        ext_opname = None
        if info.opname in _EXT_INST_OPS:
            ext_opname = self.ext_inst(d, info.opname)
        else:
            d.operands(rest, self.literal_words(info.opname, result_type, d))
        if d.pos != end:
            raise SpirvFormatError(f"{info.opname}: {end - d.pos} unexpected extra words", start)
        inst = Instruction(info.opname, opcode, result_type, result_id, tuple(d.out),
                           start, None, ext_opname)
        if result_id is not None:
            self.defined.add(result_id)
            if result_type is not None:
                self.value_types[result_id] = result_type
        self.note_definition(inst)
        return inst

    def literal_words(self, opname: str, result_type: int | None, d: _Decoder) -> int:
        """Width in words of context-dependent literals (OpConstant, OpSwitch; spec s2.2.1)."""
        if opname in ("OpConstant", "OpSpecConstant") and result_type is not None:
            return max(1, (self.widths.get(result_type, 32) + 31) // 32)
        if opname == "OpSwitch" and d.pos < d.end:
            selector_type = self.value_types.get(d.words[d.pos], -1)
            return max(1, (self.widths.get(selector_type, 32) + 31) // 32)
        return 1

    def ext_inst(self, d: _Decoder, opname: str) -> str | None:
        """Decode an extended instruction against its set's grammar (spec s3.52.2)."""
        set_id = d.take_id("extended instruction set")
        d.out.append(Operand("IdRef", set_id))
        number = d.take("extended instruction number")
        d.out.append(Operand("LiteralExtInstInteger", number))
        set_name = self.ext_sets.get(set_id)
        if set_name is None:
            raise d.fail(f"{opname}: %{set_id} is not an OpExtInstImport")
        ext = _grammar.ext_set(self.g, set_name)
        if ext is None:
            if not set_name.startswith("NonSemantic."):
                raise d.fail(f"{opname}: unknown extended instruction set {set_name!r}")
            d.operands([_grammar.OperandInfo("IdRef", "*")])  # non-semantic: ids only
            return None
        einfo = ext.by_opcode.get(number)
        if einfo is None:
            raise d.fail(f"unknown {set_name} instruction {number}")
        d.kinds = ext.operand_kinds
        d.operands(einfo.operands)
        return einfo.opname

    def note_definition(self, inst: Instruction) -> None:
        op = inst.opname
        if op == "OpExtInstImport":
            self.ext_sets[inst.result_id] = inst.operands[0].value
        elif op == "OpTypeForwardPointer":
            self.forward_pointers.add(inst.operands[0].value)
        elif op.startswith("OpType") and inst.result_id is not None:
            for ref in inst.ids():
                if ref not in self.defined and ref not in self.forward_pointers:
                    raise SpirvFormatError(f"{op}: %{ref} is used before it is defined",
                                           inst.offset)
            self.type_ids.add(inst.result_id)
            if op in ("OpTypeInt", "OpTypeFloat"):
                self.widths[inst.result_id] = inst.operands[0].value


def read(data: bytes | bytearray | memoryview) -> Module:
    """Parse a SPIR-V binary (either endianness, versions 1.0–1.6) into a Module.

    Raises :class:`~sgvm.errors.SpirvFormatError` (with the word offset) for any
    malformed input.
    """
    r = _Reader(bytes(data))
    return build_module(r.header, r.instructions())
