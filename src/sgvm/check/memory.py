"""Family 7: out-of-bounds, misaligned and read-only accesses, and reads of uninitialised
local or private memory.

Faults come as ``memory_fault`` events: attaching this plugin makes the engine
report and skip the faulting lanes (their loads give 0) instead of raising
KernelMemoryError, so one run shows every bad access (a local or private object's
offsets count from the accessing work-group's or work-item's own copy). Local and
private objects (``engine.cpu.arenas``) get one "initialised" bit per byte per batch,
set by stores and checked by loads (not at all once every byte of the object was
written).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine.cpu.arenas import Arena
from ..engine.cpu.memory_access import describe, locate
from .plugin import Plugin

REASONS = {"out-of-bounds": "out-of-bounds", "invalid": "out-of-bounds",
           "misaligned": "misaligned", "read-only memory written:": "read-only-write"}
IMAGE_CATEGORIES = {"image_write": "image-write-out-of-bounds",
                    "image_read": "image-read-out-of-bounds"}
SHADOWED = ("local", "private")
FULL = {2: 0x0101, 4: 0x01010101, 8: 0x0101010101010101}  # every byte initialised


def elements(ev: Any, S: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``(lanes, offsets, size)`` of every element an access touches (block IO expanded:
    lane ``l``'s element ``i`` at ``start + (l + i*S) * size``; ``S``: the sub-group
    size)."""
    lanes, offs = ev.lanes, ev.offsets.astype(np.int64)
    if not ev.kind.startswith("block_"):
        return lanes, offs, ev.nbytes
    size = ev.nbytes // ev.count
    sgl = lanes % S  # lanes_per_group is a multiple of S
    if ev.count == 1:
        return lanes, offs + sgl * size, size
    steps = np.arange(ev.count, dtype=np.int64) * S
    el = offs[:, None] + (sgl[:, None] + steps) * size
    return np.repeat(lanes, ev.count), el.ravel(), size




class MemoryPlugin(Plugin):
    """Invalid accesses and uninitialised reads."""

    def __init__(self, report: Any, module: Any, kernel: str):
        super().__init__(report, module, kernel)
        self._batch: Any = None
        self._init: dict[int, np.ndarray] = {}
        self._complete: set[int] = set()  # allocations whose every byte was written

    def memory_fault(self, st: Any, f: Any) -> None:
        if f.kind in IMAGE_CATEGORIES:
            self.flag(st, IMAGE_CATEGORIES[f.kind], f.lanes, f.detail, inst=f.inst)
            return
        for reason in np.unique(f.reasons):
            sel = f.reasons == reason
            a, aid, off = locate(int(f.pointers[sel][0]), int(f.lanes[sel][0]))
            self.flag(st, REASONS.get(str(reason), "out-of-bounds"), f.lanes[sel],
                      f"{reason.rstrip(':')} {f.kind} of {f.nbytes} bytes at byte offset "
                      f"{off} of {describe(st.names, a, aid)}", inst=f.inst)

    def memory_access(self, st: Any, ev: Any) -> None:
        a = ev.allocation
        if a is None or a.space not in SHADOWED:
            return
        if st is not self._batch:
            self._batch, self._init, self._complete = st, {}, set()
        if a.id in self._complete:
            return
        shadow = self._init.get(a.id)
        if shadow is None:
            if not isinstance(a, Arena):
                return  # by-value arguments: initialised by the host
            shadow = self._init[a.id] = np.zeros(-(-a.size // 8) * 8, np.uint8)
        lanes, idx, view, full = self._cells(st, ev, shadow)
        if ev.kind in ("store", "block_write"):
            view[idx] = full
            if shadow[:a.size].all():  # every byte written: no read can be uninitialised
                self._complete.add(a.id)
            return
        bad = view[idx] != full
        if bad.ndim == 2:
            bad = bad.any(axis=1)
        if bad.any():
            self.flag(st, "uninitialized-read", np.flatnonzero(bad) if lanes is None
                      else np.unique(lanes[bad]),
                      f"{ev.kind} of {a.space} memory that was never written")
        if ev.kind == "atomic":
            view[idx] = full

    def _cells(self, st: Any, ev: Any, shadow: np.ndarray) -> tuple[Any, Any, np.ndarray, int]:
        """``(lanes, index, view, full)``: ``view[index]`` holds the init bits of each element
        of the access as one word, ``full`` when all are set; ``lanes`` per entry (None:
        entry ``i`` is batch lane ``i``, ``index`` then a slice for an evenly strided access)."""
        size = ev.nbytes
        lin = ev.linear if not ev.kind.startswith("block_") else None
        if lin is not None and size in FULL and lin[1] % size == 0 and lin[1] > 0 \
                and lin[0] % size == 0:
            step, c0 = lin[1] // size, lin[0] // size
            return None, slice(c0, c0 + (st.L - 1) * step + 1, step), shadow.view(f"u{size}"), \
                FULL[size]
        if not ev.kind.startswith("block_"):
            lanes, offs = ev.lanes, ev.offsets
        else:
            lanes, offs, size = elements(ev, st.geom.sub_group_size)
        if size in FULL and not int(np.bitwise_or.reduce(offs)) & (size - 1):
            return lanes, offs // np.uint64(size), shadow.view(f"u{size}"), FULL[size]
        offs = offs.astype(np.int64)
        return lanes, offs[:, None] + np.arange(size, dtype=np.int64) if size > 1 else offs, \
            shadow, 1
