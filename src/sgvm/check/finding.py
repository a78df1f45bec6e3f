"""Findings and the report that collapses them by (kernel, category, site).

A finding names the offending work-items by work-group id, sub-group id and
sub-group lane (the first few, in the order they were met) and counts all of
them; repeats of one site and category add to ``count`` and ``events``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from .clauses import CATEGORIES, ERROR, Category

MAX_OFFENDERS = 3


@dataclass(frozen=True)
class Offender:
    """One offending work-item."""

    work_group: tuple[int, ...]
    sub_group: int
    lane: int
    global_id: tuple[int, ...]


@dataclass
class Finding:
    """One category at one source site of one kernel."""

    category: str
    severity: str
    kernel: str
    file: str
    line: int
    column: int
    message: str
    document: str
    clause: str
    hint: str
    count: int = 0  # offending work-item executions
    events: int = 0  # times the site misbehaved
    offenders: list[Offender] = field(default_factory=list)

    @property
    def site(self) -> str:
        return f"{self.file}:{self.line}:{self.column}" if self.line else self.file

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["offenders"] = [asdict(o) for o in self.offenders]
        return d


class Report:
    """All findings of a check, collapsed by (kernel, category, site)."""

    def __init__(self) -> None:
        self._by_key: dict[tuple, Finding] = {}

    def add(self, category: str, kernel: str, location: Any, message: str,
            offenders: list[Offender], count: int) -> None:
        """Record ``count`` offending work-items (``offenders``: the first few) at ``location``
        (a SourceLocation or None)."""
        cat: Category = CATEGORIES[category]
        file, line, col = (location.file, location.line, location.column) if location else (
            "<unknown>", 0, 0)
        key = (kernel, category, file, line, col)
        f = self._by_key.get(key)
        if f is None:
            f = self._by_key[key] = Finding(category, cat.severity, kernel, file, line, col, message,
                                            cat.document, cat.clause, cat.hint)
        f.count += count
        f.events += 1
        room = MAX_OFFENDERS - len(f.offenders)
        if room > 0:
            f.offenders.extend(o for o in offenders[:room] if o not in f.offenders)

    def merge(self, other: Report) -> None:
        """Add ``other``'s findings (same key: counts add up)."""
        for key, g in other._by_key.items():
            f = self._by_key.get(key)
            if f is None:
                self._by_key[key] = g
                continue
            f.count += g.count
            f.events += g.events
            f.offenders.extend(o for o in g.offenders[:MAX_OFFENDERS - len(f.offenders)]
                               if o not in f.offenders)

    @property
    def findings(self) -> list[Finding]:
        """Sorted by kernel, then site, then category."""
        return sorted(self._by_key.values(),
                      key=lambda f: (f.kernel, f.file, f.line, f.column, f.category))

    @property
    def has_errors(self) -> bool:
        return any(f.severity == ERROR for f in self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def clear(self) -> None:
        self._by_key.clear()
