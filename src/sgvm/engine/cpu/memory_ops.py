"""Memory and pointer instructions (SPIR-V 1.6 s3.52.8): OpVariable, OpLoad,
OpStore, access chains, pointer comparison/difference, generic-pointer
casts, OpCopyMemory(Sized).

Access chains compute byte addresses on tagged pointers: ``base + Σ index ×
stride + member offsets`` with the indexes read as signed (SPIR-V 1.6
s3.52.8: "Element is treated as a signed count"). Uniform and Affine
operands keep the address uniform/Affine, so the loads and stores through it
take the fast paths of ``memory_access``.
"""

from __future__ import annotations

import numpy as np

from ...runtime.memory import OFFSET_BITS
from ...spirv import Instruction, Type
from ..common import types as T
from ..common.values import pack, unpack
from .memory_access import load, store
from .registry import Op, builder
from .values import Affine, GroupUniform, affine, arr

U64 = np.dtype(np.uint64)
U8 = np.dtype(np.uint8)
_WRAP = 1 << 64


def alignment(inst: Instruction, first: int, t: Type) -> int:
    """Alignment from the MemoryAccess operand (Aligned bit), else the scalar size."""
    ops = inst.operands
    if len(ops) > first + 1 and ops[first].value & 2:
        return int(ops[first + 1].value)
    if T.is_aggregate(t):
        return 1
    return T.dtype_of(t).itemsize if t.op != "Bool" else 1


# -- variables, loads, stores ---------------------------------------------------


@builder("OpVariable")
def _variable(ctx, inst) -> Op:
    """A ``Function`` variable: its private Arena of the batch, one copy per lane
    (``arenas.py``). With an Initializer, "the variable's initial value" is stored for
    the lanes executing it."""
    k = ctx.program.private_variable(inst.result_id, ctx.rtype(inst).pointee)

    def run(r, st):
        a = st.private[k]
        return affine(a.base, a.region, st.L, U64)

    if len(inst.operands) == 1:
        return Op(inst.result_id, run, True, False)
    init = inst.operands[1].value
    t = ctx.type_of(init)

    def run_init(r, st):
        p = run(r, st)
        value = r[init]
        raw = np.asarray(value, U8) if t.op == "Bool" else pack(t, value, st.L)
        store(st, p, raw, U8, T.size_of(t), 1)
        return p

    return Op(inst.result_id, run_init, False, False)


@builder("OpLoad", affine="consume")
def _load(ctx, inst) -> Op:
    p = inst.operands[0].value
    t = ctx.rtype(inst)
    name = ctx.program.builtin_vars.get(p)
    if name is not None:
        if inst.result_id not in ctx.program.whole_builtin_uses:
            return None  # only its components are used: extraction reads them directly
        dt, n = T.dtype_of(t), T.width(t)
        return Op(inst.result_id, lambda r, st: st.builtin(name, dt, n), True, t.op == "Vector")
    align = alignment(inst, 1, t)
    if T.is_aggregate(t):
        size = T.size_of(t)
        return Op(inst.result_id, lambda r, st: unpack(t, load(st, r[p], U8, size, 1)), False, False)
    dt, n = T.dtype_of(t), T.width(t)
    if t.op == "Bool":
        return Op(inst.result_id, lambda r, st: load(st, r[p], U8, 1, 1).astype(bool), False, False)
    return Op(inst.result_id, lambda r, st: load(st, r[p], dt, n, align), False, n > 1)


@builder("OpStore", affine="consume")
def _store(ctx, inst) -> Op:
    p, v = inst.operands[0].value, inst.operands[1].value
    t = ctx.type_of(v)
    align = alignment(inst, 2, t)
    if T.is_aggregate(t) or t.op == "Bool":
        size = T.size_of(t)

        def run_raw(r, st):
            store(st, r[p], pack(t, r[v], st.L) if t.op != "Bool" else np.asarray(arr(r[v]), U8),
                  U8, size, 1)

        return Op(0, run_raw, False, False)
    dt, n = T.dtype_of(t), T.width(t)

    def run(r, st):
        store(st, r[p], r[v], dt, n, align)

    return Op(0, run, False, False)


