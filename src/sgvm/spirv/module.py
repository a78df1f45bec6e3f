"""The in-memory model of a SPIR-V module.

A :class:`Module` keeps every instruction in order (so it can be written back
byte for byte) plus the indexes an engine needs: types, constants, decorations,
names, entry points with execution modes, global variables and functions split
into blocks. Build one with :func:`sgvm.spirv.read`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

MAGIC = 0x07230203


class Operand(NamedTuple):
    """One decoded operand.

    ``value`` is an ``int`` for ids, literal integers and enumerants (their
    numeric value), a ``str`` for literal strings, a tuple of raw words for
    ``LiteralContextDependentNumber`` and ``LiteralFloat``, and a pair for the
    ``Pair*`` composite kinds (literal halves as word tuples). Enumerant
    parameters follow their enumerant as separate operands.
    """

    kind: str
    value: Any


class SourceLocation(NamedTuple):
    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(eq=False)
class Instruction:
    """One instruction: opcode, optional result type and id, decoded operands."""

    opname: str
    opcode: int
    result_type: int | None
    result_id: int | None
    operands: tuple[Operand, ...]
    offset: int = -1  # word offset in the binary it was read from
    location: SourceLocation | None = None
    ext_opname: str | None = None  # for OpExtInst: the extended instruction's name

    def ids(self) -> list[int]:
        """The ids this instruction references (not its result)."""
        out = []
        for op in self.operands:
            if op.kind in ("IdRef", "IdScope", "IdMemorySemantics"):
                out.append(op.value)
            elif op.kind == "PairIdRefIdRef":
                out.extend(op.value)
            elif op.kind == "PairIdRefLiteralInteger":
                out.append(op.value[0])
            elif op.kind == "PairLiteralIntegerIdRef":
                out.append(op.value[1])
        return out

    def __repr__(self) -> str:
        res = f"%{self.result_id} = " if self.result_id is not None else ""
        name = self.ext_opname or self.opname
        return f"<{res}{name} {[o.value for o in self.operands]}>"


@dataclass(eq=False)
class Type:
    """A SPIR-V type. ``op`` is the opcode name without ``OpType`` (``"Int"``, ``"Vector"`` …).

    Only the attributes meaningful for ``op`` are set: ``width``/``signed``
    (Int, Float), ``component``/``count`` (Vector, Array: count is the
    resolved length), ``members`` and ``packed`` (Struct), ``storage_class``/``pointee``
    (Pointer), ``return_type``/``params`` (Function), ``image`` (Image
    attributes: dim, depth, arrayed, ms, sampled, format, access; SampledImage:
    the image type under ``component``).
    """

    id: int
    op: str
    width: int = 0
    signed: bool = False
    component: Type | None = None
    count: int = 0
    members: tuple[Type, ...] = ()
    storage_class: str = ""
    pointee: Type | None = None
    return_type: Type | None = None
    params: tuple[Type, ...] = ()
    image: dict[str, Any] = field(default_factory=dict)
    name: str = ""  # OpTypeOpaque's name
    packed: bool = False  # a Struct decorated CPacked: members without padding

    @property
    def is_scalar(self) -> bool:
        return self.op in ("Int", "Float", "Bool")

    @property
    def scalar(self) -> Type:
        """The component type of a vector, or the type itself."""
        return self.component if self.op == "Vector" and self.component else self

    def __repr__(self) -> str:
        if self.op == "Int":
            return f"{'i' if self.signed else 'u'}{self.width}"
        if self.op == "Float":
            return f"f{self.width}"
        if self.op == "Vector":
            return f"{self.component!r}x{self.count}"
        if self.op == "Pointer":
            inner = repr(self.pointee) if self.pointee is not None else "?"
            return f"ptr<{self.storage_class}, {inner}>"
        if self.op == "Array":
            return f"[{self.component!r}; {self.count}]"
        if self.op == "Struct":
            return "struct{" + ", ".join(repr(m) for m in self.members) + "}"
        return self.op.lower()


@dataclass(eq=False)
class Constant:
    """A (spec) constant (SPIR-V spec s3.52.7).

    ``value``: bool; int (integers, sign-applied for signed types); float
    (IEEE half/float/double and bfloat16; raw bits as an int for other float
    encodings); the list of constituent ids for composites; None for
    ``OpConstantNull``; a dict for ``OpConstantSampler`` (addressing,
    normalized, filter); for ``OpSpecConstantOp`` a dict with the opcode name
    and the decoded operand values. ``OpSpecConstant*`` hold their default.
    """

    id: int
    type: Type
    op: str
    value: Any
    spec_id: int | None = None

    @property
    def is_spec(self) -> bool:
        return self.op.startswith("OpSpec")


@dataclass(frozen=True)
class Decoration:
    """A decoration and its parameters (enumerant parameters given by name)."""

    name: str
    args: tuple[Any, ...] = ()


@dataclass(eq=False)
class Variable:
    id: int
    type: Type  # the pointer type
    storage_class: str
    initializer: int | None = None

    @property
    def pointee(self) -> Type:
        assert self.type.pointee is not None
        return self.type.pointee


@dataclass(eq=False)
class Block:
    label: int
    instructions: list[Instruction] = field(default_factory=list)

    @property
    def terminator(self) -> Instruction:
        return self.instructions[-1]


@dataclass(eq=False)
class Function:
    id: int
    result_type: Type
    control: int
    type: Type
    params: list[Instruction] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    name: str = ""

    @property
    def is_declaration(self) -> bool:
        """A function with no body (imported through LinkageAttributes)."""
        return not self.blocks


@dataclass(eq=False)
class EntryPoint:
    execution_model: str
    function: int
    name: str
    interface: tuple[int, ...]
    execution_modes: dict[str, tuple[Any, ...]] = field(default_factory=dict)


class Header(NamedTuple):
    version: tuple[int, int]
    generator: int
    bound: int
    schema: int
    big_endian: bool = False


@dataclass(eq=False)
class Module:
    """A whole SPIR-V module; see the module docstring."""

    header: Header
    instructions: list[Instruction]
    capabilities: list[str] = field(default_factory=list)
    extensions: list[str] = field(default_factory=list)
    ext_inst_imports: dict[int, str] = field(default_factory=dict)
    addressing_model: str = ""
    memory_model: str = ""
    entry_points: list[EntryPoint] = field(default_factory=list)
    names: dict[int, str] = field(default_factory=dict)
    member_names: dict[tuple[int, int], str] = field(default_factory=dict)
    strings: dict[int, str] = field(default_factory=dict)
    sources: list[Instruction] = field(default_factory=list)
    decorations: dict[int, list[Decoration]] = field(default_factory=dict)
    member_decorations: dict[tuple[int, int], list[Decoration]] = field(default_factory=dict)
    types: dict[int, Type] = field(default_factory=dict)
    constants: dict[int, Constant] = field(default_factory=dict)
    variables: dict[int, Variable] = field(default_factory=dict)
    undefs: dict[int, Type] = field(default_factory=dict)
    functions: dict[int, Function] = field(default_factory=dict)
    defs: dict[int, Instruction] = field(default_factory=dict)
    value_types: dict[int, int] = field(default_factory=dict)  # result id → its type id
    # What an engine derives from the module and keeps for its later launches (the NumPy
    # engine's decoded programs): held here, not in a table keyed by the module, so it
    # goes with the module even where it refers back to it.
    derived: dict[str, Any] = field(default_factory=dict, repr=False)

    def decoration(self, id_: int, name: str) -> tuple[Any, ...] | None:
        """The arguments of decoration ``name`` on ``id_``, or None when absent."""
        for d in self.decorations.get(id_, ()):
            if d.name == name:
                return d.args
        return None

    def has_decoration(self, id_: int, name: str) -> bool:
        return self.decoration(id_, name) is not None

    def type_of(self, id_: int) -> Type:
        """The type of the value with result id ``id_``."""
        return self.types[self.value_types[id_]]

    def entry_point(self, name: str) -> EntryPoint:
        for ep in self.entry_points:
            if ep.name == name:
                return ep
        raise KeyError(name)

    def kernel_functions(self, name: str) -> list[Function]:
        """Entry point ``name``'s function and every function it calls, directly or not."""
        functions, called, out = [self.entry_point(name).function], set(), []
        while functions:
            fid = functions.pop()
            if fid in called or fid not in self.functions:
                continue
            called.add(fid)
            out.append(self.functions[fid])
            functions.extend(inst.operands[0].value for block in self.functions[fid].blocks
                             for inst in block.instructions if inst.opname == "OpFunctionCall")
        return out

    def entry_point_variables(self, name: str) -> set[int]:
        """Module-scope variables entry point ``name`` uses: those referenced by its function
        and every function it calls, directly or through constant instructions and variable
        initialisers. (Its OpEntryPoint interface must list these from SPIR-V 1.4 on, but may
        list more: clang names every global of the module for every kernel.)"""
        pending: list[int] = [ref for fn in self.kernel_functions(name) for block in fn.blocks
                              for inst in block.instructions for ref in inst.ids()]
        used: set[int] = set()
        seen: set[int] = set()
        while pending:
            ref = pending.pop()
            if ref in seen:
                continue
            seen.add(ref)
            var = self.variables.get(ref)
            if var is not None:
                used.add(ref)
                if var.initializer is not None:
                    pending.append(var.initializer)
            elif ref in self.constants:
                pending.extend(self.defs[ref].ids())
        return used

    @property
    def kernel_names(self) -> list[str]:
        return [ep.name for ep in self.entry_points if ep.execution_model == "Kernel"]

    def builtin_variables(self) -> dict[int, str]:
        """Global variables decorated ``BuiltIn``: id → built-in name."""
        out = {}
        for vid in self.variables:
            args = self.decoration(vid, "BuiltIn")
            if args:
                out[vid] = args[0]
        return out

    def to_bytes(self) -> bytes:
        from .writer import write

        return write(self)
