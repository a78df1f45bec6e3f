"""Family 8: data races between work-items.

C11 s5.1.2.4p25: "The execution of a program contains a data race if it contains
two conflicting actions in different threads, at least one of which is not
atomic, and neither happens before the other." Two accesses to one byte conflict
when at least one writes; two atomic accesses never race, an atomic and a
non-atomic one do. Within a work-group accesses are ordered by a barrier between
them (a work-group barrier for any two work-items, a sub-group barrier for two of
one sub-group); work-items of different work-groups are never ordered. Lanes of a
batch run in lock-step, so conflicts are found both among the lanes of one
instruction and against earlier instructions.

Shadow state, per global/local allocation (:class:`Shadow`): per cell the last
non-atomic writer and reader as a key (``shadow.py``: item | wg_epoch << 34 | …)
(item: the launch-wide padded lane index), a "read by several work-items" bit,
and the last atomic writer and atomic reader (OpAtomicLoad). A cell starts as
wide as the first access allows and is split to bytes as soon as an access needs
it. Epochs count barriers modulo 2**14.

Cost: an access whose lanes step evenly (``MemoryEvent.linear``) touches a slice
of the shadow and cannot conflict with itself; reads are logged and applied to
the reader shadow only when a write to the allocation needs them; a work-group
barrier of every work-group of the batch clears the local shadows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .plugin import Plugin
from .shadow import (
    EMPTY,
    EPOCH_MASK,
    ITEM_MASK,
    LOCAL_BITS,
    SG_SHIFT,
    VALID,
    WG_SHIFT,
    Shadow,
    Where,
    cover,
    hits,
    unordered,
)

WORKGROUP, SUBGROUP = 2, 3
RACED = ("global", "local")
ATOMIC_LOADS = frozenset(("OpAtomicLoad",))
ATOMIC_STORES = frozenset(("OpAtomicStore", "OpAtomicFlagClear"))


def classify(ev: Any) -> tuple[bool, bool]:
    """``(atomic, writes)`` of an access; compare-exchange counts as a write even when
    it fails."""
    if ev.kind == "atomic":
        return True, True
    op = getattr(ev.inst, "opname", "")
    writes = ev.kind in ("store", "block_write")
    return op in (ATOMIC_STORES if writes else ATOMIC_LOADS), writes


class RacePlugin(Plugin):
    """Conflicting accesses with no barrier between them."""

    def __init__(self, report: Any, module: Any, kernel: str):
        super().__init__(report, module, kernel)
        self._shadows: dict[int, Shadow] = {}
        self._batch: Any = None
        self._wg = self._sg = self._key = self._base = np.zeros(0, np.int64)
        self._sg_bits = 0

    def _enter(self, st: Any) -> None:
        if st is self._batch:
            return
        self._batch = st
        S, P = st.geom.sub_group_size, st.geom.lanes_per_group
        self._sg_bits = S.bit_length() - 1  # sizes are powers of two
        self._wg = np.zeros(st.ngroups, np.int64)
        self._sg = np.zeros(st.L // S, np.int64)
        groups = st.groups
        self._base = ((groups << LOCAL_BITS)[:, None] | np.arange(P) | VALID).ravel()
        self._key = self._base
        self._shadows = {k: s for k, s in self._shadows.items() if not s.local}

    def _keys(self) -> None:
        """Each lane's key: its launch-wide item index and its group's barrier epochs
        (a new array: logged reads keep the old one)."""
        st = self._batch
        wg, sg = self._wg & EPOCH_MASK, self._sg & EPOCH_MASK
        if (wg == wg[0]).all() and (sg == sg[0]).all():
            self._key = self._base | (int(wg[0]) << WG_SHIFT | int(sg[0]) << SG_SHIFT)
            return
        S, P = st.geom.sub_group_size, st.geom.lanes_per_group
        self._key = self._base | (np.repeat(wg, P) << WG_SHIFT) | (np.repeat(sg, S) << SG_SHIFT)

    def barrier(self, st: Any, operands: list[int], mask: Any) -> None:
        self._enter(st)
        S, P = st.geom.sub_group_size, st.geom.lanes_per_group
        act = np.ones(st.L, bool) if mask is None else mask
        if operands[0] == WORKGROUP:
            groups = act.reshape(-1, P).any(axis=1)
            self._wg[groups] += 1
            self._sg[np.repeat(groups, P // S)] += 1
            if groups.all():  # every earlier local access is ordered before what follows
                for sh in self._shadows.values():
                    if sh.local:
                        sh.clear()
        elif operands[0] == SUBGROUP:
            self._sg[act.reshape(-1, S).any(axis=1)] += 1
        else:
            return
        self._keys()

    def memory_access(self, st: Any, ev: Any) -> None:
        a = ev.allocation
        if a is None or a.space not in RACED:
            return
        self._enter(st)
        got = self._locate(st, ev)
        if got is None:
            return
        sh, where = got
        atomic, writes = classify(ev)
        S = st.geom.sub_group_size
        if where is None and not (writes or atomic) and sh.aw is None and sh.wspan == EMPTY:
            sh.log_read(None, self._key, ev, S)  # nothing to check now: locate it when applied
            return
        if where is None:
            where, key, lanes = sh.locate(ev, S, self._key)
        else:
            key, lanes = self._key, None
        report = _Reporter(self, st, ev, lanes, key, "atomic " if atomic else "")
        if not writes:
            report.check(sh.w if hits(sh.wspan, where) else None, where,
                         "read after an unordered write")
            if atomic:
                sh.ar = sh.record(sh.ar, where, key)
                return
            report.check(sh.aw, where, "read after an unordered atomic write")
            sh.log_read(where, key)
            return
        sh.flush()
        w0 = sh.w[where] if hits(sh.wspan, where) else None
        after_write = None if w0 is None else unordered(w0, key, self._sg_bits)
        after_read, r0 = self._after_read(sh, where, key)
        if after_write is not None and after_read is not None:
            after_read &= ~after_write
        report(after_write, "write after an unordered write", w0)
        report(after_read, "write after an unordered read", r0)
        if atomic:
            sh.aw = sh.record(sh.aw, where, key)
            return
        report.check(sh.aw, where, "write after an unordered atomic write")
        report.check(sh.ar, where, "write after an unordered atomic read")
        sh.w[where] = key
        sh.wspan = cover(sh.wspan, where)
        if not isinstance(where, slice):
            report(sh.w[where] != key, "write to a location another work-item writes in the "
                   "same instruction", None)

    def _locate(self, st: Any, ev: Any) -> tuple[Shadow, slice | None] | None:
        """The allocation's shadow and, for an access whose lanes step evenly through
        distinct cells (lane ``i`` on cell ``i`` of the slice), its cells; None: no lanes."""
        lin = ev.linear if ev.kind in ("load", "store", "atomic") else None
        if lin is not None and lin[1] >= ev.nbytes:
            o, s = lin
            sh = self._shadow(st, ev.allocation, o | s | ev.nbytes)
            if sh.cell == ev.nbytes:
                step, c0 = s // sh.cell, o // sh.cell
                return sh, slice(c0, c0 + (st.L - 1) * step + 1, step)
            return sh, None
        offs = ev.offsets
        if not len(offs):
            return None
        low = int(np.bitwise_or.reduce(offs)) | ev.nbytes // ev.count
        return self._shadow(st, ev.allocation, low), None

    def _shadow(self, st: Any, a: Any, low: int) -> Shadow:
        """The allocation's shadow, with cells no wider than the lowest set bit of ``low``."""
        cell = min(low & -low, 64)
        sh = self._shadows.get(a.id)
        if sh is None:
            sh = self._shadows[a.id] = Shadow(a.size, cell, a.space == "local")
        elif cell < sh.cell:
            sh.split(cell)
        return sh

    def _after_read(self, sh: Shadow, where: Where, key: np.ndarray
                    ) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Cells whose earlier non-atomic readers (other work-items) no barrier orders
        before a write with ``key``, and the last readers."""
        if not hits(sh.rspan, where):
            return None, None
        r0 = sh.r[where]
        bad = unordered(r0, key, self._sg_bits)
        multi = np.flatnonzero(sh.rm[where] & ~bad)
        if len(multi):  # the last reader is this work-item, but others read it too
            same = (r0[multi] >> WG_SHIFT) == (key[multi] >> WG_SHIFT)
            bad[multi[same]] = True
        return bad, r0


class _Reporter:
    """Findings of one access: ``report(bad, what, prev)``; ``check(shadow, where, what)``."""

    def __init__(self, plugin: RacePlugin, st: Any, ev: Any, lanes: np.ndarray | None,
                 key: np.ndarray, prefix: str):
        self.plugin, self.st, self.ev, self.lanes, self.key = plugin, st, ev, lanes, key
        where = "local" if ev.allocation.space == "local" else "global"
        self.prefix = f"{prefix}{ev.kind} of {where} memory"

    def check(self, keys: np.ndarray | None, where: Where, what: str) -> None:
        """Report the cells whose access in ``keys`` no barrier orders before this one."""
        if keys is not None:
            prev = keys[where]
            self(unordered(prev, self.key, self.plugin._sg_bits), what, prev)

    def __call__(self, bad: np.ndarray | None, what: str, prev: np.ndarray | None) -> None:
        if bad is None or not bad.any():
            return
        msg = f"{self.prefix}: {what}"
        if prev is not None:
            other = int(prev[np.argmax(bad)] & ITEM_MASK)
            msg += (f" by work-item {other & ((1 << LOCAL_BITS) - 1)} (local linear id) of "
                    f"work-group #{other >> LOCAL_BITS}")
        lanes = np.flatnonzero(bad) if self.lanes is None else np.unique(self.lanes[bad])
        self.plugin.flag(self.st, "data-race", lanes, msg)
