"""``launch``: validate one kernel launch over an NDRange and run it on the device's
backend through the backend interface (``engine.backend``; docs/internals.md, "Launch")."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from ..compiler.subgroup_size import kernel_sub_group_size
from ..engine import backend as backends
from ..engine.backend import LaunchRequest, LaunchResult
from ..engine.common.signature import arg_label, kernel_params
from ..errors import LogicError
from ..spirv import Module
from .args import KernelArg
from .device import CPU_DEVICE, DeviceModel
from .ndrange import NDRange

__all__ = ["LaunchResult", "launch", "sub_group_size"]


def sub_group_size(entry_modes: dict, options: Any, device: DeviceModel) -> int:
    """The kernel's SubgroupSize mode, else -sgvm-sub-group-size / SGVM_SUB_GROUP_SIZE, else the
    default; a size the device lacks raises (``compiler.subgroup_size.kernel_sub_group_size``)."""
    required = entry_modes.get("SubgroupSize")
    return kernel_sub_group_size(required[0] if required else None, options, device)


def launch(module: Module, kernel: str, args: Sequence[KernelArg], ndrange: NDRange, *,
           device: DeviceModel = CPU_DEVICE, observers: Sequence[Any] = (),
           options: Any = None, param_names: Sequence[str] | None = None) -> LaunchResult:
    """Run ``kernel`` of ``module`` over ``ndrange`` with ``args`` on ``device``'s backend.

    ``param_names``: the kernel's parameter names as the source spells them (clang's
    SPIR-V has none), used in error messages."""
    t0 = time.perf_counter()
    if kernel not in module.kernel_names:
        raise LogicError(f"no kernel named '{kernel}'", "CL_INVALID_KERNEL_NAME")
    params = kernel_params(module, kernel)
    if len(args) != len(params):
        raise LogicError(f"kernel '{kernel}' takes {len(params)} arguments, {len(args)} given",
                         "CL_INVALID_KERNEL_ARGS")
    if ndrange.group_volume > device.max_work_group_size:
        raise LogicError(f"work-group size {ndrange.local_size} exceeds the device maximum "
                         f"{device.max_work_group_size}", "CL_INVALID_WORK_GROUP_SIZE")
    if options is not None and getattr(options, "uniform_work_groups_required", False) \
            and not ndrange.uniform:
        raise LogicError(f"global size {ndrange.global_size} is not a multiple of the work-group "
                         f"size {ndrange.local_size}", "CL_INVALID_WORK_GROUP_SIZE")
    S = sub_group_size(module.entry_point(kernel).execution_modes, options, device)
    if ndrange.work_items == 0:
        return LaunchResult()
    labels = [arg_label(param_names[i], i) if param_names and i < len(param_names)
              and param_names[i] and not param_names[i].startswith("argument ") else p.label
              for i, p in enumerate(params)]
    request = LaunchRequest(module, kernel, args, ndrange, S, params, labels, device,
                            observers, options, t0)
    return backends.get(device.engine).launch(request)
