"""Pre-decoding: a SPIR-V function → blocks of closures over register slots.

Done once per (module, kernel) (see ``program.Program``). Registers are a
list indexed by result id. Blocks are numbered in reverse post-order, which
is the order the scheduler prefers among waiting lanes (DESIGN.md, "The CPU
engine"). OpPhi becomes parallel copies on the incoming edges, performed by
the scheduler for exactly the lanes that take the edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import UnsupportedError
from ...spirv import Function, Instruction, Module, Type
from ..common import types as T
from ..common.block_order import block_order
from .registry import AFFINE_AWARE, AFFINE_PRODUCERS, AFFINE_SOURCES, BUILDERS, Op
from .values import arr

if TYPE_CHECKING:
    from .program import Program

# How a diverged block stores an op's result: KEEP (block-local value: store as is),
# UNIFORM_KEEP (pure: store uniform results as is, merge lane arrays), MERGE.
KEEP, UNIFORM_KEEP, MERGE = range(3)
# Terminator kinds.
BRANCH, COND, SWITCH, RETURN, UNREACHABLE = range(5)
# Instructions without run-time effect.
IGNORED = frozenset((
    "OpLine", "OpNoLine", "OpNop", "OpLifetimeStart", "OpLifetimeStop", "OpSelectionMerge",
    "OpLoopMerge", "OpAssumeTrueKHR", "OpSource", "OpName", "OpModuleProcessed",
))


@dataclass(eq=False)
class DBlock:
    """A decoded block: its instructions' ops and its terminator."""

    index: int
    label: int
    ops: list = field(default_factory=list)  # (dst, fn, merge mode, vector) per op
    plain: list = field(default_factory=list)  # ``ops`` without ``_located`` (no observers)
    insts: list = field(default_factory=list)  # the Instruction of each op (for observers)
    kind: int = RETURN
    args: tuple = ()  # BRANCH: (target,); COND: (cond, t, f); SWITCH: (sel, default, {value: t}); RETURN: (value id or 0,)
    edges: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # target → [(phi, source)]
    phi_vector: dict[int, bool] = field(default_factory=dict)
    has_barrier: bool = False


@dataclass(eq=False)
class DFunction:
    id: int
    name: str
    params: list[int]
    blocks: list[DBlock]
    returns_vector: bool = False


class Context:
    """What builders may ask about the module while decoding."""

    def __init__(self, module: Module, program: Program):
        self.module = module
        self.program = program
        self.maybe_affine: set[int] = set()

    def type_of(self, id_: int) -> Type:
        return self.module.type_of(id_)

    def rtype(self, inst: Instruction) -> Type:
        return self.module.types[inst.result_type]

    def dtype(self, inst: Instruction) -> np.dtype:
        return T.dtype_of(self.rtype(inst))

    def is_vector(self, id_: int) -> bool:
        return self.module.type_of(id_).op == "Vector"

    def constant(self, id_: int) -> Any | None:
        """The Python value of a constant id, or None when ``id_`` is not constant."""
        c = self.module.constants.get(id_)
        if c is None or c.op.startswith("OpSpec") and c.op != "OpSpecConstant":
            return None
        return self.program.template[id_]


def _switch_literal(words: tuple[int, ...] | int) -> int:
    if isinstance(words, int):
        return words
    v = 0
    for i, w in enumerate(words):
        v |= w << (32 * i)
    return v


def _materializing(op: Op, ids: list[int]) -> Op:
    """Wrap ``op`` so that Affine operands among ``ids`` are materialised first."""
    fn = op.fn

    def run(r, st):
        for i in ids:
            r[i] = arr(r[i])
        return fn(r, st)

    return op._replace(fn=run)


