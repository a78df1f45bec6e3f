"""Loads and stores through tagged pointers, honouring the active mask.

A pointer is ``(allocation id << 40) | byte offset`` (runtime/memory.py). The
fast paths: a uniform pointer (one address for every lane), an Affine pointer
(``base + stride * lane`` → a strided view of the allocation) and a lane
array of pointers into one allocation (a typed gather/scatter). Mixed
allocations (generic pointers) fall back to one gather per allocation.
Out-of-bounds, misaligned and read-only violations raise KernelMemoryError
(docs/internals.md, "Pointers and memory"), unless ``memory_fault`` observers
are attached: then the faulting lanes are reported and skipped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import KernelMemoryError
from ...runtime.memory import OFFSET_BITS, OFFSET_MASK, Allocation, allocation, resolve
from .arenas import Arena
from .batch import Batch
from .memory_events import MemoryFault
from .values import Affine, GroupUniform, arr, lanes

_M = np.uint64(OFFSET_MASK)
_SH = np.uint64(OFFSET_BITS)


def describe(names: dict[int, str], a: Allocation | None, aid: int) -> str:
    """How messages name allocation ``a`` (id ``aid``), with its size: the kernel argument
    it was passed as, the local or private object of an Arena, else its space and name."""
    if a is None:
        return "null pointer" if aid == 0 else f"unknown allocation #{aid}"
    if isinstance(a, Arena):
        return f"{a.name} ({a.extent} bytes per {a.owner})"
    arg = names.get(a.id)
    if arg:
        what = f"{arg} (buffer '{a.name}')" if a.name else arg
    else:
        what = f"{a.space} allocation '{a.name}'" if a.name else f"{a.space} allocation #{a.id}"
    return f"{what} ({a.size} bytes)"


def locate(ptr: int, lane: int) -> tuple[Allocation | None, int, int]:
    """``(allocation, id, byte offset)`` of the access by batch lane ``lane`` through tagged
    pointer ``ptr``: a negative offset below an allocation's start (``runtime.memory.resolve``),
    and for an Arena the offset from the start of the lane's own copy."""
    a, aid, off = resolve(ptr)
    if isinstance(a, Arena):
        off = a.relative(off, lane)
    return a, aid, off


def fail(st: Batch, what: str, ptr: int, nbytes: int, lane: int, why: str) -> KernelMemoryError:
    a, aid, off = locate(ptr, lane)
    return KernelMemoryError(
        f"kernel '{st.kernel}': {why} {what} of {nbytes} bytes at byte offset {off} of "
        f"{describe(st.names, a, aid)} by work-item with global id {st.gid_of(lane)}")


def _ok(a: Allocation | None, lo_ptr: int, hi_ptr: int, nbytes: int, write: bool) -> bool:
    """Whether ``[lo_ptr, hi_ptr + nbytes)`` lies in allocation ``a`` (writable if ``write``);
    an Arena's owners are checked separately (``Arena.outside``)."""
    return (a is not None and (hi_ptr & OFFSET_MASK) + nbytes <= a.size
            and hi_ptr >> OFFSET_BITS == lo_ptr >> OFFSET_BITS and not (write and a.read_only))


def first_bad(st: Batch, p: np.ndarray, lanes_: np.ndarray, nbytes: int, align: int, write: bool,
              what: str) -> KernelMemoryError | None:
    """The error for the lowest lane among ``lanes_`` (pointers ``p``) whose access is invalid;
    None when every access is valid. ``faults`` is the exact check: the fast paths' checks
    may only be stricter, so they ask this before raising."""
    p = np.asarray(p, np.uint64)
    lanes_ = np.asarray(lanes_, np.int64)
    bad, why = faults(p, lanes_, nbytes, align, write)
    if not bad.any():
        return None
    k = int(np.argmax(bad))
    return fail(st, what, int(p[k]), nbytes, int(lanes_[k]), str(why[k]))


def _check(st: Batch, p: np.ndarray, lanes_: np.ndarray, nbytes: int, align: int, write: bool,
           what: str) -> None:
    """Raise ``first_bad``'s error, if any."""
    err = first_bad(st, p, lanes_, nbytes, align, write, what)
    if err is not None:
        raise err


