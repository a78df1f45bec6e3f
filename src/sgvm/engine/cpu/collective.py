"""Lane arrays as groups, and the collective events observers receive.

The batch's lanes are laid out ``[work-group][sub-group][lane]`` (batch.py), so a
sub-group operation is a reshape of an ``(L[, N])`` lane array to
``(L // S, S[, N])`` and a work-group operation a reshape to ``(L // P, P[, N])``,
the shapes ``sgvm.semantics`` works on. :class:`Grouping` does these reshapes
for the lanes executing now (``Batch.mask``) and reports each collective to the
observers as a :class:`CollectiveEvent`.

Scopes (SPIR-V 1.6 s3.27 "Scope <id>"): ``Workgroup`` (2) and ``Subgroup`` (3)
are the scopes OpenCL's group instructions use; the scope operand must be a
constant.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import UnsupportedError
from ...semantics import first_active, not_uniform
from .batch import Batch
from .values import arr, is_lane_array, lanes

WORKGROUP, SUBGROUP = 2, 3
SCOPE_NAMES = {WORKGROUP: "Workgroup", SUBGROUP: "Subgroup"}


@dataclass
class CollectiveEvent:
    """One collective instruction, executed together by the lanes in ``active``.

    Observers with a ``collective(batch, event)`` method receive one per
    execution. ``active`` and ``live`` are (G, K) bool arrays, where K is the
    maximum sub-group size (``Subgroup`` scope) or the padded work-group size
    (``Workgroup`` scope) and batch lane ``g*K + k`` is ``[g, k]``. ``live`` marks
    the lanes that exist (the missing lanes of partial sub-groups and
    work-groups are padding): a group with some but not all live lanes active
    executed the collective in divergent control flow. ``diagnostics`` holds the
    undefined-behaviour masks of ``sgvm.semantics`` under their names there
    (``out_of_range``, ``source_inactive``, ``broadcast_undefined``,
    ``not_uniform``, ``local_id_out_of_range``, ``read_misaligned``, ...): (G, K)
    per lane or (G,) per group.
    """

    op: str
    scope: str
    active: np.ndarray
    live: np.ndarray
    operation: str = ""
    diagnostics: dict[str, Any] = field(default_factory=dict)

    def divergent(self) -> np.ndarray:
        """Bool (G,): groups where some but not all live lanes executed the collective."""
        some = self.active.any(axis=1)
        return some & (self.active != self.live).any(axis=1)


def constant_scope(ctx: Any, inst: Any, index: int) -> int:
    """The value of the constant Scope operand ``index`` of ``inst`` (Workgroup or Subgroup)."""
    sid = inst.operands[index].value
    value = ctx.constant(sid)
    if value is None:
        raise UnsupportedError(f"{inst.opname} (%{inst.result_id}): scope %{sid} is not a constant")
    scope = int(value)
    if scope not in SCOPE_NAMES:
        raise UnsupportedError(f"{inst.opname} (%{inst.result_id}): scope {scope} is neither "
                               "Workgroup nor Subgroup")
    return scope


class Grouping:
    """The executing lanes of a batch split into sub-groups or work-groups."""

    __slots__ = ("st", "scope", "K", "G", "active", "order", "lane_active")

    def __init__(self, st: Batch, scope: int):
        self.st = st
        self.scope = scope
        self.K = st.geom.sub_group_size if scope == SUBGROUP else st.geom.lanes_per_group
        self.G = st.L // self.K
        # Work-group scope under a mapping whose lane slots are not in linear-id order: the
        # (G, K) arrays hold each group's lanes in linear-local-id order (scan order, ids).
        self.order = st.wg_order() if scope == WORKGROUP else None
        mask = st.mask
        if mask is None:
            key = ("all-active", self.K)
            full = st._cache.get(key)
            if full is None:
                full = st._cache[key] = np.ones((self.G, self.K), dtype=bool)
            self.lane_active = full
        else:
            self.lane_active = mask.reshape(self.G, self.K)
        self.active = self._permute(self.lane_active)

    def _permute(self, x: np.ndarray) -> np.ndarray:
        if self.order is None:
            return x
        return np.take_along_axis(x, self.order.reshape(self.order.shape + (1,) * (x.ndim - 2)),
                                  axis=1)

    def split(self, x: Any, vector: bool) -> np.ndarray:
        """A register value as a (G, K[, N]) array (uniform values broadcast)."""
        v = np.asarray(lanes(x, self.st.L, vector))
        return self._permute(v.reshape((self.G, self.K) + v.shape[1:]))

    def split_index(self, x: Any) -> Any:
        """A scalar operand such as a shuffle index: uniform stays a scalar, else (G, K)."""
        v = arr(x)
        return v if np.ndim(v) == 0 else self._permute(v.reshape(self.G, self.K))

    def join(self, x: np.ndarray) -> np.ndarray:
        """(G, K[, N]) back to an (L[, N]) lane array."""
        if self.order is not None:
            out = np.empty_like(x)
            np.put_along_axis(out, self.order.reshape(self.order.shape + (1,) * (x.ndim - 2)),
                              x, axis=1)
            x = out
        return x.reshape((self.st.L,) + x.shape[2:])

    def first(self, x: np.ndarray) -> np.ndarray:
        """(G[, N]): each group's value in its first active lane (for uniform operands)."""
        return x[np.arange(self.G), first_active(self.active)]

    def per_lane(self, per_group: np.ndarray) -> np.ndarray:
        """(G[, N]) repeated to an (L[, N]) lane array."""
        return np.repeat(per_group, self.K, axis=0)

    def not_uniform(self, x: Any, vector: bool = False) -> np.ndarray:
        """Bool (G,): groups whose active lanes disagree on operand ``x`` (False when uniform)."""
        if not is_lane_array(x, vector):
            return np.zeros(self.G, dtype=bool)
        return not_uniform(self.split(x, vector), self.active)

    def live(self) -> np.ndarray:
        """Bool (G, K): the lanes that exist (not padding)."""
        live = self.st.live
        if live is None:
            return np.ones((self.G, self.K), dtype=bool)
        return live.reshape(self.G, self.K)

    def emit(self, op: str, operation: str = "", **diagnostics: Any) -> None:
        """Report the collective to the batch's observers (callers check ``st.obs_collective``);
        ``active`` and ``live`` in batch lane order, per-lane diagnostics too."""
        if self.order is not None:
            diagnostics = {k: self.join(v).reshape(self.G, self.K)
                           if np.ndim(v) == 2 and np.shape(v) == (self.G, self.K) else v
                           for k, v in diagnostics.items()}
        event = CollectiveEvent(op, SCOPE_NAMES[self.scope], self.lane_active, self.live(),
                                operation, diagnostics)
        for f in self.st.obs_collective:
            f(self.st, event)
