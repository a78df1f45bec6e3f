"""Sub-group and work-group collectives (SPIR-V 1.6 s3.52.21 OpGroup*, and
SPV_INTEL_subgroups shuffles and block IO), through ``sgvm.semantics``.

Lane arrays are reshaped to ``(groups, size)``: ``size`` is the sub-group size
``S`` for Subgroup scope and the padded work-group lane count ``P`` for
Workgroup scope (the lane layout makes both exact reshapes). The active mask
is exactly the lanes that reached the instruction together, so a collective
sees the lanes the specifications say it sees; padding lanes are inactive.
"""

from __future__ import annotations

import numpy as np

from ... import semantics as sem
from ...errors import UnsupportedError
from . import types as T
from .memory_access import load, store
from .registry import Op, builder
from .values import arr, lanes

SUBGROUP, WORKGROUP = 3, 2
U64 = np.dtype(np.uint64)
_OPS = {
    "OpGroupIAdd": ("add", False), "OpGroupFAdd": ("add", False),
    "OpGroupSMin": ("min", True), "OpGroupUMin": ("min", False), "OpGroupFMin": ("min", False),
    "OpGroupSMax": ("max", True), "OpGroupUMax": ("max", False), "OpGroupFMax": ("max", False),
}
_SCAN = {0: sem.reduce, 1: sem.scan_inclusive, 2: sem.scan_exclusive}


def _size(ctx, st, scope_id: int) -> int:
    scope = int(ctx.constant(scope_id))
    if scope == SUBGROUP:
        return st.geom.sub_group_size
    if scope == WORKGROUP:
        return st.geom.lanes_per_group
    raise UnsupportedError(f"collective with scope {scope}")


def _active(st, n: int) -> np.ndarray:
    m = st.mask if st.mask is not None else np.ones(st.L, bool)
    return m.reshape(st.L // n, n)


def _grouped(st, x, n: int, vec: bool) -> np.ndarray:
    x = np.asarray(lanes(arr(x), st.L, vec))
    return x.reshape((st.L // n, n) + x.shape[1:])


def _notify(st, name: str) -> None:
    for f in st.obs_collective:
        f(st, name, st.mask)


def _per_group(st, v, n: int) -> np.ndarray:
    """A value that must be uniform per group: the first active lane's, shape (G,)."""
    v = arr(v)
    if np.ndim(v) == 0:
        return v
    g = np.asarray(v).reshape(st.L // n, n)
    return g[np.arange(g.shape[0]), sem.first_active(_active(st, n))]


@builder(*_OPS)
def _reduce_scan(ctx, inst) -> Op:
    scope, kind, x = inst.operands[0].value, inst.operands[1].value, inst.operands[2].value
    op, sgn = _OPS[inst.opname]
    fn = _SCAN.get(kind)
    if fn is None:
        raise UnsupportedError(f"{inst.opname} with group operation {kind}")
    vec = ctx.rtype(inst).op == "Vector"
    dt = ctx.dtype(inst)
    name = inst.opname

    def run(r, st):
        n = _size(ctx, st, scope)
        v = _grouped(st, r[x], n, vec)
        if sgn:
            v = v.view(T.signed(dt))
        out = fn(op, v, _active(st, n))
        _notify(st, name)
        return out.view(dt).reshape((st.L,) + out.shape[2:])

    return Op(inst.result_id, run, False, vec)


@builder("OpGroupAll", "OpGroupAny")
def _all_any(ctx, inst) -> Op:
    scope, x = inst.operands[0].value, inst.operands[1].value
    fn = sem.all_ if inst.opname == "OpGroupAll" else sem.any_
    name = inst.opname

    def run(r, st):
        n = _size(ctx, st, scope)
        out = fn(_grouped(st, r[x], n, False), _active(st, n))
        _notify(st, name)
        return out.reshape(st.L)

    return Op(inst.result_id, run, False, False)


@builder("OpGroupBroadcast")
def _broadcast(ctx, inst) -> Op:
    scope, x, lid = (o.value for o in inst.operands)
    vec = ctx.rtype(inst).op == "Vector"
    lid_vec = ctx.is_vector(lid)

    def run(r, st):
        n = _size(ctx, st, scope)
        act = _active(st, n)
        k = arr(r[lid])
        if lid_vec:  # work-group broadcast by (x, y[, z]): linear id with the enqueued size
            ls = st.geom.ndrange.local_size
            k = np.asarray(k).astype(np.int64)
            comps = [k[..., i] for i in range(k.shape[-1])]
            k = comps[0] + sum(c * int(np.prod(ls[:i])) for i, c in enumerate(comps) if i)
        out = sem.broadcast(_grouped(st, r[x], n, vec), _per_group(st, k, n), act)
        _notify(st, "OpGroupBroadcast")
        return out.reshape((st.L,) + out.shape[2:])

    return Op(inst.result_id, run, False, vec)


def _shuffle(kind: str):
    def build(ctx, inst) -> Op:
        ids = [o.value for o in inst.operands]
        vec = ctx.rtype(inst).op == "Vector"

        def run(r, st):
            S = st.geom.sub_group_size
            args = [_grouped(st, r[i], S, vec) for i in ids[:-1]]
            idx = np.asarray(lanes(arr(r[ids[-1]]), st.L)).reshape(st.L // S, S)
            out, _ = getattr(sem, kind)(*args, idx, S)
            _notify(st, inst.opname)
            return out.reshape((st.L,) + out.shape[2:])

        return Op(inst.result_id, run, False, vec)

    return build


builder("OpSubgroupShuffleINTEL")(_shuffle("shuffle"))
builder("OpSubgroupShuffleDownINTEL")(_shuffle("shuffle_down"))
builder("OpSubgroupShuffleUpINTEL")(_shuffle("shuffle_up"))
builder("OpSubgroupShuffleXorINTEL")(_shuffle("shuffle_xor"))


def _block_addresses(st, p, i: int, size: int):
    """Address of element ``i`` of each lane: ``p + (lane + i * max_size) * size``."""
    S = st.geom.sub_group_size
    lane = st.builtin("SubgroupLocalInvocationId", U64, 1)
    return np.asarray(arr(p), U64) + (lane + np.uint64(i * S)) * np.uint64(size)


@builder("OpSubgroupBlockReadINTEL")
def _block_read(ctx, inst) -> Op:
    p = inst.operands[0].value
    t = ctx.rtype(inst)
    dt, n = T.dtype_of(t), T.width(t)

    def run(r, st):
        cols = [load(st, _block_addresses(st, r[p], i, dt.itemsize), dt, 1, dt.itemsize)
                for i in range(n)]
        _notify(st, "OpSubgroupBlockReadINTEL")
        return cols[0] if n == 1 else np.stack(cols, axis=1)

    return Op(inst.result_id, run, False, n > 1)


@builder("OpSubgroupBlockWriteINTEL")
def _block_write(ctx, inst) -> Op:
    p, v = inst.operands[0].value, inst.operands[1].value
    t = ctx.type_of(v)
    dt, n = T.dtype_of(t), T.width(t)

    def run(r, st):
        data = lanes(arr(r[v]), st.L, n > 1)
        for i in range(n):
            store(st, _block_addresses(st, r[p], i, dt.itemsize), data if n == 1 else data[:, i],
                  dt, 1, dt.itemsize)
        _notify(st, "OpSubgroupBlockWriteINTEL")

    return Op(0, run, False, False)