def faults(p: np.ndarray, lanes_: np.ndarray, nbytes: int, align: int, write: bool
           ) -> tuple[np.ndarray, np.ndarray]:
    """Per pointer (of batch lane ``lanes_``): whether the access is invalid, and why (an
    object array of phrases)."""
    bad = np.zeros(len(p), bool)
    why = np.empty(len(p), dtype=object)
    ids = p >> _SH
    for aid in np.unique(ids):
        sel = ids == aid
        a = allocation(int(aid)) if aid else None
        if a is None:
            bad |= sel
            why[sel] = "invalid"
            if allocation(int(aid) + 1) is not None:  # below the next one's start (``resolve``)
                why[sel & ((p & _M) >= np.uint64(1 << (OFFSET_BITS - 1)))] = "out-of-bounds"
            continue
        off = p & _M
        oob = sel & (off + np.uint64(nbytes) > np.uint64(a.size))
        if isinstance(a, Arena):
            oob |= sel & a.outside(off, lanes_, nbytes)
        bad |= oob
        why[oob] = "out-of-bounds"
        if write and a.read_only:
            bad |= sel & ~oob
            why[sel & ~oob] = "read-only memory written:"
    if align > 1:
        mis = ~bad & ((p & np.uint64(align - 1)) != 0)
        bad |= mis
        why[mis] = "misaligned"
    return bad, why


def without_faults(st: Batch, kind: str, ptr, nbytes: int, align: int, write: bool,
                   again: Callable[[], Any], empty: Callable[[], Any]) -> Any:
    """After a KernelMemoryError with ``memory_fault`` observers attached: report the
    active lanes whose access is invalid, then run ``again()`` for the other lanes
    (``empty()`` when none is left). The skipped lanes read 0 and write nothing."""
    L = st.L
    sel = np.arange(L) if st.mask is None else np.flatnonzero(st.mask)
    p = np.broadcast_to(np.asarray(arr(ptr), np.uint64), (L,))[sel]
    bad, why = faults(p, sel, nbytes, align, write)
    event = MemoryFault(kind, sel[bad], p[bad], nbytes, align, why[bad].astype(str), st.inst)
    for f in st.obs_fault:
        f(st, event)
    if bad.all():
        return empty()
    keep = np.zeros(L, bool)
    keep[sel[~bad]] = True
    saved, st.mask = st.mask, keep
    try:
        return again()
    finally:
        st.mask = saved


def _active_range(mask: np.ndarray | None, L: int) -> tuple[int, int] | None:
    """The first and last active lane (every lane when ``mask`` is None); None when
    no lane is active."""
    if mask is None:
        return 0, L - 1
    if not mask.any():
        return None
    return int(np.argmax(mask)), len(mask) - 1 - int(np.argmax(mask[::-1]))


def _active_pointers(ptr: np.ndarray, mask: np.ndarray | None):
    """The active lanes' pointers and their lane indexes (None: every lane)."""
    if mask is None:
        return ptr, None
    sel = np.flatnonzero(mask)
    return ptr[sel], sel


def _uniform_allocation(st: Batch, p: int, nbytes: int, align: int, write: bool) -> Allocation:
    """The allocation a uniform pointer ``p`` accesses ``nbytes`` of for the active lanes
    (at least one); raises the KernelMemoryError naming the first offending lane."""
    aid = p >> OFFSET_BITS
    a = allocation(aid) if aid else None
    first, last = _active_range(st.mask, st.L)
    if not _ok(a, p, p, nbytes, write) or (align > 1 and p & (align - 1)) or (
            isinstance(a, Arena) and a.outside(np.array([p & OFFSET_MASK, p & OFFSET_MASK]),
                                               np.array([first, last]), nbytes).any()):
        lanes_ = np.arange(st.L) if st.mask is None else np.flatnonzero(st.mask)
        _check(st, np.full(len(lanes_), p, np.uint64), lanes_, nbytes, align, write,
               "store" if write else "load")
    assert a is not None  # (``faults`` finds every access to a missing allocation)
    return a