# -- access chains -----------------------------------------------------------------


def _add(acc, x, stride: int, sdt: np.dtype | None):
    """``acc + x * stride`` where acc is int / Affine / GroupUniform / uint64 array and x
    likewise (``sdt``: the signed dtype to read a dynamic index with; None: x is a Python
    int)."""
    if sdt is None or (type(x) is not Affine and type(x) is not GroupUniform and np.ndim(x) == 0):
        c = (int(x) if sdt is None else int(np.asarray(x).view(sdt))) * stride
        if type(acc) is int:
            return acc + c
        if type(acc) is Affine:
            return affine(acc.base + c, acc.stride, acc.n, U64)
        if type(acc) is GroupUniform:
            return GroupUniform(acc.values + np.uint64(c % _WRAP), acc.k)
        return acc + np.uint64(c % _WRAP)
    if type(x) is GroupUniform:
        if type(acc) is int:
            return GroupUniform(_scaled(x.values, stride, sdt) + np.uint64(acc % _WRAP), x.k)
        if type(acc) is GroupUniform and acc.k == x.k:
            return GroupUniform(acc.values + _scaled(x.values, stride, sdt), x.k)
    if type(x) is Affine:
        if type(acc) is int:
            return affine(acc + x.base * stride, x.stride * stride, x.n, U64)
        if type(acc) is Affine:
            return affine(acc.base + x.base * stride, acc.stride + x.stride * stride, x.n, U64)
    xi = _scaled(arr(x), stride, sdt)
    if type(acc) is int:
        return xi + np.uint64(acc % _WRAP)
    return arr(acc) + xi


def _scaled(x: np.ndarray, stride: int, sdt: np.dtype) -> np.ndarray:
    """``x`` read as ``sdt`` times ``stride``, as wrapping uint64."""
    xi = x.view(sdt).astype(np.int64, copy=False).view(np.uint64)
    return xi * np.uint64(stride % _WRAP) if stride != 1 else xi


def _chain(ctx, base_type: Type, indexes: list[int], element: int | None):
    """Steps ``(id or None, constant, stride, signed dtype)`` of an access chain."""
    steps = []
    if element is not None:
        steps.append(_step(ctx, element, T.size_of(base_type)))
    t = base_type
    for i in indexes:
        if t.op == "Struct":
            k = int(ctx.constant(i))
            steps.append((None, T.member_offsets(t)[k], 1, None))
            t = t.members[k]
        else:
            stride = T.size_of(t.component)
            steps.append(_step(ctx, i, stride))
            t = t.component
    return steps


def _step(ctx, id_: int, stride: int):
    c = ctx.constant(id_)
    sdt = T.signed(T.dtype_of(ctx.type_of(id_)))
    if c is not None:
        return (None, int(np.asarray(c).view(sdt)) * stride, 1, None)
    return (id_, 0, stride, sdt)


@builder("OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpInBoundsPtrAccessChain",
         affine="produce")
def _access_chain(ctx, inst) -> Op:
    base = inst.operands[0].value
    pointee = ctx.type_of(base).pointee
    ptr_form = "Ptr" in inst.opname
    rest = [o.value for o in inst.operands[1:]]
    steps = _chain(ctx, pointee, rest[1:] if ptr_form else rest, rest[0] if ptr_form else None)
    const = sum(c for i, c, _, _ in steps if i is None)
    dyn = [(i, s, sdt) for i, _, s, sdt in steps if i is not None]

    def run(r, st):
        b = r[base]
        acc = int(b) if type(b) is not Affine and type(b) is not GroupUniform and getattr(b, "ndim", 0) == 0 \
            else b  # (a register holds a NumPy value, int, Affine or GroupUniform; np.ndim is slower)
        if const:
            acc = _add(acc, const, 1, None)
        for i, s, sdt in dyn:
            acc = _add(acc, r[i], s, sdt)
        return np.uint64(acc % _WRAP) if type(acc) is int else acc

    return Op(inst.result_id, run, True, False)


