"""The message profile as an engine observer: every global-memory event of a launch,
split into sub-groups and lowered with the model of :mod:`sgvm.visa.profile`.

:func:`lower_many` computes the sums :func:`~sgvm.visa.profile.lower_access`
would give for many sub-groups at once, with NumPy over ``(sub-groups, lanes)``
arrays, so profiling a large launch costs a few array passes per memory
instruction rather than a Python call per sub-group.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .errors import VisaError
from .profile import (
    CACHE_LINE,
    KINDS,
    OWORD,
    MessageProfile,
    ProfileEntry,
    _block_chunks,
    _exec_size,
)

_UNPROFILED_SPACES = ("local", "private")  # SLM and scratch: outside the model
_NONE = np.iinfo(np.uint64).max


def _distinct_lines(starts: np.ndarray, span: int, on: np.ndarray) -> np.ndarray:
    """Per row: distinct cache lines that ``span`` bytes from each active start touch."""
    first = starts // np.uint64(CACHE_LINE)
    last = (starts + np.uint64(span - 1)) // np.uint64(CACHE_LINE)
    most = (span - 1) // CACHE_LINE + 2  # lines one lane may touch
    cand = first[..., None] + np.arange(most, dtype=np.uint64)
    valid = on[..., None] & (cand <= last[..., None])
    flat = np.where(valid, cand, np.uint64(_NONE)).reshape(len(starts), -1)
    flat.sort(axis=1)
    new = (flat[:, 1:] != flat[:, :-1]) & (flat[:, 1:] != _NONE)
    return (flat[:, 0] != _NONE) + new.sum(axis=1)


def _scattered(kind: str, addr: np.ndarray, on: np.ndarray, size: int, sg: int, out: ProfileEntry) -> None:
    atomic = kind == "atomic"
    if atomic:
        if size not in (4, 8):
            raise VisaError(f"atomic of {size} bytes: SVM atomics are 4- or 8-byte")
        block = np.full(len(addr), size)
    else:
        low = np.bitwise_or.reduce(np.where(on, addr, np.uint64(0)) & np.uint64(7), axis=1)
        block = np.where((size % 8 == 0) & (low == 0), 8,
                         np.where((size % 4 == 0) & (low & np.uint64(3) == 0), 4, 1))
    width = _exec_size(sg, 8 if atomic else 16)
    name = KINDS[kind]
    for b in np.unique(block).tolist():
        rows = block == b
        max_blocks = 1 if width < 8 else (8 if width == 8 and b in (1, 4) else 4)
        chunks = _block_chunks(size // b, max_blocks)
        for lo in range(0, sg, width):
            on_s = on[rows, lo : lo + width]
            addr_s = addr[rows, lo : lo + width]
            issued = int(on_s.any(axis=1).sum())
            lanes = int(on_s.sum())
            offset = 0
            for nb in chunks:
                span = nb * b
                lines = int(_distinct_lines(addr_s + np.uint64(offset), span, on_s).sum())
                out.messages += issued
                out.by_kind[name] += issued
                out.bytes_requested += lanes * span
                out.bytes_moved += CACHE_LINE * lines
                out.cache_lines += lines
                offset += span


def _block(kind: str, base: np.ndarray, total: int, out: ProfileEntry) -> None:
    rows = len(base)
    done = 0
    while done < total:
        left = total - done
        owords = 8
        while owords > 1 and owords * OWORD > left:
            owords //= 2
        span = owords * OWORD
        start = base + np.uint64(done)
        lines = int(((start + np.uint64(span - 1)) // np.uint64(CACHE_LINE)
                     - start // np.uint64(CACHE_LINE) + np.uint64(1)).sum())
        out.messages += rows
        out.by_kind[KINDS[kind]] += rows
        out.bytes_requested += rows * min(span, left)
        out.bytes_moved += CACHE_LINE * lines
        out.cache_lines += lines
        done += span


def lower_many(kind: str, addresses: np.ndarray, active: np.ndarray, access_size: int,
               sub_group_size: int) -> ProfileEntry:
    """The sums of :func:`lower_access` over the rows of ``(sub-groups, lanes)`` arrays.

    Every row counts as one access. For block kinds a row's block starts at the
    address of its first active lane.
    """
    if kind not in KINDS:
        raise VisaError(f"unknown access kind {kind!r}: expected one of {', '.join(KINDS)}")
    addr = np.asarray(addresses, np.uint64)
    on = np.asarray(active, bool)
    if addr.shape != on.shape or addr.ndim != 2 or addr.shape[1] > sub_group_size:
        raise VisaError(f"addresses {addr.shape} and active {on.shape} must be equal "
                        f"(sub-groups, ≤ {sub_group_size}) arrays")
    if access_size <= 0:
        raise VisaError(f"access size {access_size} is not positive")
    out = ProfileEntry(accesses=len(addr))
    live = on.any(axis=1)
    if not live.all():
        addr, on = addr[live], on[live]
    if not len(addr):
        return out
    if kind.startswith("block_"):
        first = on.argmax(axis=1)
        _block(kind, addr[np.arange(len(addr)), first], sub_group_size * access_size, out)
        return out
    pad = sub_group_size - addr.shape[1]
    if pad:
        addr = np.pad(addr, ((0, 0), (0, pad)))
        on = np.pad(on, ((0, 0), (0, pad)))
    _scattered(kind, addr, on, access_size, sub_group_size, out)
    return out


def source_of(inst: Any, files: Mapping[str, str] | None = None) -> str:
    """``"file:line"`` of an instruction, "?" without a location (built without ``-g``)."""
    loc = getattr(inst, "location", None)
    if loc is None:
        return "?"
    name = files.get(loc.file, loc.file) if files else loc.file
    return f"{name}:{loc.line}"


class ProfileObserver:
    """Engine observer that feeds a :class:`MessageProfile`: ``launch(..., observers=[obs])``.

    ``files`` renames source files as clang recorded them (``{"<kernel>": "k.cl"}``).
    Local and private accesses are not profiled (the model covers global memory).
    """

    def __init__(self, profile: MessageProfile | None = None,
                 files: Mapping[str, str] | None = None) -> None:
        self.profile = profile if profile is not None else MessageProfile()
        self.files = dict(files or {})

    def memory_access(self, batch: Any, event: Any) -> None:
        """Split one event's lanes into sub-groups and record their messages."""
        if event.space in _UNPROFILED_SPACES or event.allocation is None:
            return
        lanes = event.lanes
        if not len(lanes):
            return
        sg = batch.geom.sub_group_size
        addr = event.offsets + np.uint64(event.allocation.base)
        if len(lanes) == batch.L:  # every lane: already [sub-group][lane]
            rows, on = addr.reshape(-1, sg), np.ones((batch.L // sg, sg), bool)
        else:
            group = lanes // sg
            change = np.empty(len(group), bool)
            change[0] = True
            np.not_equal(group[1:], group[:-1], out=change[1:])
            row = np.cumsum(change) - 1
            rows = np.zeros((int(row[-1]) + 1, sg), np.uint64)
            on = np.zeros(rows.shape, bool)
            rows[row, lanes % sg] = addr
            on[row, lanes % sg] = True
        sums = lower_many(event.kind, rows, on, event.nbytes, sg)
        self.profile.add(batch.kernel, source_of(event.inst, self.files), sums)
