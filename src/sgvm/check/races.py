"""Family 8: data races between work-items.

Two accesses to one byte conflict when at least one writes and neither is
atomic. Within a work-group they are ordered by a barrier between them (a
work-group barrier for any two work-items, a sub-group barrier for two of one
sub-group); work-items of different work-groups are never ordered, so any
conflict on global memory across work-groups is a race. Lanes of a batch run
in lock-step, so conflicts are found both among the lanes of one instruction
and against earlier instructions.

Shadow state, per global/local allocation: per cell the last writer and last
reader as a key ``item | wg_epoch << 34 | sg_epoch << 48`` (item: the launch-wide
padded lane index) and a "read by several work-items" bit. A cell starts as
the first access's size and is split to bytes as soon as an access needs it,
so the result is exact per byte at the cost of the widest access in use.
Epochs count barriers modulo 2**14 and 2**15. Atomics are neither checked nor
recorded; only the last reader of a cell is kept (some read/write races whose
reader was followed by another reader are missed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .memory import elements
from .plugin import Plugin

ITEM_BITS, WG_SHIFT, SG_SHIFT = 34, 34, 48
LOCAL_BITS = 12  # item = work-group index << 12 | padded local linear id
ITEM_MASK = np.int64((1 << ITEM_BITS) - 1)
WG_MASK, SG_MASK = (1 << 14) - 1, (1 << 15) - 1
WORKGROUP, SUBGROUP = 2, 3
RACED = ("global", "local")


class _Shadow:
    """Per-cell last writer, last reader and several-readers bit of one allocation."""

    def __init__(self, size: int, cell: int, local: bool):
        n = -(-size // cell)
        self.cell = cell
        self.local = local
        self.w = np.full(n, -1, np.int64)
        self.r = np.full(n, -1, np.int64)
        self.rm = np.zeros(n, bool)

    def split(self, cell: int) -> None:
        k = self.cell // cell
        self.w, self.r, self.rm = (np.repeat(x, k) for x in (self.w, self.r, self.rm))
        self.cell = cell


class RacePlugin(Plugin):
    """Conflicting accesses with no barrier between them."""

    def __init__(self, report: Any, module: Any, kernel: str):
        super().__init__(report, module, kernel)
        self._shadows: dict[int, _Shadow] = {}
        self._batch: Any = None
        self._wg = self._sg = self._key = np.zeros(0, np.int64)

    def _enter(self, st: Any) -> None:
        if st is self._batch:
            return
        self._batch = st
        self._wg = np.zeros(st.ngroups, np.int64)
        self._sg = np.zeros(st.L // st.geom.sub_group_size, np.int64)
        self._shadows = {k: s for k, s in self._shadows.items() if not s.local}
        self._keys()

    def _keys(self) -> None:
        """Each lane's key: its launch-wide item index and its group's barrier epochs."""
        st = self._batch
        S, P = st.geom.sub_group_size, st.geom.lanes_per_group
        wg = np.repeat(self._wg & WG_MASK, P) << WG_SHIFT
        sg = np.repeat(self._sg & SG_MASK, S) << SG_SHIFT
        lane = np.arange(st.L, dtype=np.int64)
        group = (lane // P + st.first_group) << LOCAL_BITS
        self._key = group | (lane % P) | wg | sg

    def barrier(self, st: Any, operands: list[int], mask: Any) -> None:
        self._enter(st)
        S, P = st.geom.sub_group_size, st.geom.lanes_per_group
        act = np.ones(st.L, bool) if mask is None else mask
        if operands[0] == WORKGROUP:
            groups = act.reshape(-1, P).any(axis=1)
            self._wg[groups] += 1
            self._sg[np.repeat(groups, P // S)] += 1
        elif operands[0] == SUBGROUP:
            self._sg[act.reshape(-1, S).any(axis=1)] += 1
        else:
            return
        self._keys()

    def memory_access(self, st: Any, ev: Any) -> None:
        a = ev.allocation
        if ev.kind == "atomic" or a is None or a.space not in RACED:
            return
        self._enter(st)
        lanes, offs, size = elements(st, ev)
        if not len(lanes):
            return
        sh = self._shadows.get(a.id)
        if sh is None or size % sh.cell or (offs & (sh.cell - 1)).any():
            low = int(np.bitwise_or.reduce(offs)) | size
            cell = min(low & -low, 64)
            if sh is None:
                sh = self._shadows[a.id] = _Shadow(a.size, cell, a is st.local)
            elif cell < sh.cell:
                sh.split(cell)
        k = size // sh.cell
        cells = offs // sh.cell if sh.cell > 1 else offs
        if k > 1:
            cells = (cells[:, None] + np.arange(k)).ravel()
            lanes = np.repeat(lanes, k)
        key = self._key if len(lanes) == st.L and ev.lane_index is None and ev.mask is None \
            and k == 1 and not ev.kind.startswith("block_") else self._key[lanes]
        sg_bits = st.geom.sub_group_size.bit_length() - 1  # sizes are powers of two

        def unordered(prev: np.ndarray) -> np.ndarray:
            """Accesses ``prev`` (keys) by other work-items that no barrier orders before now."""
            out = (prev >= 0) & ((prev & ITEM_MASK) != (key & ITEM_MASK))
            pos = np.flatnonzero(out)
            if len(pos):
                p, c = prev[pos], key[pos]
                x = p ^ c
                same_group = (x & ITEM_MASK) >> LOCAL_BITS == 0
                same_sg = (x & ITEM_MASK) >> sg_bits == 0
                wg_differs = (x >> WG_SHIFT) & WG_MASK != 0
                sg_differs = (x >> SG_SHIFT) != 0
                out[pos] = ~(same_group & (wg_differs | (same_sg & sg_differs)))
            return out

        w0 = sh.w[cells]
        after_write = unordered(w0)
        r0 = sh.r[cells]
        if ev.kind in ("store", "block_write"):
            after_read = unordered(r0)
            multi = np.flatnonzero(sh.rm[cells] & ~after_read)
            if len(multi):  # the last reader is this work-item, but others read it too
                same = (r0[multi] >> WG_SHIFT) == (key[multi] >> WG_SHIFT)
                after_read[multi[same]] = True
            sh.w[cells] = key
            same_instruction = sh.w[cells] != key
            self._report(st, ev, lanes, after_write, "write after an unordered write", w0)
            self._report(st, ev, lanes, after_read & ~after_write, "write after an unordered read",
                         r0)
            self._report(st, ev, lanes, same_instruction, "write to a location another "
                         "work-item writes in the same instruction", None)
            return
        other = (r0 >= 0) & ((r0 ^ key) & ITEM_MASK != 0) & ((r0 ^ key) >> WG_SHIFT == 0)
        stale = np.flatnonzero(sh.rm[cells])
        if len(stale):  # several readers of an earlier epoch: forget them
            old = (r0[stale] >> WG_SHIFT) != (key[stale] >> WG_SHIFT)
            sh.rm[cells[stale[old]]] = False
        sh.rm[cells[other]] = True
        sh.r[cells] = key
        sh.rm[cells[sh.r[cells] != key]] = True
        self._report(st, ev, lanes, after_write, "read after an unordered write", w0)

    def _report(self, st: Any, ev: Any, lanes: np.ndarray, bad: np.ndarray, what: str,
                prev: np.ndarray | None) -> None:
        if not bad.any():
            return
        where = "local" if ev.allocation.space == "local" else "global"
        msg = f"{ev.kind} of {where} memory: {what}"
        if prev is not None:
            other = int(prev[np.argmax(bad)] & ITEM_MASK)
            msg += (f" by work-item {other & ((1 << LOCAL_BITS) - 1)} (local linear id) of "
                    f"work-group #{other >> LOCAL_BITS}")
        self.flag(st, "data-race", np.unique(lanes[bad]), msg)

