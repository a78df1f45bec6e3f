"""Per-batch storage of ``local`` and ``private`` objects: one allocation per object,
one region in it per owner.

OpenCL C (address space qualifiers): "The private address space is a memory
segment that can only be accessed by one work item", and variables in the local
address space "are allocated for each work-group executing the kernel". So every
local variable and local argument, and every private
(``Function``) variable, is an :class:`Arena` of its own per batch: work-group
``g`` of the batch owns bytes ``[g*region, g*region + extent)`` of a local
object, batch lane ``k`` the same range with ``k`` for a private one. A pointer
names its object by the allocation id, and an access by lane ``k`` must stay
inside the region of ``k``'s owner (``outside``): overrunning one work-group's
array into the next one's, or one work-item's into its neighbour's, is an
out-of-bounds access like any other.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...errors import LogicError
from ...runtime.memory import Allocation
from ...runtime.variant import PATTERN_BYTE

LOCAL_ALIGN = 16  # each work-group's copy of a local object starts 16-byte aligned


@dataclass(eq=False)
class Arena(Allocation):
    """An Allocation holding one copy of an object per owner (``name`` says which object)."""

    extent: int = 0  # bytes of the object
    region: int = 0  # bytes from one owner's copy to the next
    owner_lanes: int = 1  # batch lanes per owner: 1 (private) or the padded group size (local)
    lane_base: np.ndarray | None = None  # per batch lane: the offset of its owner's copy

    @property
    def owner(self) -> str:
        return "work-item" if self.space == "private" else "work-group"

    def relative(self, offsets: np.ndarray | int, lanes: np.ndarray | int) -> np.ndarray | int:
        """Byte offsets from the start of each accessing lane's own copy (may be negative)."""
        if isinstance(offsets, np.ndarray):
            own = np.asarray(lanes, np.int64) // self.owner_lanes * self.region
            return offsets.astype(np.int64) - own
        return int(offsets) - int(lanes) // self.owner_lanes * self.region

    def overrun(self, offsets: np.ndarray, lanes: np.ndarray | None, nbytes: int) -> bool:
        """Whether any access of ``nbytes`` at uint64 ``offsets`` by batch lanes ``lanes``
        (None: lane ``k`` made access ``k``) leaves its lane's own copy: one subtraction and
        one max (an offset below the copy wraps around to a huge one). An Arena of another
        batch (a stale pointer, or one stepped below the next allocation) always overruns."""
        base = self.lane_base
        if lanes is None:
            if len(base) != len(offsets):
                return True
        elif not len(lanes) or lanes[-1] >= len(base):
            return True
        else:
            base = base[lanes]
        return int((offsets - base).max()) + nbytes > self.extent

    def outside(self, offsets: np.ndarray, lanes: np.ndarray, nbytes: int) -> np.ndarray:
        """Per access: whether ``nbytes`` at ``offsets`` by batch lane ``lanes`` leave the
        lane's own copy."""
        rel = self.relative(offsets, lanes)
        return (rel < 0) | (rel > self.extent - nbytes)


def arena(space: str, name: str, extent: int, align: int, owners: int, owner_lanes: int,
          init: str = "zeros") -> Arena:
    """An Arena of ``owners`` copies of an ``extent``-byte object aligned to ``align``, zeroed
    or (``init="pattern"``, runtime.variant) every byte ``PATTERN_BYTE``."""
    step = max(align, LOCAL_ALIGN if space == "local" else 1)
    region = -(-max(extent, 1) // step) * step
    fill = PATTERN_BYTE if init == "pattern" else 0
    return Arena(np.full(region * owners, fill, np.uint8), space, name, extent=extent,
                 region=region, owner_lanes=owner_lanes,
                 lane_base=_owner_offsets(owners, owner_lanes, region))


def patterned(value: Any) -> Any:
    """``value`` (an OpUndef's null value) with every byte ``PATTERN_BYTE``."""
    if isinstance(value, tuple):
        return tuple(patterned(v) for v in value)
    a = np.asarray(value)
    if a.dtype == np.bool_:
        return np.ones_like(a)[()] if a.ndim == 0 else np.ones_like(a)
    out = np.frombuffer(bytes([PATTERN_BYTE]) * a.nbytes, a.dtype).reshape(a.shape).copy()
    return out[()] if a.ndim == 0 else out


# Bytes of private memory one batch may hold; a batch has at least one work-group, so a
# kernel whose work-group alone needs more gets CL_OUT_OF_RESOURCES (``groups_per_batch``).
PRIVATE_BATCH_BYTES = 1 << 30


def groups_per_batch(kernel: str, private_bytes: int, lanes_per_group: int, wanted: int) -> int:
    """``wanted`` work-groups per batch, fewer when their private memory would exceed
    ``PRIVATE_BATCH_BYTES``; raises CL_OUT_OF_RESOURCES when one work-group's does."""
    per_group = private_bytes * lanes_per_group
    if per_group > PRIVATE_BATCH_BYTES:
        raise LogicError(
            f"kernel '{kernel}' needs {private_bytes} bytes of private memory per work-item, "
            f"{per_group} for a work-group of {lanes_per_group} work-items; sgvm holds at most "
            f"{PRIVATE_BATCH_BYTES} bytes of private memory at a time: use smaller private "
            f"arrays or a smaller work-group", "CL_OUT_OF_RESOURCES")
    return max(1, min(wanted, PRIVATE_BATCH_BYTES // per_group if per_group else wanted))


@functools.lru_cache(maxsize=16)
def _owner_offsets(owners: int, owner_lanes: int, region: int) -> np.ndarray:
    """Per batch lane: the byte offset of its owner's copy in an Arena (the same for every
    full batch of a launch, so computed once)."""
    out = np.arange(owners, dtype=np.uint64) * np.uint64(region)
    if owner_lanes > 1:
        out = np.repeat(out, owner_lanes)
    out.flags.writeable = False
    return out


def allocate(st: Any, prog: Any, local_args: list[tuple[int, int, str]]) -> dict[int, np.ndarray]:
    """Create batch ``st``'s arenas (``st.private``: one per ``prog.private_vars`` entry,
    ``st.local``) and return the register value of each local variable and local
    argument ``(param id, bytes, label)``: per lane, a pointer to its work-group's copy."""
    L, G, P = st.L, st.ngroups, st.geom.lanes_per_group
    init = st.geom.variant.memory_init
    st.private = [arena("private", f"private variable '{name}'", size, align, L, 1, init)
                  for name, size, align in prog.private_vars]
    objects = [(vid, f"local variable '{name}'", size, align)
               for vid, (name, size, align) in prog.local_vars.items()]
    objects += [(pid, f"{label} (local)", nbytes, LOCAL_ALIGN) for pid, nbytes, label in local_args]
    st.local = []
    values = {}
    for rid, name, size, align in objects:
        a = arena("local", name, size, align, G, P, init)
        st.local.append(a)
        values[rid] = a.lane_base + np.uint64(a.base)
    return values
