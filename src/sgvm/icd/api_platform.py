"""Platform and device entry points (OpenCL API s4.1-4.3) over :mod:`sgvm.cl.platform`."""

from __future__ import annotations

import os
import time
from typing import Any

from ..cl import platform as clp
from ..cl.constants import device_info, device_type, platform_info
from ..errors import Error
from . import handles, state
from .entry import api
from .values import give, is_null, scalar_of

di = device_info
# cl_ulong and cl_bitfield answers (everything else integer is cl_uint or size_t).
DEVICE_ULONG = frozenset({
    di.TYPE, di.MAX_MEM_ALLOC_SIZE, di.GLOBAL_MEM_CACHE_SIZE, di.GLOBAL_MEM_SIZE, di.MAX_CONSTANT_BUFFER_SIZE,
    di.LOCAL_MEM_SIZE, di.SINGLE_FP_CONFIG, di.DOUBLE_FP_CONFIG, di.HALF_FP_CONFIG, di.EXECUTION_CAPABILITIES,
    di.QUEUE_PROPERTIES, di.SVM_CAPABILITIES, di.QUEUE_ON_DEVICE_PROPERTIES, di.PARTITION_AFFINITY_DOMAIN,
    di.ATOMIC_MEMORY_CAPABILITIES, di.ATOMIC_FENCE_CAPABILITIES, di.DEVICE_ENQUEUE_CAPABILITIES,
    di.INTEGER_DOT_PRODUCT_CAPABILITIES_KHR,
})
DEVICE_SIZE_T = frozenset({
    di.MAX_WORK_GROUP_SIZE, di.MAX_WORK_ITEM_SIZES, di.IMAGE2D_MAX_WIDTH, di.IMAGE2D_MAX_HEIGHT,
    di.IMAGE3D_MAX_WIDTH, di.IMAGE3D_MAX_HEIGHT, di.IMAGE3D_MAX_DEPTH, di.IMAGE_MAX_BUFFER_SIZE,
    di.IMAGE_MAX_ARRAY_SIZE, di.MAX_PARAMETER_SIZE, di.PROFILING_TIMER_RESOLUTION, di.PRINTF_BUFFER_SIZE,
    di.MAX_GLOBAL_VARIABLE_SIZE, di.GLOBAL_VARIABLE_PREFERRED_TOTAL_SIZE,
    di.PREFERRED_WORK_GROUP_SIZE_MULTIPLE, di.SUB_GROUP_SIZES_INTEL,
})
DEVICE_INTPTR = frozenset({di.PARTITION_PROPERTIES, di.PARTITION_TYPE})
# The ICD adds coarse-grained SVM buffers (api_svm.py) to what sgvm.cl's devices report.
SVM_COARSE_GRAIN_BUFFER = 1 << 0

_platform: handles.Handle | None = None
_devices: list[handles.Handle] = []


def platform_handle() -> handles.Handle:
    """The platform (a static C object of the library) and its devices, made on first use.
    ``SGVM_DEVICE`` (cpu or cuda) lists only that device."""
    global _platform
    if _platform is None:
        cdata = state.ffi.cast("sgvm_object *", state.lib.sgvm_platform())
        _platform = handles.new(handles.PLATFORM, clp.get_platforms()[0], cdata=cdata, permanent=True)
        want = os.environ.get("SGVM_DEVICE", "").strip().lower()
        devices = [clp._device_from_env()] if want else _platform.obj._devices
        for dev in devices:
            _devices.append(handles.new(handles.DEVICE, dev, permanent=True))
    return _platform


def device_handles() -> list[handles.Handle]:
    platform_handle()
    return list(_devices)


def get_platform(ptr: Any) -> handles.Handle:
    """``ptr`` must be sgvm's platform; NULL also selects it (the behaviour is "implementation-defined")."""
    if is_null(ptr):
        return platform_handle()
    return handles.get(ptr, handles.PLATFORM)


@api()
def clGetPlatformIDs(num_entries: int, platforms: Any, num_platforms: Any) -> None:
    if (num_entries == 0 and not is_null(platforms)) or (is_null(platforms) and is_null(num_platforms)):
        raise Error("num_entries is 0 with platforms given, or both platforms and num_platforms are NULL",
                    "CL_INVALID_VALUE")
    h = platform_handle()
    if not is_null(platforms):
        platforms[0] = state.ffi.cast("cl_platform_id", h.cdata)
    if not is_null(num_platforms):
        num_platforms[0] = 1


@api()
def clIcdGetPlatformIDsKHR(num_entries: int, platforms: Any, num_platforms: Any) -> None:
    """cl_khr_icd: the loader enumerates the vendor's platforms through this."""
    clGetPlatformIDs(num_entries, platforms, num_platforms)


