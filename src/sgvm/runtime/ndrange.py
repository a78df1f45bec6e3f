"""The index space of a launch (OpenCL 3.0 API s3.2.1, "Execution Model").

``NDRange`` holds the global size, the chosen work-group size, the global
offset and the dimension count, each padded to three components. It knows the
work-group grid, including the non-uniform remainder groups OpenCL 2.0 allows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from ..errors import LogicError


def _pad(values: Sequence[int] | int | None, fill: int, what: str) -> tuple[int, int, int]:
    if values is None:
        values = ()
    elif isinstance(values, int):
        values = (values,)
    vals = [int(v) for v in values]
    if len(vals) > 3:
        raise LogicError(f"{what} has more than 3 dimensions", "CL_INVALID_WORK_DIMENSION")
    return tuple(vals + [fill] * (3 - len(vals)))  # type: ignore[return-value]


@dataclass(frozen=True, init=False)
class NDRange:
    """Global size, local (work-group) size, global offset and ``work_dim``; the derived
    counts are computed once per NDRange (launches reuse their NDRange)."""

    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]
    global_offset: tuple[int, int, int]
    work_dim: int

    def __init__(self, global_size: Sequence[int] | int, local_size: Sequence[int] | int | None = None,
                 global_offset: Sequence[int] | int | None = None, work_dim: int | None = None):
        gs = _pad(global_size, 1, "global size")
        dim = work_dim or (1 if isinstance(global_size, int) else len(global_size))
        ls = _pad(local_size, 1, "local size") if local_size is not None else (1, 1, 1)
        off = _pad(global_offset, 0, "global offset")
        if not 1 <= dim <= 3:
            raise LogicError(f"work_dim {dim} is not 1, 2 or 3", "CL_INVALID_WORK_DIMENSION")
        if any(g < 0 for g in gs) or any(v < 1 for v in ls):
            raise LogicError(f"invalid sizes: global {gs}, local {ls}", "CL_INVALID_WORK_GROUP_SIZE")
        object.__setattr__(self, "global_size", gs)
        object.__setattr__(self, "local_size", ls)
        object.__setattr__(self, "global_offset", off)
        object.__setattr__(self, "work_dim", dim)

    def __hash__(self) -> int:
        """Computed once: launches look NDRanges up in several caches."""
        h = self.__dict__.get("_hash")
        if h is None:
            h = self.__dict__["_hash"] = hash((self.global_size, self.local_size, self.global_offset,
                                               self.work_dim))
        return h

    @cached_property
    def num_groups(self) -> tuple[int, int, int]:
        """Work-groups per dimension, counting a non-uniform remainder group."""
        return tuple(-(-g // l) for g, l in zip(self.global_size, self.local_size, strict=False))  # type: ignore[return-value]

    @cached_property
    def total_groups(self) -> int:
        nx, ny, nz = self.num_groups
        return nx * ny * nz

    @cached_property
    def work_items(self) -> int:
        gx, gy, gz = self.global_size
        return gx * gy * gz

    @cached_property
    def group_volume(self) -> int:
        """Items in a full (enqueued-size) work-group."""
        lx, ly, lz = self.local_size
        return lx * ly * lz

    @cached_property
    def uniform(self) -> bool:
        """Whether every work-group has the enqueued size."""
        return all(g % l == 0 for g, l in zip(self.global_size, self.local_size, strict=False))

    def group_size(self, gid: tuple[int, int, int]) -> tuple[int, int, int]:
        """The actual size of work-group ``gid`` (smaller for remainder groups)."""
        return tuple(min(l, g - i * l) for g, l, i in zip(self.global_size, self.local_size, gid, strict=False))  # type: ignore[return-value]
