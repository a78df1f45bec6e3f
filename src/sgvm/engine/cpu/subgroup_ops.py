"""SPV_INTEL_subgroups shuffles and buffer block IO (cl_intel_subgroups,
cl_intel_subgroups_char/_short/_long, cl_intel_subgroup_local_block_io).

* OpSubgroupShuffle{,Down,Up,Xor}INTEL: any scalar or vector type; the index,
  delta or mask may differ per lane. The rules are ``sgvm.semantics.shuffle*``.
* OpSubgroupBlockReadINTEL / WriteINTEL: element ``i`` of lane ``l`` is
  ``Ptr[l + i*SubgroupMaxSize]`` (SPV_INTEL_subgroups: "Ptr[
  SubgroupLocalInvocationId + SubgroupMaxSize ]"), even in a partial sub-group,
  whose missing lanes neither read nor write. Global and local pointers alike;
  out-of-bounds elements raise KernelMemoryError like any load or store.
  "Ptr must be the same for all invocations in the subgroup": the first active
  lane's pointer is used, the rest reported as ``not_uniform``.
"""

from __future__ import annotations

import numpy as np

from ... import semantics as sem
from ...errors import KernelMemoryError
from . import types as T
from .collective import SUBGROUP, Grouping
from .memory_access import load, store
from .memory_events import block_access
from .registry import Op, builder
from .values import arr, is_lane_array, lanes

U64 = np.dtype(np.uint64)

# opname → (semantics function, its source function); the data operands come
# first and the index/delta/mask last, in both the instructions and the functions.
_SHUFFLES = {
    "OpSubgroupShuffleINTEL": (sem.shuffle, sem.shuffle_source),
    "OpSubgroupShuffleXorINTEL": (sem.shuffle_xor, sem.shuffle_xor_source),
    "OpSubgroupShuffleDownINTEL": (sem.shuffle_down, sem.shuffle_down_source),
    "OpSubgroupShuffleUpINTEL": (sem.shuffle_up, sem.shuffle_up_source),
}


@builder(*_SHUFFLES)
def _shuffle(ctx, inst) -> Op:
    """Shuffles; see ``semantics.shuffles`` for each index rule, quoted from the spec.

    Out-of-range indices give 0 (the spec leaves the result undefined) and are
    reported as ``out_of_range``; reading a lane that did not execute the
    shuffle is reported as ``source_inactive``.
    """
    fn, source_fn = _SHUFFLES[inst.opname]
    ids = [o.value for o in inst.operands]
    data, index = ids[:-1], ids[-1]
    vec = ctx.is_vector(data[0])
    opname = inst.opname
    up = opname == "OpSubgroupShuffleUpINTEL"

    def run(r, st):
        g = Grouping(st, SUBGROUP)
        idx = g.split_index(r[index])
        values = [g.split(r[d], vec) for d in data]
        if np.ndim(idx) == 0:  # a uniform index: one (S,) source for every sub-group
            src = source_fn(idx, g.K)
            current = values[::-1] if up else values  # shuffle_up's operands: (previous, current)
            out, oor = _gather_uniform(current, src), src.out_of_range
        else:
            out, oor = fn(*values, idx, g.K)
        if st.obs_collective:
            src = source_fn(idx, g.K)
            g.emit(opname, out_of_range=oor & g.active,
                   source_inactive=sem.source_inactive(src, g.active))
        return g.join(out)

    return Op(inst.result_id, run, False, vec)


def _gather_uniform(values: list[np.ndarray], src: sem.ShuffleSource) -> np.ndarray:
    """The data movement of ``semantics.shuffle*`` for a source shared by all sub-groups:
    column gathers instead of a per-lane gather (out-of-range lanes get 0, as there).
    ``values``: the current data, then the second source (next / previous) if any."""
    K = values[0].shape[1]
    lane, second, oor = (np.broadcast_to(a, (K,)) for a in src)
    out = values[0][:, lane]
    if len(values) > 1 and second.any():
        out[:, second] = values[1][:, lane[second]]
    if oor.any():
        out[:, oor] = 0
    return out


