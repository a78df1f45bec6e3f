"""Atomic instructions (SPIR-V 1.6 s3.52.18, OpAtomicFAddEXT & co.).

All active lanes of a batch perform their atomic in one step. Lanes hitting
the same address are serialised in lane order, which is work-item order
within the batch, or in the launch variant's ``atomic_order`` (reversed, or a
seeded shuffle: the order in which atomics of different work-items take effect
is not specified): the returned old values are exactly those of that serial
execution. Integer add/sub/inc/dec use a segmented prefix sum (exact with
wrap-around); exchange shifts values within each segment; other operations
run one "round" per rank within a segment (few rounds when addresses rarely
collide), or one NumPy ``accumulate`` per address when many lanes collide.
Scope and memory-semantics operands need no action in lock-step execution.
"""

from __future__ import annotations

import numpy as np

from ...errors import KernelMemoryError
from ..common import types as T
from .memory_access import _gather_index, load, store, without_faults
from .registry import Op, builder
from .values import arr, lanes

_ROUNDS_LIMIT = 32
_SEGMENT_LOOP_LIMIT = 4096


def _signed_op(f):
    return lambda a, b: f(a.view(T.signed(a.dtype)), b.view(T.signed(b.dtype))).view(a.dtype)


_UFUNCS = {
    "OpAtomicIAdd": np.add, "OpAtomicISub": np.subtract, "OpAtomicIIncrement": np.add,
    "OpAtomicIDecrement": np.subtract, "OpAtomicFAddEXT": np.add,
    "OpAtomicUMin": np.minimum, "OpAtomicUMax": np.maximum,
    "OpAtomicFMinEXT": np.fmin, "OpAtomicFMaxEXT": np.fmax,
    "OpAtomicAnd": np.bitwise_and, "OpAtomicOr": np.bitwise_or, "OpAtomicXor": np.bitwise_xor,
}
_SIGNED = {"OpAtomicSMin": np.minimum, "OpAtomicSMax": np.maximum}


def _segments(idx: np.ndarray):
    order = np.argsort(idx, kind="stable")
    sidx = idx[order]
    n = len(sidx)
    starts = np.flatnonzero(np.concatenate(([True], sidx[1:] != sidx[:-1])))
    seglen = np.diff(np.append(starts, n))
    return order, sidx, starts, seglen


def _serial(view, idx, vals, op: str, cmp=None):
    """Apply ``op`` for every lane in lane order; return the old values (lane order)."""
    order, sidx, starts, seglen = _segments(idx)
    sv = vals[order]
    scmp = cmp[order] if cmp is not None else None
    old = np.empty_like(sv)
    heads = sidx[starts]
    init = view[heads]
    dt = view.dtype
    if op in ("OpAtomicIAdd", "OpAtomicISub", "OpAtomicIIncrement", "OpAtomicIDecrement") \
            and dt.kind == "u":
        d = sv if op in ("OpAtomicIAdd", "OpAtomicIIncrement") else (dt.type(0) - sv)
        c = np.cumsum(d, dtype=dt)
        before = c - d  # exclusive prefix over the whole sorted array
        base = np.repeat(before[starts], seglen)
        old = np.repeat(init, seglen) + (before - base)
        last = starts + seglen - 1
        view[heads] = init + (c[last] - before[starts])
    elif op == "OpAtomicExchange":
        old[1:] = sv[:-1]
        old[starts] = init
        view[heads] = sv[starts + seglen - 1]
    elif op != "OpAtomicCompareExchange" and seglen.max() > _ROUNDS_LIMIT \
            and len(starts) <= _SEGMENT_LOOP_LIMIT:
        f = _UFUNCS.get(op) or _SIGNED[op]
        sgn = op in _SIGNED
        for s, n, h, i0 in zip(starts, seglen, heads, init, strict=False):
            seq = np.concatenate(([i0], sv[s:s + n]))
            acc = f.accumulate(seq.view(T.signed(dt)) if sgn else seq).view(dt)
            old[s:s + n] = acc[:-1]
            view[h] = acc[-1]
    else:
        for r in range(int(seglen.max())):
            pos = starts[seglen > r] + r
            where = sidx[pos]
            cur = view[where]
            old[pos] = cur
            if op == "OpAtomicCompareExchange":
                view[where] = np.where(cur == scmp[pos], sv[pos], cur)
            elif op in _SIGNED:
                view[where] = _signed_op(_SIGNED[op])(cur, sv[pos])
            else:
                view[where] = _UFUNCS[op](cur, sv[pos])
    out = np.empty_like(old)
    out[order] = old
    return out


