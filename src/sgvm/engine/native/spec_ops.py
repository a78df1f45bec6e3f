"""The OpSpecConstantOp values a kernel uses, computed once per work-group with the
instruction's handler (docs/native.md, "What it runs natively")."""

from __future__ import annotations

from ...errors import UnsupportedError
from ...spirv import Function, Instruction, Operand
from ...spirv import grammar as G
from ..clower import ctypes_ as C
from ..common.constants import ALLOWED, byte_offset


def values(r, f: Function) -> list[str]:
    """The C computing the OpSpecConstantOp values ``f`` uses (directly or through others);
    ``r`` the renderer (render.Renderer)."""
    wanted = {i for b in f.blocks for inst in b.instructions for i in inst.ids()}
    for c in reversed(list(r.m.constants.values())):
        if c.op == "OpSpecConstantOp" and c.id in wanted:
            wanted.update(c.value["operands"])
    saved, r.lines = r.lines, []
    for c in r.m.constants.values():
        if c.op != "OpSpecConstantOp" or c.id not in wanted:
            continue
        opname = c.value["opcode"]
        if opname not in ALLOWED or opname not in r.ops:
            raise UnsupportedError(f"native backend: OpSpecConstantOp {opname}")
        for x, n in zip(C.leaf_types(c.type), r.leaves(c.id), strict=True):
            r.emit(f"{C.scalar_ctype(x)} {n};")
        off = byte_offset(r.m, c)
        if off is not None:
            r.emit(f"{r.leaf(c.id)} = {r.leaf(c.value['operands'][0])} + {off}LL;")
            continue
        operands = tuple(Operand("IdRef", v) for v in c.value["operands"])
        r.ops[opname](r, Instruction(opname, G.load().opcode(opname), c.type.id, c.id, operands))
    out, r.lines = r.lines, saved
    return out
