"""C for the per-work-item instructions: arithmetic, comparisons, composites, pointers, atomics, barriers (SPIR-V 1.6 s3.52).

Every handler takes the Renderer and the Instruction and emits assignments to
the result's leaves. The undefined cases follow the CPU engine (docs/engine.md):
shift amounts modulo the width, division by zero gives 0, float → integer
saturates with NaN → 0, an out-of-range dynamic vector index reads the last
component. Float arithmetic is IEEE (NVRTC's defaults: correctly rounded
division and square root; ``-fmad=false`` keeps a·b+c unfused).
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import UnsupportedError
from ...spirv import Instruction, Type
from ..common import types as T
from . import ctypes_ as C

Handler = Callable[..., None]
OPS: dict[str, Handler] = {}


def registrar(table: dict[str, Handler]) -> Callable[..., Callable[[Handler], Handler]]:
    """A decorator registering a handler in ``table`` under each of its opnames (a target
    keeps its own instructions in its own table)."""
    def op(*names: str) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            for n in names:
                table[n] = fn
            return fn
        return deco
    return op


op = registrar(OPS)


def ids(inst: Instruction) -> list[int]:
    return [o.value for o in inst.operands]


def operand_leaves(r, inst: Instruction, n: int) -> list[list[str]]:
    """Each id operand's leaves, scalars broadcast to ``n`` leaves."""
    out = []
    for i in ids(inst):
        lv = r.leaves(i)
        out.append(lv * n if len(lv) == 1 else lv)
    return out


def wide(t: Type) -> str:
    """The type integer arithmetic of ``t`` is done in (no int promotion surprises)."""
    return "u64" if t.width == 64 else "u32"


def fexpr(t: Type, fmt: str, *args: str) -> str:
    """A float expression over ``args`` computed at ``t``'s precision (half through float)."""
    if t.width == 16:
        return "f2h(" + fmt.format(*(f"h2f({a})" for a in args)) + ")"
    return fmt.format(*args)


# -- arithmetic ------------------------------------------------------------------
_IBIN = {"OpIAdd": "+", "OpISub": "-", "OpIMul": "*", "OpBitwiseAnd": "&", "OpBitwiseOr": "|",
         "OpBitwiseXor": "^"}
_FBIN = {"OpFAdd": "({0} + {1})", "OpFSub": "({0} - {1})", "OpFMul": "({0} * {1})",
         "OpFDiv": "({0} / {1})"}


@op(*_IBIN, *_FBIN, "OpUDiv", "OpSDiv", "OpUMod", "OpSRem", "OpSMod", "OpFRem", "OpFMod",
    "OpShiftLeftLogical", "OpShiftRightLogical", "OpShiftRightArithmetic", "OpVectorTimesScalar")
def _binary(r, inst: Instruction) -> None:
    t = r.rtype(inst)
    lt = C.leaf_types(t)
    a, b = operand_leaves(r, inst, len(lt))
    o = inst.opname
    out = []
    for x, y, s in zip(a, b, lt, strict=True):
        ct = C.scalar_ctype(s)
        if o in _IBIN:
            w = wide(s)
            out.append(f"({ct})(({w}){x} {_IBIN[o]} ({w}){y})")
        elif o in _FBIN or (o == "OpVectorTimesScalar"):
            out.append(fexpr(s, _FBIN.get(o, "({0} * {1})"), x, y))
        elif o in ("OpUDiv", "OpUMod"):
            out.append(f"sg_{'udiv' if o == 'OpUDiv' else 'umod'}<{ct}>({x}, {y})")
        elif o in ("OpSDiv", "OpSRem", "OpSMod"):
            fn = {"OpSDiv": "sdiv", "OpSRem": "srem", "OpSMod": "smod"}[o]
            out.append(f"sg_{fn}<{ct}, {C.signed_ctype(s)}>({x}, {y})")
        elif o == "OpFRem":
            out.append(fexpr(s, "fmod({0}, {1})", x, y))
        elif o == "OpFMod":
            out.append(fexpr(s, "sg_fmod_sign({0}, {1})", x, y))
        else:
            sh = f"(u32)({y} % {s.width})"
            if o == "OpShiftLeftLogical":
                out.append(f"({ct})(({wide(s)}){x} << {sh})")
            elif o == "OpShiftRightLogical":
                out.append(f"({ct})({x} >> {sh})")
            else:
                out.append(f"({ct})(({C.signed_ctype(s)}){x} >> {sh})")
    r.assign(inst, out)


