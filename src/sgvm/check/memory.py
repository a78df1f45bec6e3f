"""Family 7: out-of-bounds, misaligned and read-only accesses, and reads of uninitialised
local or private memory.

Faults come as ``memory_fault`` events: attaching this plugin makes the engine
report and skip the faulting lanes (their loads give 0) instead of raising
KernelMemoryError, so one run shows every bad access. Local and private arenas
get one "initialised" bit per byte per batch, set by stores and checked by loads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..runtime.memory import OFFSET_BITS, OFFSET_MASK, allocation
from .plugin import Plugin

REASONS = {"out-of-bounds": "out-of-bounds", "invalid": "out-of-bounds",
           "misaligned": "misaligned", "read-only memory written:": "read-only-write"}
SHADOWED = ("local", "private")
FULL = {2: 0x0101, 4: 0x01010101, 8: 0x0101010101010101}  # every byte initialised


def elements(st: Any, ev: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """``(lanes, offsets, size)`` of every element an access touches (block IO expanded:
    lane ``l``'s element ``i`` at ``start + (l + i*S) * size``)."""
    lanes, offs = ev.lanes, ev.offsets.astype(np.int64)
    if not ev.kind.startswith("block_") or ev.count == 1 and ev.nbytes == 0:
        return lanes, offs, ev.nbytes
    S = st.geom.sub_group_size
    size = ev.nbytes // ev.count
    sgl = (lanes % st.geom.lanes_per_group) % S
    steps = np.arange(ev.count, dtype=np.int64) * S
    el = offs[:, None] + (sgl[:, None] + steps) * size
    return np.repeat(lanes, ev.count), el.ravel(), size


def describe(st: Any, pointer: int) -> str:
    """How a message names the allocation behind a tagged pointer."""
    aid = pointer >> OFFSET_BITS
    a = allocation(aid) if aid else None
    if a is None:
        return "a null pointer" if aid == 0 else "no allocation"
    name = st.names.get(a.id) or (f"{a.space} '{a.name}'" if a.name else f"{a.space} memory")
    return f"{name} ({a.size} bytes)"


class MemoryPlugin(Plugin):
    """Invalid accesses and uninitialised reads."""

    def __init__(self, report: Any, module: Any, kernel: str):
        super().__init__(report, module, kernel)
        self._batch: Any = None
        self._init: dict[int, np.ndarray] = {}

    def memory_fault(self, st: Any, f: Any) -> None:
        for reason in np.unique(f.reasons):
            sel = f.reasons == reason
            p = int(f.pointers[sel][0])
            self.flag(st, REASONS.get(str(reason), "out-of-bounds"), f.lanes[sel],
                      f"{reason.rstrip(':')} {f.kind} of {f.nbytes} bytes at byte offset "
                      f"{p & OFFSET_MASK} of {describe(st, p)}", inst=f.inst)

    def memory_access(self, st: Any, ev: Any) -> None:
        a = ev.allocation
        if a is None or a.space not in SHADOWED:
            return
        if st is not self._batch:
            self._batch, self._init = st, {}
        shadow = self._init.get(a.id)
        if shadow is None:
            if a is not st.local and a is not st.private:
                return  # by-value arguments: initialised by the host
            shadow = self._init[a.id] = np.zeros(-(-a.size // 8) * 8, np.uint8)
        lanes, offs, size = elements(st, ev)
        if size in (2, 4, 8) and not (offs & (size - 1)).any():
            view, idx, full = shadow.view(f"u{size}"), offs // size, FULL[size]
        else:
            view, full = shadow, 1
            idx = offs[:, None] + np.arange(size, dtype=np.int64) if size > 1 else offs
        if ev.kind in ("store", "block_write"):
            view[idx] = full
            return
        bad = view[idx] != full
        if bad.ndim == 2:
            bad = bad.any(axis=1)
        if bad.any():
            self.flag(st, "uninitialized-read", np.unique(lanes[bad]),
                      f"{ev.kind} of {a.space} memory that was never written")
        if ev.kind == "atomic":
            view[idx] = full
