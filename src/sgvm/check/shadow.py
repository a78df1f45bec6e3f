"""The race checker's per-allocation shadow state and its ordering test.

A key is ``VALID | item | wg_epoch << 34 | sg_epoch << 48``: ``item`` = work-group
index << 12 | padded local linear id, the epochs count the work-group's and the
sub-group's barriers modulo 2**14. 0: no access (so a new shadow is ``np.zeros``,
whose pages cost nothing until touched). Cells are indexed by an int array or, for
accesses whose lanes step evenly through memory, a slice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .memory import elements

ITEM_BITS, WG_SHIFT, SG_SHIFT = 34, 34, 48
LOCAL_BITS = 12
ITEM_MASK = np.int64((1 << ITEM_BITS) - 1)
EPOCH_MASK = (1 << 14) - 1
VALID = 1 << 62
PENDING_CAP = 1 << 24  # logged keys per allocation before the reads are applied
Where = slice | np.ndarray
EMPTY = (0, 0)


def unordered(prev: np.ndarray, key: np.ndarray, sg_bits: int) -> np.ndarray:
    """Accesses ``prev`` (keys) by other work-items that no barrier orders before the
    accesses ``key``: same work-group and a work-group barrier between, or same
    sub-group (``sg_bits`` = log2 of its size) and a sub-group barrier between."""
    out = (prev != 0) & ((prev & ITEM_MASK) != (key & ITEM_MASK))
    pos = np.flatnonzero(out)
    if len(pos):
        x = prev[pos] ^ key[pos]
        same_group = (x & ITEM_MASK) >> LOCAL_BITS == 0
        same_sg = (x & ITEM_MASK) >> sg_bits == 0
        wg_differs = (x >> WG_SHIFT) & EPOCH_MASK != 0
        sg_differs = (x >> SG_SHIFT) != 0
        out[pos] = ~(same_group & (wg_differs | (same_sg & sg_differs)))
    return out


def hits(span: tuple[int, int], where: Where) -> bool:
    """Whether cells ``where`` may lie in ``span`` (arrays: whenever it is not empty)."""
    lo, hi = span
    if isinstance(where, slice):
        return where.start < hi and where.stop > lo
    return hi > lo


def cover(span: tuple[int, int], where: Where) -> tuple[int, int]:
    """The smallest span holding ``span`` and the cells ``where``."""
    lo, hi = (where.start, where.stop) if isinstance(where, slice) else \
        (int(where.min()), int(where.max()) + 1)
    return (lo, hi) if span[1] <= span[0] else (min(span[0], lo), max(span[1], hi))


class Shadow:
    """Per cell of one allocation: last writer ``w``, last reader ``r``, several-readers bit
    ``rm``, last atomic writer ``aw`` and atomic reader ``ar`` (None until an atomic
    access). ``wspan`` / ``rspan``: the cells ``[lo, hi)`` outside which ``w`` / ``r`` hold
    no access. Reads wait in ``pending`` until a write, a split or :data:`PENDING_CAP`
    needs them applied."""

    def __init__(self, size: int, cell: int, local: bool):
        n = -(-size // cell)
        self.cell = cell
        self.local = local
        self.w = np.zeros(n, np.int64)
        self.r = np.zeros(n, np.int64)
        self.rm = np.zeros(n, bool)
        self.aw: np.ndarray | None = None
        self.ar: np.ndarray | None = None
        self.wspan = self.rspan = EMPTY
        self.pending: list[tuple[Where | None, np.ndarray, Any, int]] = []
        self.npending = 0

    def locate(self, ev: Any, S: int, key: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(cells, keys, lanes)`` of the elements event ``ev`` touches, from every batch
        lane's ``key`` (``S``: the sub-group size)."""
        lanes, offs, size = elements(ev, S)
        k = size // self.cell
        cells = offs // self.cell if self.cell > 1 else offs
        if k > 1:
            cells = (cells[:, None] + np.arange(k)).ravel()
            lanes = np.repeat(lanes, k)
        full = k == 1 and ev.count == 1 and len(lanes) == len(key)  # lanes: every batch lane
        return cells, key if full else key[lanes], lanes

    def split(self, cell: int) -> None:
        """Make the cells ``cell`` bytes wide (a divisor of the current width)."""
        self.flush()
        k = self.cell // cell
        self.w, self.r, self.rm = (np.repeat(x, k) for x in (self.w, self.r, self.rm))
        self.aw, self.ar = (None if x is None else np.repeat(x, k) for x in (self.aw, self.ar))
        self.wspan, self.rspan = ((lo * k, hi * k) for lo, hi in (self.wspan, self.rspan))
        self.cell = cell

    def clear(self) -> None:
        """Forget every access (all are ordered before what follows)."""
        for keys, (lo, hi) in ((self.w, self.wspan), (self.r, self.rspan)):
            keys[lo:hi] = 0
        self.rm[self.rspan[0]:self.rspan[1]] = False
        self.aw = self.ar = None
        self.wspan = self.rspan = EMPTY
        self.pending.clear()
        self.npending = 0

    def record(self, keys: np.ndarray | None, where: Where, key: np.ndarray) -> np.ndarray:
        """``keys`` (an atomic shadow, allocated on first use) with ``where`` set to ``key``."""
        if keys is None:
            keys = np.zeros(len(self.w), np.int64)
        keys[where] = key
        return keys

    def log_read(self, where: Where | None, key: np.ndarray, ev: Any = None, S: int = 0) -> None:
        """Note a non-atomic read for the reader shadow: cells ``where`` with keys ``key``,
        or (``where`` None) event ``ev``'s elements with ``key`` per batch lane."""
        self.pending.append((where, key, ev, S))
        self.npending += len(key)
        if self.npending > PENDING_CAP:
            self.flush()

    def flush(self) -> None:
        """Apply the logged reads in order: each cell's last reader, and the several-readers
        bit when another work-item of the same epochs read it too."""
        for where, key, ev, S in self.pending:
            if where is None:
                where, key, _ = self.locate(ev, S, key)
            if not hits(self.rspan, where):
                self.r[where] = key
            else:
                r0 = self.r[where]
                x = r0 ^ key
                same_epochs = (x >> WG_SHIFT) == 0
                other = (r0 != 0) & ((x & ITEM_MASK) != 0) & same_epochs
                self.rm[where] = other | (self.rm[where] & same_epochs)
                self.r[where] = key
            self.rspan = cover(self.rspan, where)
            if not isinstance(where, slice):  # several lanes of this read on one cell
                self.rm[where[self.r[where] != key]] = True
        self.pending.clear()
        self.npending = 0
