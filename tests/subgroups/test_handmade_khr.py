"""A SPIR-V module assembled by hand (not clang) with the instructions the cl_khr_subgroup_*
extensions and SPV_KHR_integer_dot_product lower to: OpGroupNonUniformBallot, its
BallotBitCount (InclusiveScan), OpGroupNonUniformShuffleXor on 16-bit integers,
OpGroupNonUniformIMul with ClusteredReduce, OpGroupNonUniformRotateKHR, the SubgroupLtMask
built-in and a packed OpSUDotAccSat; against values worked out here."""

from __future__ import annotations

import numpy as np
import pytest

from sgvm.spirv import Header, Module, Operand, read, write
from sgvm.spirv import grammar as G
from sgvm.spirv.writer import make_instruction

from .helpers import assert_native, run

S = 8


def _assemble() -> bytes:
    g = G.load()

    def enum(kind: str, name: str) -> Operand:
        return Operand(kind, g.enum_value(kind, name))

    def ids(*values: int) -> list[Operand]:
        return [Operand("IdRef", v) for v in values]

    def const(t: int, rid: int, v: int):
        return i("OpConstant", t, rid, Operand("LiteralContextDependentNumber", (v,)))

    (void, uint, ushort, boolean, v4, ptr, ptr_in, ptr_in4, fn_t, scope, one, two, four, three,
     lid_var, lt_var, main, a, o, label, lid, pa, x, p, ball, cnt, x16, sh16, sh, prod, rot, lt,
     lt0, dot, s1, s2, s3, s4, s5, po) = range(1, 41)
    i = make_instruction
    insts = [
        *(i("OpCapability", None, None, enum("Capability", c)) for c in
          ("Addresses", "Kernel", "Int16", "Int64", "GroupNonUniform", "GroupNonUniformBallot",
           "GroupNonUniformShuffle", "GroupNonUniformArithmetic", "GroupNonUniformClustered",
           "GroupNonUniformRotateKHR", "DotProduct", "DotProductInput4x8BitPacked",
           "SubgroupDispatch")),
        i("OpExtension", None, None, Operand("LiteralString", "SPV_KHR_subgroup_rotate")),
        i("OpExtension", None, None, Operand("LiteralString", "SPV_KHR_integer_dot_product")),
        i("OpMemoryModel", None, None, enum("AddressingModel", "Physical64"),
          enum("MemoryModel", "OpenCL")),
        i("OpEntryPoint", None, None, enum("ExecutionModel", "Kernel"), Operand("IdRef", main),
          Operand("LiteralString", "hand"), *ids(lid_var, lt_var)),
        i("OpExecutionMode", None, None, Operand("IdRef", main),
          enum("ExecutionMode", "SubgroupSize"), Operand("LiteralInteger", S)),
        i("OpDecorate", None, None, Operand("IdRef", lid_var), enum("Decoration", "BuiltIn"),
          enum("BuiltIn", "SubgroupLocalInvocationId")),
        i("OpDecorate", None, None, Operand("IdRef", lt_var), enum("Decoration", "BuiltIn"),
          enum("BuiltIn", "SubgroupLtMask")),
        i("OpTypeVoid", None, void),
        i("OpTypeInt", None, uint, Operand("LiteralInteger", 32), Operand("LiteralInteger", 0)),
        i("OpTypeInt", None, ushort, Operand("LiteralInteger", 16), Operand("LiteralInteger", 0)),
        i("OpTypeBool", None, boolean),
        i("OpTypeVector", None, v4, *ids(uint), Operand("LiteralInteger", 4)),
        i("OpTypePointer", None, ptr, enum("StorageClass", "CrossWorkgroup"), Operand("IdRef", uint)),
        i("OpTypePointer", None, ptr_in, enum("StorageClass", "Input"), Operand("IdRef", uint)),
        i("OpTypePointer", None, ptr_in4, enum("StorageClass", "Input"), Operand("IdRef", v4)),
        i("OpTypeFunction", None, fn_t, *ids(void, ptr, ptr)),
        const(uint, scope, 3), const(uint, one, 1), const(uint, two, 2), const(uint, four, 4),
        const(uint, three, 3),
        i("OpVariable", ptr_in, lid_var, enum("StorageClass", "Input")),
        i("OpVariable", ptr_in4, lt_var, enum("StorageClass", "Input")),
        i("OpFunction", void, main, Operand("FunctionControl", 0), Operand("IdRef", fn_t)),
        i("OpFunctionParameter", ptr, a),
        i("OpFunctionParameter", ptr, o),
        i("OpLabel", None, label),
        i("OpLoad", uint, lid, *ids(lid_var)),
        i("OpInBoundsPtrAccessChain", ptr, pa, *ids(a, lid)),
        i("OpLoad", uint, x, *ids(pa)),
        i("OpUGreaterThan", boolean, p, *ids(x, two)),                       # x > 2
        i("OpGroupNonUniformBallot", v4, ball, Operand("IdScope", scope), Operand("IdRef", p)),
        i("OpGroupNonUniformBallotBitCount", uint, cnt, Operand("IdScope", scope),
          enum("GroupOperation", "InclusiveScan"), Operand("IdRef", ball)),
        i("OpUConvert", ushort, x16, *ids(x)),
        i("OpGroupNonUniformShuffleXor", ushort, sh16, Operand("IdScope", scope), *ids(x16, three)),
        i("OpUConvert", uint, sh, *ids(sh16)),
        i("OpGroupNonUniformIMul", uint, prod, Operand("IdScope", scope),
          enum("GroupOperation", "ClusteredReduce"), *ids(x, two)),
        i("OpGroupNonUniformRotateKHR", uint, rot, Operand("IdScope", scope), *ids(x, three, four)),
        i("OpLoad", v4, lt, *ids(lt_var)),
        i("OpCompositeExtract", uint, lt0, Operand("IdRef", lt), Operand("LiteralInteger", 0)),
        i("OpSUDotAccSat", uint, dot, *ids(x, lt0, cnt), enum("PackedVectorFormat",
                                                          "PackedVectorFormat4x8Bit")),
        # out = cnt + 100*sh + 10000*prod + 1000000*rot, and the dot separately
        i("OpIMul", uint, s1, *ids(sh, four)),
        i("OpIAdd", uint, s2, *ids(s1, cnt)),
        i("OpInBoundsPtrAccessChain", ptr, po, *ids(o, lid)),
        i("OpStore", None, None, *ids(po, s2)),
        i("OpIAdd", uint, s3, *ids(prod, rot)),
        i("OpShiftLeftLogical", uint, s4, *ids(s3, four)),
        i("OpBitwiseXor", uint, s5, *ids(s4, dot)),
        i("OpStore", None, None, *ids(pa, s5)),
        i("OpReturn"),
        i("OpFunctionEnd"),
    ]
    return write(Module(Header((1, 4), 0, po + 1, 0), insts))


