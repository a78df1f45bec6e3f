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

from ...errors import UnsupportedError
from ...spirv import Constant, Instruction, Operand
from ...spirv import grammar as G
from .registry import BUILDERS, Op

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


def build(ctx: Any, c: Constant) -> Op:
    """The engine Op computing OpSpecConstantOp ``c`` from registers holding its operands."""
    opname = c.value["opcode"]
    if opname not in ALLOWED or opname not in BUILDERS:
        raise UnsupportedError(f"OpSpecConstantOp {opname} (%{c.id}) is not allowed in a kernel")
    operands = tuple(Operand("IdRef", v) for v in c.value["operands"])
    inst = Instruction(opname, G.load().opcode(opname), c.type.id, c.id, operands)
    op = BUILDERS[opname](ctx, inst)
    assert op is not None
    return op


def evaluate(ctx: Any, c: Constant) -> Any:
    """The value of OpSpecConstantOp ``c`` from the registers already in
    ``ctx.program.template`` (its operands are defined before it)."""
    return build(ctx, c).fn(ctx.program.template, None)
