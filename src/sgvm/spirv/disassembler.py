"""Module → text in the syntax of SPIRV-Tools' ``spirv-dis``.

Ids print as ``%name`` using spirv-dis's "friendly name" rules (OpName,
BuiltIn decorations, type-derived names such as ``%uint`` or
``%_ptr_CrossWorkgroup_float``, constant names such as ``%uint_1``, with
``_0``, ``_1`` … suffixes to keep names unique), or as ``%<number>`` with
``raw_ids``. Instructions and enumerants print by their grammar names
(SPIR-V spec s3); typed literals follow the type they belong to.
"""

from __future__ import annotations

import functools
import math
import re
import struct
from collections.abc import Callable

from . import grammar as _grammar
from .module import Instruction, Module, Operand, Type

INDENT = 15  # the column where opcodes start (spirv-dis's default indentation)

# BuiltIn decorations that name their target when it has no OpName.
_GL_BUILTIN_NAMES = {
    "VertexId": "VertexID", "InstanceId": "InstanceID", "PrimitiveId": "PrimitiveID",
    "InvocationId": "InvocationID", "SampleId": "SampleID", "NumWorkgroups": "NumWorkGroups",
    "WorkgroupSize": "WorkGroupSize", "WorkgroupId": "WorkGroupID",
    "LocalInvocationId": "LocalInvocationID", "GlobalInvocationId": "GlobalInvocationID",
}
_GL_BUILTINS = frozenset((
    "Position", "PointSize", "ClipDistance", "CullDistance", "Layer", "ViewportIndex",
    "TessLevelOuter", "TessLevelInner", "TessCoord", "PatchVertices", "FragCoord",
    "PointCoord", "FrontFacing", "SamplePosition", "SampleMask", "FragDepth",
    "HelperInvocation", "LocalInvocationIndex", "VertexIndex", "InstanceIndex",
))
_CL_BUILTINS = frozenset((
    "WorkDim", "GlobalSize", "EnqueuedWorkgroupSize", "GlobalOffset", "GlobalLinearId",
    "SubgroupSize", "SubgroupMaxSize", "NumSubgroups", "NumEnqueuedSubgroups", "SubgroupId",
    "SubgroupLocalInvocationId", "SubgroupEqMaskKHR", "SubgroupGeMaskKHR",
    "SubgroupGtMaskKHR", "SubgroupLeMaskKHR", "SubgroupLtMaskKHR",
))
_INT_ROOTS = {8: "char", 16: "short", 32: "int", 64: "long"}
_FLOAT_NAMES = {16: "half", 32: "float", 64: "double"}
_SIMPLE_TYPE_NAMES = {
    "OpTypeVoid": "void", "OpTypeBool": "bool", "OpTypeEvent": "Event",
    "OpTypeDeviceEvent": "DeviceEvent", "OpTypeReserveId": "ReserveId", "OpTypeQueue": "Queue",
    "OpTypePipeStorage": "PipeStorage", "OpTypeNamedBarrier": "NamedBarrier",
    "OpConstantTrue": "true", "OpConstantFalse": "false",
}
_INVALID_NAME_CHARS = re.compile(r"[^A-Za-z0-9_]")


def hex_float(bits: int, exponent_bits: int, fraction_bits: int) -> str:
    """A float's bits in C99 hex-float form, as SPIRV-Tools prints it (``0x1.8p+0``)."""
    nibbles = (fraction_bits + 3) // 4
    overflow = nibbles * 4 - fraction_bits
    bias = (1 << (exponent_bits - 1)) - 1
    sign = "-" if bits >> (exponent_bits + fraction_bits) & 1 else ""
    exponent = (bits >> fraction_bits) & ((1 << exponent_bits) - 1)
    fraction = (bits & ((1 << fraction_bits) - 1)) << overflow
    is_zero = exponent == 0 and fraction == 0
    power = 0 if is_zero else exponent - bias
    if exponent == 0 and not is_zero:  # denormal: normalise the leading one away
        top = 1 << (nibbles * 4 - 1)
        while not fraction & top:
            fraction <<= 1
            power -= 1
        fraction = (fraction << 1) & ((1 << (nibbles * 4)) - 1)
    while nibbles and not fraction & 0xF:
        fraction >>= 4
        nibbles -= 1
    text = f"{sign}0x{'0' if is_zero else '1'}"
    if nibbles:
        text += f".{fraction:0{nibbles}x}"
    return f"{text}p{'+' if power >= 0 else ''}{power}"


