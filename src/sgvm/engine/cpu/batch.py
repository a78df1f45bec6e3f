"""One batch of work-groups executing in lock-step, and its work-item built-ins.

Lane layout (DESIGN.md): lane ``k`` of the batch belongs to work-group
``k // P`` of the batch and has linear local id ``k % P``, where ``P`` is the
work-group volume rounded up to a multiple of the sub-group size ``S``. Lanes
whose linear id is not below the (possibly smaller, non-uniform) work-group's
volume are padding: permanently inactive. Sub-group id ``= linear // S`` and
sub-group local id ``= linear % S`` (cl_khr_subgroups; the same mapping in
every work-group). That is the ``linear`` mapping; the others of
``runtime.variant.slot_local_ids`` (``rows``, ``columns``) give each lane slot
``k % P`` another linear id (``Geometry.mapping``), so sub-groups stay runs of
``S`` consecutive lanes and only the ids change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import semantics as sem
from ...errors import KernelTimeout, UnsupportedError
from ...runtime.memory import Allocation
from ...runtime.ndrange import NDRange
from ...runtime.variant import Variant, slot_local_ids, sub_group_count
from .arenas import Arena
from .memory_events import MemoryEvent
from .values import affine

# SubgroupEqMask ... SubgroupLtMask (SPIR-V 1.6 s3.21; get_sub_group_<kind>_mask).
_MASKS = {f"Subgroup{k.capitalize()}Mask": k for k in ("eq", "ge", "gt", "le", "lt")}

U64 = np.dtype(np.uint64)
U32 = np.dtype(np.uint32)


@dataclass(frozen=True)
class Geometry:
    """The launch-wide facts every batch shares."""

    ndrange: NDRange
    sub_group_size: int
    lanes_per_group: int  # P
    variant: Variant = Variant()

    @property
    def group_volume(self) -> int:
        return self.ndrange.group_volume

    @property
    def mapping(self) -> str:
        return self.variant.mapping

    @property
    def identity_layout(self) -> bool:
        """Whether lane slot ``k`` has linear local id ``k`` in every work-group (every
        mapping agrees in 1-D work-groups)."""
        _, ly, lz = self.ndrange.local_size
        return self.mapping == "linear" or ly * lz == 1

    @staticmethod
    def lanes_for(ndrange: NDRange, S: int, variant: Variant) -> int:
        """P: the lane slots of a full work-group under ``variant``'s mapping."""
        if variant.mapping == "linear" or ndrange.local_size[1] * ndrange.local_size[2] == 1:
            return -(-ndrange.group_volume // S) * S
        return len(slot_local_ids(variant.mapping, ndrange.local_size, S))

    def slot_ids(self, size: tuple[int, int, int]) -> np.ndarray:
        """Linear local id per lane slot (P,) of a work-group of ``size`` (padding: >= volume)."""
        ids = slot_local_ids(self.mapping, size, self.sub_group_size)
        extra = self.lanes_per_group - len(ids)
        return np.concatenate([ids, len(ids) + np.arange(extra)]) if extra else ids


class Batch:
    """Execution state of one batch: lanes, masks, arenas, built-ins, budget."""

    def __init__(self, geom: Geometry, first_group: int, ngroups: int, *, kernel: str,
                 max_steps: int, observers: Any, groups: np.ndarray | None = None):
        """Work-groups ``first_group ..`` (``ngroups`` of them), or the linear work-group
        indices ``groups`` in any order (the work-group order variants)."""
        self.geom = geom
        self.kernel = kernel
        if groups is None:
            groups = np.arange(first_group, first_group + ngroups, dtype=np.int64)
        self.groups = np.asarray(groups, np.int64)  # linear index of each work-group of the batch
        self.first_group = int(self.groups[0])
        self.ngroups = ngroups = len(self.groups)
        contiguous = bool((np.diff(self.groups) == 1).all())
        self.L = ngroups * geom.lanes_per_group
        self.steps = 0
        self.max_steps = max_steps
        self.obs = observers
        self.obs_memory = [o.memory_access for o in observers if hasattr(o, "memory_access")]
        self.obs_barrier = [o.barrier for o in observers if hasattr(o, "barrier")]
        self.obs_collective = [o.collective for o in observers if hasattr(o, "collective")]
        # memory_fault(batch, MemoryFault): invalid lanes are reported and skipped, not raised.
        self.obs_fault = [o.memory_fault for o in observers if hasattr(o, "memory_fault")]
        # instruction(batch, inst, regs) before each instruction named in ``o.instructions``.
        self.obs_instruction = [o for o in observers if hasattr(o, "instruction")]
        self.watched: frozenset[str] = frozenset().union(
            *(o.instructions for o in self.obs_instruction))
        self.names: dict[int, str] = {}  # allocation id → kernel argument name
        self.mask: np.ndarray | None = None  # lanes executing now; None = every lane
        self.inst: Any = None  # the instruction with side effects executing now (decode.py)
        self.private: list[Arena] = []  # per Function variable (arenas.py)
        self.local: list[Arena] = []  # per local variable and local argument
        self.printf: list[tuple[int, str]] = []
        self._cache: dict[str, Any] = {}
        nd = geom.ndrange
        ng = nd.num_groups
        g = self.groups
        self.group_id = np.stack([g % ng[0], (g // ng[0]) % ng[1], g // (ng[0] * ng[1])], axis=1)
        ls = np.array(nd.local_size, dtype=np.int64)
        gs = np.array(nd.global_size, dtype=np.int64)
        self.group_size = np.minimum(ls, gs - self.group_id * ls)  # (G, 3)
        vol = self.group_size.prod(axis=1)
        self.full = bool((vol == geom.group_volume).all())
        P = geom.lanes_per_group
        if self.full and P == geom.group_volume:
            self.live: np.ndarray | None = None
        else:
            self.live = self._lane_linear() < np.repeat(vol, P)
        # 1-D launch of full groups without padding: global id x is base + lane.
        self.linear_1d = (self.live is None and nd.global_size[1] == nd.global_size[2] == 1
                          and contiguous)

    def reset(self, max_steps: int) -> None:
        """Make this batch (launched without observers) ready for another launch of the same
        geometry: a fresh budget, mask, arenas and printf output; the lane layout and the
        built-in lane arrays are kept (read-only, so no launch can change them for the next)."""
        assert not self.obs
        self.steps, self.max_steps = 0, max_steps
        self.names = {}
        self.mask = None
        self.inst = None
        self.private, self.local, self.printf = [], [], []
        for v in self._cache.values():
            if isinstance(v, np.ndarray):
                v.flags.writeable = False

    # -- budget -------------------------------------------------------------
    def tick(self) -> None:
        """Count one block execution against ``SGVM_MAX_STEPS``."""
        self.steps += 1
        if self.steps > self.max_steps:
            raise KernelTimeout(
                f"kernel '{self.kernel}' exceeded its step budget of {self.max_steps} block "
                f"executions per batch (set SGVM_MAX_STEPS to raise it)")

    # -- observers ------------------------------------------------------------
    def notify_memory(self, kind: str, alloc: Allocation | None, offsets: Any, nbytes: int,
                      lanes: np.ndarray | None = None, count: int = 1) -> None:
        """Tell observers about an access: ``offsets`` is a uniform offset, an Affine of
        pointers, or one offset per lane of ``lanes`` (None: the active lanes)."""
        event = MemoryEvent(kind, alloc, nbytes, self.inst, count, offsets, lanes, self.mask,
                            self.L)
        for f in self.obs_memory:
            f(self, event)

    def before(self, inst: Any, regs: list) -> None:
        """Called by the scheduler before each instruction while instruction observers
        are attached: ``inst`` becomes ``self.inst``; watched opcodes are reported."""
        self.inst = inst
        if inst.opname in self.watched:
            for o in self.obs_instruction:
                if inst.opname in o.instructions:
                    o.instruction(self, inst, regs)

    # -- built-ins ----------------------------------------------------------
    def _slot(self) -> np.ndarray:
        """Per lane: its slot in its work-group's lanes (sub-group ``slot // S``)."""
        c = self._cache.get("slot")
        if c is None:
            c = self._cache["slot"] = np.tile(np.arange(self.geom.lanes_per_group, dtype=np.int64),
                                              self.ngroups)
        return c

    def _lane_linear(self) -> np.ndarray:
        """Per lane: its linear local id (padding lanes: at least the group's volume)."""
        c = self._cache.get("li")
        if c is None:
            if self.geom.identity_layout:
                c = self._slot()
            else:
                P = self.geom.lanes_per_group
                c = np.empty(self.ngroups * P, dtype=np.int64)
                sizes = [tuple(int(v) for v in s) for s in self.group_size]
                for size in set(sizes):
                    ids = self.geom.slot_ids(size)
                    for g in (i for i, s in enumerate(sizes) if s == size):
                        c[g * P:(g + 1) * P] = ids
            self._cache["li"] = c
        return c

    def wg_order(self) -> np.ndarray | None:
        """(G, P): per work-group, the lane slots in linear-local-id order (None when slot and
        linear id agree): work-group collectives work in that order."""
        if "wg_order" not in self._cache:
            li = self._lane_linear().reshape(self.ngroups, self.geom.lanes_per_group)
            same = self.geom.identity_layout or bool((li == np.arange(li.shape[1])).all())
            self._cache["wg_order"] = None if same else np.argsort(li, axis=1, kind="stable")
        return self._cache["wg_order"]

    def _per_lane(self, per_group: np.ndarray) -> np.ndarray:
        return np.repeat(per_group, self.geom.lanes_per_group, axis=0)

    def local_id(self) -> np.ndarray:
        c = self._cache.get("lid")
        if c is None:
            li = self._lane_linear()
            sz = self._per_lane(self.group_size)
            lx, ly = sz[:, 0], sz[:, 1]
            c = np.stack([li % lx, (li // lx) % ly, li // (lx * ly)], axis=1)
            self._cache["lid"] = c
        return c

    def global_id(self) -> np.ndarray:
        c = self._cache.get("gid")
        if c is None:
            nd = self.geom.ndrange
            c = (self._per_lane(self.group_id) * np.array(nd.local_size) + self.local_id()
                 + np.array(nd.global_offset))
            self._cache["gid"] = c
        return c

    def gid_of(self, lane: int) -> tuple[int, ...]:
        """The global id of lane ``lane`` (for error messages)."""
        return tuple(int(v) for v in self.global_id()[lane, : self.geom.ndrange.work_dim])

    def builtin(self, name: str, dtype: np.dtype, count: int) -> Any:
        """Value of built-in ``name``: a uniform scalar/(3,) array or a lane array."""
        key = f"b:{name}"
        c = self._cache.get(key)
        if c is None:
            c = self._cache[key] = self._builtin(name, dtype, count)
        return c

    def builtin_component(self, name: str, idx: int, dtype: np.dtype) -> Any:
        """Component ``idx`` of a 3-vector built-in; an Affine where the layout allows
        (remembered with the batch: neither an Affine nor a cached array is ever changed)."""
        key = (name, idx, dtype)
        c = self._cache.get(key)
        if c is None:
            c = self._cache[key] = self._component_value(name, idx, dtype)
        return c

    def _component_value(self, name: str, idx: int, dtype: np.dtype) -> Any:
        if name == "GlobalInvocationId" and idx == 0 and self.linear_1d:
            nd = self.geom.ndrange
            base = nd.global_offset[0] + self.first_group * nd.local_size[0]
            return affine(base, 1, self.L, dtype)
        if name == "LocalInvocationId" and idx == 0 and self.linear_1d and self.ngroups == 1:
            return affine(0, 1, self.L, dtype)
        if name in ("LocalInvocationId", "GlobalInvocationId", "WorkgroupId"):
            return self._component(name, idx).astype(dtype)
        v = self.builtin(name, dtype, 3)
        return v[idx] if v.ndim == 1 else v[:, idx]

    def _component(self, name: str, idx: int) -> np.ndarray:
        """One component of a per-lane id built-in, without building the other two."""
        if name == "WorkgroupId":
            return self._per_lane(self.group_id[:, idx])
        nd = self.geom.ndrange
        li = self._lane_linear()
        if self.full:
            lx, ly, _ = nd.local_size
        else:
            sz = self._per_lane(self.group_size)
            lx, ly = sz[:, 0], sz[:, 1]
        if idx == 0:
            lid = li if (self.full and lx == nd.group_volume) else li % lx
        elif idx == 1:
            lid = (li // lx) % ly
        else:
            lid = li // (lx * ly)
        if name == "LocalInvocationId":
            return lid
        base = self.group_id[:, idx] * nd.local_size[idx] + nd.global_offset[idx]
        return self._per_lane(base) + lid

    def _enqueued_sub_groups(self) -> int:
        """Sub-groups of a work-group of the enqueued size, under the mapping."""
        nd, S = self.geom.ndrange, self.geom.sub_group_size
        if self.geom.identity_layout:
            return -(-nd.group_volume // S)
        return sub_group_count(self.geom.mapping, nd.local_size, S)

    def _builtin(self, name: str, dtype: np.dtype, count: int) -> Any:
        nd, S, P = self.geom.ndrange, self.geom.sub_group_size, self.geom.lanes_per_group
        t = dtype.type
        vol = self.group_size.prod(axis=1)
        uniform = {
            "NumWorkgroups": nd.num_groups,
            "GlobalSize": nd.global_size,
            "EnqueuedWorkgroupSize": nd.local_size,
            "GlobalOffset": nd.global_offset,
            "WorkDim": nd.work_dim,
            "SubgroupMaxSize": S,
            "NumEnqueuedSubgroups": self._enqueued_sub_groups(),
        }
        if name in uniform:
            v = uniform[name]
            return np.array(v, dtype=dtype) if count > 1 else t(v)
        if name == "WorkgroupSize" and self.full:
            return np.array(nd.local_size, dtype=dtype)
        if name == "NumSubgroups" and self.full:
            return t(self._enqueued_sub_groups())
        li = self._lane_linear()
        if name == "GlobalInvocationId":
            return self.global_id().astype(dtype)
        if name == "LocalInvocationId":
            return self.local_id().astype(dtype)
        if name == "WorkgroupId":
            return self._per_lane(self.group_id).astype(dtype)
        if name == "WorkgroupSize":
            return self._per_lane(self.group_size).astype(dtype)
        if name == "LocalInvocationIndex":
            return li.astype(dtype)
        if name == "GlobalLinearId":
            g = self.global_id() - np.array(nd.global_offset)
            gx, gy, _ = nd.global_size
            return (g[:, 0] + g[:, 1] * gx + g[:, 2] * gx * gy).astype(dtype)
        slot = self._slot()
        if name == "SubgroupId":
            return (slot // S).astype(dtype)
        if name == "SubgroupLocalInvocationId":
            return (slot % S).astype(dtype)
        if not self.geom.identity_layout:  # count the live lanes of each sub-group
            live = np.ones(self.L, bool) if self.live is None else self.live
            per_sg = live.reshape(-1, S).sum(axis=1)
            if name == "NumSubgroups":
                return self._per_lane((per_sg.reshape(self.ngroups, -1) > 0).sum(axis=1)).astype(dtype)
            if name == "SubgroupSize":
                return np.repeat(per_sg, S).astype(dtype)
        if name == "NumSubgroups":
            return self._per_lane(-(-vol // S)).astype(dtype)
        if name in _MASKS:
            return sem.sub_group_mask(_MASKS[name], li % S, S).astype(dtype)
        if name == "SubgroupSize":
            v = np.repeat(vol, P)
            return np.minimum(S, v - (li // S) * S).astype(dtype)
        raise UnsupportedError(f"unsupported built-in variable {name}")
