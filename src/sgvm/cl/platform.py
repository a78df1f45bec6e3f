"""Platforms, devices and contexts (``cl.get_platforms``, ``cl.create_some_context``)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..runtime import environment
from ..runtime.device import ALIASES, CPU_DEVICE, DEVICES, DeviceModel, make_version
from ..runtime.profiles import profile_device
from ._base import InfoObject, cl_error
from .constants import (
    command_queue_properties,
    context_info,
    device_exec_capabilities,
    device_fp_config,
    device_info,
    device_local_mem_type,
    device_mem_cache_type,
    device_type,
    platform_info,
)

SGVM_VERSION = "0.1.0"


class NameVersion(NamedTuple):
    """``cl_name_version``: an extension, IL, feature or OpenCL C version with its version."""

    name: str
    version: int


def _with_version(names: Sequence[str], version: int = make_version(1, 0)) -> list[NameVersion]:
    return [NameVersion(n, version) for n in names]


# OpenCL C versions a 3.0 device accepts: 1.0 to 1.2 always, 3.0 (API s4.2, CL_DEVICE_OPENCL_C_ALL_VERSIONS);
# 2.0 needs pipes and device-side enqueue, which sgvm's devices lack.
OPENCL_C_VERSIONS = [NameVersion("OpenCL C", make_version(*v)) for v in ((1, 0), (1, 1), (1, 2), (3, 0))]
# memory_order_relaxed/acq_rel/seq_cst and every scope (CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES bits).
ATOMIC_CAPABILITIES = 0x7F


class Platform(InfoObject):
    """The single sgvm platform."""

    _info_ns = platform_info

    def __init__(self) -> None:
        self._devices: list[Device] = []

    def get_info(self, param: int) -> Any:
        """clGetPlatformInfo."""
        values = {
            platform_info.PROFILE: "FULL_PROFILE",
            platform_info.VERSION: f"OpenCL 3.0 sgvm {SGVM_VERSION}",
            platform_info.NAME: "sgvm",
            platform_info.VENDOR: "sgvm",
            platform_info.EXTENSIONS: " ".join(CPU_DEVICE.extensions),
            platform_info.HOST_TIMER_RESOLUTION: 1,
            platform_info.NUMERIC_VERSION: make_version(3, 0),
            platform_info.EXTENSIONS_WITH_VERSION: [NameVersion(n, v) for n, v in
                                                    CPU_DEVICE.extensions_with_version()],
        }
        return self._answer(values, param, "clGetPlatformInfo")

    def get_devices(self, device_type: int = device_type.ALL) -> list[Device]:
        """clGetDeviceIDs. sgvm's devices answer to DEFAULT, CPU, GPU and ALL so
        scripts that ask for either kind run unchanged; they report CL_DEVICE_TYPE_GPU.
        Other types (ACCELERATOR, CUSTOM) give ``[]``, as PyOpenCL returns for
        CL_DEVICE_NOT_FOUND; a value that is no device type is CL_INVALID_DEVICE_TYPE."""
        if isinstance(device_type, bool) or not isinstance(device_type, int | np.integer) \
                or device_type <= 0 or device_type & ~_DEVICE_TYPES_ALL and device_type != _ALL:
            raise cl_error("CL_INVALID_DEVICE_TYPE", f"{device_type!r} is not a cl.device_type value; use e.g. "
                           "device_type.GPU or device_type.ALL", "clGetDeviceIDs")
        return list(self._devices) if device_type & _DEVICE_TYPES_SERVED else []

    def __repr__(self) -> str:
        return "<pyopencl.Platform 'sgvm' (sgvm)>"


_DEVICE_TYPES_SERVED = device_type.DEFAULT | device_type.CPU | device_type.GPU
_DEVICE_TYPES_ALL = _DEVICE_TYPES_SERVED | device_type.ACCELERATOR | device_type.CUSTOM
_ALL = device_type.ALL


def _fp_bits(names: Sequence[str]) -> int:
    return sum(getattr(device_fp_config, n) for n in names)


class Device(InfoObject):
    """An sgvm device: the values of a :class:`~sgvm.runtime.device.DeviceModel`."""

    _info_ns = device_info

    def __init__(self, platform: Platform, model: DeviceModel, backend: str) -> None:
        self.platform = platform
        self._model = model
        self.backend = backend
        self._profiles: dict[str | None, DeviceModel] = {}  # SGVM_PROFILE_DEVICE → model

    @property
    def model(self) -> DeviceModel:
        """The device model; the CPU device's follows ``SGVM_PROFILE_DEVICE``
        (``runtime.profiles``)."""
        return self.model_under(environment.current())

    def model_under(self, env: environment.Settings) -> DeviceModel:
        """The device model under the environment ``env``: one object per profile."""
        if self.backend not in ("cpu", "native"):
            return self._model
        model = self._profiles.get(env.SGVM_PROFILE_DEVICE)
        if model is None:
            model = profile_device(env.SGVM_PROFILE_DEVICE or "")
            if self.backend == "native":  # the same profile, run natively where it can be
                model = dataclasses.replace(model, name=self._model.name, engine="native")
            self._profiles[env.SGVM_PROFILE_DEVICE] = model
        return model

    def get_info(self, param: int) -> Any:
        """clGetDeviceInfo, every value taken from the device model."""
        m = self.model
        di = device_info
        fp = _fp_bits(m.fp_config)
        values: dict[int, Any] = {
            di.TYPE: device_type.GPU,
            di.VENDOR_ID: 0x8086,
            di.MAX_COMPUTE_UNITS: m.max_compute_units,
            di.MAX_WORK_ITEM_DIMENSIONS: m.max_work_item_dimensions,
            di.MAX_WORK_GROUP_SIZE: m.max_work_group_size,
            di.MAX_WORK_ITEM_SIZES: list(m.max_work_item_sizes),
            di.MAX_CLOCK_FREQUENCY: 1000,
            di.ADDRESS_BITS: m.address_bits,
            di.MAX_READ_IMAGE_ARGS: m.max_read_image_args,
            di.MAX_WRITE_IMAGE_ARGS: m.max_write_image_args,
            di.MAX_READ_WRITE_IMAGE_ARGS: m.max_write_image_args,
            di.MAX_MEM_ALLOC_SIZE: m.max_mem_alloc_size,
            di.IMAGE2D_MAX_WIDTH: m.image2d_max_width,
            di.IMAGE2D_MAX_HEIGHT: m.image2d_max_height,
            di.IMAGE3D_MAX_WIDTH: m.image3d_max_width,
            di.IMAGE3D_MAX_HEIGHT: m.image3d_max_height,
            di.IMAGE3D_MAX_DEPTH: m.image3d_max_depth,
            di.IMAGE_MAX_BUFFER_SIZE: m.image_max_buffer_size,
            di.IMAGE_MAX_ARRAY_SIZE: m.image_max_array_size,
            di.IMAGE_PITCH_ALIGNMENT: m.image_pitch_alignment,
            di.IMAGE_BASE_ADDRESS_ALIGNMENT: m.image_pitch_alignment,
            di.IMAGE_SUPPORT: m.image_support,
            di.MAX_PARAMETER_SIZE: m.max_parameter_size,
            di.MAX_SAMPLERS: m.max_samplers,
            di.MEM_BASE_ADDR_ALIGN: m.mem_base_addr_align,
            di.MIN_DATA_TYPE_ALIGN_SIZE: 128,
            di.SINGLE_FP_CONFIG: fp,
            # every backend keeps double denormals (the CUDA backend flushes only floats')
            di.DOUBLE_FP_CONFIG: (fp | device_fp_config.DENORM)
            & ~device_fp_config.CORRECTLY_ROUNDED_DIVIDE_SQRT,
            di.HALF_FP_CONFIG: fp & ~device_fp_config.CORRECTLY_ROUNDED_DIVIDE_SQRT,
            di.GLOBAL_MEM_CACHE_TYPE: device_mem_cache_type.NONE,
            di.GLOBAL_MEM_CACHELINE_SIZE: 64,
            di.GLOBAL_MEM_CACHE_SIZE: 0,
            di.GLOBAL_MEM_SIZE: m.global_mem_size,
            di.MAX_CONSTANT_BUFFER_SIZE: m.max_constant_buffer_size,
            di.MAX_CONSTANT_ARGS: m.max_constant_args,
            di.LOCAL_MEM_TYPE: device_local_mem_type.LOCAL,
            di.LOCAL_MEM_SIZE: m.local_mem_size,
            di.ERROR_CORRECTION_SUPPORT: False,
            di.PROFILING_TIMER_RESOLUTION: 1,
            di.ENDIAN_LITTLE: True,
            di.AVAILABLE: True,
            di.COMPILER_AVAILABLE: True,
            di.LINKER_AVAILABLE: False,
            di.EXECUTION_CAPABILITIES: device_exec_capabilities.KERNEL,
            di.QUEUE_PROPERTIES: command_queue_properties.OUT_OF_ORDER_EXEC_MODE_ENABLE
            | command_queue_properties.PROFILING_ENABLE,
            di.NAME: m.name,
            di.VENDOR: m.vendor,
            di.DRIVER_VERSION: m.driver_version,
            di.PROFILE: "FULL_PROFILE",
            di.VERSION: m.version,
            di.EXTENSIONS: " ".join(m.extensions),
            di.PLATFORM: self.platform,
            di.HOST_UNIFIED_MEMORY: True,
            di.OPENCL_C_VERSION: m.opencl_c_version,
            di.BUILT_IN_KERNELS: "",
            di.PARENT_DEVICE: None,
            di.PARTITION_MAX_SUB_DEVICES: 0,
            di.REFERENCE_COUNT: 1,
            di.PREFERRED_INTEROP_USER_SYNC: True,
            di.PRINTF_BUFFER_SIZE: m.printf_buffer_size,
            di.MAX_GLOBAL_VARIABLE_SIZE: m.max_mem_alloc_size,
            di.GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE: m.max_mem_alloc_size,
            di.SVM_CAPABILITIES: 0,
            di.MAX_PIPE_ARGS: 0,
            di.PIPE_SUPPORT: False,
            di.IL_VERSION: m.il_version,
            di.MAX_NUM_SUB_GROUPS: m.max_num_sub_groups,
            di.SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS: False,  # sub-groups run in lock-step
            di.NON_UNIFORM_WORK_GROUP_SUPPORT: True,
            di.PREFERRED_WORK_GROUP_SIZE_MULTIPLE: m.default_sub_group_size,
            di.WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT: True,
            di.GENERIC_ADDRESS_SPACE_SUPPORT: True,
            di.OPENCL_C_FEATURES: _with_version(m.opencl_c_features, make_version(3, 0)),
            di.SUB_GROUP_SIZES_INTEL: list(m.sub_group_sizes),
            di.NUMERIC_VERSION: make_version(3, 0),
            di.EXTENSIONS_WITH_VERSION: [NameVersion(n, v) for n, v in m.extensions_with_version()],
            # cl_khr_integer_dot_product 2.0.0: both 8-bit input kinds; none is accelerated
            di.INTEGER_DOT_PRODUCT_CAPABILITIES_KHR: 0x3,  # INPUT_4x8BIT_PACKED | INPUT_4x8BIT
            di.INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR: [False] * 6,
            di.INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR: [False] * 6,
            di.ILS_WITH_VERSION: [NameVersion("SPIR-V", make_version(1, minor)) for minor in range(7)],
            di.BUILT_IN_KERNELS_WITH_VERSION: [],
            di.OPENCL_C_ALL_VERSIONS: list(OPENCL_C_VERSIONS),
            di.LATEST_CONFORMANCE_VERSION_PASSED: "none",  # sgvm has not run the Khronos CTS
            di.ATOMIC_MEMORY_CAPABILITIES: ATOMIC_CAPABILITIES,
            di.ATOMIC_FENCE_CAPABILITIES: ATOMIC_CAPABILITIES,
            di.DEVICE_ENQUEUE_CAPABILITIES: 0,
            di.QUEUE_ON_DEVICE_PROPERTIES: 0,
            di.QUEUE_ON_DEVICE_PREFERRED_SIZE: 0,
            di.QUEUE_ON_DEVICE_MAX_SIZE: 0,
            di.MAX_ON_DEVICE_QUEUES: 0,
            di.MAX_ON_DEVICE_EVENTS: 0,
            di.PIPE_MAX_ACTIVE_RESERVATIONS: 0,
            di.PIPE_MAX_PACKET_SIZE: 0,
            di.PREFERRED_PLATFORM_ATOMIC_ALIGNMENT: 0,  # 0: aligned to the natural size of the type
            di.PREFERRED_GLOBAL_ATOMIC_ALIGNMENT: 0,
            di.PREFERRED_LOCAL_ATOMIC_ALIGNMENT: 0,
            di.PARTITION_PROPERTIES: [0],  # "If the device cannot be partitioned ... 0"
            di.PARTITION_AFFINITY_DOMAIN: 0,
            di.PARTITION_TYPE: [],
        }
        for kind, width in (("CHAR", 1), ("SHORT", 1), ("INT", 1), ("LONG", 1), ("FLOAT", 1),
                            ("DOUBLE", 1), ("HALF", 1)):
            values[getattr(di, f"NATIVE_VECTOR_WIDTH_{kind}")] = width
            values[getattr(di, f"PREFERRED_VECTOR_WIDTH_{kind}")] = width
        return self._answer(values, param, "clGetDeviceInfo")

    def __repr__(self) -> str:
        return f"<pyopencl.Device '{self.model.name}' on 'sgvm'>"


def _available(name: str) -> bool:
    """A device is listed when its backend can run here (the CUDA one needs CuPy and a GPU,
    docs/cuda.md; the native one the ziglang wheel, docs/native.md)."""
    from ..engine import backend

    return backend.get(name).available()


_PLATFORM = Platform()
_BACKENDS = {name: model for name, model in DEVICES.items() if name == "cpu" or _available(name)}
_PLATFORM._devices = [Device(_PLATFORM, model, name) for name, model in _BACKENDS.items()]


def get_platforms() -> list[Platform]:
    """clGetPlatformIDs: the one sgvm platform."""
    return [_PLATFORM]


def _device_from_env() -> Device:
    """The device ``SGVM_DEVICE`` names ("numpy" is "cpu", the NumPy engine); unset, the
    platform's first: the native backend where it can run, else the NumPy engine."""
    want = os.environ.get("SGVM_DEVICE", "").strip().lower() or _PLATFORM._devices[0].backend
    want = ALIASES.get(want, want)
    for dev in _PLATFORM._devices:
        if dev.backend == want:
            return dev
    raise cl_error(
        "CL_DEVICE_NOT_FOUND",
        f"SGVM_DEVICE={want!r} names no available sgvm device; "
        f"use one of {', '.join(d.backend for d in _PLATFORM._devices)}",
        "create_some_context",
    )


