"""The memory events observers receive (docs/internals.md, "Observer events").

The engine builds a :class:`MemoryEvent` only when some observer has a
``memory_access`` method; its per-lane arrays are computed on first use, so
an observer that ignores an event costs next to nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ...runtime.memory import OFFSET_BITS, OFFSET_MASK, Allocation, allocation
from ...spirv import Instruction
from .values import Affine

_M = np.uint64(OFFSET_MASK)


@dataclass(eq=False)
class MemoryEvent:
    """One memory instruction's accesses to one allocation, by the lanes in :attr:`lanes`.

    ``kind``: "load", "store", "atomic", "block_read" or "block_write".
    ``nbytes``: bytes each lane accesses. ``inst``: the SPIR-V instruction (its
    ``location`` is set when the program was built with ``-g``). For block IO,
    :attr:`offsets` is each lane's sub-group block start and the block is
    ``sub_group_size × nbytes`` bytes of ``count`` elements per lane: lane ``l``'s
    element ``i`` is at ``start + (l + i × sub_group_size) × nbytes / count``.
    """

    kind: str
    allocation: Allocation | None
    nbytes: int
    inst: Instruction | None
    count: int
    source: Any  # uniform offset, Affine of pointers, or offsets for ``lane_index``
    lane_index: np.ndarray | None  # batch lanes of ``source``; None: the active lanes
    mask: np.ndarray | None  # the batch's active mask (None: every lane)
    L: int

    @property
    def space(self) -> str:
        """The allocation's address space ("global", "local", "private", "constant" …)."""
        return self.allocation.space if self.allocation is not None else "global"

    @cached_property
    def lanes(self) -> np.ndarray:
        """Ascending int64 batch lane indices that made the access."""
        if self.lane_index is not None:
            return np.asarray(self.lane_index, np.int64)
        if self.mask is None:
            return np.arange(self.L, dtype=np.int64)
        return np.flatnonzero(self.mask)

    @property
    def linear(self) -> tuple[int, int] | None:
        """``(offset, stride)`` when every lane ``k`` of the batch accessed byte
        ``offset + stride × k`` (no array needs to be built), else None."""
        if self.lane_index is not None or self.mask is not None:
            return None
        src = self.source
        if type(src) is Affine:
            return src.base & OFFSET_MASK, src.stride
        return (int(src), 0) if np.ndim(src) == 0 else None

    @cached_property
    def offsets(self) -> np.ndarray:
        """uint64 byte offsets in the allocation, one per entry of :attr:`lanes`."""
        src = self.source
        if type(src) is Affine:
            return (src.materialize()[self.lanes] & _M).astype(np.uint64, copy=False)
        if np.ndim(src) == 0:
            return np.full(len(self.lanes), src, np.uint64)
        return np.asarray(src, np.uint64)


@dataclass(frozen=True)
class MemoryFault:
    """Lanes whose access is invalid, reported to ``memory_fault(batch, fault)`` instead of
    raising KernelMemoryError; the engine then skips them (loads give 0).

    ``pointers``: each lane's tagged pointer; ``reasons``: "out-of-bounds",
    "misaligned", "invalid" or "read-only memory written:" per lane.

    Image accesses outside the image: ``kind`` "image_write" (skipped like a store) or
    "image_read" (not skipped: the result is undefined and sgvm's value stays, see
    docs/images.md), ``pointers`` the image's storage, ``reasons`` "outside the image",
    ``detail`` the first lane's coordinate and the image's size.
    """

    kind: str
    lanes: np.ndarray
    pointers: np.ndarray
    nbytes: int
    align: int
    reasons: np.ndarray
    inst: Instruction | None
    detail: str = ""


@contextmanager
def block_access(st: Any, kind: str, base: Any, count: int, elem_size: int) -> Iterator[None]:
    """Report sub-group block IO as one ``kind`` event per allocation instead of the
    per-element loads or stores done inside the ``with`` body. ``base``: each lane's
    block pointer (a lane array, or one pointer for every lane)."""
    observers, st.obs_memory = st.obs_memory, []
    try:
        yield
    finally:
        st.obs_memory = observers
    if not observers:
        return
    nbytes = count * elem_size
    if np.ndim(base) == 0:
        st.notify_memory(kind, allocation(int(base) >> OFFSET_BITS), np.uint64(base) & _M, nbytes,
                         count=count)
        return
    sel = None if st.mask is None else np.flatnonzero(st.mask)
    p = np.asarray(base, np.uint64) if sel is None else np.asarray(base, np.uint64)[sel]
    if not len(p):
        return
    aid = int(p.min()) >> OFFSET_BITS
    if int(p.max()) >> OFFSET_BITS == aid:  # one allocation: no partition needed
        st.notify_memory(kind, allocation(aid), p & _M, nbytes, sel, count)
        return
    sel = np.arange(st.L) if sel is None else sel
    ids = p >> np.uint64(OFFSET_BITS)
    for aid in np.unique(ids):
        pick = ids == aid
        st.notify_memory(kind, allocation(int(aid)), p[pick] & _M, nbytes, sel[pick], count)
