"""Device profiles: make sgvm choose as a given implementation does.

``SGVM_PROFILE_DEVICE=intel-gpu|intel-cpu|intel-cpu-avx2`` (``sgvm run --as NAME``) selects the
sub-group sizes the CPU device offers, its default size and its mapping of
work-items to sub-groups (docs/portability.md lists where each fact comes from):

* ``intel-gpu``: sizes 8, 16 and 32 (CL_DEVICE_SUB_GROUP_SIZES_INTEL of Intel's
  compute-runtime on Gen9 to Xe-HPG); Intel's compiler picks the SIMD width per
  kernel, sgvm takes 16; sub-groups are runs of consecutive linear ids.
* ``intel-cpu``: sizes 4, 8, 16, 32 and 64, default 16 (Intel's CPU runtime for
  OpenCL on a host with AVX-512, measured); each row of dimension 0 forms its own
  sub-groups.
* ``intel-cpu-avx2``: the same with default 8 (that runtime on a host with AVX2 and no
  AVX-512, measured on an AMD EPYC, Zen 3).
* ``sgvm`` (unset): sgvm's own device, which follows Intel GPUs.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import LogicError
from . import environment
from .device import CPU_DEVICE, DeviceModel

ENV = "SGVM_PROFILE_DEVICE"

_INTEL_CPU = replace(CPU_DEVICE, name="sgvm CPU (as Intel CPU runtime)",
                     sub_group_sizes=(4, 8, 16, 32, 64), default_sub_group_size=16,
                     sub_group_mapping="rows", max_num_sub_groups=256)
PROFILES: dict[str, DeviceModel] = {
    "sgvm": CPU_DEVICE,
    "intel-gpu": replace(CPU_DEVICE, name="sgvm CPU (as Intel GPU)", sub_group_sizes=(8, 16, 32),
                         default_sub_group_size=16, sub_group_mapping="linear"),
    "intel-cpu": _INTEL_CPU,
    "intel-cpu-avx2": replace(_INTEL_CPU, name="sgvm CPU (as Intel CPU runtime, AVX2)",
                              default_sub_group_size=8),
}

# Every size some implementation offers: what the portability check tries.
ALL_SUB_GROUP_SIZES: tuple[int, ...] = (4, 8, 16, 32, 64)


def with_all_sub_group_sizes(device: DeviceModel) -> DeviceModel:
    """``device`` offering every size of ``ALL_SUB_GROUP_SIZES`` (the portability check's
    variants run on it)."""
    return replace(device, sub_group_sizes=ALL_SUB_GROUP_SIZES,
                   max_num_sub_groups=device.max_work_group_size // min(ALL_SUB_GROUP_SIZES))


def profile_device(name: str | None = None) -> DeviceModel:
    """The CPU device's model under profile ``name`` (None: ``SGVM_PROFILE_DEVICE``, else sgvm's)."""
    key = (name if name is not None else (environment.current().SGVM_PROFILE_DEVICE or "")).strip().lower() or "sgvm"
    model = PROFILES.get(key)
    if model is None:
        raise LogicError(f"device profile {key!r} is unknown; use one of {', '.join(PROFILES)}",
                         "CL_INVALID_VALUE")
    return model
