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
from ...spirv import Constant, Instruction, Operand
from ...spirv import grammar as G
from ..common.constants import ALLOWED, byte_offset
from .registry import BUILDERS, Op
from .values import arr


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
