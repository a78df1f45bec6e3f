"""The sub-group size of a kernel, and the build-time check of required sizes.

A kernel's sub-group size is its ``intel_reqd_sub_group_size(N)`` (SPIR-V
``OpExecutionMode SubgroupSize N``), else the build option
``-sgvm-sub-group-size=N``, else the environment variable
``SGVM_SUB_GROUP_SIZE``, else the device default (16). cl_intel_required_subgroup_size:
a required size must be one of CL_DEVICE_SUB_GROUP_SIZES_INTEL, otherwise the
build fails; sgvm reports it like an invalid build option.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import BuildError, LogicError
from ..runtime import environment
from ..runtime.device import CPU_DEVICE, DeviceModel
from ..runtime.profiles import profile_device

OPTION = "sub-group-size"  # -sgvm-sub-group-size=N
ENV = "SGVM_SUB_GROUP_SIZE"
_OP_ENTRY_POINT, _OP_EXECUTION_MODE, _MODE_SUBGROUP_SIZE = 15, 16, 35


def _string(words: np.ndarray) -> str:
    raw = words.astype("<u4").tobytes()
    return raw[: raw.find(b"\0")].decode("utf-8", "replace")


def required_sizes(spirv: bytes) -> dict[str, int]:
    """Kernel name → the N of its ``OpExecutionMode SubgroupSize N`` (a scan of the words)."""
    words = np.frombuffer(spirv, dtype="<u4")
    if len(words) and words[0] != 0x07230203:
        words = words.byteswap()
    names: dict[int, str] = {}
    modes: dict[int, int] = {}
    i = 5
    while i < len(words):
        count, opcode = int(words[i]) >> 16, int(words[i]) & 0xFFFF
        if count == 0:
            break
        if opcode == _OP_ENTRY_POINT:
            names[int(words[i + 2])] = _string(words[i + 3:i + count])
        elif opcode == _OP_EXECUTION_MODE and words[i + 2] == _MODE_SUBGROUP_SIZE:
            modes[int(words[i + 1])] = int(words[i + 3])
        i += count
    return {names.get(fid, f"%{fid}"): n for fid, n in modes.items()}


def _invalid(why: str, options: str) -> BuildError:
    what = f"CL_INVALID_BUILD_OPTIONS: {why}"
    return BuildError(f"{what}\n", what=what, options=options)


def _sizes(device: DeviceModel) -> str:
    return ", ".join(map(str, device.sub_group_sizes))


def check_sub_group_sizes(spirv: bytes, options: Any = None, device: DeviceModel | None = None) -> None:
    """Fail the build (BuildError) when a kernel requires a sub-group size the device
    lacks, or ``-sgvm-sub-group-size`` names one.

    Called by ``compile`` after clang; hosts building a program from SPIR-V call
    it with the module's binary. ``device``: None is the CPU device under the
    ``SGVM_PROFILE_DEVICE`` profile (``runtime.profiles``).
    """
    device = device or profile_device()
    text = getattr(options, "text", "")
    opt = (getattr(options, "sgvm", None) or {}).get(OPTION)
    if opt is not None and (not opt.isdigit() or int(opt) not in device.sub_group_sizes):
        raise _invalid(f"-sgvm-{OPTION}={opt} is not a sub-group size of device "
                       f"'{device.name}' ({_sizes(device)})", text)
    for kernel, n in required_sizes(spirv).items():
        if n not in device.sub_group_sizes:
            raise _invalid(f"kernel '{kernel}': intel_reqd_sub_group_size({n}) is not a "
                           f"sub-group size of device '{device.name}' ({_sizes(device)})", text)


def kernel_sub_group_size(required: int | None, options: Any = None,
                          device: DeviceModel = CPU_DEVICE,
                          env: environment.Settings | None = None) -> int:
    """The sub-group size a kernel runs with (see the module docstring); ``env``: the
    environment to read (None: as it is now)."""
    if required:
        size, source = int(required), f"intel_reqd_sub_group_size({required})"
    else:
        opt = (getattr(options, "sgvm", None) or {}).get(OPTION)
        env_size = (env or environment.current()).SGVM_SUB_GROUP_SIZE or ""
        if opt:
            size, source = (int(opt) if opt.isdigit() else -1), f"-sgvm-{OPTION}={opt}"
        elif env_size:
            size, source = (int(env_size) if env_size.isdigit() else -1), f"{ENV}={env_size}"
        else:
            return device.default_sub_group_size
    if size not in device.sub_group_sizes:
        raise LogicError(f"{source} is not a sub-group size of device '{device.name}' "
                         f"({_sizes(device)})", "CL_INVALID_BUILD_OPTIONS")
    return size
