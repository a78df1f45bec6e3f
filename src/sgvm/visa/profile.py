"""Message profile: which memory messages an Intel GPU would issue for a kernel's accesses.

:func:`lower_access` turns ONE sub-group memory access into :class:`Message`
records; :class:`MessageProfile` sums them per (kernel, "file:line").

Model (assumptions, documented in ``docs/visa.md``):

* Plain loads/stores become SVM_GATHER/SVM_SCATTER with the largest exec size
  the spec allows, 16 ("0b100: 16 elements"): SIMD8 and SIMD16 sub-groups are
  one message per block group, SIMD32 two (channels 0-15 under M1, 16-31 under
  M5). Sub-groups under 8 lanes use the smallest exec size 1/2/4/8 that holds them.
* Block size: 8 if the access size and every active address are multiples of
  8, else 4 likewise, else 1 ("Each address must be aligned to the
  <block_size>"). Blocks per address: the access size over the block size, cut
  into messages of 1/2/4 blocks (8 where the spec admits 8: exec size 8 with
  4- or 1-byte blocks; only 1 at exec size < 8: "When num_blocks > 1,
  exec_size must >= 8").
* Atomics are SVM_ATOMIC, one 4- or 8-byte block per lane, at most 8 channels
  per message (SIMD8 A64 atomics).
* Block reads/writes are OWORD_BLOCK_READ/WRITE of 1, 2, 4 or 8 owords (16
  bytes each) starting at lane 0's address and covering ``sub_group_size ×
  access_size`` bytes, whatever the active lanes (block messages "ignore the
  channel enable and always perform the operation"); ``exec_size`` is 1,
  ``block_size`` 16 and ``num_blocks`` the oword count.
* A message whose channels are all disabled is not issued; disabled channels
  request and touch nothing.
* ``bytes_moved`` is 64 bytes per distinct cache line the message touches: the
  traffic between the cache and the EU, which is what coalescing changes.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from .errors import VisaError

CACHE_LINE = 64
OWORD = 16
KINDS = {
    "load": "SVM_GATHER",
    "store": "SVM_SCATTER",
    "atomic": "SVM_ATOMIC",
    "block_read": "OWORD_BLOCK_READ",
    "block_write": "OWORD_BLOCK_WRITE",
}


@dataclass(frozen=True)
class Message:
    """One message sent to the data port."""

    kind: str
    exec_size: int
    block_size: int
    num_blocks: int
    bytes_requested: int
    bytes_moved: int
    cache_lines: frozenset[int]


def _lines(starts: np.ndarray, length: int) -> frozenset[int]:
    """Cache lines touched by ``length`` bytes from each of ``starts``."""
    first = starts // CACHE_LINE
    last = (starts + (length - 1)) // CACHE_LINE
    return frozenset(int(x) for f, l in zip(first, last, strict=True) for x in range(int(f), int(l) + 1))


def _message(kind: str, exec_size: int, block_size: int, num_blocks: int, requested: int,
             lines: frozenset[int]) -> Message:
    return Message(kind, exec_size, block_size, num_blocks, requested, CACHE_LINE * len(lines), lines)


def _exec_size(lanes: int, widest: int) -> int:
    return min(widest, 1 << max(lanes - 1, 0).bit_length())


def _block_chunks(blocks: int, max_blocks: int) -> list[int]:
    """``blocks`` cut greedily into legal Num_blocks values (powers of two ≤ max)."""
    chunks = []
    while blocks:
        nb = max_blocks
        while nb > blocks:
            nb //= 2
        chunks.append(nb)
        blocks -= nb
    return chunks


def _oword_blocks(total: int) -> list[tuple[int, int, int]]:
    """``total`` bytes cut into OWord block messages: ``(start, owords, span)`` each,
    the largest power-of-two OWord count (≤ 8) not past the bytes left, the last
    rounded up to one OWord."""
    out, done = [], 0
    while done < total:
        left = total - done
        owords = 8
        while owords > 1 and owords * OWORD > left:
            owords //= 2
        out.append((done, owords, owords * OWORD))
        done += owords * OWORD
    return out


def _scattered(kind: str, addr: np.ndarray, size: int, active: np.ndarray, sg: int) -> list[Message]:
    atomic = kind == "SVM_ATOMIC"
    if atomic:
        if size not in (4, 8):
            raise VisaError(f"atomic of {size} bytes: SVM atomics are 4- or 8-byte")
        block = size
    else:
        used = addr[active]
        block = next(b for b in (8, 4, 1) if size % b == 0 and not np.any(used % np.uint64(b)))
    width = _exec_size(sg, 8 if atomic else 16)
    if width < 8:
        max_blocks = 1
    elif width == 8 and block in (1, 4):
        max_blocks = 8
    else:
        max_blocks = 4
    messages = []
    for lo in range(0, sg, width):
        on = active[lo : lo + width]
        if not on.any():
            continue
        starts = addr[lo : lo + width][on]
        offset = 0
        for nb in _block_chunks(size // block, max_blocks):
            span = nb * block
            lines = _lines(starts + np.uint64(offset), span)
            messages.append(_message(kind, width, block, nb, int(on.sum()) * span, lines))
            offset += span
    return messages


def _block(kind: str, base: int, total: int) -> list[Message]:
    messages = []
    for done, owords, span in _oword_blocks(total):
        lines = _lines(np.array([base + done], dtype=np.uint64), span)
        messages.append(_message(kind, 1, OWORD, owords, min(span, total - done), lines))
    return messages


def lower_access(
    kind: str,
    addresses: ArrayLike,
    access_size: int,
    active: ArrayLike,
    sub_group_size: int,
) -> list[Message]:
    """The messages one sub-group access issues.

    ``kind``: "load", "store", "atomic", "block_read" or "block_write";
    ``addresses``: per-lane byte addresses (uint64, one per lane present, at
    most ``sub_group_size``; for block kinds lane 0's is the block's start);
    ``access_size``: bytes per lane; ``active``: per-lane bools;
    ``sub_group_size``: the SIMD width the kernel was compiled for.
    """
    if kind not in KINDS:
        raise VisaError(f"unknown access kind {kind!r}: expected one of {', '.join(KINDS)}")
    addr = np.asarray(addresses, dtype=np.uint64).ravel()
    on = np.asarray(active, dtype=bool).ravel()
    if addr.shape != on.shape or addr.size > sub_group_size:
        raise VisaError(
            f"{addr.size} addresses and {on.size} active flags for a sub-group of {sub_group_size}"
        )
    if access_size <= 0:
        raise VisaError(f"access size {access_size} is not positive")
    if not on.any():
        return []
    if kind.startswith("block_"):
        return _block(KINDS[kind], int(addr[0]), sub_group_size * access_size)
    pad = sub_group_size - addr.size
    addr = np.concatenate([addr, np.zeros(pad, np.uint64)])
    on = np.concatenate([on, np.zeros(pad, bool)])
    return _scattered(KINDS[kind], addr, access_size, on, sub_group_size)


@dataclass
class ProfileEntry:
    """Sums for one (kernel, source line)."""

    accesses: int = 0
    messages: int = 0
    bytes_requested: int = 0
    bytes_moved: int = 0
    cache_lines: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)

    def add(self, messages: list[Message]) -> None:
        """Count one access and its messages."""
        self.accesses += 1
        for m in messages:
            self.messages += 1
            self.bytes_requested += m.bytes_requested
            self.bytes_moved += m.bytes_moved
            self.cache_lines += len(m.cache_lines)
            self.by_kind[m.kind] += 1

    def merge(self, other: ProfileEntry) -> None:
        """Add ``other``'s sums to these."""
        self.accesses += other.accesses
        self.messages += other.messages
        self.bytes_requested += other.bytes_requested
        self.bytes_moved += other.bytes_moved
        self.cache_lines += other.cache_lines
        self.by_kind.update(other.by_kind)

    @property
    def efficiency(self) -> float:
        """Bytes requested per byte moved (1.0: every fetched byte was used)."""
        return self.bytes_requested / self.bytes_moved if self.bytes_moved else 1.0

    def to_dict(self) -> dict[str, object]:
        """Plain-data form."""
        return {
            "accesses": self.accesses,
            "messages": self.messages,
            "by_kind": dict(sorted(self.by_kind.items())),
            "bytes_requested": self.bytes_requested,
            "bytes_moved": self.bytes_moved,
            "cache_lines": self.cache_lines,
            "efficiency": round(self.efficiency, 4),
        }