def _affine_view(st: Batch, p: Affine, dtype: np.dtype, count: int, align: int, write: bool,
                 what: str, k0: int, k1: int) -> np.ndarray:
    """The strided view of lanes ``k0..k1`` of an Affine pointer (the first and last active
    lanes: the lanes between them lie between their addresses)."""
    nbytes = dtype.itemsize * count
    p0, p1 = p.base + p.stride * k0, p.base + p.stride * k1
    lo, hi = min(p0, p1), max(p0, p1)
    aid = lo >> OFFSET_BITS
    a = allocation(aid) if aid else None
    if not _ok(a, lo, hi, nbytes, write) or (align > 1 and (p0 % align or p.stride % align)) or (
            isinstance(a, Arena) and _arena_outside(st, a, p, k0, k1, nbytes)):
        k = np.arange(k0, k1 + 1)
        ptrs = p.materialize()[k0:k1 + 1]
        if st.mask is not None:
            k, ptrs = k[st.mask[k0:k1 + 1]], ptrs[st.mask[k0:k1 + 1]]
        _check(st, ptrs, k, nbytes, align, write, what)
        if lo >> OFFSET_BITS != hi >> OFFSET_BITS:
            raise _spanning(st, what, nbytes, ptrs, k)
    assert a is not None
    off, size = p0 & OFFSET_MASK, dtype.itemsize
    if count == 1 and p.stride > 0 and not (off % size or p.stride % size):  # a slice
        step = p.stride // size
        return a.typed(dtype)[off // size:off // size + step * (k1 - k0) + 1:step]
    shape = (k1 - k0 + 1,) if count == 1 else (k1 - k0 + 1, count)
    strides = (p.stride,) if count == 1 else (p.stride, size)
    return np.ndarray(shape, dtype, buffer=a.data, offset=off, strides=strides)


def _spanning(st: Batch, what: str, nbytes: int, ptrs: np.ndarray, k: np.ndarray) -> KernelMemoryError:
    """The error of an Affine pointer whose active lanes (``k``, pointers ``ptrs``) each address
    some allocation, but not all the same one: every lane's address comes from one pointer,
    so the first lane that leaves the first active lane's object is out of its bounds."""
    ids = ptrs >> _SH
    j = int(np.argmax(ids != ids[0]))
    aid = int(ids[0])
    return KernelMemoryError(
        f"kernel '{st.kernel}': out-of-bounds {what} of {nbytes} bytes at byte offset "
        f"{int(ptrs[j]) - (aid << OFFSET_BITS)} of {describe(st.names, allocation(aid), aid)} by "
        f"work-item with global id {st.gid_of(int(k[j]))} (its address is computed from a "
        f"pointer into that object)")


def _arena_outside(st: Batch, a: Arena, p: Affine, k0: int, k1: int, nbytes: int) -> bool:
    """Whether an active lane of ``k0..k1`` leaves its owner's copy of ``a`` through Affine
    pointer ``p``. Per work-item copies: the offset into the lane's own copy is linear in
    the lane, so the two ends decide; per work-group copies: every active lane."""
    if a.owner_lanes == 1:
        ends = np.array([k0, k1])
        return bool(a.outside((np.uint64(p.base) + np.uint64(p.stride % (1 << 64)) * ends.astype(
            np.uint64)) & _M, ends, nbytes).any())
    k = np.arange(k0, k1 + 1) if st.mask is None else np.flatnonzero(st.mask)
    return bool(a.outside(p.materialize()[k] & _M, k, nbytes).any())


def _gather_index(st: Batch, p: np.ndarray, sel, dtype: np.dtype, count: int, align: int,
                  write: bool, what: str):
    """Per-allocation groups ``(allocation, lane positions in p or None, byte offsets)``."""
    nbytes = dtype.itemsize * count
    # Fast path: offsets from the first lane's allocation; any lane in another
    # allocation gets an offset >= 2**40 (or wraps), so one max checks them all (for an
    # Arena the max of the offsets into each lane's own copy, which also bounds the rest).
    aid = int(p[0]) >> OFFSET_BITS
    a = allocation(aid) if aid else None
    if a is not None and not (write and a.read_only):
        off = p - np.uint64(aid << OFFSET_BITS)
        fits = (not a.overrun(off, sel, nbytes)) if isinstance(a, Arena) \
            else int(off.max()) + nbytes <= a.size
        if fits and not (align > 1 and (off & np.uint64(align - 1)).any()):
            return [(a, None, off)]

    def check() -> None:  # the exact check, before any error (``first_bad``)
        _check(st, p, _lanes(st, sel), nbytes, align, write, what)

    if align > 1 and (p & np.uint64(align - 1)).any():
        check()
    lo, hi = int(p.min()), int(p.max())
    if lo >> OFFSET_BITS == hi >> OFFSET_BITS:
        aid = lo >> OFFSET_BITS
        a = allocation(aid) if aid else None
        if _ok(a, lo, hi, nbytes, write) and not (
                isinstance(a, Arena) and a.overrun(p & _M, sel, nbytes)):
            return [(a, None, p & _M)]
        check()  # (an Arena's ``overrun`` is stricter than ``outside`` for another batch's)
    ids = p >> _SH
    groups = []
    for aid in np.unique(ids):
        pos = np.flatnonzero(ids == aid)
        q = p[pos]
        a = allocation(int(aid)) if aid else None
        if not _ok(a, int(q.min()), int(q.max()), nbytes, write) or (
                isinstance(a, Arena) and a.outside(q & _M, _lanes(st, sel)[pos], nbytes).any()):
            check()
        groups.append((a, pos, q & _M))
    return groups


def _lanes(st: Batch, sel: np.ndarray | None) -> np.ndarray:
    """The batch lanes of a gather's pointers (``sel``; None: every lane)."""
    return np.arange(st.L) if sel is None else sel


def _element_index(off: np.ndarray, size: int, scratch: bool) -> np.ndarray:
    """Element indexes of size-aligned byte offsets (< 2**40, so the int64 view is
    exact); ``scratch``: ``off`` is a temporary that may be overwritten."""
    if size == 1:
        return off.view(np.intp)
    shift = np.uint64(size.bit_length() - 1)
    idx = np.right_shift(off, shift, out=off) if scratch else off >> shift
    return idx.view(np.intp)


def _read(a: Allocation, off: np.ndarray, dtype: np.dtype, count: int,
          aligned: bool = False, scratch: bool = False) -> np.ndarray:
    """Gather ``count`` elements at each byte offset; ``aligned``: offsets are known to be
    multiples of the element size."""
    size = dtype.itemsize
    if size == 1 or aligned or not (off & np.uint64(size - 1)).any():
        view = a.typed(dtype)
        idx = _element_index(off, size, scratch)
        if count == 1:
            return view[idx]
        return view[idx[:, None] + np.arange(count)]
    raw = a.data[off.astype(np.intp)[:, None] + np.arange(size * count)]
    v = raw.view(dtype)
    return v[:, 0] if count == 1 else v


def _write(a: Allocation, off: np.ndarray, values: np.ndarray, dtype: np.dtype, count: int,
           aligned: bool = False, scratch: bool = False) -> None:
    size = dtype.itemsize
    if size == 1 or aligned or not (off & np.uint64(size - 1)).any():
        view = a.typed(dtype)
        idx = _element_index(off, size, scratch)
        if count == 1:
            view[idx] = values
        else:
            view[idx[:, None] + np.arange(count)] = values
        return
    raw = np.ascontiguousarray(values, dtype=dtype).reshape(len(off), -1).view(np.uint8)
    a.data[off.astype(np.intp)[:, None] + np.arange(size * count)] = raw


def load(st: Batch, ptr, dtype: np.dtype, count: int, align: int):
    """Load a scalar (count 1) or ``count``-vector of ``dtype`` through ``ptr``."""
    if type(ptr) is GroupUniform:
        ptr = ptr.materialize()
    try:
        return _load(st, ptr, dtype, count, align)
    except KernelMemoryError:
        if not st.obs_fault:
            raise
    return without_faults(st, "load", ptr, dtype.itemsize * count, align, False,
                          lambda: _load(st, ptr, dtype, count, align),
                          lambda: np.zeros((st.L,) if count == 1 else (st.L, count), dtype))


def _load(st: Batch, ptr, dtype: np.dtype, count: int, align: int):
    mask = st.mask
    nbytes = dtype.itemsize * count
    if type(ptr) is not Affine and np.ndim(ptr) == 0:
        p = int(ptr)
        if mask is not None and not mask.any():
            return np.zeros(count, dtype)[0] if count == 1 else np.zeros(count, dtype)
        a = _uniform_allocation(st, p, nbytes, align, False)
        off = p & OFFSET_MASK
        v = np.ndarray((count,), dtype, buffer=a.data, offset=off).copy()
        if st.obs_memory:
            st.notify_memory("load", a, np.uint64(off), nbytes)
        return v[0] if count == 1 else v
    L = st.L
    if type(ptr) is Affine:
        rng = (0, L - 1) if mask is None else _active_range(mask, L)
        if rng is None:
            return np.zeros((L,) if count == 1 else (L, count), dtype)
        k0, k1 = rng
        view = _affine_view(st, ptr, dtype, count, align, False, "load", k0, k1)
        if st.obs_memory:
            st.notify_memory("load", allocation(ptr.base >> OFFSET_BITS), ptr, nbytes)
        if k0 == 0 and k1 == L - 1:
            return view.copy()
        out = np.zeros((L,) if count == 1 else (L, count), dtype)
        out[k0:k1 + 1] = view
        return out
    p, sel = _active_pointers(ptr, mask)
    if not len(p):
        return np.zeros((L,) if count == 1 else (L, count), dtype)
    groups = _gather_index(st, p, sel, dtype, count, align, False, "load")
    aligned, scratch = align >= dtype.itemsize, not st.obs_memory
    if sel is None and len(groups) == 1:
        a, _, off = groups[0]
        if st.obs_memory:
            st.notify_memory("load", a, off, nbytes)
        return _read(a, off, dtype, count, aligned, scratch)
    out = np.zeros((L,) if count == 1 else (L, count), dtype)
    for a, pos, off in groups:
        dest = sel if pos is None else (pos if sel is None else sel[pos])
        if st.obs_memory:
            st.notify_memory("load", a, off, nbytes, dest)
        out[dest] = _read(a, off, dtype, count, aligned, scratch)
    return out


def store(st: Batch, ptr, value, dtype: np.dtype, count: int, align: int) -> None:
    """Store ``value`` (uniform or per lane) through ``ptr`` for the active lanes."""
    if type(ptr) is GroupUniform:
        ptr = ptr.materialize()
    if type(value) is GroupUniform:
        value = value.materialize()
    try:
        return _store(st, ptr, value, dtype, count, align)
    except KernelMemoryError:
        if not st.obs_fault:
            raise
    return without_faults(st, "store", ptr, dtype.itemsize * count, align, True,
                          lambda: _store(st, ptr, value, dtype, count, align), lambda: None)


def _store(st: Batch, ptr, value, dtype: np.dtype, count: int, align: int) -> None:
    mask = st.mask
    nbytes = dtype.itemsize * count
    vec = count > 1
    if type(value) is Affine:
        value = value.materialize()
    if type(ptr) is not Affine and np.ndim(ptr) == 0:
        rng = _active_range(mask, st.L)
        if rng is None:
            return
        last = rng[1]
        p = int(ptr)
        a = _uniform_allocation(st, p, nbytes, align, True)
        v = value if np.ndim(value) == (1 if vec else 0) else value[last]
        off = p & OFFSET_MASK
        np.ndarray((count,), dtype, buffer=a.data, offset=off)[:] = v
        if st.obs_memory:
            st.notify_memory("store", a, np.uint64(off), nbytes)
        return
    L = st.L
    if type(ptr) is Affine:
        rng = (0, L - 1) if mask is None else _active_range(mask, L)
        if rng is None:
            return
        k0, k1 = rng
        view = _affine_view(st, ptr, dtype, count, align, True, "store", k0, k1)
        v = value if getattr(value, "ndim", 0) <= vec else value[k0:k1 + 1]  # (np.ndim is slower)
        if mask is None or (k1 - k0 + 1 == L and mask.all()):
            view[...] = v
        else:
            m = mask[k0:k1 + 1]
            np.copyto(view, v, where=m[:, None] if vec else m, casting="unsafe")
        if st.obs_memory:
            st.notify_memory("store", allocation(ptr.base >> OFFSET_BITS), ptr, nbytes)
        return
    p, sel = _active_pointers(ptr, mask)
    if not len(p):
        return
    groups = _gather_index(st, p, sel, dtype, count, align, True, "store")
    full = lanes(value, L, vec)
    aligned, scratch = align >= dtype.itemsize, not st.obs_memory
    for a, pos, off in groups:
        src = sel if pos is None else (pos if sel is None else sel[pos])
        vals = full if src is None else full[src]
        _write(a, off, vals, dtype, count, aligned, scratch)
        if st.obs_memory:
            st.notify_memory("store", a, off, nbytes, src)