def _float_text(bits: int, width: int) -> str:
    """spirv-dis's FloatProxy output: shortest-exact decimal for normals, hex otherwise."""
    if width == 16:
        return hex_float(bits & 0xFFFF, 5, 10)
    if width == 32:
        value, digits, layout = struct.unpack("<f", struct.pack("<I", bits))[0], 9, (8, 23)
    else:
        value, digits, layout = struct.unpack("<d", struct.pack("<Q", bits))[0], 17, (11, 52)
    if value == 0 or (math.isfinite(value) and abs(value) >= _smallest_normal(width)):
        return f"{value:.{digits}g}"
    return hex_float(bits, *layout)


def _smallest_normal(width: int) -> float:
    return 2.0 ** -126 if width == 32 else 2.0 ** -1022


def typed_literal(words: tuple[int, ...], t: Type | None) -> str:
    """A literal whose meaning comes from ``t`` (OpConstant, OpSwitch cases)."""
    bits = sum(w << (32 * i) for i, w in enumerate(words))
    if t is None or len(words) > 2:
        return str(bits)
    if t.op == "Float" and t.width in (16, 32, 64) and len(words) == (2 if t.width == 64 else 1):
        return _float_text(bits, t.width)
    if t.op == "Int" and t.signed:
        width = 32 * len(words)
        return str(bits - (1 << width) if bits >> (width - 1) else bits)
    return str(bits)


@functools.cache
def _builtin_names() -> dict[int, str]:
    """BuiltIn value → the name it gives an otherwise unnamed variable."""
    g = _grammar.load()
    out = {g.enum_value("BuiltIn", k): "gl_" + v for k, v in _GL_BUILTIN_NAMES.items()}
    out.update((g.enum_value("BuiltIn", k), "gl_" + k) for k in _GL_BUILTINS)
    out.update((g.enum_value("BuiltIn", k), k) for k in _CL_BUILTINS)
    return out


class _Names:
    """spirv-dis's FriendlyNameMapper, replayed over the module's instructions."""

    def __init__(self, module: Module):
        self.m = module
        self.g = _grammar.load()
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        for inst in module.instructions:
            self.visit(inst)

    def __getitem__(self, id_: int) -> str:
        return self.names.get(id_, str(id_))

    def save(self, id_: int, suggested: str) -> None:
        if id_ in self.names:
            return
        base = _INVALID_NAME_CHARS.sub("_", suggested) if suggested else "_"
        name, index = base, 0
        while name in self.used:
            name = f"{base}_{index}"
            index += 1
        self.used.add(name)
        self.names[id_] = name

    def visit(self, inst: Instruction) -> None:
        op, ops, rid = inst.opname, inst.operands, inst.result_id
        if op == "OpName":
            self.save(ops[0].value, ops[1].value)
        elif op == "OpDecorate" and ops[1].value == self.g.enum_value("Decoration", "BuiltIn"):
            suggested = _builtin_names().get(ops[2].value)
            if suggested:
                self.save(ops[0].value, suggested)
        elif rid is None:
            return
        elif op in _SIMPLE_TYPE_NAMES:
            self.save(rid, _SIMPLE_TYPE_NAMES[op])
        elif op == "OpTypeInt":
            width, signed = ops[0].value, ops[1].value
            root = _INT_ROOTS.get(width, str(width))
            sign = "u" if not signed else ("" if width in _INT_ROOTS else "i")
            self.save(rid, sign + root)
        elif op == "OpTypeFloat":
            self.save(rid, _FLOAT_NAMES.get(ops[0].value, f"fp{ops[0].value}"))
        elif op == "OpTypeVector":
            self.save(rid, f"v{ops[1].value}{self[ops[0].value]}")
        elif op == "OpTypeMatrix":
            self.save(rid, f"mat{ops[1].value}{self[ops[0].value]}")
        elif op == "OpTypeArray":
            self.save(rid, f"_arr_{self[ops[0].value]}_{self[ops[1].value]}")
        elif op == "OpTypeRuntimeArray":
            self.save(rid, f"_runtimearr_{self[ops[0].value]}")
        elif op == "OpTypePointer":
            storage = self.g.enum_name("StorageClass", ops[0].value)
            self.save(rid, f"_ptr_{storage}_{self[ops[1].value]}")
        elif op == "OpTypePipe":
            self.save(rid, "Pipe" + self.g.enum_name("AccessQualifier", ops[0].value))
        elif op == "OpTypeOpaque":
            self.save(rid, "Opaque_" + _INVALID_NAME_CHARS.sub("_", ops[0].value))
        elif op == "OpTypeStruct":
            self.save(rid, f"_struct_{rid}")
        elif op == "OpConstant":
            value = typed_literal(ops[0].value, self.m.types.get(inst.result_type))
            self.save(rid, f"{self[inst.result_type]}_{value.replace('-', 'n')}")
        else:
            self.save(rid, str(rid))