def _lane_offsets(st, count: int, elem_size: int) -> np.ndarray:
    """(count, L) uint64 byte offsets ``(l + i*S) * elem_size`` of each lane's elements."""
    key = ("block-offsets", count, elem_size)
    c = st._cache.get(key)
    if c is None:
        S = st.geom.sub_group_size
        per_sg = sem.block_offsets(elem_size, count, S).T.astype(U64)  # (count, S)
        c = st._cache[key] = np.tile(per_sg, (1, st.L // S))
    return c


def _block_base(g: Grouping, ptr) -> tuple[np.ndarray | np.uint64, np.ndarray]:
    """The sub-group's pointer (uniform, or per lane from the first active lane) and
    the ``not_uniform`` mask of the per-lane pointers."""
    p = arr(ptr)
    if not is_lane_array(p, False):
        return np.uint64(p), np.zeros(g.G, dtype=bool)
    return g.per_lane(g.first(g.split(p, False))), g.not_uniform(p)


def _contiguous_base(st, g: Grouping, ptr, count: int, size: int) -> np.uint64 | None:
    """Fast path: with every lane active and no memory observer, sub-group ``k`` reading
    the ``S*count`` elements right after sub-group ``k-1``'s makes the batch's block one
    contiguous range (each sub-group in ``block_offsets`` order); its start, else None."""
    p = arr(ptr)
    if st.mask is not None or st.obs_memory or not is_lane_array(p, False):
        return None
    bases = p.reshape(g.G, g.K)[:, 0]
    if not (np.diff(bases) == np.uint64(g.K * count * size)).all():
        return None
    return bases[0]


@builder("OpSubgroupBlockReadINTEL")
def _block_read(ctx, inst) -> Op:
    """OpSubgroupBlockReadINTEL: "Reads one or more components of Result data for each
    invocation in the subgroup from the specified Ptr as a block operation"."""
    p = inst.operands[0].value
    t = ctx.rtype(inst)
    dt, n = T.dtype_of(t), T.width(t)
    size = dt.itemsize
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, SUBGROUP)
        start = _contiguous_base(st, g, r[p], n, size)
        if start is not None and not st.obs_collective:
            try:  # one copy; the per-element path below names the offending work-item
                block = load(st, start, dt, g.G * g.K * n, size).reshape(g.G, n, g.K)
                return block.transpose(0, 2, 1).reshape((st.L, n) if n > 1 else (st.L,))
            except KernelMemoryError:
                pass
        base, mixed = _block_base(g, r[p])
        offs = _lane_offsets(st, n, size)
        with block_access(st, "block_read", base, n, size):
            cols = [load(st, base + offs[i], dt, 1, size) for i in range(n)]
        if st.obs_collective:
            first = g.first(g.split(lanes(base, st.L), False))
            g.emit(opname, not_uniform=mixed, read_misaligned=sem.read_misaligned(first))
        return cols[0] if n == 1 else np.stack(cols, axis=1)

    return Op(inst.result_id, run, False, n > 1)


@builder("OpSubgroupBlockWriteINTEL")
def _block_write(ctx, inst) -> Op:
    """OpSubgroupBlockWriteINTEL: "Writes one or more components of Data for each
    invocation in the subgroup from the specified Ptr as a block operation"."""
    p, d = inst.operands[0].value, inst.operands[1].value
    t = ctx.type_of(d)
    dt, n = T.dtype_of(t), T.width(t)
    size = dt.itemsize
    opname = inst.opname

    def run(r, st):
        g = Grouping(st, SUBGROUP)
        base, mixed = _block_base(g, r[p])
        offs = _lane_offsets(st, n, size)
        data = arr(r[d])
        uniform = not is_lane_array(data, n > 1)
        with block_access(st, "block_write", base, n, size):
            for i in range(n):
                col = data if n == 1 else (data[i] if uniform else data[:, i])
                store(st, base + offs[i], col, dt, 1, size)
        if st.obs_collective:
            first = g.first(g.split(lanes(base, st.L), False))
            g.emit(opname, not_uniform=mixed, write_misaligned=sem.write_misaligned(first))
        return None

    return Op(0, run, False, False)
