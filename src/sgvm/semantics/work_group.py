"""Work-items to sub-groups, and work-group broadcast.

Work-group reduce, scans, all and any are the functions of ``collectives`` over
(G, L) arrays whose axis 1 is the linear local id: opencl_c_work_group_functions.txt,
"The scan order is defined by increasing 1D linear global ID within the
work-group". In sgvm's [work-group][sub-group][lane] layout, padded only at the
end of the last (partial) sub-group, lane position equals linear local id.

Sub-group mapping. cl_intel_subgroups.txt leaves it "implementation-defined",
but requires that "all subgroups within a work group will be the same size,
apart from the subgroup with the maximum index, which may be smaller if the size
of the work group is not evenly divisible by the size of the subgroups". sgvm
uses Intel's mapping: consecutive linear local ids fill sub-group 0 first.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .collectives import broadcast

IntArray = np.ndarray | int


def linear_local_id(local_id: Sequence[IntArray], local_size: Sequence[IntArray]) -> np.ndarray:
    """``x + y*Lx + z*Lx*Ly`` for 1 to 3 dimensions (int64).

    ``local_size`` is the work-group's actual size (smaller at the trailing edge
    of a non-uniform NDRange), as for OpenCL's get_local_linear_id.
    """
    if not 1 <= len(local_id) == len(local_size) <= 3:
        raise ValueError("local_id and local_size need the same 1 to 3 dimensions")
    linear = np.zeros((), dtype=np.int64)
    stride = np.ones((), dtype=np.int64)
    for coord, size in zip(local_id, local_size, strict=True):
        linear = linear + np.asarray(coord, dtype=np.int64) * stride
        stride = stride * np.asarray(size, dtype=np.int64)
    return linear


def local_id_out_of_range(
    local_id: Sequence[IntArray], local_size: Sequence[IntArray]
) -> np.ndarray:
    """Bool: some coordinate lies outside [0, local_size) in its dimension.

    Such a local_id identifies no work-item, so a work_group_broadcast from it
    is undefined even when its linear id would fall inside the work-group.
    """
    bad = np.zeros((), dtype=bool)
    for coord, size in zip(local_id, local_size, strict=True):
        coord = np.asarray(coord, dtype=np.int64)
        bad = bad | (coord < 0) | (coord >= np.asarray(size, dtype=np.int64))
    return bad


def local_id_from_linear(linear: IntArray, local_size: Sequence[int]) -> tuple[np.ndarray, ...]:
    """Inverse of ``linear_local_id``: one int64 array per dimension of ``local_size``."""
    rest = np.asarray(linear, dtype=np.int64)
    coords = []
    for size in local_size:
        coords.append(rest % size)
        rest = rest // size
    return tuple(coords)


def sub_group_id(linear: IntArray, max_size: int) -> np.ndarray:
    """get_sub_group_id: ``linear // max_size``."""
    return np.asarray(linear, dtype=np.int64) // max_size


def sub_group_local_id(linear: IntArray, max_size: int) -> np.ndarray:
    """get_sub_group_local_id: ``linear % max_size``."""
    return np.asarray(linear, dtype=np.int64) % max_size


def num_sub_groups(work_group_size: IntArray, max_size: int) -> np.ndarray:
    """get_num_sub_groups: ``ceil(work_group_size / max_size)``.

    cl_intel_subgroups.txt: "Returns the number of subgroups that the current work
    group is divided into. [...] If the kernel is executed with a non-uniform
    work group size in any dimension, calls to this built-in may return a
    different values for some work groups than for other work groups."
    """
    return -(-np.asarray(work_group_size, dtype=np.int64) // max_size)


def sub_group_size(sub_group: IntArray, work_group_size: IntArray, max_size: int) -> np.ndarray:
    """get_sub_group_size: ``max_size``, except the last sub-group's remainder.

    cl_intel_subgroups.txt: "all subgroups within a work group will be the same
    size, apart from the subgroup with the maximum index, which may be smaller if
    the size of the work group is not evenly divisible by the size of the
    subgroups."
    """
    left = np.asarray(work_group_size, dtype=np.int64) - np.asarray(sub_group) * max_size
    return np.minimum(left, max_size)


def enqueued_num_sub_groups(enqueued_local_size: Sequence[int], max_size: int) -> int:
    """get_enqueued_num_sub_groups, from get_enqueued_local_size's dimensions.

    cl_intel_subgroups.txt: "If the kernel is executed with a non-uniform work
    group size, returns the number of subgroups in a work group that makes up
    the uniform region of the global NDRange."
    """
    return int(num_sub_groups(int(np.prod(enqueued_local_size)), max_size))


def work_group_broadcast(
    x: np.ndarray,
    local_id: Sequence[IntArray],
    local_size: Sequence[IntArray],
    active: np.ndarray,
) -> np.ndarray:
    """``x`` of the work-item at ``local_id`` repeated in every lane of its work-group.

    opencl_c_work_group_functions.txt: "Broadcast the value of x for work-item
    identified by local_id to all work-items in the work-group. local_id must be
    the same value for all work-items in the work-group." ``local_id`` holds 1 to
    3 coordinates (scalars or (G,)), as in the 1D/2D/3D overloads; ``x`` is (G, L)
    or (G, L, N) in linear-local-id order. ``local_id_out_of_range`` and
    ``collectives.broadcast_undefined`` (on the linear id) report bad ids.
    """
    return broadcast(x, linear_local_id(local_id, local_size), active)
