"""Operand types of the instructions inside functions (SPIR-V spec s3.52), the ``operand-type``
rule of :mod:`sgvm.spirv.validate`. Integer signedness is not compared: OpenCL modules use
signless integers (OpTypeInt signedness 0), and s3.52 asks for equal widths and component
counts, not equal signedness."""

from __future__ import annotations

from ..errors import SpirvValidationError
from .module import Function, Instruction, Module, Type

_SAME_AS_RESULT = frozenset((
    "OpIAdd", "OpISub", "OpIMul", "OpUDiv", "OpSDiv", "OpUMod", "OpSRem", "OpSMod", "OpFAdd", "OpFSub",
    "OpFMul", "OpFDiv", "OpFRem", "OpFMod", "OpBitwiseAnd", "OpBitwiseOr", "OpBitwiseXor", "OpNot",
    "OpSNegate", "OpFNegate", "OpLogicalAnd", "OpLogicalOr", "OpLogicalNot",
))
_INT_RESULT = frozenset(("OpIAdd", "OpISub", "OpIMul", "OpUDiv", "OpSDiv", "OpUMod", "OpSRem", "OpSMod",
                         "OpBitwiseAnd", "OpBitwiseOr", "OpBitwiseXor", "OpNot", "OpSNegate",
                         "OpShiftLeftLogical", "OpShiftRightLogical", "OpShiftRightArithmetic"))
_FLOAT_RESULT = frozenset(("OpFAdd", "OpFSub", "OpFMul", "OpFDiv", "OpFRem", "OpFMod", "OpFNegate"))
_SHIFTS = frozenset(("OpShiftLeftLogical", "OpShiftRightLogical", "OpShiftRightArithmetic"))
_COMPARE = frozenset((
    "OpIEqual", "OpINotEqual", "OpUGreaterThan", "OpSGreaterThan", "OpUGreaterThanEqual",
    "OpSGreaterThanEqual", "OpULessThan", "OpSLessThan", "OpULessThanEqual", "OpSLessThanEqual",
    "OpFOrdEqual", "OpFUnordEqual", "OpFOrdNotEqual", "OpFUnordNotEqual", "OpFOrdLessThan",
    "OpFUnordLessThan", "OpFOrdGreaterThan", "OpFUnordGreaterThan", "OpFOrdLessThanEqual",
    "OpFUnordLessThanEqual", "OpFOrdGreaterThanEqual", "OpFUnordGreaterThanEqual", "OpLogicalEqual",
    "OpLogicalNotEqual", "OpLessOrGreater", "OpOrdered", "OpUnordered",
))
_TESTS = frozenset(("OpIsNan", "OpIsIn", "OpIsFinite", "OpIsNormal", "OpSignBitSet"))
# conversion → (source scalar kind, result scalar kind)
_CONVERSIONS = {
    "OpConvertFToU": ("Float", "Int"), "OpConvertFToS": ("Float", "Int"), "OpConvertSToF": ("Int", "Float"),
    "OpConvertUToF": ("Int", "Float"), "OpUConvert": ("Int", "Int"), "OpSConvert": ("Int", "Int"),
    "OpFConvert": ("Float", "Float"), "OpSatConvertSToU": ("Int", "Int"), "OpSatConvertUToS": ("Int", "Int"),
}
_ACCESS_CHAINS = frozenset(("OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain",
                            "OpInBoundsPtrAccessChain"))
# OpenCL.std instructions whose operands may have other component counts than each other/the result.
_EXT_ANY_WIDTH = frozenset(("shuffle", "shuffle2", "vloadn", "vstoren", "vload_half", "vload_halfn",
                            "vloada_halfn", "vstore_half", "vstore_half_r", "vstore_halfn", "vstore_halfn_r",
                            "vstorea_halfn", "vstorea_halfn_r", "printf", "prefetch"))
_INTEL_SHUFFLES = {"OpSubgroupShuffleINTEL": 1, "OpSubgroupShuffleXorINTEL": 1,
                   "OpSubgroupShuffleDownINTEL": 2, "OpSubgroupShuffleUpINTEL": 2}