class _Printer:
    """Formats instructions one at a time."""

    def __init__(self, module: Module, name: Callable[[int], str]):
        self.m = module
        self.g = _grammar.load()
        self.name = name

    def id(self, id_: int) -> str:
        return "%" + self.name(id_)

    def enum(self, inst: Instruction, kind: str, value: int) -> str:
        info = None
        if inst.opname in ("OpExtInst", "OpExtInstWithForwardRefsKHR"):
            ext = _grammar.ext_set(self.g, self.m.ext_inst_imports.get(inst.operands[0].value, ""))
            info = ext.operand_kinds.get(kind) if ext else None
        info = info or self.g.operand_kinds[kind]
        if not info.is_bit_enum:
            return info.by_value[value].name
        names = [info.by_value[1 << b].name for b in range(32) if value >> b & 1]
        if names or 0 not in info.by_value:
            return "|".join(names)
        return info.by_value[0].name

    def literal_type(self, inst: Instruction) -> Type | None:
        if inst.opname == "OpSwitch":
            selector = inst.operands[0].value
            return self.m.types.get(self.m.value_types.get(selector, -1))
        return self.m.types.get(inst.result_type) if inst.result_type is not None else None

    def operand(self, inst: Instruction, op: Operand) -> str:
        kind, v = op.kind, op.value
        if kind in ("IdRef", "IdScope", "IdMemorySemantics", "IdResultType"):
            return self.id(v)
        if kind == "LiteralString":
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if kind == "LiteralContextDependentNumber":
            return typed_literal(v, self.literal_type(inst))
        if kind == "LiteralFloat":
            return _float_text(v[0], 32)
        if kind == "PairLiteralIntegerIdRef":
            return f"{typed_literal(v[0], self.literal_type(inst))} {self.id(v[1])}"
        if kind == "PairIdRefLiteralInteger":
            return f"{self.id(v[0])} {v[1]}"
        if kind == "PairIdRefIdRef":
            return f"{self.id(v[0])} {self.id(v[1])}"
        if kind == "LiteralExtInstInteger":
            return inst.ext_opname or str(v)
        if kind == "LiteralSpecConstantOpInteger":
            return self.g.by_opcode[v].opname.removeprefix("Op")
        if kind == "LiteralInteger":
            return str(v)
        return self.enum(inst, kind, v)

    def line(self, inst: Instruction) -> str:
        if inst.result_id is not None:
            name = self.name(inst.result_id)
            head = " " * max(0, INDENT - 4 - len(name)) + f"%{name} = "
        else:
            head = " " * INDENT
        parts = [head + inst.opname]
        if inst.result_type is not None:
            parts.append(self.id(inst.result_type))
        parts.extend(self.operand(inst, op) for op in inst.operands)
        return " ".join(parts)


@functools.cache
def _generators() -> dict[int, str]:
    return _grammar.generator_names()


def header_lines(module: Module) -> list[str]:
    """The ``;`` comment lines spirv-dis prints before the instructions."""
    h = module.header
    tool, misc = h.generator >> 16, h.generator & 0xFFFF
    generator = _generators().get(tool, f"Unknown({tool})")
    return ["; SPIR-V", f"; Version: {h.version[0]}.{h.version[1]}",
            f"; Generator: {generator}; {misc}", f"; Bound: {h.bound}", f"; Schema: {h.schema}"]


def friendly_names(module: Module) -> dict[int, str]:
    """Id → the name spirv-dis would print it with (without the ``%``)."""
    return dict(_Names(module).names)


def disassemble(module: Module, *, raw_ids: bool = False, header: bool = True) -> str:
    """The module as spirv-dis text, one instruction per line, ending in a newline."""
    name: Callable[[int], str] = str if raw_ids else _Names(module).__getitem__
    printer = _Printer(module, name)
    lines = header_lines(module) if header else []
    lines.extend(printer.line(inst) for inst in module.instructions)
    return "\n".join(lines) + "\n"
