"""Loads and stores through tagged pointers, honouring the active mask.

A pointer is ``(allocation id << 40) | byte offset`` (runtime/memory.py). The
fast paths: a uniform pointer (one address for every lane), an Affine pointer
(``base + stride * lane`` → a strided view of the allocation) and a lane
array of pointers into one allocation (a typed gather/scatter). Mixed
allocations (generic pointers) fall back to one gather per allocation.
Out-of-bounds, misaligned and read-only violations raise KernelMemoryError
(docs/internals.md, "Pointers and memory").
"""

from __future__ import annotations

import numpy as np

from ...errors import KernelMemoryError
from ...runtime.memory import OFFSET_BITS, OFFSET_MASK, Allocation, allocation
from .batch import Batch
from .values import Affine, lanes

_M = np.uint64(OFFSET_MASK)
_SH = np.uint64(OFFSET_BITS)


def _name(st: Batch, a: Allocation | None, aid: int) -> str:
    if a is None:
        return "null pointer" if aid == 0 else f"unknown allocation #{aid}"
    arg = st.names.get(a.id) if hasattr(st, "names") else None
    if arg:
        return f"argument '{arg}'"
    return f"{a.space} allocation '{a.name}'" if a.name else f"{a.space} allocation #{a.id}"


def fail(st: Batch, what: str, ptr: int, nbytes: int, lane: int, why: str) -> KernelMemoryError:
    aid, off = ptr >> OFFSET_BITS, ptr & OFFSET_MASK
    a = allocation(aid) if aid else None
    size = f" ({a.size} bytes)" if a is not None else ""
    return KernelMemoryError(
        f"kernel '{st.kernel}': {why} {what} of {nbytes} bytes at byte offset {off} of "
        f"{_name(st, a, aid)}{size} by work-item with global id {st.gid_of(lane)}")


def _check(st: Batch, a: Allocation | None, aid: int, lo_ptr: int, hi_ptr: int, nbytes: int,
           align: int, write: bool, what: str, lane_of) -> Allocation:
    """Validate an access range ``[lo_ptr, hi_ptr + nbytes)`` within allocation ``aid``."""
    if a is None:
        raise fail(st, what, lo_ptr, nbytes, lane_of(lo_ptr), "invalid")
    if (hi_ptr & OFFSET_MASK) + nbytes > a.size:
        raise fail(st, what, hi_ptr, nbytes, lane_of(hi_ptr), "out-of-bounds")
    if write and a.read_only:
        raise fail(st, what, lo_ptr, nbytes, lane_of(lo_ptr), "read-only memory written:")
    return a


