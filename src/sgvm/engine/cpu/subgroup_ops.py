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

from collections.abc import Callable

import numpy as np

from ... import semantics as sem
from ...errors import KernelMemoryError
from ...runtime.memory import OFFSET_BITS, allocation
from ..common import types as T
from .arenas import Arena
from .collective import SUBGROUP, Grouping
from .memory_access import load, store
from .memory_events import block_access
from .registry import Op, builder
from .values import GroupUniform, arr, is_lane_array

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
    runs = _runs(lane, second, oor)
    if len(runs) > _MAX_RUNS:
        out = values[0][:, lane]
        if len(values) > 1 and second.any():
            out[:, second] = values[1][:, lane[second]]
        if oor.any():
            out[:, oor] = 0
        return out
    out = np.empty_like(values[0])
    # The longest run as one contiguous copy of all lanes shifted by its distance (the
    # lanes outside the run get other sub-groups' values), then the other runs on top.
    k0, k1 = max(runs, key=lambda r: r[1] - r[0])
    if not oor[k0]:
        shift = int(lane[k0]) - k0
        flat_out = out.reshape((-1,) + out.shape[2:])
        flat_in = (values[1] if second[k0] else values[0]).reshape(flat_out.shape)
        n = len(flat_out) - abs(shift)
        flat_out[max(0, -shift):max(0, -shift) + n] = flat_in[max(0, shift):max(0, shift) + n]
    for j0, j1 in runs:
        if (j0, j1) == (k0, k1) and not oor[k0]:
            continue
        if oor[j0]:
            out[:, j0:j1] = 0
        else:
            source = values[1] if second[j0] else values[0]
            out[:, j0:j1] = source[:, lane[j0]:lane[j0] + j1 - j0]
    return out


_MAX_RUNS = 4  # more runs than this: one column gather is faster than the slice copies


def _runs(lane: np.ndarray, second: np.ndarray, oor: np.ndarray) -> list[tuple[int, int]]:
    """Maximal ``[k0, k1)`` lane ranges that read consecutive lanes of one source (or are
    all out of range)."""
    moved = (np.diff(lane) != 1) | (second[1:] != second[:-1])
    brk = np.flatnonzero((oor[1:] != oor[:-1]) | (moved & ~oor[1:]))
    bounds = [0, *(brk + 1).tolist(), len(lane)]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


def _lane_offsets(st, count: int, elem_size: int) -> np.ndarray:
    """(count, L) uint64 byte offsets ``(l + i*S) * elem_size`` of each lane's elements."""
    key = ("block-offsets", count, elem_size)
    c = st._cache.get(key)
    if c is None:
        S = st.geom.sub_group_size
        per_sg = sem.block_offsets(elem_size, count, S).T.astype(U64)  # (count, S)
        c = st._cache[key] = np.tile(per_sg, (1, st.L // S))
    return c


def _group_pointers(g: Grouping, ptr) -> np.ndarray | np.uint64:
    """Each sub-group's block pointer, (G,) uint64 (a lane array's first active lane), or
    one pointer for every sub-group."""
    if type(ptr) is GroupUniform and ptr.k == g.K:
        return ptr.values
    p = arr(ptr)
    if not is_lane_array(p, False):
        return np.uint64(p)
    return g.first(g.split(p, False))


def _not_uniform(g: Grouping, ptr) -> np.ndarray:
    """Bool (G,): sub-groups whose active lanes passed different block pointers."""
    if type(ptr) is GroupUniform and ptr.k == g.K:
        return np.zeros(g.G, dtype=bool)
    return g.not_uniform(arr(ptr))


def _contiguous_base(st, g: Grouping, bases, count: int, size: int) -> np.uint64 | None:
    """Fast path: with every lane active and no memory observer, sub-group ``k`` reading
    the ``S*count`` elements right after sub-group ``k-1``'s makes the batch's block one
    contiguous range (each sub-group in ``block_offsets`` order); its start, else None.
    ``bases``: the sub-groups' pointers (``_group_pointers``)."""
    if st.mask is not None or st.obs_memory or np.ndim(bases) == 0:
        return None
    if isinstance(allocation(int(bases[0]) >> OFFSET_BITS), Arena):
        return None  # one block per work-group's copy: checked per lane
    if not (np.diff(bases) == np.uint64(g.K * count * size)).all():
        return None
    return bases[0]


def _lane_addresses(st, g: Grouping, bases, count: int, size: int):
    """Each lane's sub-group pointer and the byte offsets of its ``count`` elements."""
    base = bases if np.ndim(bases) == 0 else g.per_lane(bases)
    return base, _lane_offsets(st, count, size)


def _emit_block(st, g: Grouping, opname: str, ptr, bases, key: str,
                misaligned: Callable[[np.ndarray], np.ndarray]) -> None:
    """The collective event of a block read or write (``key``: its misalignment mask)."""
    if st.obs_collective:
        g.emit(opname, not_uniform=_not_uniform(g, ptr),
               **{key: misaligned(np.broadcast_to(bases, (g.G,)))})


@builder("OpSubgroupBlockReadINTEL", affine="consume")
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
        bases = _group_pointers(g, r[p])
        start = _contiguous_base(st, g, bases, n, size)
        if start is not None and not st.obs_collective:
            try:  # one copy; the per-element path below names the offending work-item
                block = load(st, start, dt, g.G * g.K * n, size).reshape(g.G, n, g.K)
                return block.transpose(0, 2, 1).reshape((st.L, n) if n > 1 else (st.L,))
            except KernelMemoryError:
                pass
        base, offs = _lane_addresses(st, g, bases, n, size)
        with block_access(st, "block_read", base, n, size):
            cols = [load(st, base + offs[i], dt, 1, size) for i in range(n)]
        _emit_block(st, g, opname, r[p], bases, "read_misaligned", sem.read_misaligned)
        return cols[0] if n == 1 else np.stack(cols, axis=1)

    return Op(inst.result_id, run, False, n > 1)


@builder("OpSubgroupBlockWriteINTEL", affine="consume")
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
        bases = _group_pointers(g, r[p])
        base, offs = _lane_addresses(st, g, bases, n, size)
        data = arr(r[d])
        uniform = not is_lane_array(data, n > 1)
        with block_access(st, "block_write", base, n, size):
            for i in range(n):
                col = data if n == 1 else (data[i] if uniform else data[:, i])
                store(st, base + offs[i], col, dt, 1, size)
        _emit_block(st, g, opname, r[p], bases, "write_misaligned", sem.write_misaligned)
        return None

    return Op(0, run, False, False)