# -- pointer comparisons and generic casts ------------------------------------------


@builder("OpPtrEqual", "OpPtrNotEqual")
def _ptr_eq(ctx, inst) -> Op:
    a, b = inst.operands[0].value, inst.operands[1].value
    f = np.equal if inst.opname == "OpPtrEqual" else np.not_equal
    return Op(inst.result_id, lambda r, st: f(arr(r[a]), arr(r[b])), True, False)


@builder("OpPtrDiff")
def _ptr_diff(ctx, inst) -> Op:
    a, b = inst.operands[0].value, inst.operands[1].value
    size = T.size_of(ctx.type_of(a).pointee)
    dt = ctx.dtype(inst)

    def run(r, st):
        d = (arr(r[a]) - arr(r[b])).view(np.int64) if np.ndim(r[a]) else np.int64(
            np.uint64(r[a]) - np.uint64(r[b]))
        return np.asarray(d // size).astype(T.signed(dt)).view(dt)[()]

    return Op(inst.result_id, run, True, False)


_SPACE_SEMANTICS = {"local": 0x100, "global": 0x200}
_STORAGE_SPACE = {"CrossWorkgroup": "global", "Workgroup": "local", "Function": "private"}


def _spaces(p) -> np.ndarray:
    """Address space name of each pointer (per lane), '' for null/unknown."""
    from ...runtime.memory import allocation

    p = np.asarray(arr(p), U64)
    ids = p >> np.uint64(OFFSET_BITS)
    out = np.empty(ids.shape, dtype=object)
    for aid in np.unique(ids):
        a = allocation(int(aid)) if aid else None
        out[ids == aid] = a.space if a is not None else ""
    return out


@builder("OpGenericCastToPtrExplicit")
def _cast_explicit(ctx, inst) -> Op:
    a = inst.operands[0].value
    want = _STORAGE_SPACE.get(ctx.rtype(inst).storage_class, "")

    def run(r, st):
        p = arr(r[a])
        ok = _spaces(p) == want
        return np.where(ok, p, np.uint64(0)).astype(U64)[()]

    return Op(inst.result_id, run, True, False)


@builder("OpGenericPtrMemSemantics")
def _mem_semantics(ctx, inst) -> Op:
    a = inst.operands[0].value
    dt = ctx.dtype(inst)

    def run(r, st):
        sp = _spaces(r[a])
        return np.vectorize(lambda s: _SPACE_SEMANTICS.get(s, 0), otypes=[dt])(sp)[()]

    return Op(inst.result_id, run, True, False)


@builder("OpCopyMemory", "OpCopyMemorySized")
def _copy_memory(ctx, inst) -> Op:
    dst, src = inst.operands[0].value, inst.operands[1].value
    sized = inst.opname == "OpCopyMemorySized"
    size_id = inst.operands[2].value if sized else None
    fixed = T.size_of(ctx.type_of(dst).pointee) if not sized else None

    def run(r, st):
        n = fixed if size_id is None else arr(r[size_id])
        if np.ndim(n) == 0:
            n = int(n)
            if n:
                store(st, r[dst], load(st, r[src], U8, n, 1), U8, n, 1)
            return None
        saved = st.mask
        try:
            for size in np.unique(n if saved is None else n[saved]):
                sel = n == size
                st.mask = sel if saved is None else sel & saved
                if size:
                    store(st, r[dst], load(st, r[src], U8, int(size), 1), U8, int(size), 1)
        finally:
            st.mask = saved
        return None

    return Op(0, run, False, False)
