"""Composite instructions (SPIR-V 1.6 s3.52.12): vectors and in-register aggregates.

Vectors are ``(L, n)`` lane arrays or ``(n,)`` uniform arrays, so ``x[..., i]``
extracts a component from either. Structs and arrays held in registers are
tuples of member values.
"""

from __future__ import annotations

import numpy as np

from ..common import types as T
from .registry import Op, builder
from .values import arr, lanes


@builder("OpCompositeExtract")
def _extract(ctx, inst) -> Op:
    c = inst.operands[0].value
    idx = [o.value for o in inst.operands[1:]]
    vec = ctx.rtype(inst).op == "Vector"
    name = ctx.program.builtin_loads.get(c)
    if name is not None and len(idx) == 1:
        dt = ctx.dtype(inst)
        i = idx[0]
        return Op(inst.result_id, lambda r, st: st.builtin_component(name, i, dt), True, False)
    t = ctx.type_of(c)
    path = []
    for i in idx:
        path.append((t.op == "Vector", i))
        t = t.component if t.op in ("Vector", "Array") else t.members[i] if t.op == "Struct" else t

    def run(r, st):
        x = r[c]
        for is_vec, i in path:
            x = x[..., i] if is_vec else x[i]
        return x

    return Op(inst.result_id, run, True, vec)


def _insert(x, path: list[tuple[bool, int]], obj, L: int):
    is_vec, i = path[0]
    if not is_vec:
        items = list(x)
        items[i] = _insert(items[i], path[1:], obj, L) if len(path) > 1 else obj
        return tuple(items)
    x = arr(x)
    obj = arr(obj)
    if x.ndim == 1 and np.ndim(obj) == 0:
        out = x.copy()
    else:
        out = np.array(lanes(x, L, True))
    out[..., i] = obj
    return out


@builder("OpCompositeInsert")
def _composite_insert(ctx, inst) -> Op:
    obj, c = inst.operands[0].value, inst.operands[1].value
    t = ctx.type_of(c)
    path = []
    for i in (o.value for o in inst.operands[2:]):
        path.append((t.op == "Vector", i))
        t = t.component if t.op in ("Vector", "Array") else t.members[i] if t.op == "Struct" else t
    return Op(inst.result_id, lambda r, st: _insert(r[c], path, r[obj], st.L), True,
              ctx.rtype(inst).op == "Vector")


@builder("OpCompositeConstruct")
def _construct(ctx, inst) -> Op:
    ids = [o.value for o in inst.operands]
    rt = ctx.rtype(inst)
    if rt.op != "Vector":
        return Op(inst.result_id, lambda r, st: tuple(r[i] for i in ids), True, False)
    dt = T.dtype_of(rt)
    kinds = [ctx.is_vector(i) for i in ids]

    def run(r, st):
        cols = [(arr(r[i]), v) for i, v in zip(ids, kinds, strict=False)]
        if all(np.ndim(p) == (1 if v else 0) for p, v in cols):
            return np.concatenate([np.atleast_1d(np.asarray(p, dt)) for p, _ in cols])
        out = np.empty((st.L, rt.count), dt)
        k = 0
        for p, v in cols:
            w = p.shape[-1] if v else 1
            out[:, k:k + w] = p if v else (p[:, None] if np.ndim(p) == 1 else p)
            k += w
        return out

    return Op(inst.result_id, run, True, True)


@builder("OpVectorShuffle")
def _shuffle(ctx, inst) -> Op:
    a, b = inst.operands[0].value, inst.operands[1].value
    # An undefined component (0xFFFFFFFF) reads as 0: get_image_dim(image3d_t) is
    # (w, h, d, 0) and clang fills its fourth component with one.
    width = ctx.type_of(a).count + ctx.type_of(b).count
    comps = [width if o.value == 0xFFFFFFFF else o.value for o in inst.operands[2:]]
    idx = np.array(comps, dtype=np.intp)
    undef = width in comps

    def run(r, st):
        x, y = r[a], r[b]
        if x.ndim != y.ndim:
            x, y = lanes(x, st.L, True), lanes(y, st.L, True)
        parts = [x, y, np.zeros(x.shape[:-1] + (1,), x.dtype)] if undef else [x, y]
        return np.concatenate(parts, axis=-1)[..., idx]

    return Op(inst.result_id, run, True, len(comps) > 1)


@builder("OpVectorExtractDynamic")
def _extract_dyn(ctx, inst) -> Op:
    v, i = inst.operands[0].value, inst.operands[1].value
    dt = ctx.dtype(inst)
    name = ctx.program.builtin_loads.get(v)
    n = ctx.type_of(v).count

    def run(r, st):
        x = st.builtin(name, dt, 3) if name is not None else r[v]
        k = arr(r[i])
        if np.ndim(k) == 0:
            return x[..., min(int(k), n - 1)] if int(k) < n else dt.type(0)
        k = np.minimum(k, n - 1).astype(np.intp)
        x = lanes(x, st.L, True)
        return np.take_along_axis(x, k[:, None], axis=1)[:, 0]

    return Op(inst.result_id, run, True, False)


@builder("OpVectorInsertDynamic")
def _insert_dyn(ctx, inst) -> Op:
    v, c, i = (o.value for o in inst.operands)
    n = ctx.type_of(v).count

    def run(r, st):
        x, val, k = arr(r[v]), arr(r[c]), arr(r[i])
        if np.ndim(k) == 0:
            return _insert(x, [(True, min(int(k), n - 1))], val, st.L)
        out = np.array(lanes(x, st.L, True))
        rows = np.arange(st.L)
        out[rows, np.minimum(k, n - 1).astype(np.intp)] = val
        return out

    return Op(inst.result_id, run, True, True)
