"""OpSpecConstantOp, evaluated once at decode time (SPIR-V 1.6 s3.52.7), or per
batch when it uses a ``Workgroup`` variable's address (``Program.batch_constants``).

"OpSpecConstantOp: Declare a new specialization constant that results from
doing an operation" on constants; sgvm never specializes, so every spec
constant holds its default value and the operation is computed from those with
the instruction's own engine builder (the same code as at run time). Only the
opcodes the spec lists for OpSpecConstantOp, with the Kernel additions, are
accepted.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...spirv import Constant, Instruction, Module, Operand
from ...spirv import grammar as G
from . import types as T
from .registry import BUILDERS, Op
from .values import arr

# SPIR-V 1.6 s3.52.7, OpSpecConstantOp: the opcodes valid for any capability ...
_CORE = frozenset("""
SConvert UConvert FConvert SNegate Not IAdd ISub IMul UDiv SDiv UMod SRem SMod
ShiftRightLogical ShiftRightArithmetic ShiftLeftLogical BitwiseOr BitwiseXor BitwiseAnd
VectorShuffle CompositeExtract CompositeInsert LogicalOr LogicalAnd LogicalNot
LogicalEqual LogicalNotEqual Select IEqual INotEqual ULessThan SLessThan UGreaterThan
SGreaterThan ULessThanEqual SLessThanEqual UGreaterThanEqual SGreaterThanEqual
""".split())
# ... and those the Kernel capability adds.
_KERNEL = frozenset("""
ConvertFToS ConvertSToF ConvertFToU ConvertUToF ConvertPtrToU ConvertUToPtr
GenericCastToPtr PtrCastToGeneric Bitcast FNegate FAdd FSub FMul FDiv FRem FMod
AccessChain InBoundsAccessChain PtrAccessChain InBoundsPtrAccessChain
""".split())
ALLOWED = frozenset("Op" + n for n in _CORE | _KERNEL)


def byte_offset(module: Module, c: Constant) -> int | None:
    """The byte offset of a folded ``global + k`` in an initialiser, else None.

    LLVM's SPIR-V backend writes ``gtab + 1`` (an ``i8`` GEP) as an
    (In)BoundsPtrAccessChain on the global itself with a uchar-pointer result type:
    Element 0, then the offset in bytes. Read as SPIR-V the indexes would walk the
    global's type; its result type shows they count bytes (Element in units of the
    base's size, as a char array's would).
    """
    if c.value["opcode"] not in ("OpPtrAccessChain", "OpInBoundsPtrAccessChain"):
        return None
    base, *idx = c.value["operands"]
    pointee = module.type_of(base).pointee
    byte = c.type.pointee.op == "Int" and c.type.pointee.width == 8
    if not byte or (pointee.op == "Int" and pointee.width == 8) or len(idx) != 2 \
            or any(i not in module.constants or module.constants[i].op != "OpConstant"
                   and module.constants[i].value is not None for i in idx):
        return None
    element, offset = (_signed(module.constants[i]) for i in idx)
    return element * T.size_of(pointee) + offset


def _signed(c: Constant) -> int:
    v = int(c.value or 0)
    return v - (1 << c.type.width) if v >> (c.type.width - 1) else v


def build(ctx: Any, c: Constant) -> Op:
    """The engine Op computing OpSpecConstantOp ``c`` from registers holding its operands."""
    opname = c.value["opcode"]
    if opname not in ALLOWED or opname not in BUILDERS:
        raise UnsupportedError(f"OpSpecConstantOp {opname} (%{c.id}) is not allowed in a kernel")
    off = byte_offset(ctx.module, c)
    if off is not None:
        base = c.value["operands"][0]
        delta = np.uint64(off % (1 << 64))
        return Op(c.id, lambda r, st: arr(r[base]) + delta, True, False)
    operands = tuple(Operand("IdRef", v) for v in c.value["operands"])
    inst = Instruction(opname, G.load().opcode(opname), c.type.id, c.id, operands)
    op = BUILDERS[opname](ctx, inst)
    assert op is not None
    return op


def evaluate(ctx: Any, c: Constant) -> Any:
    """The value of OpSpecConstantOp ``c`` from the registers already in
    ``ctx.program.template`` (its operands are defined before it)."""
    return build(ctx, c).fn(ctx.program.template, None)