def same_type(a: Type | None, b: Type | None, depth: int = 0) -> bool:
    """Structural type equality, integer signedness ignored (module docstring)."""
    if a is b:
        return True
    if a is None or b is None or a.op != b.op:
        return False
    if depth > 16:
        return True  # recursive types: equal so far
    if a.op in ("Int", "Float"):
        return a.width == b.width
    if a.op in ("Vector", "Array"):
        return a.count == b.count and same_type(a.component, b.component, depth + 1)
    if a.op == "Pointer":
        return a.storage_class == b.storage_class and same_type(a.pointee, b.pointee, depth + 1)
    if a.op == "Struct":
        return len(a.members) == len(b.members) and all(
            same_type(x, y, depth + 1) for x, y in zip(a.members, b.members, strict=True))
    if a.op == "Function":
        return same_type(a.return_type, b.return_type, depth + 1) and len(a.params) == len(b.params) and all(
            same_type(x, y, depth + 1) for x, y in zip(a.params, b.params, strict=True))
    return a.id == b.id


def describe(x: object, depth: int = 0) -> str:
    """A short text for a type in a message (recursive types are cut off)."""
    if isinstance(x, list):
        return "[" + ", ".join(describe(e, depth) for e in x) + "]"
    if not isinstance(x, Type):
        return str(x)
    if depth > 3 or x.op in ("Struct", "Function") and depth > 1:
        return f"%{x.id}"
    if x.op == "Int":
        return f"i{x.width}"
    if x.op == "Float":
        return f"f{x.width}"
    if x.op in ("Vector", "Array"):
        return f"{describe(x.component, depth + 1)}x{x.count}" if x.op == "Vector" else \
            f"[{describe(x.component, depth + 1)}; {x.count}]"
    if x.op == "Pointer":
        return f"ptr<{x.storage_class}, {describe(x.pointee, depth + 1)}>"
    if x.op == "Struct":
        return "struct{" + ", ".join(describe(m, depth + 1) for m in x.members) + "}"
    return x.op.lower()


def _count(t: Type) -> int:
    return t.count if t.op == "Vector" else 1


def _kind(t: Type) -> str:
    return t.scalar.op


def _fail(inst: Instruction, message: str) -> SpirvValidationError:
    return SpirvValidationError(f"{inst.ext_opname or inst.opname}: {message}", inst.offset, "operand-type")


