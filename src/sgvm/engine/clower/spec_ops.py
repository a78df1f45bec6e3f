"""OpSpecConstantOp values, for every C-family target: sgvm never specializes, so each is the
operation on the defaults, declared and computed with the instruction's own handler, in
module order (docs/native.md "What it runs natively", docs/cuda.md)."""

from __future__ import annotations

from ...errors import UnsupportedError
from ...spirv import Function, Instruction, Operand
from ...spirv import grammar as G
from ..common.constants import ALLOWED, byte_offset
from . import ctypes_ as C


def used_by(r, f: Function) -> set[int]:
    """The ids ``f`` uses, with the operands of the OpSpecConstantOps among them, transitively."""
    wanted = {i for b in f.blocks for inst in b.instructions for i in inst.ids()}
    for c in reversed(list(r.m.constants.values())):
        if c.op == "OpSpecConstantOp" and c.id in wanted:
            wanted.update(c.value["operands"])
    return wanted


def values(r, wanted: set[int] | None = None) -> list[str]:
    """The C declaring and computing the OpSpecConstantOp values (those in ``wanted``, else
    all); ``r`` a renderer (``r.m``, ``r.ops``, ``r.leaves``, ``r.emit``, ``r.target``)."""
    saved, r.lines = r.lines, []
    for c in r.m.constants.values():
        if c.op != "OpSpecConstantOp" or (wanted is not None and c.id not in wanted):
            continue
        opname = c.value["opcode"]
        if opname not in ALLOWED or opname not in r.ops:
            raise UnsupportedError(f"{r.target}: OpSpecConstantOp {opname}")
        for x, n in zip(C.leaf_types(c.type), r.leaves(c.id), strict=True):
            r.emit(f"{C.scalar_ctype(x)} {n};")
        off = byte_offset(r.m, c)
        if off is not None:  # `global + k` folded by LLVM (spec_constants.byte_offset)
            r.emit(f"{r.leaf(c.id)} = {r.leaf(c.value['operands'][0])} + {off}LL;")
            continue
        operands = tuple(Operand("IdRef", v) for v in c.value["operands"])
        r.ops[opname](r, Instruction(opname, G.load().opcode(opname), c.type.id, c.id, operands))
    out, r.lines = r.lines, saved
    return out
