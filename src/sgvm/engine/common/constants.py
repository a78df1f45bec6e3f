"""Module-level constants every backend reads the same way: OpSpecConstantOp's allowed
opcodes and LLVM's folded ``global + k``, sampler literals, image operand bits."""

from __future__ import annotations

import numpy as np

from ...runtime.images import Sampler
from ...spirv import Constant, Module
from . import types as T

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

# SPIR-V 1.6 s3.14 Image Operands: "SignExtend" / "ZeroExtend" on an integer texel.
SIGN_EXTEND, ZERO_EXTEND = 0x1000, 0x2000


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


def sampler_handle(sampler: Sampler) -> np.uint64:
    """The register value of ``sampler``: its ``sampler_t`` literal."""
    return np.uint64(sampler.literal)


def constant_sampler(value: dict) -> np.uint64:
    """OpConstantSampler's operands (the reader's dict) as a sampler handle."""
    return sampler_handle(Sampler.from_spirv(value["addressing"], value["normalized"],
                                             value["filter"]))