def _typed(a: Allocation, dtype: np.dtype) -> np.ndarray:
    return np.ndarray((a.size // dtype.itemsize,), dtype, buffer=a.data)


def _active_range(mask: np.ndarray) -> tuple[int, int] | None:
    if not mask.any():
        return None
    return int(np.argmax(mask)), len(mask) - 1 - int(np.argmax(mask[::-1]))


def _affine_view(st: Batch, p: Affine, dtype: np.dtype, count: int, align: int, write: bool,
                 what: str, k0: int, k1: int) -> np.ndarray:
    """The strided view of lanes ``k0..k1`` of an Affine pointer."""
    nbytes = dtype.itemsize * count
    p0, p1 = p.base + p.stride * k0, p.base + p.stride * k1
    lo, hi = min(p0, p1), max(p0, p1)
    aid = lo >> OFFSET_BITS

    def lane_of(ptr: int) -> int:
        return k0 if ptr == p0 else k1

    if hi >> OFFSET_BITS != aid:
        raise fail(st, what, hi, nbytes, lane_of(hi), "out-of-bounds")
    a = _check(st, allocation(aid) if aid else None, aid, lo, hi, nbytes, align, write, what, lane_of)
    if align > 1 and (p0 % align or p.stride % align):
        bad = p0 if p0 % align else p0 + p.stride
        raise fail(st, what, bad, nbytes, k0 if bad == p0 else k0 + 1, "misaligned")
    shape = (k1 - k0 + 1,) if count == 1 else (k1 - k0 + 1, count)
    strides = (p.stride,) if count == 1 else (p.stride, dtype.itemsize)
    return np.ndarray(shape, dtype, buffer=a.data, offset=p0 & OFFSET_MASK, strides=strides)


def _gather_index(st: Batch, p: np.ndarray, sel, dtype: np.dtype, count: int, align: int,
                  write: bool, what: str):
    """Per-allocation groups ``(allocation, lane positions in p, byte offsets)``."""
    nbytes = dtype.itemsize * count
    lo, hi = int(p.min()), int(p.max())

    def lane_of(ptr: int) -> int:
        pos = int(np.argmax(p == np.uint64(ptr)))
        return int(sel[pos]) if sel is not None else pos

    if align > 1:
        bad = (p & np.uint64(align - 1)) != 0
        if bad.any():
            ptr = int(p[np.argmax(bad)])
            raise fail(st, what, ptr, nbytes, lane_of(ptr), "misaligned")
    if lo >> OFFSET_BITS == hi >> OFFSET_BITS:
        aid = lo >> OFFSET_BITS
        a = _check(st, allocation(aid) if aid else None, aid, lo, hi, nbytes, align, write, what,
                   lane_of)
        return [(a, None, p & _M)]
    ids = p >> _SH
    groups = []
    for aid in np.unique(ids):
        pos = np.flatnonzero(ids == aid)
        q = p[pos]
        aid = int(aid)
        a = _check(st, allocation(aid) if aid else None, aid, int(q.min()), int(q.max()), nbytes,
                   align, write, what, lane_of)
        groups.append((a, pos, q & _M))
    return groups


def _read(a: Allocation, off: np.ndarray, dtype: np.dtype, count: int) -> np.ndarray:
    size = dtype.itemsize
    if size == 1 or not (off & np.uint64(size - 1)).any():
        view = _typed(a, dtype)
        idx = (off >> np.uint64(size.bit_length() - 1)).astype(np.intp)
        if count == 1:
            return view[idx]
        return view[idx[:, None] + np.arange(count)]
    raw = a.data[off.astype(np.intp)[:, None] + np.arange(size * count)]
    v = raw.view(dtype)
    return v[:, 0] if count == 1 else v


def _write(a: Allocation, off: np.ndarray, values: np.ndarray, dtype: np.dtype, count: int) -> None:
    size = dtype.itemsize
    if size == 1 or not (off & np.uint64(size - 1)).any():
        view = _typed(a, dtype)
        idx = (off >> np.uint64(size.bit_length() - 1)).astype(np.intp)
        if count == 1:
            view[idx] = values
        else:
            view[idx[:, None] + np.arange(count)] = values
        return
    raw = np.ascontiguousarray(values, dtype=dtype).reshape(len(off), -1).view(np.uint8)
    a.data[off.astype(np.intp)[:, None] + np.arange(size * count)] = raw


def load(st: Batch, ptr, dtype: np.dtype, count: int, align: int):
    """Load a scalar (count 1) or ``count``-vector of ``dtype`` through ``ptr``."""
    mask = st.mask
    nbytes = dtype.itemsize * count
    if np.ndim(ptr) == 0 and type(ptr) is not Affine:
        p = int(ptr)
        aid = p >> OFFSET_BITS
        lane = 0 if mask is None else int(np.argmax(mask))
        a = _check(st, allocation(aid) if aid else None, aid, p, p, nbytes, align, False, "load",
                   lambda _: lane)
        if align > 1 and p % align:
            raise fail(st, "load", p, nbytes, lane, "misaligned")
        off = p & OFFSET_MASK
        v = np.ndarray((count,), dtype, buffer=a.data, offset=off).copy()
        if st.obs_memory:
            st.notify_memory("load", a, np.uint64(off), nbytes)
        return v[0] if count == 1 else v
    L = st.L
    if type(ptr) is Affine:
        if mask is None:
            k0, k1 = 0, L - 1
        else:
            rng = _active_range(mask)
            if rng is None:
                return np.zeros((L,) if count == 1 else (L, count), dtype)
            k0, k1 = rng
        view = _affine_view(st, ptr, dtype, count, align, False, "load", k0, k1)
        if st.obs_memory:
            st.notify_memory("load", allocation(ptr.base >> OFFSET_BITS), None, nbytes)
        if k0 == 0 and k1 == L - 1:
            return view.copy()
        out = np.zeros((L,) if count == 1 else (L, count), dtype)
        out[k0:k1 + 1] = view
        return out
    if mask is None:
        p, sel = ptr, None
    else:
        sel = np.flatnonzero(mask)
        p = ptr[sel]
        if not len(p):
            return np.zeros((L,) if count == 1 else (L, count), dtype)
    groups = _gather_index(st, p, sel, dtype, count, align, False, "load")
    if sel is None and len(groups) == 1:
        a, _, off = groups[0]
        if st.obs_memory:
            st.notify_memory("load", a, off, nbytes)
        return _read(a, off, dtype, count)
    out = np.zeros((L,) if count == 1 else (L, count), dtype)
    for a, pos, off in groups:
        dest = sel if pos is None else (pos if sel is None else sel[pos])
        out[dest] = _read(a, off, dtype, count)
        if st.obs_memory:
            st.notify_memory("load", a, off, nbytes)
    return out


def store(st: Batch, ptr, value, dtype: np.dtype, count: int, align: int) -> None:
    """Store ``value`` (uniform or per lane) through ``ptr`` for the active lanes."""
    mask = st.mask
    nbytes = dtype.itemsize * count
    vec = count > 1
    if type(value) is Affine:
        value = value.materialize()
    if np.ndim(ptr) == 0 and type(ptr) is not Affine:
        p = int(ptr)
        aid = p >> OFFSET_BITS
        if mask is None:
            last = st.L - 1
        else:
            if not mask.any():
                return
            last = st.L - 1 - int(np.argmax(mask[::-1]))
        a = _check(st, allocation(aid) if aid else None, aid, p, p, nbytes, align, True, "store",
                   lambda _: last)
        if align > 1 and p % align:
            raise fail(st, "store", p, nbytes, last, "misaligned")
        v = value if np.ndim(value) == (1 if vec else 0) else value[last]
        off = p & OFFSET_MASK
        np.ndarray((count,), dtype, buffer=a.data, offset=off)[:] = v
        if st.obs_memory:
            st.notify_memory("store", a, np.uint64(off), nbytes)
        return
    L = st.L
    if type(ptr) is Affine:
        if mask is None:
            k0, k1 = 0, L - 1
        else:
            rng = _active_range(mask)
            if rng is None:
                return
            k0, k1 = rng
        view = _affine_view(st, ptr, dtype, count, align, True, "store", k0, k1)
        v = value if np.ndim(value) <= (1 if vec else 0) else value[k0:k1 + 1]
        if mask is None or (k1 - k0 + 1 == L and mask.all()):
            view[...] = v
        else:
            m = mask[k0:k1 + 1]
            np.copyto(view, v, where=m[:, None] if vec else m, casting="unsafe")
        if st.obs_memory:
            st.notify_memory("store", allocation(ptr.base >> OFFSET_BITS), None, nbytes)
        return
    if mask is None:
        p, sel = ptr, None
    else:
        sel = np.flatnonzero(mask)
        p = ptr[sel]
        if not len(p):
            return
    groups = _gather_index(st, p, sel, dtype, count, align, True, "store")
    full = lanes(value, L, vec)
    for a, pos, off in groups:
        src = sel if pos is None else (pos if sel is None else sel[pos])
        vals = full if src is None else full[src]
        _write(a, off, vals, dtype, count)
        if st.obs_memory:
            st.notify_memory("store", a, off, nbytes)