@api()
def clGetPlatformInfo(platform: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    obj = get_platform(platform).obj
    if param == platform_info.EXTENSIONS:
        data: Any = obj.get_info(param) + " cl_khr_icd"
    elif param == platform_info.EXTENSIONS_WITH_VERSION:
        data = obj.get_info(param) + [clp.NameVersion("cl_khr_icd", clp.make_version(1, 0))]
    elif param == 0x0920:  # CL_PLATFORM_ICD_SUFFIX_KHR
        data = "SGVM"
    else:
        data = obj.get_info(param)
    scalar = "Q" if param == platform_info.HOST_TIMER_RESOLUTION else "I"
    give(data, scalar, size, value, size_ret)


@api()
def clGetDeviceIDs(platform: Any, dtype: int, num_entries: int, devices: Any, num_devices: Any) -> None:
    get_platform(platform)
    known = device_type.DEFAULT | device_type.CPU | device_type.GPU | device_type.ACCELERATOR | device_type.CUSTOM
    if dtype != device_type.ALL and dtype & ~known:
        raise Error(f"device_type {dtype:#x} is not a valid device type", "CL_INVALID_DEVICE_TYPE")
    if (num_entries == 0 and not is_null(devices)) or (is_null(devices) and is_null(num_devices)):
        raise Error("num_entries is 0 with devices given, or both devices and num_devices are NULL",
                    "CL_INVALID_VALUE")
    # The devices are GPUs (CL_DEVICE_TYPE_GPU): DEFAULT, GPU and ALL find them, CPU does not
    # (sgvm.cl answers CPU too, for scripts; an OpenCL platform must not).
    found = [h for h in device_handles() if dtype & (device_type.DEFAULT | device_type.GPU)]
    if dtype == device_type.DEFAULT:
        found = found[:1]
    if not found:
        raise Error(f"sgvm has no device of type {dtype:#x}", "CL_DEVICE_NOT_FOUND")
    if not is_null(devices):
        for i, h in enumerate(found[:num_entries]):
            devices[i] = state.ffi.cast("cl_device_id", h.cdata)
    if not is_null(num_devices):
        num_devices[0] = len(found)


def device_value(dev: clp.Device, param: int) -> Any:
    """clGetDeviceInfo's answer: sgvm.cl's, with what the ICD adds (SVM, clLinkProgram)."""
    if param == di.SVM_CAPABILITIES:
        return SVM_COARSE_GRAIN_BUFFER
    if param == di.LINKER_AVAILABLE:
        return True  # clLinkProgram (api_program.py)
    return dev.get_info(param)


@api()
def clGetDeviceInfo(device: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    dev = handles.get(device, handles.DEVICE).obj
    data = device_value(dev, param)
    if param in DEVICE_INTPTR:
        give(list(data), "q", size, value, size_ret)
        return
    give(data, scalar_of(param, DEVICE_ULONG, DEVICE_SIZE_T), size, value, size_ret)


@api()
def clCreateSubDevices(device: Any, properties: Any, num_entries: int, out: Any, num_ret: Any) -> None:
    handles.get(device, handles.DEVICE)
    raise Error("sgvm's devices cannot be partitioned (CL_DEVICE_PARTITION_MAX_SUB_DEVICES is 0)",
                "CL_INVALID_VALUE")


@api()
def clRetainDevice(device: Any) -> None:
    handles.get(device, handles.DEVICE)  # root devices: "the reference count is not changed"


@api()
def clReleaseDevice(device: Any) -> None:
    handles.get(device, handles.DEVICE)


@api()
def clGetDeviceAndHostTimer(device: Any, device_ts: Any, host_ts: Any) -> None:
    handles.get(device, handles.DEVICE)
    if is_null(device_ts) or is_null(host_ts):
        raise Error("device_timestamp and host_timestamp must not be NULL", "CL_INVALID_VALUE")
    now = time.perf_counter_ns()  # the device clock is the host clock: profiling times use it too
    device_ts[0] = host_ts[0] = now


@api()
def clGetHostTimer(device: Any, host_ts: Any) -> None:
    handles.get(device, handles.DEVICE)
    if is_null(host_ts):
        raise Error("host_timestamp must not be NULL", "CL_INVALID_VALUE")
    host_ts[0] = time.perf_counter_ns()


@api()
def clUnloadCompiler() -> None:
    """Nothing to unload: clang runs as a separate process per build."""


@api()
def clUnloadPlatformCompiler(platform: Any) -> None:
    get_platform(platform)