def atomic(st, ptr, dt: np.dtype, op: str, value, cmp=None):
    """Perform atomic ``op`` for the active lanes; return the old values (lane array)."""
    try:
        return _atomic(st, ptr, dt, op, value, cmp)
    except KernelMemoryError:
        if not st.obs_fault:
            raise
    return without_faults(st, "atomic", ptr, dt.itemsize, dt.itemsize, True,
                          lambda: _atomic(st, ptr, dt, op, value, cmp), lambda: np.zeros(st.L, dt))


def _atomic(st, ptr, dt: np.dtype, op: str, value, cmp=None):
    L = st.L
    sel = None if st.mask is None else np.flatnonzero(st.mask)
    p = np.asarray(lanes(ptr, L), np.uint64)
    p = p if sel is None else p[sel]
    out = np.zeros(L, dt)
    if not len(p):
        return out
    v = lanes(value, L).astype(dt, copy=False)
    v = v if sel is None else v[sel]
    c = None
    if cmp is not None:
        c = lanes(cmp, L).astype(dt, copy=False)
        c = c if sel is None else c[sel]
    for a, pos, off in _gather_index(st, p, sel, dt, 1, dt.itemsize, True, "atomic"):
        view = a.typed(dt)
        idx = (off // np.uint64(dt.itemsize)).astype(np.intp)
        vv = v if pos is None else v[pos]
        cc = None if c is None else (c if pos is None else c[pos])
        perm = st.geom.variant.permutation(len(idx), st.geom.variant.atomic_order, st.steps)
        if perm is None:
            old = _serial(view, idx, vv, op, cc)
        else:
            old = np.empty_like(vv)
            old[perm] = _serial(view, idx[perm], vv[perm], op, None if cc is None else cc[perm])
        dest = (np.arange(L) if sel is None else sel) if pos is None else (
            pos if sel is None else sel[pos])
        out[dest] = old
        if st.obs_memory:
            st.notify_memory("atomic", a, off, dt.itemsize, dest)
    return out


@builder(*_UFUNCS, *_SIGNED, "OpAtomicExchange")
def _rmw(ctx, inst) -> Op:
    p = inst.operands[0].value
    dt = T.dtype_of(ctx.type_of(p).pointee)
    op = inst.opname
    if op in ("OpAtomicIIncrement", "OpAtomicIDecrement"):
        one = dt.type(1)
        return Op(inst.result_id, lambda r, st: atomic(st, arr(r[p]), dt, op, one), False, False)
    v = inst.operands[3].value
    return Op(inst.result_id, lambda r, st: atomic(st, arr(r[p]), dt, op, arr(r[v])), False, False)


@builder("OpAtomicCompareExchange", "OpAtomicCompareExchangeWeak")
def _cmpxchg(ctx, inst) -> Op:
    p, v, c = inst.operands[0].value, inst.operands[4].value, inst.operands[5].value
    dt = T.dtype_of(ctx.type_of(p).pointee)
    return Op(inst.result_id, lambda r, st: atomic(st, arr(r[p]), dt, "OpAtomicCompareExchange",
                                                   arr(r[v]), arr(r[c])), False, False)


@builder("OpAtomicLoad")
def _aload(ctx, inst) -> Op:
    p = inst.operands[0].value
    dt = ctx.dtype(inst)
    return Op(inst.result_id, lambda r, st: load(st, r[p], dt, 1, dt.itemsize), False, False)


@builder("OpAtomicStore")
def _astore(ctx, inst) -> Op:
    p, v = inst.operands[0].value, inst.operands[3].value
    dt = T.dtype_of(ctx.type_of(v))

    def run(r, st):
        store(st, r[p], r[v], dt, 1, dt.itemsize)

    return Op(0, run, False, False)


@builder("OpAtomicFlagTestAndSet")
def _flag_set(ctx, inst) -> Op:
    p = inst.operands[0].value
    u32 = np.dtype(np.uint32)
    return Op(inst.result_id,
              lambda r, st: atomic(st, arr(r[p]), u32, "OpAtomicExchange", u32.type(1)) != 0,
              False, False)


@builder("OpAtomicFlagClear")
def _flag_clear(ctx, inst) -> Op:
    p = inst.operands[0].value

    def run(r, st):
        store(st, r[p], np.uint32(0), np.dtype(np.uint32), 1, 4)

    return Op(0, run, False, False)
