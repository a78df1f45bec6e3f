"""``launch``: validate one kernel launch over an NDRange and run it on the device's
backend through the backend interface (``engine.backend``; docs/internals.md, "Launch")."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from ..compiler.subgroup_size import kernel_sub_group_size
from ..engine import backend as backends
from ..engine.backend import LaunchRequest, LaunchResult
from ..engine.common.per_module import PerModule
from ..engine.common.signature import KernelParam, arg_label, kernel_params
from ..errors import LogicError, UnsupportedError
from ..spirv import Module
from ..spirv.validate import validate
from . import environment, repeats
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


class _Kernel:
    """One entry point of one module: its parameters and execution modes, its labels per
    set of parameter names, and the choices of a launch (``_Choices``) per device, options,
    environment and variant argument, so that a relaunch looks them up instead of working
    them out again."""

    __slots__ = ("params", "modes", "labels", "choices")

    def __init__(self, params: tuple[KernelParam, ...], modes: dict) -> None:
        self.params = params
        self.modes = modes
        self.labels: dict[tuple[str, ...], list[str]] = {}
        self.choices: dict[tuple, _Choices] = {}


class _Choices(NamedTuple):
    """What a launch of one kernel worked out from the device, the options, the environment
    and the variant it was given: the variant it runs and its sub-group size (checked
    against the device). Each input is held and a look-up compares it by identity, so an
    entry serves only those very objects (``environment.current`` hands out one ``Settings``
    per distinct values); the options' ``-sgvm-*`` settings are compared by value too."""

    device: DeviceModel
    options: Any
    sgvm: tuple
    env: environment.Settings
    given: Variant | None
    variant: Variant
    sub_group_size: int


_KERNELS: PerModule[_Kernel] = PerModule()  # per module: its kernels by name


def _kernel(module: Module, kernel: str) -> _Kernel:
    """Entry point ``kernel`` of ``module`` (the module is validated first);
    CL_INVALID_KERNEL_NAME when the module has no such kernel."""
    per = _KERNELS.of(module)
    hit = per.get(kernel)
    if hit is None:
        validate(module)  # SpirvValidationError before any engine touches an invalid module
        if kernel not in module.kernel_names:
            raise LogicError(f"no kernel named '{kernel}'", "CL_INVALID_KERNEL_NAME")
        hit = per[kernel] = _Kernel(kernel_params(module, kernel), module.entry_point(kernel).execution_modes)
    return hit


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
    per batch (None: ``SGVM_MAX_STEPS``). ``settings``: the environment the launch read
    (``runtime.environment``; None: as it is now), read once for the whole launch.
    A launch like an earlier one on this thread runs the backend's prepared run
    (``runtime.repeats``)."""
    t0 = time.perf_counter()
    k = _kernel(module, kernel)
    env = settings or environment.current()  # every setting of one launch from one reading
    opts = getattr(options, "sgvm", None)
    sgvm = tuple(opts.items()) if opts else ()

    def make() -> LaunchRequest | None:
        return _request(k, module, kernel, args, ndrange, device, observers, options,
                        param_names, variant, max_steps, env, sgvm, t0)

    if observers:
        seen = None
    else:
        seen = repeats.find(k, device, options, env, variant, max_steps, ndrange, args, sgvm,
                            param_names)
        if seen is not None and seen.run:
            return seen.run(t0, make)  # type: ignore[operator, arg-type]
    request = make()
    if request is None:
        return LaunchResult()
    backend = backends.get(device.engine)
    if not observers:
        if seen is None:
            repeats.remember(k, device, options, env, variant, max_steps, ndrange, args, sgvm,
                             param_names)
        elif seen.run is None:
            seen.run = backend.again(request) or False
            if seen.run:
                return seen.run(t0, lambda: request)  # type: ignore[operator, return-value]
    return backend.launch(request)


def _request(k: _Kernel, module: Module, kernel: str, args: Sequence[KernelArg],
             ndrange: NDRange, device: DeviceModel, observers: Sequence[Any], options: Any,
             param_names: Sequence[str] | None, variant: Variant | None, max_steps: int | None,
             env: environment.Settings, sgvm: tuple, t0: float) -> LaunchRequest | None:
    """The launch validated, as its backend receives it; None for an empty NDRange."""
    params = k.params
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
    c = k.choices.get((id(device), id(options), id(env), id(variant)))
    if c is None or c.device is not device or c.options is not options or c.env is not env \
            or c.given is not variant or c.sgvm != sgvm:
        c = _choose(k, device, options, sgvm, env, variant)
    if ndrange.work_items == 0:
        return None
    names = tuple(param_names) if param_names else ()
    labels = k.labels.get(names)
    if labels is None:
        labels = k.labels[names] = arg_labels(params, names)
    return LaunchRequest(module, kernel, args, ndrange, c.sub_group_size, params, labels, device,
                         observers, options, t0, c.variant, max_steps, env)


def _choose(k: _Kernel, device: DeviceModel, options: Any, sgvm: tuple, env: environment.Settings,
            given: Variant | None) -> _Choices:
    """The variant and sub-group size of a launch of ``k`` (remembered in ``k.choices``);
    raises where the device cannot run them."""
    variant = given if given is not None else \
        variant_from_settings(options, device.sub_group_mapping, env)
    S = sub_group_size(k.modes, options, device, variant, env)
    if device.engine == "cuda" and variant.differences(Variant(sub_group_size=variant.sub_group_size,
                                                               seed=variant.seed)):
        raise UnsupportedError(f"{variant.describe()}: only the CPU device runs other than "
                               "sgvm's own choices (docs/portability.md)")
    if device.engine == "cuda" and (env.SGVM_PROFILE_DEVICE or "sgvm").strip().lower() != "sgvm":
        raise UnsupportedError(f"SGVM_PROFILE_DEVICE={env.SGVM_PROFILE_DEVICE}: device profiles "
                               "apply to the CPU devices only (docs/portability.md); unset it "
                               "or run on SGVM_DEVICE=cpu")
    c = _Choices(device, options, sgvm, env, given, variant, S)
    if len(k.choices) >= 64:
        k.choices.clear()
    k.choices[(id(device), id(options), id(env), id(given))] = c
    return c