@op("OpSNegate", "OpFNegate", "OpNot", "OpLogicalNot", "OpBitCount", "OpBitReverse")
def _unary(r, inst: Instruction) -> None:
    t = r.rtype(inst)
    (a,) = operand_leaves(r, inst, 1)
    out = []
    for x, s in zip(a, C.leaf_types(t), strict=True):
        ct = C.scalar_ctype(s)
        o = inst.opname
        if o == "OpSNegate":
            out.append(f"({ct})(({wide(s)})0 - {x})")
        elif o == "OpFNegate":
            out.append(f"(hbits)({x} ^ 0x8000)" if s.width == 16 else f"(-{x})")
        elif o == "OpNot":
            out.append(f"({ct})(~{x})")
        elif o == "OpLogicalNot":
            out.append(f"(!{x})")
        elif o == "OpBitCount":
            out.append(f"sg_popcount<{ct}>({x}, {s.width})")
        else:
            out.append(f"({ct})(__brevll((u64){x}) >> {64 - s.width})")
    r.assign(inst, out)


_ICMP = {"OpIEqual": "==", "OpINotEqual": "!=", "OpUGreaterThan": ">", "OpUGreaterThanEqual": ">=",
         "OpULessThan": "<", "OpULessThanEqual": "<=", "OpSGreaterThan": ">",
         "OpSGreaterThanEqual": ">=", "OpSLessThan": "<", "OpSLessThanEqual": "<=",
         "OpLogicalEqual": "==", "OpLogicalNotEqual": "!=", "OpLogicalAnd": "&&",
         "OpLogicalOr": "||"}
_FCMP = {"OpFOrdEqual": "({0} == {1})", "OpFOrdNotEqual": "({0} < {1} || {0} > {1})",
         "OpFOrdLessThan": "({0} < {1})", "OpFOrdGreaterThan": "({0} > {1})",
         "OpFOrdLessThanEqual": "({0} <= {1})", "OpFOrdGreaterThanEqual": "({0} >= {1})",
         "OpFUnordEqual": "!({0} < {1} || {0} > {1})", "OpFUnordNotEqual": "({0} != {1})",
         "OpFUnordLessThan": "!({0} >= {1})", "OpFUnordGreaterThan": "!({0} <= {1})",
         "OpFUnordLessThanEqual": "!({0} > {1})", "OpFUnordGreaterThanEqual": "!({0} < {1})",
         "OpOrdered": "({0} == {0} && {1} == {1})", "OpUnordered": "({0} != {0} || {1} != {1})",
         "OpLessOrGreater": "({0} < {1} || {0} > {1})"}