class Context(InfoObject):
    """clCreateContext: a set of sgvm devices."""

    _info_ns = context_info

    def __init__(
        self,
        devices: Sequence[Device] | None = None,
        properties: Sequence[Any] | None = None,
        dev_type: int | None = None,
    ) -> None:
        if devices is None:
            devices = _PLATFORM.get_devices(dev_type if dev_type is not None else device_type.DEFAULT)[:1]
            if not devices:
                raise cl_error("CL_DEVICE_NOT_FOUND", f"sgvm has no device of type "
                               f"{device_type.to_string(dev_type, '%#x')}; ask for device_type.GPU, CPU or ALL",
                               "clCreateContextFromType")
        devices = list(devices)
        if not devices or not all(isinstance(d, Device) for d in devices):
            raise cl_error("CL_INVALID_DEVICE", "pass a list of sgvm devices from Platform.get_devices()",
                           "clCreateContext")
        self.devices = devices
        self.properties = list(properties or [])

    def get_info(self, param: int) -> Any:
        """clGetContextInfo."""
        values = {
            context_info.REFERENCE_COUNT: 1,
            context_info.DEVICES: list(self.devices),
            context_info.PROPERTIES: list(self.properties),
            context_info.NUM_DEVICES: len(self.devices),
        }
        return self._answer(values, param, "clGetContextInfo")

    def __repr__(self) -> str:
        return f"<pyopencl.Context on {', '.join(d.model.name for d in self.devices)}>"


def create_some_context(interactive: bool | None = False, answers: Sequence[str] | None = None) -> Context:
    """A context on the device ``SGVM_DEVICE`` names (by default the platform's first).

    Never prompts; ``interactive``, ``answers`` and ``PYOPENCL_CTX`` have no
    effect because sgvm has one platform and picks the device from ``SGVM_DEVICE``.
    """
    del interactive, answers
    return Context([_device_from_env()])
