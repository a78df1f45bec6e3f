"""``launch``: validate one kernel launch over an NDRange and run it on the device's
backend through the backend interface (``engine.backend``; docs/internals.md, "Launch")."""

from __future__ import annotations

import time
import weakref
from collections.abc import Sequence
from typing import Any

from ..compiler.subgroup_size import kernel_sub_group_size
from ..engine import backend as backends
from ..engine.backend import LaunchRequest, LaunchResult
from ..engine.common.signature import KernelParam, arg_label, kernel_params
from ..errors import LogicError, UnsupportedError
from ..spirv import Module
from ..spirv.validate import validate
from . import environment
from .args import KernelArg
from .device import CPU_DEVICE, DeviceModel
from .ndrange import NDRange
from .variant import Variant, variant_from_settings

__all__ = ["LaunchResult", "arg_labels", "launch", "sub_group_size"]


def sub_group_size(entry_modes: dict, options: Any, device: DeviceModel,
                   variant: Variant | None = None, env: environment.Settings | None = None) -> int:
    """The kernel's SubgroupSize mode, else the variant's size, else -sgvm-sub-group-size /
    SGVM_SUB_GROUP_SIZE (of ``env``; None: the environment now), else the default; a size the
    device lacks raises (``compiler.subgroup_size.kernel_sub_group_size``)."""
    required = entry_modes.get("SubgroupSize")
    if not required and variant is not None and variant.sub_group_size:
        return kernel_sub_group_size(variant.sub_group_size, None, device)
    return kernel_sub_group_size(required[0] if required else None, options, device, env)


def arg_labels(params: Sequence[Any], param_names: Sequence[str] | None) -> list[str]:
    """Each parameter's label in messages: the source's name where known, else ``argument #i``."""
    return [arg_label(param_names[i], i) if param_names and i < len(param_names)
            and param_names[i] and not param_names[i].startswith("argument ") else p.label
            for i, p in enumerate(params)]


_KERNELS: weakref.WeakKeyDictionary[Module, dict[str, tuple[tuple[KernelParam, ...], dict]]] = \
    weakref.WeakKeyDictionary()


def _kernel(module: Module, kernel: str) -> tuple[tuple[KernelParam, ...], dict]:
    """The parameters and execution modes of entry point ``kernel`` (remembered per module,
    which is validated first); CL_INVALID_KERNEL_NAME when the module has no such kernel."""
    per = _KERNELS.get(module)
    if per is None:
        per = _KERNELS[module] = {}
    hit = per.get(kernel)
    if hit is None:
        validate(module)  # SpirvValidationError before any engine touches an invalid module
        if kernel not in module.kernel_names:
            raise LogicError(f"no kernel named '{kernel}'", "CL_INVALID_KERNEL_NAME")
        hit = per[kernel] = (kernel_params(module, kernel), module.entry_point(kernel).execution_modes)
    return hit


_LABELS: dict[tuple[int, tuple[str, ...]], tuple[tuple[KernelParam, ...], list[str]]] = {}


def _labels(params: tuple[KernelParam, ...], names: tuple[str, ...]) -> list[str]:
    """``arg_labels``, remembered per parameter tuple (``kernel_params`` keeps one per kernel)."""
    hit = _LABELS.get((id(params), names))
    if hit is not None and hit[0] is params:
        return hit[1]
    labels = arg_labels(params, names)
    if len(_LABELS) >= 256:
        _LABELS.clear()
    _LABELS[(id(params), names)] = (params, labels)
    return labels


def launch(module: Module, kernel: str, args: Sequence[KernelArg], ndrange: NDRange, *,
           device: DeviceModel = CPU_DEVICE, observers: Sequence[Any] = (),
           options: Any = None, param_names: Sequence[str] | None = None,
           variant: Variant | None = None, max_steps: int | None = None,
           settings: environment.Settings | None = None) -> LaunchResult:
    """Run ``kernel`` of ``module`` over ``ndrange`` with ``args`` on ``device``'s backend.

    ``param_names``: the kernel's parameter names as the source spells them (clang's
    SPIR-V has none), used in error messages. ``variant``: the implementation-defined
    choices (``runtime.variant``; None: those of the options, environment and device);
    only the NumPy backend runs other than the defaults (the native one hands such launches
    to it). ``max_steps``: the step budget
    per batch (None: ``SGVM_MAX_STEPS``). ``settings``: the environment the launch reads
    (``runtime.environment``; None: as it is now), read once for the whole launch."""
    t0 = time.perf_counter()
    params, modes = _kernel(module, kernel)
    if len(args) != len(params):
        raise LogicError(f"kernel '{kernel}' takes {len(params)} arguments, {len(args)} given",
                         "CL_INVALID_KERNEL_ARGS")
    if ndrange.group_volume > device.max_work_group_size:
        raise LogicError(f"work-group size {ndrange.local_size} exceeds the device maximum "
                         f"{device.max_work_group_size}", "CL_INVALID_WORK_GROUP_SIZE")
    if options is not None and not ndrange.uniform \
            and getattr(options, "uniform_work_groups_required", False):
        raise LogicError(f"global size {ndrange.global_size} is not a multiple of the work-group "
                         f"size {ndrange.local_size}", "CL_INVALID_WORK_GROUP_SIZE")
    env = settings or environment.current()  # every setting of one launch from one reading
    if variant is None:
        variant = variant_from_settings(options, device.sub_group_mapping, env)
    S = sub_group_size(modes, options, device, variant, env)
    if device.engine == "cuda" and variant.differences(Variant(sub_group_size=variant.sub_group_size,
                                                               seed=variant.seed)):
        raise UnsupportedError(f"{variant.describe()}: only the CPU device runs other than "
                               "sgvm's own choices (docs/portability.md)")
    if device.engine == "cuda" and (env.SGVM_PROFILE_DEVICE or "sgvm").strip().lower() != "sgvm":
        raise UnsupportedError(f"SGVM_PROFILE_DEVICE={env.SGVM_PROFILE_DEVICE}: device profiles "
                               "apply to the CPU devices only (docs/portability.md); unset it "
                               "or run on SGVM_DEVICE=cpu")
    if ndrange.work_items == 0:
        return LaunchResult()
    request = LaunchRequest(module, kernel, args, ndrange, S, params,
                            _labels(params, tuple(param_names) if param_names else ()),
                            device, observers, options, t0, variant, max_steps, env)
    return backends.get(device.engine).launch(request)
