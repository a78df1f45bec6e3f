"""Family 6: work-group barriers and work-group functions reached by only some work-items.

The engine runs a work-group's lanes in lock-step and reconverges them at
post-dominators, so the lanes of a work-group that reach a barrier together
are all that reach it then: a work-group with some but not all of its
(live) lanes in the mask executed it in divergent control flow.
"""

from __future__ import annotations

from typing import Any

from .plugin import Plugin, divergent_barrier_lanes, group_lanes

WORKGROUP_SCOPE = 2


class BarrierPlugin(Plugin):
    """Divergent work-group barriers and work-group collectives."""

    def barrier(self, st: Any, operands: list[int], mask: Any) -> None:
        if operands[0] != WORKGROUP_SCOPE or mask is None:
            return
        self.flag(st, "barrier-divergence",
                  divergent_barrier_lanes(st, mask, st.geom.lanes_per_group),
                  "barrier reached by only some work-items of a work-group")

    def collective(self, st: Any, ev: Any) -> None:
        if ev.scope != "Workgroup" or st.mask is None:  # None: every lane executes it
            return
        name = ev.op.removeprefix("Op")
        self.flag(st, "work-group-divergence", group_lanes(ev.divergent(), ev.active),
                  f"work-group function ({name}) executed by only some work-items of a work-group")
