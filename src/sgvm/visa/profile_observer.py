"""The message profile as an engine observer: every global-memory event of a launch,
split into sub-groups and lowered with the model of :mod:`sgvm.visa.profile`.

:func:`lower_many` computes the sums :func:`~sgvm.visa.profile.lower_access`
would give for many sub-groups at once, with NumPy over ``(sub-groups, lanes)``
arrays, so profiling a large launch costs a few array passes per memory
instruction rather than a Python call per sub-group.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np

from .errors import VisaError
from .profile import (
    CACHE_LINE,
    KINDS,
    MessageProfile,
    ProfileEntry,
    _block_chunks,
    _exec_size,
    _oword_blocks,
)

_UNPROFILED_SPACES = ("local", "private")  # SLM and scratch: outside the model
_NONE = np.uint64(np.iinfo(np.uint64).max)
_LINE_SHIFT = np.uint64(CACHE_LINE.bit_length() - 1)


def _distinct_lines(starts: np.ndarray, span: int, on: np.ndarray, dense: bool) -> int:
    """Distinct cache lines that ``span`` bytes from each active start touch, summed over
    rows. ``dense``: every lane is active."""
    rows = len(starts)
    first = starts >> _LINE_SHIFT
    if CACHE_LINE % span == 0 and not (starts & np.uint64(span - 1)).any():
        cand, valid = first, on  # aligned power-of-two spans stay inside one line
    else:
        most = (span - 1) // CACHE_LINE + 2  # lines one lane may touch
        last = (starts + np.uint64(span - 1)) >> _LINE_SHIFT
        cand = first[..., None] + np.arange(most, dtype=np.uint64)
        valid = (on[..., None] & (cand <= last[..., None])).reshape(rows, -1)
        cand = cand.reshape(rows, -1)
        dense = False
    if not dense:
        cand = np.where(valid, cand, _NONE)
    cand.sort(axis=1)
    changes = cand[:, 1:] != cand[:, :-1]
    if dense:
        return rows + int(np.count_nonzero(changes))
    return (int(np.count_nonzero(cand[:, 0] != _NONE))
            + int(np.count_nonzero(changes & (cand[:, 1:] != _NONE))))


def _scattered(kind: str, addr: np.ndarray, on: np.ndarray, size: int, sg: int, out: ProfileEntry) -> None:
    atomic = kind == "atomic"
    dense = bool(on.all())
    if atomic:
        if size not in (4, 8):
            raise VisaError(f"atomic of {size} bytes: SVM atomics are 4- or 8-byte")
        groups: list[tuple[int, Any]] = [(size, slice(None))]
    else:
        low = np.bitwise_or.reduce((addr if dense else np.where(on, addr, np.uint64(0)))
                                   & np.uint64(7), axis=1)
        block = np.where((size % 8 == 0) & (low == 0), 8,
                         np.where((size % 4 == 0) & (low & np.uint64(3) == 0), 4, 1))
        values = np.unique(block).tolist()
        groups = [(values[0], slice(None))] if len(values) == 1 else [(b, block == b) for b in values]
    width = _exec_size(sg, 8 if atomic else 16)
    name = KINDS[kind]
    for b, rows in groups:
        max_blocks = 1 if width < 8 else (8 if width == 8 and b in (1, 4) else 4)
        chunks = _block_chunks(size // b, max_blocks)
        for lo in range(0, sg, width):
            on_s = on[rows, lo : lo + width]
            addr_s = addr[rows, lo : lo + width]
            if dense:
                issued, lanes = len(on_s), on_s.size
            else:
                issued, lanes = int(on_s.any(axis=1).sum()), int(on_s.sum())
            offset = 0
            for nb in chunks:
                span = nb * b
                lines = _distinct_lines(addr_s + np.uint64(offset), span, on_s, dense)
                out.messages += issued
                out.by_kind[name] += issued
                out.bytes_requested += lanes * span
                out.bytes_moved += CACHE_LINE * lines
                out.cache_lines += lines
                offset += span


def _block(kind: str, base: np.ndarray, total: int, out: ProfileEntry) -> None:
    rows = len(base)
    for done, _, span in _oword_blocks(total):
        start = base + np.uint64(done)
        lines = int(((start + np.uint64(span - 1)) // np.uint64(CACHE_LINE)
                     - start // np.uint64(CACHE_LINE) + np.uint64(1)).sum())
        out.messages += rows
        out.by_kind[KINDS[kind]] += rows
        out.bytes_requested += rows * min(span, total - done)
        out.bytes_moved += CACHE_LINE * lines
        out.cache_lines += lines


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


def _linear_sums(kind: str, start: int, stride: int, rows: int, size: int, sg: int) -> ProfileEntry:
    """:func:`lower_many` for ``rows`` full sub-groups whose lane ``k`` accesses
    ``start + stride × k``. Sub-group ``r + period`` is sub-group ``r`` shifted by whole
    cache lines, so it issues the same messages: only one period is lowered."""
    period = CACHE_LINE // math.gcd(stride * sg, CACHE_LINE)

    def rows_from(n: int) -> ProfileEntry:
        k = np.arange(n * sg, dtype=np.int64).reshape(n, sg)
        addr = (start + stride * k).astype(np.uint64)
        return lower_many(kind, addr, np.ones(addr.shape, bool), size, sg)

    whole, rest = divmod(rows, period)
    out = ProfileEntry()
    if whole:
        one = rows_from(period)
        out.merge(_times(one, whole))
    if rest:
        out.merge(rows_from(rest))
    return out


def _times(entry: ProfileEntry, n: int) -> ProfileEntry:
    """``entry``'s sums ``n`` times over."""
    return ProfileEntry(entry.accesses * n, entry.messages * n, entry.bytes_requested * n,
                        entry.bytes_moved * n, entry.cache_lines * n,
                        Counter({k: v * n for k, v in entry.by_kind.items()}))


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
        sg = batch.geom.sub_group_size
        source = source_of(event.inst, self.files)
        linear = event.linear
        if linear is not None:
            sums = _linear_sums(event.kind, event.allocation.base + linear[0], linear[1],
                                batch.L // sg, event.nbytes, sg)
            self.profile.add(batch.kernel, source, sums)
            return
        lanes = event.lanes
        if not len(lanes):
            return
        addr = event.offsets + np.uint64(event.allocation.base)
        if len(lanes) == batch.L:  # every lane: already [sub-group][lane]
            rows, on = addr.reshape(-1, sg), np.ones((batch.L // sg, sg), bool)
        else:  # lay the lanes out [sub-group][lane], keep the sub-groups that accessed
            full = np.zeros(batch.L, np.uint64)
            full[lanes] = addr
            hit = np.zeros(batch.L, bool)
            hit[lanes] = True
            on = hit.reshape(-1, sg)
            keep = on.any(axis=1)
            rows, on = full.reshape(-1, sg)[keep], on[keep]
        sums = lower_many(event.kind, rows, on, event.nbytes, sg)
        self.profile.add(batch.kernel, source, sums)
