"""The base of every checker plugin: lane numbers → offenders → findings.

A plugin is an engine observer (docs/internals.md, "Observer events") that
implements some of ``memory_access``, ``memory_fault``, ``barrier``,
``collective`` and ``instruction``; the engine knows nothing about the checks.
One plugin instance serves one launch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .finding import MAX_OFFENDERS, Offender, Report


class Plugin:
    """Shared state and the ``flag`` helper; subclasses add event methods."""

    def __init__(self, report: Report, module: Any, kernel: str):
        self.report = report
        self.module = module
        self.kernel = kernel

    def flag(self, st: Any, category: str, lanes: np.ndarray, message: str,
             inst: Any = None) -> None:
        """Report the batch lanes ``lanes`` (int array, or bool mask over the batch) as
        offenders of ``category`` at ``inst`` (default: the executing instruction)."""
        lanes = np.asarray(lanes)
        if lanes.dtype == bool:
            lanes = np.flatnonzero(lanes)
        if not len(lanes):
            return
        inst = inst if inst is not None else st.inst
        loc = getattr(inst, "location", None)
        self.report.add(category, self.kernel, loc, message,
                        [offender(st, int(k)) for k in lanes[:MAX_OFFENDERS]], len(lanes))


def offender(st: Any, lane: int) -> Offender:
    """Work-group id, sub-group id, sub-group lane and global id of batch lane ``lane``."""
    P, S = st.geom.lanes_per_group, st.geom.sub_group_size
    dim = st.geom.ndrange.work_dim
    wg = tuple(int(v) for v in st.group_id[lane // P][:dim])
    return Offender(wg, (lane % P) // S, (lane % P) % S, st.gid_of(lane))


def group_lanes(groups: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Batch lanes of the active lanes of the flagged groups (``groups`` bool (G,),
    ``active`` (G, K)); a group's first active lane stands for it."""
    G, K = active.shape
    first = np.argmax(active, axis=1)
    g = np.flatnonzero(np.asarray(groups, bool) & active.any(axis=1))
    return g * K + first[g]


def divergent_barrier_lanes(st: Any, mask: np.ndarray, k: int) -> np.ndarray:
    """Batch lanes standing for the runs of ``k`` lanes (work-groups or sub-groups)
    where some but not all live lanes are in ``mask``: a barrier reached divergently."""
    act = mask.reshape(-1, k)
    live = np.ones_like(act) if st.live is None else st.live.reshape(-1, k)
    divergent = act.any(axis=1) & (act != live).any(axis=1)
    return group_lanes(divergent, act)
