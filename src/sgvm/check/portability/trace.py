"""What each source site saw in one run: the observer behind the report's attributions.

Per site (a SPIR-V instruction, with its source location when built with ``-g``)
and per work-item (global linear id), ``Trace`` folds the values the work-item
observed into a 64-bit hash: the sub-group built-in variables it read
(``get_sub_group_size()`` ...) and the bytes its loads read from global, local and
private memory. Two runs that differ in one variant are compared site by site
(:func:`differing_sites`): a built-in read that returned something else, or a
load that read something else, is where the run's behaviour parted. Collectives
and atomics are recorded as executed (sites only).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

# SPIR-V built-in variable → the OpenCL C function that reads it.
SUB_GROUP_BUILTINS: dict[str, str] = {
    "SubgroupSize": "get_sub_group_size()",
    "SubgroupMaxSize": "get_max_sub_group_size()",
    "SubgroupId": "get_sub_group_id()",
    "SubgroupLocalInvocationId": "get_sub_group_local_id()",
    "NumSubgroups": "get_num_sub_groups()",
    "NumEnqueuedSubgroups": "get_enqueued_num_sub_groups()",
}
MAX_TRACED_WORK_ITEMS = 1 << 22
_MUL = np.uint64(1000003)
_U32 = np.dtype(np.uint32)


@dataclass
class Site:
    """One instruction that the trace watched."""

    inst: Any
    what: str  # the built-in function, "global load", "local load", an op name ...
    kind: str  # "builtin", "load", "collective", "atomic"
    space: str = ""

    @property
    def location(self) -> Any:
        return self.inst.location

    def sort_key(self) -> tuple:
        loc = self.location
        return (loc is None, loc.file if loc else "", loc.line if loc else 0,
                loc.column if loc else 0)


class Trace:
    """The observer (docs/internals.md, "Observer events") that records one run."""

    instructions = frozenset({"OpLoad"})

    def __init__(self, builtin_vars: dict[int, str], work_items: int):
        self.builtin_vars = {v: n for v, n in builtin_vars.items() if n in SUB_GROUP_BUILTINS}
        self.values = work_items <= MAX_TRACED_WORK_ITEMS
        self.work_items = work_items
        self.sites: dict[int, Site] = {}  # id(inst) → Site
        self.hashes: dict[int, np.ndarray] = {}
        self.seen: dict[int, np.ndarray] = {}

    # -- recording -------------------------------------------------------------
    def _work_items(self, batch: Any, lanes: np.ndarray) -> np.ndarray:
        wid = batch._cache.get("portability:wid")
        if wid is None:
            wid = batch._cache["portability:wid"] = batch._builtin(
                "GlobalLinearId", np.dtype(np.int64), 1)
        return wid[lanes]

    def _site(self, inst: Any, what: str, kind: str, space: str = "") -> int:
        key = id(inst)
        if key not in self.sites:
            self.sites[key] = Site(inst, what, kind, space)
        return key

    def _fold(self, key: int, wi: np.ndarray, values: np.ndarray) -> None:
        if not self.values or not len(wi):
            return
        h = self.hashes.get(key)
        if h is None:
            h = self.hashes[key] = np.zeros(self.work_items, np.uint64)
            self.seen[key] = np.zeros(self.work_items, bool)
        with np.errstate(over="ignore"):
            h[wi] = h[wi] * _MUL + values.astype(np.uint64) + np.uint64(1)
        self.seen[key][wi] = True

    def _active(self, batch: Any) -> np.ndarray:
        m = np.ones(batch.L, bool) if batch.mask is None else batch.mask
        return np.flatnonzero(m if batch.live is None else m & batch.live)

    def instruction(self, batch: Any, inst: Any, regs: list) -> None:
        name = self.builtin_vars.get(inst.operands[0].value)
        if name is None:
            return
        key = self._site(inst, SUB_GROUP_BUILTINS[name], "builtin")
        if not self.values:
            return
        lanes = self._active(batch)
        value = np.broadcast_to(np.asarray(batch._builtin(name, _U32, 1)), (batch.L,))
        self._fold(key, self._work_items(batch, lanes), value[lanes])

    def memory_access(self, batch: Any, event: Any) -> None:
        if event.inst is None:
            return
        if event.kind == "atomic":
            self._site(event.inst, "atomic", "atomic", event.space)
            return
        if event.kind in ("block_read", "block_write"):  # a sub-group operation
            self._site(event.inst, f"intel_sub_group_{event.kind}", "collective", "Subgroup")
            return
        if event.kind != "load":
            return
        key = self._site(event.inst, f"{event.space} load", "load", event.space)
        if not self.values:
            return
        lanes = np.asarray(event.lanes, np.int64)
        if not len(lanes):
            return
        data = event.allocation.data
        offs = np.asarray(event.offsets, np.int64)[:, None] + np.arange(event.nbytes)
        raw = data[np.clip(offs, 0, len(data) - 1)].astype(np.uint64)
        weights = np.uint64(257) ** np.arange(event.nbytes, dtype=np.uint64)
        with np.errstate(over="ignore"):
            value = (raw * weights).sum(axis=1, dtype=np.uint64)
        self._fold(key, self._work_items(batch, lanes), value)

    def collective(self, batch: Any, event: Any) -> None:
        if batch.inst is not None:
            name = event.op if not event.operation else f"{event.op} {event.operation}"
            self._site(batch.inst, name, "collective", event.scope)


def differing_sites(a: Trace, b: Trace, kind: str, spaces: tuple[str, ...] = ()) -> list[Site]:
    """Sites of ``kind`` (``builtin``/``load``) whose values differ for some work-item both
    runs saw there, in source order; ``spaces`` restricts loads to those address spaces."""
    out = []
    for key, site in a.sites.items():
        if site.kind != kind or (spaces and site.space not in spaces) or key not in b.hashes \
                or key not in a.hashes:
            continue
        both = a.seen[key] & b.seen[key]
        if (a.hashes[key][both] != b.hashes[key][both]).any() or (a.seen[key] != b.seen[key]).any():
            out.append(site)
    return sorted(out, key=Site.sort_key)


def executed_sites(a: Trace, kind: str, names: frozenset[str] | None = None) -> list[Site]:
    """Sites of ``kind`` that ran (collectives: only ops whose name starts with one of
    ``names``), in source order."""
    return sorted((s for s in a.sites.values() if s.kind == kind
                   and (names is None or s.what.split()[0] in names)), key=Site.sort_key)
