"""Whether any work-groups of a launch touch the same global memory, one of them writing.

Work-groups that share no written global byte cannot observe each other, so the order
they run in cannot change any output: the portability check runs its work-group order
variants only when the baseline run shows sharing (``Sharing.shared``). Per global
allocation and byte, the observer keeps the work-group that wrote it and the one that
read it (``SEVERAL``: more than one); a write to a byte another work-group read or wrote, or a
read of a byte another wrote, is sharing. Atomics count as writes (the values they
return depend on the order). Sub-group block reads and writes count each lane's
elements; image writes and reads of the same launch count as sharing (images are not
tracked byte by byte).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_WRITES = ("store", "atomic", "block_write")
_READS = ("load", "block_read")
NONE, SEVERAL = 0, -1  # else: 1 + the work-group's linear index (zeroed arrays are cheap)


class Sharing:
    """Observer of the baseline run (docs/internals.md, "Observer events")."""

    def __init__(self) -> None:
        self.shared = False
        self._writer: dict[int, np.ndarray] = {}
        self._reader: dict[int, np.ndarray] = {}

    def _state(self, alloc: Any) -> tuple[np.ndarray, np.ndarray]:
        w = self._writer.get(alloc.id)
        if w is None:
            w = self._writer[alloc.id] = np.zeros(alloc.size, np.int32)
            self._reader[alloc.id] = np.zeros(alloc.size, np.int32)
        return w, self._reader[alloc.id]

    def _contiguous(self, batch: Any, event: Any, writer: np.ndarray, reader: np.ndarray) -> bool:
        """The common case without index arrays: every lane of the batch accessed
        ``offset + nbytes·k``, so work-group ``g`` of the batch owns one run of P·nbytes bytes
        (each byte touched once). False when the event is not of that kind."""
        lin = event.linear
        n = batch.L * event.nbytes
        if lin is None or event.kind.startswith("block") or int(lin[1]) != event.nbytes \
                or batch.live is not None or int(lin[0]) + n > len(writer):
            return False
        run = slice(int(lin[0]), int(lin[0]) + n)
        w = writer[run].reshape(batch.ngroups, -1)
        r = reader[run].reshape(batch.ngroups, -1)
        g = (batch.groups + 1).astype(np.int32)[:, None]
        if ((w != NONE) & (w != g)).any():
            self.shared = True
        elif event.kind in _WRITES:
            if ((r != NONE) & (r != g)).any():
                self.shared = True
            w[...] = g
        elif event.kind in _READS:
            r[...] = np.where((r == NONE) | (r == g), g, SEVERAL)
        return True

    def _where(self, batch: Any, event: Any, size: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The bytes the event touched (an index array) and each one's work-group."""
        P = batch.geom.lanes_per_group
        block = event.kind.startswith("block")
        lanes = np.asarray(event.lanes, np.int64)
        if not len(lanes):
            return None
        groups = (batch.groups[lanes // P] + 1).astype(np.int32)
        offsets = np.asarray(event.offsets, np.int64)
        if block:  # lane l's element i is at start + (l + i·S)·size (docs/internals.md)
            S = batch.geom.sub_group_size
            size_of = event.nbytes // event.count
            elements = (lanes % S)[:, None] + np.arange(event.count) * S
            offsets = (offsets[:, None] + elements * size_of).ravel()
            groups = np.repeat(groups, event.count)
            nbytes = size_of
        else:
            nbytes = event.nbytes
        idx = np.minimum((offsets[:, None] + np.arange(nbytes)).ravel(), size - 1)
        return idx, np.repeat(groups, nbytes)

    def memory_access(self, batch: Any, event: Any) -> None:
        if self.shared or event.space != "global" or event.allocation is None:
            return
        writer, reader = self._state(event.allocation)
        if self._contiguous(batch, event, writer, reader):
            return
        where = self._where(batch, event, len(writer))
        if where is None:
            return
        idx, g = where
        w = writer[idx]
        if ((w != NONE) & (w != g)).any():
            self.shared = True
            return
        if event.kind in _WRITES:
            r = reader[idx]
            writer[idx] = g
            if ((r != NONE) & (r != g)).any() or (writer[idx] != g).any():
                self.shared = True
        elif event.kind in _READS:
            r = reader[idx]
            new = np.where((r == NONE) | (r == g), g, SEVERAL).astype(np.int32)
            reader[idx] = new
            several = reader[idx] != new  # two work-groups read one byte in this event
            reader[idx[several]] = SEVERAL