class MessageProfile:
    """Messages, bytes requested and moved, and cache lines, per (kernel, "file:line")."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], ProfileEntry] = {}

    def record(self, kernel: str, source: str, messages: list[Message]) -> None:
        """Count one sub-group access that issued ``messages``."""
        self._entries.setdefault((kernel, source), ProfileEntry()).add(messages)

    def add(self, kernel: str, source: str, sums: ProfileEntry) -> None:
        """Add sums computed elsewhere (e.g. for many sub-groups at once) to a line."""
        self._entries.setdefault((kernel, source), ProfileEntry()).merge(sums)

    def record_access(
        self,
        kernel: str,
        source: str,
        kind: str,
        addresses: ArrayLike,
        access_size: int,
        active: ArrayLike,
        sub_group_size: int,
    ) -> None:
        """Lower and record accesses: ``addresses``/``active`` are one sub-group's lanes,
        or ``(sub-groups, lanes)`` arrays for many sub-groups at once."""
        addr = np.asarray(addresses, dtype=np.uint64)
        on = np.asarray(active, dtype=bool)
        if addr.shape != on.shape or addr.ndim not in (1, 2):
            raise VisaError(f"addresses {addr.shape} and active {on.shape} must be equal 1-D or 2-D")
        rows = addr.reshape(-1, addr.shape[-1])
        for a, m in zip(rows, on.reshape(rows.shape), strict=True):
            self.record(kernel, source, lower_access(kind, a, access_size, m, sub_group_size))

    def merge(self, other: MessageProfile) -> None:
        """Add every line of ``other`` (another launch's profile) to this one."""
        for (kernel, source), sums in other._entries.items():
            self.add(kernel, source, sums)

    def entry(self, kernel: str, source: str) -> ProfileEntry:
        """The sums for one source line (empty if never recorded)."""
        return self._entries.get((kernel, source), ProfileEntry())

    def totals(self) -> ProfileEntry:
        """Sums over every line."""
        total = ProfileEntry()
        for e in self._entries.values():
            total.merge(e)
        return total

    def _rows(self) -> list[tuple[tuple[str, str], ProfileEntry]]:
        return sorted(self._entries.items(), key=lambda kv: (-kv[1].bytes_moved, kv[0]))

    def to_dict(self) -> dict[str, object]:
        """``{"lines": [{"kernel", "source", …sums}], "totals": {…}}``, busiest line first."""
        return {
            "lines": [{"kernel": k, "source": s, **e.to_dict()} for (k, s), e in self._rows()],
            "totals": self.totals().to_dict(),
        }

    def table(self) -> str:
        """A readable table, busiest line first, with a totals row."""
        head = ("kernel", "source", "accesses", "messages", "requested B", "moved B", "lines",
                "efficiency", "messages by kind")
        body = [
            (k, s, *self._cells(e)) for (k, s), e in self._rows()
        ] + [("total", "", *self._cells(self.totals()))]
        widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
        right = {2, 3, 4, 5, 6, 7}

        def fmt(row: tuple[str, ...]) -> str:
            pairs = enumerate(zip(row, widths, strict=True))
            cells = (c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in pairs)
            return "  ".join(cells).rstrip()

        rule = "  ".join("-" * w for w in widths)
        return "\n".join([fmt(head), rule, *(fmt(r) for r in body[:-1]), rule, fmt(body[-1])])

    @staticmethod
    def _cells(e: ProfileEntry) -> tuple[str, ...]:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(e.by_kind.items()))
        return (str(e.accesses), str(e.messages), str(e.bytes_requested), str(e.bytes_moved),
                str(e.cache_lines), f"{100 * e.efficiency:.0f}%", kinds)

    __str__ = table