def check_instruction(m: Module, fn: Function, inst: Instruction) -> None:
    """Raise SpirvValidationError if ``inst``'s operands do not have the types it needs."""
    op = inst.opname
    result = m.types.get(inst.result_type) if inst.result_type is not None else None

    def vt(i: int) -> Type:
        return m.types[m.value_types[inst.operands[i].value]]

    def want(ok: bool, message: str, *parts: object) -> None:
        if not ok:  # formatted only on failure (types may be recursive)
            raise _fail(inst, message.format(*(describe(x) for x in parts)))

    if op in _SAME_AS_RESULT or op in _SHIFTS:
        want(result is not None and result.scalar.is_scalar, "result type {} is not a scalar or vector", result)
        if op in _INT_RESULT:
            want(_kind(result) == "Int", "result type {} is not an integer type", result)
        if op in _FLOAT_RESULT:
            want(_kind(result) == "Float", "result type {} is not a float type", result)
        for i in range(len(inst.operands)):
            t = vt(i)
            if op in _SHIFTS:
                want(_kind(t) == "Int" and _count(t) == _count(result), "operand {} is {}", i + 1, t)
            else:
                want(same_type(t, result), "operand {} is {}, the result {}", i + 1, t, result)
    elif op in _COMPARE or op in _TESTS:
        a = vt(0)
        want(_kind(result) == "Bool" and _count(result) == _count(a), "result {} for operands {}", result, a)
        if op in _COMPARE:
            want(same_type(a, vt(1)), "operands {} and {} differ", a, vt(1))
    elif op in _CONVERSIONS:
        src, dst = _CONVERSIONS[op]
        a = vt(0)
        want(_kind(a) == src and _kind(result) == dst and _count(a) == _count(result),
             "converts {} to {}", a, result)
    elif op == "OpBitcast":
        a = vt(0)
        want(_bits(a) is not None and _bits(a) == _bits(result), "bit casts {} to {}", a, result)
    elif op == "OpSelect":
        c, a, b = vt(0), vt(1), vt(2)
        want(_kind(c) == "Bool" and (_count(c) == 1 or _count(c) == _count(result)), "condition {}", c)
        want(same_type(a, result) and same_type(b, result), "selects {}/{} into {}", a, b, result)
    elif op == "OpLoad":
        p = vt(0)
        want(p.op == "Pointer" and same_type(p.pointee, result), "loads {} through {}", result, p)
        _alignment(inst, 1, want)
    elif op == "OpStore":
        p, v = vt(0), vt(1)
        want(p.op == "Pointer" and same_type(p.pointee, v), "stores {} through {}", v, p)
        _alignment(inst, 2, want)
    elif op == "OpSampledImage":
        want(vt(0).op == "Image" and vt(1).op == "Sampler" and result.op == "SampledImage",
             "combines {} and {} into {}", vt(0), vt(1), result)
    elif op in ("OpCopyMemory", "OpCopyMemorySized"):
        want(vt(0).op == "Pointer" and vt(1).op == "Pointer", "copies between non-pointers")
    elif op in _ACCESS_CHAINS:
        _access_chain(m, inst, result, vt, want)
    elif op in ("OpCompositeExtract", "OpCompositeInsert"):
        obj = 1 if op == "OpCompositeInsert" else 0
        t = vt(obj)
        for o in inst.operands[obj + 1:]:
            parts = _members(t)
            want(parts is not None and o.value < len(parts), "index {} is outside {}", o.value, t)
            t = parts[o.value]
        want(same_type(t, vt(0) if op == "OpCompositeInsert" else result),
             "the indexed part is {}", t)
        if op == "OpCompositeInsert":
            want(same_type(vt(1), result), "inserts into {}, the result {}", vt(1), result)
    elif op == "OpCompositeConstruct":
        _construct(inst, result, [vt(i) for i in range(len(inst.operands))], want)
    elif op == "OpVectorShuffle":
        a, b = vt(0), vt(1)
        want(a.op == "Vector" and b.op == "Vector" and result.op == "Vector", "shuffles non-vectors")
        want(same_type(a.component, result.component) and same_type(b.component, result.component),
             "component types differ")
        want(len(inst.operands) - 2 == result.count, "component count differs from the result's")
        for o in inst.operands[2:]:
            want(o.value < a.count + b.count or o.value == 0xFFFFFFFF, "component {} out of range", o.value)
    elif op in ("OpVectorExtractDynamic", "OpVectorInsertDynamic"):
        v = vt(0)
        want(v.op == "Vector" and same_type(result, v if op == "OpVectorInsertDynamic" else v.component),
             "{} → {}", v, result)
        want(_kind(vt(len(inst.operands) - 1)) == "Int", "the index is not an integer")
        if op == "OpVectorInsertDynamic":
            want(same_type(vt(1), v.component), "inserts {} into {}", vt(1), v)
    elif op == "OpBranchConditional":
        want(vt(0).op == "Bool", "condition is {}", vt(0))
    elif op == "OpSwitch":
        want(vt(0).op == "Int", "selector is {}", vt(0))
    elif op == "OpReturnValue":
        want(same_type(vt(0), fn.result_type), "returns {} from a function returning {}", vt(0), fn.result_type)
    elif op == "OpReturn":
        want(fn.result_type.op == "Void", "OpReturn in a function returning {}", fn.result_type)
    elif op == "OpPhi":
        for o in inst.operands:
            t = m.types[m.value_types[o.value[0]]]
            want(same_type(t, result), "incoming {}, the result {}", t, result)
    elif op == "OpFunctionCall":
        callee = m.functions[inst.operands[0].value]
        args = inst.operands[1:]
        want(len(args) == len(callee.type.params), "{} arguments for {} parameters", len(args), len(callee.type.params))
        for i, (a, p) in enumerate(zip(args, callee.type.params, strict=True)):
            t = m.types[m.value_types[a.value]]
            want(same_type(t, p), "argument {} is {}, the parameter {}", i + 1, t, p)
        want(same_type(result, callee.result_type), "result {} of a call returning {}", result, callee.result_type)
    elif op == "OpVariable":
        want(result.op == "Pointer" and result.storage_class == "Function" and inst.operands[0].value == 7,
             "a function-scope variable of type {} (storage class {}, not Function)", result, inst.operands[0].value)
        if len(inst.operands) > 1:
            want(same_type(vt(1), result.pointee), "initializer {} for {}", vt(1), result)
    elif op == "OpExtInst" and inst.ext_opname not in _EXT_ANY_WIDTH \
            and m.ext_inst_imports.get(inst.operands[0].value) == "OpenCL.std":
        counts = {_count(vt(i)) for i, o in enumerate(inst.operands) if i >= 2 and o.kind == "IdRef"
                  and vt(i).op in ("Vector", "Int", "Float", "Bool")}
        counts.discard(1)
        want(len(counts) <= 1 and (result.op != "Vector" or counts <= {result.count}),
             "vector operands of {} components for a {} result", sorted(counts), result)
    elif op in _INTEL_SHUFFLES:
        want(same_type(vt(0), result), "shuffles {} into {}", vt(0), result)
        if _INTEL_SHUFFLES[op] == 2:
            want(same_type(vt(1), result), "shuffles {} into {}", vt(1), result)
        idx = vt(_INTEL_SHUFFLES[op])
        want(idx.op == "Int" and idx.width == 32, "the lane operand is {}, not a 32-bit integer", idx)


