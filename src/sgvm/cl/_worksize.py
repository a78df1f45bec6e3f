"""Checking and choosing work sizes for clEnqueueNDRangeKernel (OpenCL 3.0 API s5.9)."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from ..runtime.device import DeviceModel
from ..runtime.ndrange import NDRange
from ._base import cl_error

ROUTINE = "clEnqueueNDRangeKernel"
SIZE_T_MAX = 2**64 - 1


def _sizes(values: Any, what: str, code: str) -> list[int]:
    if isinstance(values, int) or hasattr(values, "__index__"):
        values = (values,)
    try:
        return [operator.index(v) for v in values]
    except TypeError:
        raise cl_error(code, f"the {what} must be a tuple of integers, got {values!r}", ROUTINE) from None


def _best_local(size: int, limit: int, multiple: int) -> int:
    """The largest divisor of ``size`` that is at most ``limit``, preferring multiples of ``multiple``."""
    divisors = [d for d in range(min(size, limit), 0, -1) if size % d == 0]
    return next((d for d in divisors if d % multiple == 0), divisors[0])


def choose_local_size(global_size: Sequence[int], device: DeviceModel, sub_group_size: int,
                      uniform_required: bool) -> tuple[int, ...]:
    """The work-group size sgvm picks for ``local_size=None``.

    Dimension by dimension, the largest divisor of the global size within the
    remaining work-group budget, preferring multiples of the sub-group size in
    dimension 0. Where non-uniform work-groups are allowed and no divisor
    reaches a sub-group, a budget-sized group with a remainder group is used.
    """
    budget = device.max_work_group_size
    local = []
    for d, g in enumerate(global_size):
        limit = min(budget, device.max_work_item_sizes[d])
        best = _best_local(g, limit, sub_group_size if d == 0 else 1)
        if not uniform_required and best < min(g, sub_group_size, limit):
            best = min(g, limit)
            if best >= sub_group_size:
                best -= best % sub_group_size
        local.append(best)
        budget //= best
    return tuple(local)


def resolve_ndrange(
    global_size: Any,
    local_size: Any,
    global_offset: Any,
    *,
    device: DeviceModel,
    kernel_wg_size: int,
    reqd: tuple[int, int, int] | None,
    sub_group_size: int,
    uniform_required: bool,
    g_times_l: bool = False,
    allow_empty: bool = False,
) -> NDRange | None:
    """Validate the enqueue's sizes as clEnqueueNDRangeKernel does and return the NDRange,
    or None for an empty range that ``allow_empty`` permits.

    Errors (OpenCL 3.0 API s5.9): CL_INVALID_WORK_DIMENSION (not 1 to 3 dimensions),
    CL_INVALID_GLOBAL_WORK_SIZE (a size below 1), CL_INVALID_GLOBAL_OFFSET (offset
    negative or offset + size beyond size_t), CL_INVALID_WORK_GROUP_SIZE (local size not
    matching reqd_work_group_size, above the kernel's maximum, or not dividing the global
    size when uniform work-groups are required), CL_INVALID_WORK_ITEM_SIZE (a local size
    above CL_DEVICE_MAX_WORK_ITEM_SIZES).
    """
    gs = _sizes(global_size, "global size", "CL_INVALID_GLOBAL_WORK_SIZE")
    dim = len(gs)
    if not 1 <= dim <= device.max_work_item_dimensions:
        raise cl_error("CL_INVALID_WORK_DIMENSION",
                       f"the global size has {dim} dimensions; give 1, 2 or 3 sizes", ROUTINE)
    ls = None if local_size is None else _sizes(local_size, "local size", "CL_INVALID_WORK_GROUP_SIZE")
    if ls is not None and len(ls) != dim:
        raise cl_error("CL_INVALID_VALUE",
                       f"global size {tuple(gs)} and local size {tuple(ls)} have different dimensions", ROUTINE)
    if g_times_l:
        if ls is None:
            raise cl_error("CL_INVALID_VALUE", "g_times_l=True needs a local size", ROUTINE)
        gs = [g * loc for g, loc in zip(gs, ls, strict=True)]
    if any(g < 0 or g > SIZE_T_MAX for g in gs) or (0 in gs and not allow_empty):
        raise cl_error("CL_INVALID_GLOBAL_WORK_SIZE",
                       f"global size {tuple(gs)}: every global size must be at least 1", ROUTINE)
    if 0 in gs:
        return None
    off = [0] * dim if global_offset is None else _sizes(global_offset, "global offset", "CL_INVALID_GLOBAL_OFFSET")
    if len(off) != dim:
        raise cl_error("CL_INVALID_VALUE",
                       f"global offset {tuple(off)} and global size {tuple(gs)} have different dimensions", ROUTINE)
    if any(o < 0 or o + g > SIZE_T_MAX for o, g in zip(off, gs, strict=True)):
        raise cl_error("CL_INVALID_GLOBAL_OFFSET",
                       f"global offset {tuple(off)}: offsets must be >= 0 and offset + size must fit in size_t",
                       ROUTINE)
    if ls is None:
        ls = list(reqd[:dim]) if reqd else list(choose_local_size(gs, device, sub_group_size, uniform_required))
    if any(v < 1 for v in ls):
        raise cl_error("CL_INVALID_WORK_GROUP_SIZE", f"local size {tuple(ls)}: every size must be at least 1",
                       ROUTINE)
    if reqd and tuple(ls) + (1,) * (3 - dim) != tuple(reqd):
        raise cl_error(
            "CL_INVALID_WORK_GROUP_SIZE",
            f"local size {tuple(ls)} does not match the kernel's reqd_work_group_size{tuple(reqd)}; "
            "pass that local size or None",
            ROUTINE,
        )
    volume = 1
    for v in ls:
        volume *= v
    if volume > kernel_wg_size:
        raise cl_error(
            "CL_INVALID_WORK_GROUP_SIZE",
            f"local size {tuple(ls)} has {volume} work-items; this kernel allows at most {kernel_wg_size}",
            ROUTINE,
        )
    for d, v in enumerate(ls):
        if v > device.max_work_item_sizes[d]:
            raise cl_error("CL_INVALID_WORK_ITEM_SIZE",
                           f"local size {v} in dimension {d} exceeds CL_DEVICE_MAX_WORK_ITEM_SIZES "
                           f"({device.max_work_item_sizes[d]})", ROUTINE)
    if uniform_required and any(g % v for g, v in zip(gs, ls, strict=True)):
        raise cl_error(
            "CL_INVALID_WORK_GROUP_SIZE",
            f"global size {tuple(gs)} is not a multiple of local size {tuple(ls)}; OpenCL C 1.2 programs "
            "(the default without -cl-std) and -cl-uniform-work-group-size need uniform work-groups: "
            "round the global size up, or build with -cl-std=CL2.0",
            ROUTINE,
        )
    return NDRange(tuple(gs), tuple(ls), tuple(off), dim)