def decode_function(ctx: Context, fn: Function) -> DFunction:
    """Decode one function (see the module docstring)."""
    order = block_order(fn)
    _affine_analysis(ctx, fn)
    index = {label: i for i, label in enumerate(order)}
    by_label = {b.label: b for b in fn.blocks}
    dblocks = [DBlock(i, label) for i, label in enumerate(order)]
    for db in dblocks:
        block = by_label[db.label]
        for inst in block.instructions[:-1]:
            op = inst.opname
            if op == "OpPhi":
                continue
            if op in IGNORED or (op == "OpExtInst" and inst.ext_opname and
                                 ctx.module.ext_inst_imports.get(inst.operands[0].value, "")
                                 .startswith(("OpenCL.DebugInfo", "NonSemantic"))):
                continue
            if op == "OpControlBarrier":
                db.has_barrier = True
            built = _build(ctx, inst)
            if built is not None:
                db.ops.append(built)
                db.insts.append(inst)
        _terminator(ctx, db, block.terminator, index)
    # Phi edges: for every phi of a target, the value flowing in from this block.
    for db in dblocks:
        for inst in by_label[db.label].instructions:
            if inst.opname != "OpPhi":
                continue
            vec = ctx.type_of(inst.result_id).op == "Vector"
            for pair in inst.operands:
                value, pred = pair.value
                if pred in index:
                    pb = dblocks[index[pred]]
                    pb.edges.setdefault(db.index, []).append((inst.result_id, value))
                    pb.phi_vector[inst.result_id] = vec
    escaping = _escaping_values(fn)
    for db in dblocks:
        db.ops = [(d, f, KEEP if d not in escaping else (UNIFORM_KEEP if pure else MERGE), vec)
                  for d, f, pure, vec in db.ops]
        db.plain = [(d, getattr(f, "unlocated", f), mode, vec) for d, f, mode, vec in db.ops]
    return DFunction(fn.id, fn.name, [p.result_id for p in fn.params], dblocks,
                     fn.result_type.op == "Vector")


def _escaping_values(fn: Function) -> set[int]:
    """Values used outside the block that defines them.

    Only these must be merged under the mask when a block runs for some lanes:
    the other lanes recompute a block-local value before they use it.
    """
    home: dict[int, int] = {}
    for b in fn.blocks:
        for inst in b.instructions:
            if inst.result_id is not None:
                home[inst.result_id] = b.label
    out: set[int] = set()
    for b in fn.blocks:
        for inst in b.instructions:
            if inst.opname == "OpPhi":
                for pair in inst.operands:
                    value, pred = pair.value
                    if home.get(value, pred) != pred:
                        out.add(value)
                continue
            for i in inst.ids():
                if home.get(i, b.label) != b.label:
                    out.add(i)
    return out


def _affine_analysis(ctx: Context, fn: Function) -> None:
    """Find the values that may hold a lazy value (Affine, GroupUniform) at run time
    (a fixpoint over phis)."""
    sources = ctx.program.affine_builtin_loads
    may = ctx.maybe_affine
    changed = True
    while changed:
        changed = False
        for block in fn.blocks:
            for inst in block.instructions:
                rid = inst.result_id
                if rid is None or rid in may:
                    continue
                op = inst.opname
                if (op == "OpVariable" or op in AFFINE_SOURCES
                        or (op == "OpCompositeExtract" and inst.operands[0].value in sources)
                        or ((op in AFFINE_PRODUCERS or op == "OpPhi")
                            and any(i in may for i in inst.ids()))):
                    may.add(rid)
                    changed = True


def _build(ctx: Context, inst: Instruction) -> Op | None:
    op = inst.opname
    name = inst.ext_opname if op == "OpExtInst" else op
    builder = BUILDERS.get(op)
    if builder is None:
        raise UnsupportedError(f"unsupported instruction {name} (%{inst.result_id})")
    built = builder(ctx, inst)
    if built is None:
        return None
    if op not in AFFINE_AWARE:
        aff = [i for i in inst.ids() if i in ctx.maybe_affine]
        if aff:
            built = _materializing(built, aff)
    if not built.pure:
        built = _located(built, inst)
    return built


def _located(op: Op, inst: Instruction) -> Op:
    """Wrap an op with side effects so that ``Batch.inst`` names it while it runs
    (observers read the instruction, and its source location, from there)."""
    fn = op.fn

    def run(r, st):
        st.inst = inst
        return fn(r, st)

    run.unlocated = fn  # what a launch without observers runs (``DBlock.plain``)
    return op._replace(fn=run)


def _terminator(ctx: Context, db: DBlock, t: Instruction, index: dict[int, int]) -> None:
    o = [x.value for x in t.operands]
    if t.opname == "OpBranch":
        db.kind, db.args = BRANCH, (index[o[0]],)
    elif t.opname == "OpBranchConditional":
        db.kind, db.args = COND, (o[0], index[o[1]], index[o[2]])
    elif t.opname == "OpSwitch":
        cases = {}
        for pair in t.operands[2:]:
            lit, target = pair.value
            cases.setdefault(_switch_literal(lit), index[target])
        db.kind, db.args = SWITCH, (o[0], index[o[1]], cases)
    elif t.opname == "OpReturn":
        db.kind, db.args = RETURN, (0,)
    elif t.opname == "OpReturnValue":
        db.kind, db.args = RETURN, (o[0],)
    elif t.opname == "OpUnreachable":
        db.kind, db.args = UNREACHABLE, ()
    else:
        raise UnsupportedError(f"unsupported terminator {t.opname}")