def _alignment(inst: Instruction, at: int, want) -> None:
    """Memory operands (s3.26): an ``Aligned`` literal is a power of two."""
    if len(inst.operands) > at + 1 and inst.operands[at].value & 2:
        a = inst.operands[at + 1].value
        want(a > 0 and a & (a - 1) == 0, "alignment {} is not a power of two", a)


def _bits(t: Type) -> int | None:
    if t.op in ("Int", "Float"):
        return t.width
    if t.op == "Vector" and t.component is not None and t.component.op in ("Int", "Float"):
        return t.component.width * t.count
    if t.op == "Pointer":
        return 64
    return None


def _members(t: Type) -> list[Type] | None:
    if t.op in ("Vector", "Array"):
        return [t.component] * t.count if t.component is not None and t.count <= 1 << 24 else None
    if t.op == "Struct":
        return list(t.members)
    return None


def _access_chain(m: Module, inst: Instruction, result: Type, vt, want) -> None:
    base = vt(0)
    want(base.op == "Pointer" and base.pointee is not None, "base is {}", base)
    want(result.op == "Pointer" and result.storage_class == base.storage_class,
         "result {} for base {}", result, base)
    indexes = inst.operands[1:]
    if inst.opname in ("OpPtrAccessChain", "OpInBoundsPtrAccessChain"):
        want(bool(indexes) and _kind(vt(1)) == "Int", "the element operand is not an integer")
        indexes = indexes[1:]
        first = 2
    else:
        first = 1
    t = base.pointee
    for i, o in enumerate(indexes):
        want(_kind(vt(first + i)) == "Int", "index {} is not an integer", i + 1)
        if t.op == "Struct":
            c = m.constants.get(o.value)
            k = 0 if c is not None and c.op == "OpConstantNull" else getattr(c, "value", None)
            want(isinstance(k, int) and not isinstance(k, bool) and 0 <= k < len(t.members),
                 "struct index %{} is not a constant member number of {}", o.value, t)
            t = t.members[k]
        elif t.op in ("Vector", "Array", "RuntimeArray") and t.component is not None:
            t = t.component
        else:
            want(False, "indexes into {}", t)
    want(same_type(result.pointee, t), "result points to {}, the chain reaches {}", result.pointee, t)


def _construct(inst: Instruction, result: Type, parts: list[Type], want) -> None:
    if result.op == "Vector":
        n = 0
        for p in parts:
            want(same_type(p.scalar, result.component), "constituent {} for {}", p, result)
            n += _count(p)
        want(n == result.count, "{} components for {}", n, result)
    elif result.op in ("Array", "Struct"):
        members = _members(result)
        want(members is not None and len(members) == len(parts)
             and all(same_type(a, b) for a, b in zip(members, parts, strict=True)),
             "constituents {} for {}", parts, result)
    else:
        want(False, "constructs {}", result)
