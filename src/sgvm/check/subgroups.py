"""Families 1–4: sub-group shuffles, divergent sub-group functions, non-uniform arguments.

Reads the ``sgvm.semantics`` masks the engine puts on each CollectiveEvent
(``out_of_range``, ``source_inactive``, ``not_uniform``, ``broadcast_undefined``,
``local_id_out_of_range``) and the event's active/live lanes; sub-group
barriers come as barrier events with Subgroup execution scope.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .plugin import Plugin, divergent_barrier_lanes, group_lanes

SUBGROUP_SCOPE = 3
SHUFFLES = {
    "OpSubgroupShuffleINTEL": ("shuffle-out-of-range", "intel_sub_group_shuffle"),
    "OpSubgroupShuffleDownINTEL": ("shuffle-down-out-of-range", "intel_sub_group_shuffle_down"),
    "OpSubgroupShuffleUpINTEL": ("shuffle-up-out-of-range", "intel_sub_group_shuffle_up"),
    "OpSubgroupShuffleXorINTEL": ("shuffle-xor-out-of-range", "intel_sub_group_shuffle_xor"),
}
BLOCK_IO = ("OpSubgroupBlockReadINTEL", "OpSubgroupBlockWriteINTEL",
            "OpSubgroupImageBlockReadINTEL", "OpSubgroupImageBlockWriteINTEL")


def flagged_lanes(diag: Any, active: np.ndarray) -> np.ndarray:
    """Batch lanes named by a (G, K) per-lane mask, or one lane per group of a (G,) mask."""
    d = np.asarray(diag, bool)
    if d.ndim == 2:
        return np.flatnonzero(d & active)
    return group_lanes(np.broadcast_to(d, active.shape[:1]), active)


class SubgroupPlugin(Plugin):
    """Shuffle indices and sources, sub-group divergence, uniform arguments."""

    def collective(self, st: Any, ev: Any) -> None:
        d, act = ev.diagnostics, ev.active
        if ev.op in SHUFFLES:
            category, name = SHUFFLES[ev.op]
            if "out_of_range" in d:
                self.flag(st, category, flagged_lanes(d["out_of_range"], act),
                          f"{name} index out of range for a maximum sub-group size of {act.shape[1]}")
            if "source_inactive" in d:
                self.flag(st, "shuffle-source-inactive", flagged_lanes(d["source_inactive"], act),
                          f"{name} reads a work-item that did not execute it")
            return
        workgroup = ev.scope == "Workgroup"
        if not workgroup and st.mask is not None:  # None: every lane executes it
            self.flag(st, "subgroup-divergence", group_lanes(ev.divergent(), act),
                      f"{_name(ev.op)} executed by only some work-items of a sub-group")
        nu = np.asarray(d.get("not_uniform", False), bool)
        if ev.op == "OpGroupBroadcast":
            prefix = "work-group-broadcast-id" if workgroup else "broadcast-lane"
            what = "work_group_broadcast local id" if workgroup else "sub_group_broadcast lane id"
            self.flag(st, prefix + "-not-uniform", flagged_lanes(nu, act),
                      f"{what} differs between work-items")
            bad = np.asarray(d.get("broadcast_undefined", False), bool) & ~nu
            bad = bad | np.asarray(d.get("local_id_out_of_range", False), bool)
            self.flag(st, prefix + "-invalid", flagged_lanes(bad, act),
                      f"{what} names no work-item that executes the broadcast")
        elif ev.op in BLOCK_IO:
            self.flag(st, "block-argument-not-uniform", flagged_lanes(nu, act),
                      f"{_name(ev.op)}: pointer, image or coordinate differs between work-items")

    def barrier(self, st: Any, operands: list[int], mask: Any) -> None:
        if operands[0] != SUBGROUP_SCOPE or mask is None:
            return
        self.flag(st, "subgroup-barrier-divergence",
                  divergent_barrier_lanes(st, mask, st.geom.sub_group_size),
                  "sub_group_barrier reached by only some work-items of a sub-group")


def _name(op: str) -> str:
    """A readable name for a group opcode."""
    return op.removeprefix("Op").replace("INTEL", "")
