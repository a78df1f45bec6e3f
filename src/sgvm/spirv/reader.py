"""SPIR-V binary → :class:`~sgvm.spirv.module.Module`.

Operands are decoded from the grammar (:mod:`sgvm.spirv.grammar`). Every
malformation raises :class:`~sgvm.errors.SpirvFormatError` naming the word
offset; nothing else escapes.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

import numpy as np

from ..errors import SpirvFormatError
from . import grammar as _grammar
from .module import (
    MAGIC,
    Block,
    Constant,
    Decoration,
    EntryPoint,
    Function,
    Header,
    Instruction,
    Module,
    Operand,
    SourceLocation,
    Type,
    Variable,
)

_ID_KINDS = frozenset(("IdRef", "IdScope", "IdMemorySemantics", "IdResultType", "IdResult"))


class _Decoder:
    """Decodes the operand words of one instruction against the grammar."""

    def __init__(self, g: _grammar.Grammar, words: Sequence[int], start: int, end: int,
                 offset: int, bound: int, kinds: dict[str, _grammar.OperandKind]):
        self.g = g
        self.words = words
        self.pos = start
        self.end = end
        self.offset = offset
        self.bound = bound
        self.kinds = kinds
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
        raw = bytearray()
        while True:
            w = self.take("literal string")
            chunk = w.to_bytes(4, "little")
            if 0 in chunk:
                raw += chunk[: chunk.index(0)]
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
        elif kind in ("LiteralInteger", "LiteralExtInstInteger", "LiteralSpecConstantOpInteger"):
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
        else:
            self.enum(kind)

    def enum(self, kind: str) -> None:
        info = self.kinds.get(kind) or self.g.operand_kinds.get(kind)
        if info is None:
            raise self.fail(f"unknown operand kind {kind}")
        value = self.take(kind)
        self.out.append(Operand(kind, value))
        if info.is_bit_enum:
            known = 0
            for bit in sorted(info.by_value):
                if bit and value & bit:
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
    def __init__(self, data: bytes):
        self.g = _grammar.load()
        if len(data) < 20:
            raise SpirvFormatError(f"too short for a SPIR-V header ({len(data)} bytes)", 0)
        if len(data) % 4:
            raise SpirvFormatError(f"length {len(data)} is not a multiple of 4 bytes", len(data) // 4)
        first = struct.unpack_from("<I", data)[0]
        if first == MAGIC:
            self.big = False
        elif first == int.from_bytes(MAGIC.to_bytes(4, "little"), "big"):
            self.big = True
        else:
            raise SpirvFormatError(f"bad magic number 0x{first:08x} (not a SPIR-V binary)", 0)
        arr = np.frombuffer(data, dtype=">u4" if self.big else "<u4")
        self.words: list[int] = arr.tolist()
        v = self.words[1]
        major, minor = (v >> 16) & 0xFF, (v >> 8) & 0xFF
        if v & 0xFF0000FF or major != 1 or minor > 6:
            raise SpirvFormatError(f"unsupported SPIR-V version word 0x{v:08x}", 1)
        self.bound = self.words[3]
        if self.bound == 0:
            raise SpirvFormatError("id bound is 0", 3)
        self.header = Header((major, minor), self.words[2], self.bound, self.words[4], self.big)
        self.defined: dict[int, Instruction] = {}
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
        d = _Decoder(self.g, self.words, start + 1, end, start, self.bound, {})
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
        if info.opname == "OpExtInst":
            ext_opname = self.ext_inst(d, info, start)
        else:
            d.operands(rest, self.literal_words(info.opname, result_type, d))
        if d.pos != end:
            raise SpirvFormatError(f"{info.opname}: {end - d.pos} unexpected extra words", start)
        inst = Instruction(info.opname, opcode, result_type, result_id, tuple(d.out),
                           start, None, ext_opname)
        if result_id is not None:
            self.defined[result_id] = inst
            if result_type is not None:
                self.value_types[result_id] = result_type
        self.note_definition(inst)
        return inst

    def literal_words(self, opname: str, result_type: int | None, d: _Decoder) -> int:
        """Width in words of context-dependent literals (OpConstant, OpSwitch)."""
        if opname in ("OpConstant", "OpSpecConstant") and result_type is not None:
            return max(1, self.widths.get(result_type, 32) // 32)
        if opname == "OpSwitch" and d.pos < d.end:
            selector = d.words[d.pos]
            return max(1, self.widths.get(self.value_types.get(selector, -1), 32) // 32)
        return 1

    def ext_inst(self, d: _Decoder, info: _grammar.InstructionInfo, start: int) -> str | None:
        set_id = d.take_id("extended instruction set")
        d.out.append(Operand("IdRef", set_id))
        number = d.take("extended instruction number")
        d.out.append(Operand("LiteralExtInstInteger", number))
        set_name = self.ext_sets.get(set_id)
        if set_name is None and set_id not in self.defined:
            raise SpirvFormatError(f"OpExtInst: %{set_id} is not an OpExtInstImport", start)
        ext = self.g.ext_sets.get(set_name or "")
        if ext is None:  # an unknown set: keep the operands as ids
            d.operands([_grammar.OperandInfo("IdRef", "*")])
            return None
        einfo = ext.by_opcode.get(number)
        if einfo is None:
            raise SpirvFormatError(f"unknown {set_name} instruction {number}", start)
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
                if ref in self.type_ids or ref in self.forward_pointers:
                    continue
                if op == "OpTypeArray" and ref in self.defined:  # the length constant
                    continue
                raise SpirvFormatError(f"{op}: %{ref} is used before it is defined as a type",
                                       inst.offset)
            self.type_ids.add(inst.result_id)
            if op in ("OpTypeInt", "OpTypeFloat"):
                self.widths[inst.result_id] = inst.operands[0].value


def read(data: bytes | bytearray | memoryview) -> Module:
    """Parse a SPIR-V binary (either endianness, versions 1.0–1.6) into a Module."""
    try:
        r = _Reader(bytes(data))
        instructions = r.instructions()
        return _ModuleBuilder(r.header, instructions).build()
    except SpirvFormatError:
        raise
    except RecursionError:
        raise SpirvFormatError("module nesting too deep") from None


def _float_from_words(words: tuple[int, ...], width: int) -> float:
    if width == 16:
        return float(np.array([words[0] & 0xFFFF], dtype=np.uint16).view(np.float16)[0])
    if width == 32:
        return struct.unpack("<f", struct.pack("<I", words[0]))[0]
    value = sum(w << (32 * i) for i, w in enumerate(words))
    return struct.unpack("<d", value.to_bytes(8, "little"))[0]


def _int_from_words(words: tuple[int, ...], width: int, signed: bool) -> int:
    value = sum(w << (32 * i) for i, w in enumerate(words)) & ((1 << width) - 1)
    if signed and value >> (width - 1):
        value -= 1 << width
    return value


class _ModuleBuilder:
    """Second pass: builds the Module's indexes from the decoded instructions."""

    def __init__(self, header: Header, instructions: list[Instruction]):
        self.g = _grammar.load()
        self.m = Module(header=header, instructions=instructions)
        self.loc: SourceLocation | None = None

    def fail(self, inst: Instruction, msg: str) -> SpirvFormatError:
        return SpirvFormatError(f"{inst.opname}: {msg}", inst.offset)

    def enum_name(self, kind: str, value: int) -> str:
        return self.g.enum_name(kind, value)

    def args(self, operands: tuple[Operand, ...]) -> tuple:
        """Decoration / execution-mode parameters, enumerants by name."""
        out = []
        for op in operands:
            info = self.g.operand_kinds.get(op.kind)
            if info is not None and info.is_value_enum:
                out.append(self.enum_name(op.kind, op.value))
            else:
                out.append(op.value)
        return tuple(out)

    def build(self) -> Module:
        m = self.m
        fn: Function | None = None
        block: Block | None = None
        modes: list[Instruction] = []
        for inst in m.instructions:
            op = inst.opname
            if inst.result_id is not None:
                m.defs[inst.result_id] = inst
                if inst.result_type is not None:
                    m.value_types[inst.result_id] = inst.result_type
            if op == "OpLine":
                self.loc = SourceLocation(m.strings.get(inst.operands[0].value, "?"),
                                          inst.operands[1].value, inst.operands[2].value)
                continue
            if op == "OpNoLine":
                self.loc = None
                continue
            if op == "OpExtInst" and inst.ext_opname in ("DebugLine", "DebugNoLine"):
                self.debug_line(inst)
                continue
            inst.location = self.loc
            if fn is not None:
                fn, block = self.in_function(inst, fn, block)
                continue
            self.global_instruction(inst, modes)
            if op == "OpFunction":
                fn = Function(inst.result_id, m.types[inst.result_type], inst.operands[0].value,
                              m.types[inst.operands[1].value], name=m.names.get(inst.result_id, ""))
        if fn is not None:
            raise SpirvFormatError("truncated: function without OpFunctionEnd", None)
        for inst in modes:
            self.execution_mode(inst)
        for f in m.functions.values():
            if not f.name:
                f.name = m.names.get(f.id, "")
        return m

    def debug_line(self, inst: Instruction) -> None:
        if inst.ext_opname == "DebugNoLine":
            self.loc = None
            return
        ids = [o.value for o in inst.operands[2:]]
        source = self.m.defs.get(ids[0])
        file = "?"
        if source is not None and source.operands[2:]:
            file = self.m.strings.get(source.operands[2].value, "?")
        nums = [self.m.constants[i].value if i in self.m.constants else 0 for i in ids[1:]]
        self.loc = SourceLocation(file, int(nums[0]), int(nums[2]) if len(nums) > 2 else 0)

    def in_function(self, inst: Instruction, fn: Function,
                    block: Block | None) -> tuple[Function | None, Block | None]:
        op = inst.opname
        if op == "OpFunctionParameter":
            if fn.blocks:
                raise self.fail(inst, "parameter after the first block")
            fn.params.append(inst)
        elif op == "OpLabel":
            if block is not None:
                raise self.fail(inst, "block without a terminator")
            block = Block(inst.result_id)
            fn.blocks.append(block)
        elif op == "OpFunctionEnd":
            if block is not None:
                raise self.fail(inst, "last block without a terminator")
            self.m.functions[fn.id] = fn
            return None, None
        elif op == "OpFunction":
            raise self.fail(inst, "nested OpFunction")
        else:
            if block is None:
                raise self.fail(inst, "instruction outside a block")
            block.instructions.append(inst)
            info = self.g.by_name[op]
            if info.op_class == "Control-Flow" and op in _TERMINATORS:
                self.loc = None
                return fn, None
        return fn, block

    def global_instruction(self, inst: Instruction, modes: list[Instruction]) -> None:
        m, op, ops = self.m, inst.opname, inst.operands
        if op == "OpCapability":
            m.capabilities.append(self.enum_name("Capability", ops[0].value))
        elif op == "OpExtension":
            m.extensions.append(ops[0].value)
        elif op == "OpExtInstImport":
            m.ext_inst_imports[inst.result_id] = ops[0].value
        elif op == "OpMemoryModel":
            m.addressing_model = self.enum_name("AddressingModel", ops[0].value)
            m.memory_model = self.enum_name("MemoryModel", ops[1].value)
        elif op == "OpEntryPoint":
            m.entry_points.append(EntryPoint(
                self.enum_name("ExecutionModel", ops[0].value), ops[1].value, ops[2].value,
                tuple(o.value for o in ops[3:])))
        elif op in ("OpExecutionMode", "OpExecutionModeId"):
            modes.append(inst)
        elif op == "OpName":
            m.names[ops[0].value] = ops[1].value
        elif op == "OpMemberName":
            m.member_names[(ops[0].value, ops[1].value)] = ops[2].value
        elif op == "OpString":
            m.strings[inst.result_id] = ops[0].value
        elif op in ("OpSource", "OpSourceContinued", "OpSourceExtension", "OpModuleProcessed"):
            m.sources.append(inst)
        elif op in ("OpDecorate", "OpDecorateId", "OpDecorateString"):
            dec = Decoration(self.enum_name("Decoration", ops[1].value), self.args(ops[2:]))
            m.decorations.setdefault(ops[0].value, []).append(dec)
        elif op in ("OpMemberDecorate", "OpMemberDecorateString"):
            dec = Decoration(self.enum_name("Decoration", ops[2].value), self.args(ops[3:]))
            m.member_decorations.setdefault((ops[0].value, ops[1].value), []).append(dec)
        elif op == "OpDecorationGroup":
            pass
        elif op == "OpGroupDecorate":
            for target in ops[1:]:
                for dec in m.decorations.get(ops[0].value, ()):
                    m.decorations.setdefault(target.value, []).append(dec)
        elif op.startswith("OpType"):
            self.type(inst)
        elif op.startswith(("OpConstant", "OpSpecConstant")):
            self.constant(inst)
        elif op == "OpVariable":
            t = m.types[inst.result_type]
            init = ops[1].value if len(ops) > 1 else None
            m.variables[inst.result_id] = Variable(
                inst.result_id, t, self.enum_name("StorageClass", ops[0].value), init)
        elif op == "OpUndef":
            m.undefs[inst.result_id] = m.types[inst.result_type]

    def execution_mode(self, inst: Instruction) -> None:
        ops = inst.operands
        name = self.enum_name("ExecutionMode", ops[1].value)
        for ep in self.m.entry_points:
            if ep.function == ops[0].value:
                ep.execution_modes[name] = self.args(ops[2:])

    def type(self, inst: Instruction) -> None:
        m, op, ops = self.m, inst.opname, inst.operands
        tid = inst.result_id
        kind = op[len("OpType"):]
        if op == "OpTypeForwardPointer":
            return
        t = Type(tid, kind)
        if kind == "Int":
            t.width, t.signed = ops[0].value, bool(ops[1].value)
        elif kind == "Float":
            t.width = ops[0].value
        elif kind in ("Vector", "Matrix"):
            t.component, t.count = m.types[ops[0].value], ops[1].value
        elif kind == "Array":
            t.component = m.types[ops[0].value]
            length = m.constants.get(ops[1].value)
            if length is None:
                raise self.fail(inst, f"array length %{ops[1].value} is not a constant")
            t.count = int(length.value) if isinstance(length.value, int) else 0
        elif kind == "RuntimeArray":
            t.component = m.types[ops[0].value]
        elif kind == "Struct":
            t.members = tuple(m.types[o.value] for o in ops)
        elif kind == "Pointer":
            t.storage_class = self.enum_name("StorageClass", ops[0].value)
            t.pointee = m.types.get(ops[1].value)
        elif kind == "Function":
            t.return_type = m.types[ops[0].value]
            t.params = tuple(m.types[o.value] for o in ops[1:])
        elif kind == "Image":
            names = ("dim", "depth", "arrayed", "ms", "sampled", "format", "access")
            kinds = ("Dim", None, None, None, None, "ImageFormat", "AccessQualifier")
            t.component = m.types[ops[0].value]
            for name, k, o in zip(names, kinds, ops[1:], strict=False):
                t.image[name] = self.enum_name(k, o.value) if k else o.value
        elif kind == "SampledImage":
            t.component = m.types[ops[0].value]
        elif kind == "Opaque":
            t.name = ops[0].value
        m.types[tid] = t
        if kind == "Struct":  # forward pointers inside resolve now
            self.resolve_forward_pointers()

    def resolve_forward_pointers(self) -> None:
        for inst in self.m.instructions:
            if inst.opname == "OpTypePointer" and inst.result_id in self.m.types:
                t = self.m.types[inst.result_id]
                if t.pointee is None:
                    t.pointee = self.m.types.get(inst.operands[1].value)

    def constant(self, inst: Instruction) -> None:
        m, op, ops = self.m, inst.opname, inst.operands
        t = m.types[inst.result_type]
        if op in ("OpConstantTrue", "OpSpecConstantTrue"):
            value = True
        elif op in ("OpConstantFalse", "OpSpecConstantFalse"):
            value = False
        elif op in ("OpConstant", "OpSpecConstant"):
            words = ops[0].value
            if t.op == "Float":
                value = _float_from_words(words, t.width)
            elif t.op == "Int":
                value = _int_from_words(words, t.width, t.signed)
            else:
                raise self.fail(inst, f"scalar constant of non-scalar type {t!r}")
        elif op in ("OpConstantComposite", "OpSpecConstantComposite",
                    "OpConstantCompositeReplicateEXT", "OpSpecConstantCompositeReplicateEXT"):
            value = [o.value for o in ops]
        elif op == "OpConstantNull":
            value = None
        elif op == "OpConstantSampler":
            value = {"addressing": self.enum_name("SamplerAddressingMode", ops[0].value),
                     "normalized": bool(ops[1].value),
                     "filter": self.enum_name("SamplerFilterMode", ops[2].value)}
        elif op == "OpSpecConstantOp":
            sub = self.g.by_opcode.get(ops[0].value)
            value = {"opcode": sub.opname if sub else ops[0].value,
                     "operands": [o.value for o in ops[1:]]}
        else:
            value = [o.value for o in ops]
        spec = m.decoration(inst.result_id, "SpecId")
        m.constants[inst.result_id] = Constant(inst.result_id, t, op, value,
                                               spec[0] if spec else None)


_TERMINATORS = frozenset((
    "OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpKill",
    "OpUnreachable", "OpTerminateInvocation", "OpIgnoreIntersectionKHR",
    "OpTerminateRayKHR", "OpEmitMeshTasksEXT",
))

