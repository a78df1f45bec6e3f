"""Second reader pass: a Module's indexes from its decoded instructions.

Follows the logical layout of a module (SPIR-V spec s2.4): debug and
annotation instructions, types, constants and global variables, then
functions split into blocks. Every inconsistency raises
:class:`~sgvm.errors.SpirvFormatError` naming the instruction's word offset.
"""

from __future__ import annotations

import struct
from typing import Any

from ..errors import SpirvFormatError
from . import grammar as _grammar
from .module import (
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

# Block terminators (spec s2.2.4 "Termination Instructions").
TERMINATORS = frozenset((
    "OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpKill",
    "OpUnreachable", "OpTerminateInvocation", "OpIgnoreIntersectionKHR",
    "OpTerminateRayKHR", "OpEmitMeshTasksEXT",
))
_FUNCTION_ONLY = frozenset(("OpLabel", "OpFunctionParameter", "OpFunctionEnd")) | TERMINATORS
_SCALAR_CONSTANTS = ("OpConstant", "OpSpecConstant")
_COMPOSITE_CONSTANTS = ("OpConstantComposite", "OpSpecConstantComposite",
                        "OpConstantCompositeReplicateEXT", "OpSpecConstantCompositeReplicateEXT")
_FP_ENCODING_BFLOAT16 = 0  # FPEncoding BFloat16KHR


def float_from_words(words: tuple[int, ...], width: int, encoding: int | None = None) -> float | int:
    """An IEEE binary16/32/64 (or bfloat16) literal as a Python float; raw bits otherwise."""
    bits = sum(w << (32 * i) for i, w in enumerate(words))
    if encoding == _FP_ENCODING_BFLOAT16 and width == 16:
        return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]
    if encoding is not None or width not in (16, 32, 64):
        return bits
    fmt = {16: "<e", 32: "<f", 64: "<d"}[width]
    return struct.unpack(fmt, (bits & ((1 << width) - 1)).to_bytes(width // 8, "little"))[0]


def int_from_words(words: tuple[int, ...], width: int, signed: bool) -> int:
    """A (multi-word, low word first) integer literal of ``width`` bits."""
    value = sum(w << (32 * i) for i, w in enumerate(words)) & ((1 << width) - 1)
    if signed and value >> (width - 1):
        value -= 1 << width
    return value


class _ModuleBuilder:
    def __init__(self, header: Header, instructions: list[Instruction]):
        self.g = _grammar.load()
        self.m = Module(header=header, instructions=instructions)
        self.loc: SourceLocation | None = None

    def fail(self, inst: Instruction, msg: str) -> SpirvFormatError:
        return SpirvFormatError(f"{inst.opname}: {msg}", inst.offset)

    def type_ref(self, inst: Instruction, id_: int) -> Type:
        t = self.m.types.get(id_)
        if t is None:
            raise self.fail(inst, f"%{id_} is not a type")
        return t

    def enum_name(self, kind: str, value: int) -> str:
        return self.g.enum_name(kind, value)  # the decoder has checked the value

    def args(self, operands: tuple[Operand, ...]) -> tuple[Any, ...]:
        """Decoration / execution-mode parameters, value enumerants by name."""
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
            if inst.ext_opname in ("DebugLine", "DebugNoLine"):
                self.debug_line(inst)
                continue
            inst.location = self.loc
            if fn is not None:
                fn, block = self.in_function(inst, fn, block)
                continue
            if op in _FUNCTION_ONLY:
                raise self.fail(inst, "outside a function")
            self.global_instruction(inst, modes)
            if op == "OpFunction":
                fn = Function(inst.result_id, m.types[inst.result_type], inst.operands[0].value,
                              self.type_ref(inst, inst.operands[1].value),
                              name=m.names.get(inst.result_id, ""))
        if fn is not None:
            raise SpirvFormatError("truncated: function without OpFunctionEnd", None)
        for inst in modes:
            self.execution_mode(inst)
        for ptr in m.types.values():
            if ptr.op == "Pointer" and ptr.pointee is None and ptr.storage_class == "":
                raise SpirvFormatError(f"OpTypeForwardPointer %{ptr.id} is never defined", None)
        return m

    def debug_line(self, inst: Instruction) -> None:
        """NonSemantic.Shader.DebugInfo.100 DebugLine: all operands are ids of constants."""
        if inst.ext_opname == "DebugNoLine":
            self.loc = None
            return
        ids = [o.value for o in inst.operands[2:]]
        source = self.m.defs.get(ids[0]) if ids else None
        file = "?"
        if source is not None and source.ext_opname == "DebugSource":
            file = self.m.strings.get(source.operands[2].value, "?")

        def number(i: int) -> int:
            c = self.m.constants.get(ids[i]) if i < len(ids) else None
            ok = c is not None and isinstance(c.value, int) and not isinstance(c.value, bool)
            return c.value if ok else 0

        self.loc = SourceLocation(file, number(1), number(3))

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
            if op in TERMINATORS:
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
        elif op == "OpTypeForwardPointer":
            self.type(inst)
        elif op == "OpGroupDecorate":
            for target in ops[1:]:
                for dec in m.decorations.get(ops[0].value, ()):
                    m.decorations.setdefault(target.value, []).append(dec)
        elif op == "OpGroupMemberDecorate":
            for target in ops[1:]:
                for dec in m.decorations.get(ops[0].value, ()):
                    m.member_decorations.setdefault(target.value, []).append(dec)
        elif inst.result_id is None:  # OpTypeStructContinuedINTEL and the like
            return
        elif op.startswith("OpType"):
            self.type(inst)
        elif op.startswith(("OpConstant", "OpSpecConstant")) and inst.result_type is not None:
            self.constant(inst)
        elif op == "OpVariable":
            init = ops[1].value if len(ops) > 1 else None
            m.variables[inst.result_id] = Variable(
                inst.result_id, m.types[inst.result_type],
                self.enum_name("StorageClass", ops[0].value), init)
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
        if op == "OpTypeForwardPointer":  # a placeholder that OpTypePointer fills in
            m.types.setdefault(ops[0].value, Type(ops[0].value, "Pointer"))
            return
        tid = inst.result_id
        kind = op[len("OpType"):]
        t = m.types.get(tid) if kind == "Pointer" else None
        t = t or Type(tid, kind)
        if kind in ("Int", "Float"):
            t.width = ops[0].value
            if t.width == 0:
                raise self.fail(inst, "width 0")
            if kind == "Int":
                t.signed = bool(ops[1].value)
        elif kind in ("Vector", "Matrix"):
            t.component, t.count = self.type_ref(inst, ops[0].value), ops[1].value
        elif kind == "Array":
            t.component = self.type_ref(inst, ops[0].value)
            length = m.constants.get(ops[1].value)
            if length is None or length.type.op != "Int":
                raise self.fail(inst, f"array length %{ops[1].value} is not an integer constant")
            t.count = length.value if isinstance(length.value, int) else 0
        elif kind in ("RuntimeArray", "SampledImage"):
            t.component = self.type_ref(inst, ops[0].value)
        elif kind == "Struct":
            t.members = tuple(self.type_ref(inst, o.value) for o in ops)
            t.packed = m.has_decoration(tid, "CPacked")
        elif kind == "Pointer":
            t.storage_class = self.enum_name("StorageClass", ops[0].value)
            t.pointee = self.type_ref(inst, ops[1].value)
        elif kind == "Function":
            t.return_type = self.type_ref(inst, ops[0].value)
            t.params = tuple(self.type_ref(inst, o.value) for o in ops[1:])
        elif kind == "Image":
            names = ("dim", "depth", "arrayed", "ms", "sampled", "format", "access")
            kinds = ("Dim", None, None, None, None, "ImageFormat", "AccessQualifier")
            t.component = self.type_ref(inst, ops[0].value)
            for name, k, o in zip(names, kinds, ops[1:], strict=False):
                t.image[name] = self.enum_name(k, o.value) if k else o.value
        elif kind == "Opaque":
            t.name = ops[0].value
        m.types[tid] = t

    def constant(self, inst: Instruction) -> None:
        m, op, ops = self.m, inst.opname, inst.operands
        t = m.types[inst.result_type]
        value: Any
        if op in ("OpConstantTrue", "OpSpecConstantTrue"):
            value = True
        elif op in ("OpConstantFalse", "OpSpecConstantFalse"):
            value = False
        elif op in _SCALAR_CONSTANTS:
            value = self.scalar(inst, t, ops[0].value)
        elif op in _COMPOSITE_CONSTANTS:
            value = [o.value for o in ops]
        elif op == "OpConstantNull":
            value = None
        elif op == "OpConstantSampler":
            value = {"addressing": self.enum_name("SamplerAddressingMode", ops[0].value),
                     "normalized": bool(ops[1].value),
                     "filter": self.enum_name("SamplerFilterMode", ops[2].value)}
        elif op == "OpSpecConstantOp":
            value = {"opcode": self.g.by_opcode[ops[0].value].opname,
                     "operands": [o.value for o in ops[1:]]}
        else:
            value = [o.value for o in ops]
        spec = m.decoration(inst.result_id, "SpecId")
        m.constants[inst.result_id] = Constant(inst.result_id, t, op, value,
                                               spec[0] if spec else None)

    def scalar(self, inst: Instruction, t: Type, words: tuple[int, ...]) -> int | float:
        if t.op == "Int":
            return int_from_words(words, t.width, t.signed)
        if t.op == "Float":
            encoding = self.float_encoding(t)
            return float_from_words(words, t.width, encoding)
        raise self.fail(inst, f"scalar constant of non-scalar type {t!r}")

    def float_encoding(self, t: Type) -> int | None:
        ops = self.m.defs[t.id].operands
        return ops[1].value if len(ops) > 1 else None


def build_module(header: Header, instructions: list[Instruction]) -> Module:
    """Index ``instructions`` (already decoded and id-checked) into a Module."""
    return _ModuleBuilder(header, instructions).build()