@op(*_ICMP, *_FCMP)
def _compare(r, inst: Instruction) -> None:
    n = len(C.leaf_types(r.rtype(inst)))
    a, b = operand_leaves(r, inst, n)
    st = C.leaf_types(r.type_of(ids(inst)[0]))
    out = []
    for x, y, s in zip(a, b, st * (n // len(st)) if len(st) < n else st, strict=True):
        o = inst.opname
        if o in _FCMP:
            if s.width == 16:
                x, y = f"h2f({x})", f"h2f({y})"
            out.append(_FCMP[o].format(x, y))
        elif o.startswith("OpS") and s.op == "Int":
            sc = C.signed_ctype(s)
            out.append(f"(({sc}){x} {_ICMP[o]} ({sc}){y})")
        else:
            out.append(f"({x} {_ICMP[o]} {y})")
    r.assign(inst, out)


_FTEST = {"OpIsNan": "isnan({0})", "OpIsInf": "isinf({0})", "OpIsFinite": "isfinite({0})",
          "OpIsNormal": "sg_isnormal({0})", "OpSignBitSet": "signbit({0})"}


@op(*_FTEST)
def _ftest(r, inst: Instruction) -> None:
    (a,) = operand_leaves(r, inst, 1)
    st = C.leaf_types(r.type_of(ids(inst)[0]))[0]
    r.assign(inst, [f"(bool){_FTEST[inst.opname].format(f'h2f({x})' if st.width == 16 else x)}"
                    for x in a])


@op("OpAny", "OpAll")
def _any_all(r, inst: Instruction) -> None:
    (a,) = operand_leaves(r, inst, 1)
    j = " || " if inst.opname == "OpAny" else " && "
    r.assign(inst, ["(" + j.join(f"({x} != 0)" for x in a) + ")"])


@op("OpDot")
def _dot(r, inst: Instruction) -> None:
    a, b = (r.leaves(i) for i in ids(inst))
    t = r.rtype(inst)
    if t.op == "Int":
        r.assign(inst, ["(" + C.scalar_ctype(t) + ")(" + " + ".join(
            f"({wide(t)}){x} * ({wide(t)}){y}" for x, y in zip(a, b, strict=True)) + ")"])
        return
    acc = fexpr(t, "({0} * {1})", a[0], b[0])
    for x, y in zip(a[1:], b[1:], strict=True):
        acc = fexpr(t, "({0} + {1} * {2})", acc, x, y) if t.width == 16 else \
            f"({acc} + {x} * {y})"
    r.assign(inst, [acc])


@op("OpSelect")
def _select(r, inst: Instruction) -> None:
    n = len(C.leaf_types(r.rtype(inst)))
    c, a, b = operand_leaves(r, inst, n)
    r.assign(inst, [f"({x} ? {y} : {z})" for x, y, z in zip(c, a, b, strict=True)])


@op("OpIAddCarry", "OpISubBorrow", "OpUMulExtended", "OpSMulExtended")
def _extended(r, inst: Instruction) -> None:
    t = r.rtype(inst)
    lt = C.leaf_types(t)
    n = len(lt) // 2
    a, b = operand_leaves(r, inst, n)
    s = lt[0]
    ct, w = C.scalar_ctype(s), s.width
    lo, hi = [], []
    for x, y in zip(a, b, strict=True):
        if inst.opname == "OpIAddCarry":
            lo.append(f"({ct})({x} + {y})")
            hi.append(f"({ct})(({ct})({x} + {y}) < {x})")
        elif inst.opname == "OpISubBorrow":
            lo.append(f"({ct})({x} - {y})")
            hi.append(f"({ct})({x} < {y})")
        elif w == 64:
            lo.append(f"({x} * {y})")
            hi.append(f"__umul64hi({x}, {y})" if inst.opname == "OpUMulExtended"
                      else f"(u64)__mul64hi((s64){x}, (s64){y})")
        else:
            cast = "(u64)" if inst.opname == "OpUMulExtended" else f"(s64)({C.signed_ctype(s)})"
            lo.append(f"({ct})({cast}{x} * {cast}{y})")
            hi.append(f"({ct})((u64)({cast}{x} * {cast}{y}) >> {w})")
    r.assign(inst, lo + hi)


# -- composites ----------------------------------------------------------------------
@op("OpCompositeConstruct")
def _construct(r, inst: Instruction) -> None:
    r.assign(inst, [x for i in ids(inst) for x in r.leaves(i)])


@op("OpCompositeExtract")
def _extract(r, inst: Instruction) -> None:
    comp, *idx = ids(inst)
    start, n, _ = C.leaf_range(r.type_of(comp), idx)
    r.assign(inst, r.leaves(comp)[start:start + n])


@op("OpCompositeInsert")
def _insert(r, inst: Instruction) -> None:
    obj, comp, *idx = ids(inst)
    start, n, _ = C.leaf_range(r.type_of(comp), idx)
    out = list(r.leaves(comp))
    out[start:start + n] = r.leaves(obj)
    r.assign(inst, out)


@op("OpCopyObject", "OpCopyLogical")
def _copy(r, inst: Instruction) -> None:
    r.assign(inst, r.leaves(ids(inst)[0]))


@op("OpUndef")
def _undef(r, inst: Instruction) -> None:
    r.assign(inst, [C.zero(x) for x in C.leaf_types(r.rtype(inst))])


@op("OpVectorShuffle")
def _vshuffle(r, inst: Instruction) -> None:
    v1, v2, *comps = ids(inst)
    pool = r.leaves(v1) + r.leaves(v2)
    s = C.leaf_types(r.rtype(inst))[0]
    r.assign(inst, [C.zero(s) if c == 0xFFFFFFFF else pool[c] for c in comps])


def dynamic_pick(leaves: list[str], index: str) -> str:
    """``leaves[index]``; an out-of-range index reads the last leaf (docs/engine.md)."""
    expr = leaves[-1]
    for k in range(len(leaves) - 2, -1, -1):
        expr = f"({index} == {k} ? {leaves[k]} : {expr})"
    return expr


@op("OpVectorExtractDynamic")
def _extract_dyn(r, inst: Instruction) -> None:
    vec, index = ids(inst)
    r.assign(inst, [dynamic_pick(r.leaves(vec), f"(u64){r.leaf(index)}")])


@op("OpVectorInsertDynamic")
def _insert_dyn(r, inst: Instruction) -> None:
    vec, comp, index = ids(inst)
    c, i = r.leaf(comp), r.leaf(index)
    r.assign(inst, [f"((u64){i} == {k} ? {c} : {x})" for k, x in enumerate(r.leaves(vec))])


@op("OpSizeOf")
def _sizeof(r, inst: Instruction) -> None:
    r.assign(inst, [f"(u32){T.size_of(r.type_of(ids(inst)[0]).pointee)}"])


# -- pointers ------------------------------------------------------------------------
@op("OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpInBoundsPtrAccessChain")
def _access_chain(r, inst: Instruction) -> None:
    base, *idx = ids(inst)
    t = r.type_of(base).pointee
    terms = []
    if inst.opname in ("OpPtrAccessChain", "OpInBoundsPtrAccessChain"):
        terms.append(f"{_index(r, idx[0])} * {T.size_of(t)}")
        idx = idx[1:]
    for i in idx:
        if t.op == "Struct":
            k = int(r.m.constants[i].value or 0)
            terms.append(str(T.member_offsets(t)[k]))
            t = t.members[k]
        else:
            t = t.component
            terms.append(f"{_index(r, i)} * {T.size_of(t)}")
    r.assign(inst, [f"({r.leaf(base)} + (" + " + ".join(terms or ["0"]) + "))"])


def _index(r, i: int) -> str:
    """An access-chain index, signed (SPIR-V: indices are treated as signed)."""
    t = r.type_of(i)
    return f"(s64)({C.signed_ctype(t)}){r.leaf(i)}"


@op("OpConvertPtrToU", "OpConvertUToPtr", "OpPtrCastToGeneric", "OpGenericCastToPtr")
def _ptr_convert(r, inst: Instruction) -> None:
    t = r.rtype(inst)
    x = r.leaf(ids(inst)[0])
    r.assign(inst, [f"(char*)(u64){x}" if t.op == "Pointer" else f"({C.scalar_ctype(t)})(u64){x}"])


@op("OpGenericCastToPtrExplicit")
def _to_space(r, inst: Instruction) -> None:
    p = r.leaf(ids(inst)[0])
    sc = r.rtype(inst).storage_class
    test = {"Workgroup": "__isShared", "CrossWorkgroup": "__isGlobal", "Function": "__isLocal"}[sc]
    r.assign(inst, [f"({test}({p}) ? {p} : (char*)0)"])


@op("OpGenericPtrMemSemantics")
def _mem_semantics(r, inst: Instruction) -> None:
    p = r.leaf(ids(inst)[0])
    r.assign(inst, [f"(u32)(__isShared({p}) ? 0x100 : __isGlobal({p}) ? 0x200 : 0)"])


@op("OpPtrEqual", "OpPtrNotEqual")
def _ptr_eq(r, inst: Instruction) -> None:
    a, b = (r.leaf(i) for i in ids(inst))
    r.assign(inst, [f"({a} {'==' if inst.opname == 'OpPtrEqual' else '!='} {b})"])


@op("OpPtrDiff")
def _ptr_diff(r, inst: Instruction) -> None:
    a, b = ids(inst)
    size = T.size_of(r.type_of(a).pointee)
    t = r.rtype(inst)
    r.assign(inst, [f"({C.scalar_ctype(t)})(({r.leaf(a)} - {r.leaf(b)}) / {size})"])


@op("OpCopyMemory", "OpCopyMemorySized")
def _copy_memory(r, inst: Instruction) -> None:
    dst, src, *rest = ids(inst)
    if inst.opname == "OpCopyMemorySized":
        size = r.leaf(rest[0])
    else:
        size = str(T.size_of(r.type_of(dst).pointee))
    conds = [c for c in (r.guard(src, r.leaf(src), f"(u32){size}", 1, 0),
                         r.guard(dst, r.leaf(dst), f"(u32){size}", 1, 1)) if c]
    r.guarded(" && ".join(conds), [f"memcpy({r.leaf(dst)}, {r.leaf(src)}, (u64){size});"])


# -- atomics and barriers ------------------------------------------------------------
_ATOMIC = {"OpAtomicIAdd": "atomicAdd", "OpAtomicISub": "atomicSub", "OpAtomicExchange": "atomicExch",
           "OpAtomicUMin": "atomicMin", "OpAtomicUMax": "atomicMax", "OpAtomicSMin": "atomicMin",
           "OpAtomicSMax": "atomicMax", "OpAtomicAnd": "atomicAnd", "OpAtomicOr": "atomicOr",
           "OpAtomicXor": "atomicXor", "OpAtomicFAddEXT": "atomicAdd",
           "OpAtomicIIncrement": "atomicAdd", "OpAtomicIDecrement": "atomicSub"}


def _atomic_ptr_type(s: Type, signed: bool) -> str:
    if s.op == "Float":
        return "float" if s.width == 32 else "double"
    if s.width == 64:
        return "long long" if signed else "unsigned long long"
    return "int" if signed else "unsigned"


@op(*_ATOMIC, "OpAtomicCompareExchange", "OpAtomicCompareExchangeWeak", "OpAtomicLoad",
    "OpAtomicStore", "OpAtomicFlagTestAndSet", "OpAtomicFlagClear")
def _atomic(r, inst: Instruction) -> None:
    o = inst.opname
    p, *rest = ids(inst)
    s = r.type_of(p).pointee
    signed = o in ("OpAtomicSMin", "OpAtomicSMax")
    if s.op == "Int" and s.width == 64 and o in ("OpAtomicISub", "OpAtomicIDecrement"):
        at, o = "unsigned long long", "neg"
    else:
        at = _atomic_ptr_type(s, signed)
    ptr = f"({at}*){r.leaf(p)}"
    ct = C.scalar_ctype(s)
    kind = {"OpAtomicLoad": 0, "OpAtomicStore": 1}.get(o, 2)
    cond = r.guard(p, r.leaf(p), T.size_of(s), T.size_of(s), kind)
    if o == "OpAtomicStore":
        r.guarded(cond, [f"atomicExch({ptr}, ({at}){r.leaf(rest[2])});" if s.width >= 32 else
                         f"*(volatile {ct}*){r.leaf(p)} = {r.leaf(rest[2])};"])
        return
    if o == "OpAtomicFlagClear":
        r.guarded(cond, [f"atomicExch((unsigned*){r.leaf(p)}, 0u);"])
        return
    if o == "OpAtomicFlagTestAndSet":
        r.guarded_assign(inst, cond, [f"(atomicExch((unsigned*){r.leaf(p)}, 1u) != 0)"])
        return
    if o == "OpAtomicLoad":
        r.guarded_assign(inst, cond, [f"*(volatile {ct}*){r.leaf(p)}"])
        return
    if o in ("OpAtomicCompareExchange", "OpAtomicCompareExchangeWeak"):
        val, cmp = r.leaf(rest[3]), r.leaf(rest[4])
        r.guarded_assign(inst, cond, [f"({ct})atomicCAS({ptr}, ({at}){cmp}, ({at}){val})"])
        return
    if o in ("OpAtomicIIncrement", "OpAtomicIDecrement"):
        v = "1"
    elif o == "neg":
        v = f"(0ULL - (u64){r.leaf(rest[2])})" if inst.opname == "OpAtomicISub" else "~0ULL"
        r.guarded_assign(inst, cond, [f"({ct})atomicAdd({ptr}, {v})"])
        return
    else:
        v = r.leaf(rest[2])
    if s.op == "Float":
        r.guarded_assign(inst, cond, [f"atomicAdd({ptr}, {v})"])
        return
    r.guarded_assign(inst, cond, [f"({ct}){_ATOMIC[o]}({ptr}, ({at})({C.signed_ctype(s)})({v}))" if signed
                    else f"({ct}){_ATOMIC[o]}({ptr}, ({at}){v})"])


def constant_int(r, vid: int) -> int:
    c = r.m.constants.get(vid)
    if c is None:
        raise UnsupportedError("a scope or memory semantics that is not a constant")
    return int(c.value or 0)


@op("OpMemoryBarrier")
def _fence(r, inst: Instruction) -> None:
    r.emit("__threadfence();")


@op("OpExtInst")
def _ext(r, inst: Instruction) -> None:
    name = inst.ext_opname
    if name not in r.ext:
        raise UnsupportedError(f"{r.target}: OpenCL.std {name}")
    r.ext[name](r, inst, [o.value for o in inst.operands[2:]])


# -- loads and stores ------------------------------------------------------------------
def load(r, inst: Instruction) -> None:
    """OpLoad through a pointer (built-in variables are the target's)."""
    ptr = inst.operands[0].value
    t = r.rtype(inst)
    p = r.leaf(ptr)
    align = memory_alignment(inst, 1)
    cond = r.guard(ptr, p, T.size_of(t), _check_alignment(t, align), 0)
    vt = _vector_ctype(t, align)
    if vt:
        comps = "xyzw"[:t.count]
        ld = f"if ({cond}) v_ = *({vt}*){p};" if cond else f"v_ = *({vt}*){p};"
        r.emit(f"{{ {vt} v_ = {{}}; {ld} " + " ".join(
            f"{n} = sg_from_bits<{C.scalar_ctype(t.component)}>(sg_bits(v_.{c}));"
            for n, c in zip(r.result_names(inst), comps, strict=True)) + " }")
        return
    r.guarded_assign(inst, cond, [_read(x, f"({p} + {o})", align) for x, o in zip(
        C.leaf_types(t), C.leaf_offsets(t), strict=True)])


def store(r, ptr: int, value: int, align: int = 0) -> None:
    """OpStore (and an OpVariable's initializer) of ``value`` through ``ptr``."""
    t = r.type_of(value)
    p = r.leaf(ptr)
    cond = r.guard(ptr, p, T.size_of(t), _check_alignment(t, align), 1)
    vt = _vector_ctype(t, align)
    if vt:
        base = "float" if vt.startswith("float") else "u32" if vt.startswith("uint") else "u64"
        vals = ", ".join(f"sg_from_bits<{base}>(sg_bits({v}))" for v in r.leaves(value))
        r.guarded(cond, [f"*({vt}*){p} = make_{vt}({vals});"])
        return
    r.guarded(cond, [_write(x, f"({p} + {o})", v, align) for x, o, v in zip(
        C.leaf_types(t), C.leaf_offsets(t), r.leaves(value), strict=True)])


def memory_alignment(inst: Instruction, first: int) -> int:
    """The Aligned memory operand of a load (operands from ``first``) or store, else 0."""
    ops = inst.operands[first:]
    if ops and ops[0].kind == "MemoryAccess" and ops[0].value & 0x2 and len(ops) > 1:
        return int(ops[1].value)
    return 0


def _check_alignment(t: Type, align: int) -> int:
    """The alignment an access must have: the Aligned operand, else the CPU engine's
    (the scalar size), else (aggregates) the type's, which the leaf accesses need."""
    return align or (T.align_of(t) if t.op in ("Struct", "Array") else T.size_of(C.leaf_types(t)[0]))


def _read(x: Type, addr: str, align: int) -> str:
    """A load of leaf type ``x``; through memcpy where the Aligned operand is below its size."""
    ct = C.scalar_ctype(x)
    if align and align < T.size_of(x):
        return f"sg_unaligned<{ct}>({addr})"
    return f"*({ct}*){addr}"


def _write(x: Type, addr: str, v: str, align: int) -> str:
    ct = C.scalar_ctype(x)
    if align and align < T.size_of(x):
        return f"{{ {ct} w_ = {v}; memcpy({addr}, &w_, {T.size_of(x)}); }}"
    return f"*({ct}*){addr} = {v};"


def _vector_ctype(t: Type, align: int) -> str:
    """A CUDA vector type for a whole-vector access of ``t`` at ``align``, else ''."""
    if t.op != "Vector" or t.count not in (2, 4) or t.component.op == "Bool":
        return ""
    w = t.component.width
    size = w // 8 * t.count
    if align < size or w not in (32, 64) or size > 16:
        return ""
    if t.component.op == "Float":
        return f"{'float' if w == 32 else 'double'}{t.count}"
    return f"uint{t.count}" if w == 32 else "ulonglong2"


from . import convert  # noqa: E402, F401  (registers the conversions into OPS)
