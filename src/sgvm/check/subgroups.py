"""Families 1–4, 10 and 11: sub-group shuffles, divergent sub-group functions, non-uniform
arguments, the cl_khr_subgroup_* undefined results, media block IO.

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
            "OpSubgroupImageBlockReadINTEL", "OpSubgroupImageBlockWriteINTEL",
            "OpSubgroupImageMediaBlockReadINTEL", "OpSubgroupImageMediaBlockWriteINTEL")
# cl_khr_subgroup_* operations that "need not be encountered by all work items in a
# sub-group": diagnostic key → (category, message).
NON_UNIFORM = {
    "out_of_range": ("khr-shuffle-out-of-range", "index outside the sub-group"),
    "source_inactive": ("khr-shuffle-source-inactive", "reads a work-item that did not execute it"),
    "broadcast_undefined": ("non-uniform-broadcast-lane-invalid",
                            "index names no work-item that executes the broadcast"),
    "bit_extract_undefined": ("ballot-bit-extract-out-of-range", "index outside the sub-group"),
    "find_undefined": ("ballot-find-no-bit", "no bit set in the bitfield"),
    "cluster_size_undefined": ("cluster-size-invalid",
                               "cluster size is not a constant power of two up to the "
                               "maximum sub-group size"),
}
NOT_UNIFORM = {
    "OpGroupNonUniformBroadcast": "non-uniform-broadcast-index-not-uniform",
    "OpGroupNonUniformRotateKHR": "rotate-delta-not-uniform",
    "OpGroupNonUniformInverseBallot": "inverse-ballot-value-not-uniform",
}
MEDIA_BLOCK = {  # diagnostic key → (category, message)
    "size_undefined": ("media-block-size-invalid", "width/height outside Table 6.X or not constant"),
    "x_misaligned": ("media-block-x-misaligned", "byte x-offset is not a multiple of 4"),
    "media_oob_undefined": ("media-block-out-of-bounds",
                            "out-of-bounds texels larger than the element"),
    "texel_size_undefined": ("media-block-wide-format", "image texels larger than 4 bytes"),
}


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
        if ev.op.startswith("OpGroupNonUniform"):
            self._non_uniform(st, ev)
            return
        if ev.op.startswith("OpSubgroupImageMediaBlock"):
            for key, (category, what) in MEDIA_BLOCK.items():
                if key in d:
                    self.flag(st, category, flagged_lanes(d[key], act), f"{_name(ev.op)}: {what}")
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

    def _non_uniform(self, st: Any, ev: Any) -> None:
        """cl_khr_subgroup_* operations: undefined results and arguments that must be uniform
        (``rotate-source-inactive`` for rotates, which never go out of range)."""
        d, act, name = ev.diagnostics, ev.active, _name(ev.op)
        for key, (category, what) in NON_UNIFORM.items():
            if key in d:
                if key == "source_inactive" and ev.op == "OpGroupNonUniformRotateKHR":
                    category = "rotate-source-inactive"
                self.flag(st, category, flagged_lanes(d[key], act), f"{name}: {what}")
        if ev.op in NOT_UNIFORM and "not_uniform" in d:
            self.flag(st, NOT_UNIFORM[ev.op], flagged_lanes(d["not_uniform"], act),
                      f"{name}: operand differs between the active work-items")

    def barrier(self, st: Any, operands: list[int], mask: Any) -> None:
        if operands[0] != SUBGROUP_SCOPE or mask is None:
            return
        self.flag(st, "subgroup-barrier-divergence",
                  divergent_barrier_lanes(st, mask, st.geom.sub_group_size),
                  "sub_group_barrier reached by only some work-items of a sub-group")


def _name(op: str) -> str:
    """A readable name for a group opcode."""
    return op.removeprefix("Op").replace("INTEL", "")