@pytest.mark.parametrize("n", [8, 5])
def test_handmade_khr_instructions(n: int) -> None:
    """A full (8) and a partial (5) sub-group of 8."""
    m = read(_assemble())
    x = np.array([5, 1, 3, 200, 2, 9, 0x80FF0102, 4][:n], np.uint32)
    a, o = x.copy(), np.zeros(n, np.uint32)
    (a_out, o_out), _ = run(m, "hand", [a, o], (n,), (n,))
    assert_native(m, "hand")
    for lane in range(n):
        cnt = sum(1 for k in range(lane + 1) if x[k] > 2)              # inclusive ballot scan
        sh = int(x[lane ^ 3]) & 0xFFFF if lane ^ 3 < n else None       # 16-bit shuffle_xor 3
        c0 = lane & ~1                                                 # clusters of 2
        prod = 1
        for k in range(c0, min(c0 + 2, n)):
            prod = prod * int(x[k]) % 2**32
        rsrc = (lane % 4 + 3) % 4 + lane - lane % 4                    # rotate 3 in clusters of 4
        lt0 = (1 << lane) - 1                                          # SubgroupLtMask.x
        xs = [(int(x[lane]) >> (8 * k)) & 0xFF for k in range(4)]
        signed = [b - 256 if b >= 128 else b for b in xs]
        ys = [(lt0 >> (8 * k)) & 0xFF for k in range(4)]
        dot = min(max(sum(s * y for s, y in zip(signed, ys, strict=True)) + cnt, -2**31), 2**31 - 1)
        if sh is not None:
            assert o_out[lane] == (sh * 4 + cnt) % 2**32, lane
        if rsrc < n:  # reading a missing lane of the partial sub-group is undefined
            want = ((prod + int(x[rsrc])) % 2**32 << 4) % 2**32 ^ (dot % 2**32)
            assert a_out[lane] == want, lane
