"""Kernels: arguments, queries and launches (OpenCL API s5.9, s5.10) over :class:`sgvm.cl.Kernel`."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..cl import Kernel, LocalMemory
from ..cl import kernel as clk
from ..cl.constants import (
    command_type,
    kernel_arg_info,
    kernel_info,
    kernel_sub_group_info,
    kernel_work_group_info,
)
from ..errors import Error
from . import exit_report, handles, state
from .api_program import get_program
from .api_queue import enqueue, get_queue
from .entry import CREATE, api
from .values import c_string, give, is_null, sizes

KERNEL_EXEC_INFO_SVM_PTRS, KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM = 0x11B6, 0x11B7
_WG_ULONG = frozenset({kernel_work_group_info.LOCAL_MEM_SIZE, kernel_work_group_info.PRIVATE_MEM_SIZE})


def get_kernel(ptr: Any) -> handles.Handle:
    return handles.get(ptr, handles.KERNEL)


def _new(kernel: Kernel, program: handles.Handle) -> Any:
    h = handles.new(handles.KERNEL, kernel, holds=(program,))
    program.extra["kernels"] += 1
    h.on_free.append(lambda: program.extra.__setitem__("kernels", program.extra["kernels"] - 1))
    return state.ffi.cast("cl_kernel", h.cdata)


@api(CREATE)
def clCreateKernel(program: Any, name: Any) -> Any:
    p = get_program(program)
    return _new(Kernel(p.obj, c_string(name, "kernel_name")), p)


@api()
def clCreateKernelsInProgram(program: Any, num: int, kernels: Any, num_ret: Any) -> None:
    p = get_program(program)
    made = p.obj.all_kernels()
    if not is_null(kernels):
        if num < len(made):
            raise Error(f"num_kernels is {num}; the program has {len(made)} kernels", "CL_INVALID_VALUE")
        for i, k in enumerate(made):
            kernels[i] = _new(k, p)
    if not is_null(num_ret):
        num_ret[0] = len(made)


@api(CREATE)
def clCloneKernel(kernel: Any) -> Any:
    h = get_kernel(kernel)
    clone = copy.copy(h.obj)
    clone._args = list(h.obj._args)
    return _new(clone, h.holds[0])


@api()
def clRetainKernel(kernel: Any) -> None:
    handles.retain(get_kernel(kernel))


@api()
def clReleaseKernel(kernel: Any) -> None:
    handles.release(get_kernel(kernel))


def _arg_value(k: Kernel, index: int, size: int, value: Any) -> Any:
    """The sgvm.cl argument for clSetKernelArg's (size, value) (OpenCL API s5.9.2)."""
    if not 0 <= index < len(k.params):
        raise Error(f"kernel '{k.name}' has {len(k.params)} arguments; index {index} does not exist",
                    "CL_INVALID_ARG_INDEX")
    p = k.params[index]
    if p.kind == "local":
        if not is_null(value):
            raise Error(f"{p.label} is a __local pointer: arg_value must be NULL", "CL_INVALID_ARG_VALUE")
        if size == 0:
            raise Error(f"{p.label}: give the local memory size in bytes as arg_size", "CL_INVALID_ARG_SIZE")
        return LocalMemory(size)
    if p.kind in ("global", "constant", "image", "sampler"):
        if size != state.ffi.sizeof("void *"):
            raise Error(f"{p.label}: arg_size must be sizeof(cl_mem) or sizeof(cl_sampler) ({8})",
                        "CL_INVALID_ARG_SIZE")
        ptr = state.ffi.NULL if is_null(value) else state.ffi.cast("void **", value)[0]
        if ptr == state.ffi.NULL:
            if p.kind in ("global", "constant"):
                return None  # "a NULL value ... is passed as a NULL pointer"
            raise Error(f"{p.label}: a NULL {p.kind}", "CL_INVALID_ARG_VALUE")
        kind = handles.SAMPLER if p.kind == "sampler" else handles.MEM
        h = handles.get(ptr, kind, "CL_INVALID_SAMPLER" if kind == handles.SAMPLER else "CL_INVALID_MEM_OBJECT")
        return h.obj
    if is_null(value):
        raise Error(f"{p.label} is a by-value {p.type_name}: arg_value is NULL", "CL_INVALID_ARG_VALUE")
    return np.frombuffer(bytes(state.ffi.buffer(value, size)), np.uint8)


@api()
def clSetKernelArg(kernel: Any, index: int, size: int, value: Any) -> None:
    k: Kernel = get_kernel(kernel).obj
    k.set_arg(index, _arg_value(k, index, size, value))


@api()
def clSetKernelExecInfo(kernel: Any, param: int, size: int, value: Any) -> None:
    get_kernel(kernel)
    if is_null(value):
        raise Error("param_value is NULL", "CL_INVALID_VALUE")
    if param == KERNEL_EXEC_INFO_SVM_PTRS:
        return  # every SVM allocation is reachable by every kernel
    if param == KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM:
        if state.ffi.cast("cl_bool *", value)[0]:
            raise Error("sgvm supports coarse-grained SVM buffers only", "CL_INVALID_OPERATION")
        return
    raise Error(f"{param:#x} is not a cl_kernel_exec_info value", "CL_INVALID_VALUE")


@api()
def clGetKernelInfo(kernel: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    h = get_kernel(kernel)
    data = h.refs if param == kernel_info.REFERENCE_COUNT else h.obj.get_info(param)
    give(data, "I", size, value, size_ret)


@api()
def clGetKernelArgInfo(kernel: Any, index: int, param: int, size: int, value: Any, size_ret: Any) -> None:
    k: Kernel = get_kernel(kernel).obj
    data = k.get_arg_info(index, param)
    if param == kernel_arg_info.NAME and not data:
        raise Error("argument names are not known for programs built from SPIR-V", "CL_KERNEL_ARG_INFO_NOT_AVAILABLE")
    give(data, "Q" if param == kernel_arg_info.TYPE_QUALIFIER else "I", size, value, size_ret)


def _device_for(k: Kernel, device: Any) -> Any:
    devices = k.program.context.devices
    if is_null(device):
        if len(devices) != 1:
            raise Error("the kernel's context has several devices: name one", "CL_INVALID_DEVICE")
        return devices[0]
    dev = handles.get(device, handles.DEVICE).obj
    if dev not in devices:
        raise Error("the device is not in the kernel's context", "CL_INVALID_DEVICE")
    return dev


@api()
def clGetKernelWorkGroupInfo(kernel: Any, device: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    k: Kernel = get_kernel(kernel).obj
    data = k.get_work_group_info(param, _device_for(k, device))
    give(data, "Q", size, value, size_ret)


def _sub_group_info(kernel: Any, device: Any, param: int, in_size: int, in_value: Any, size: int, value: Any,
                    size_ret: Any) -> None:
    k: Kernel = get_kernel(kernel).obj
    dev = _device_for(k, device)
    ks = kernel_sub_group_info
    arg: Any = None
    if param in (ks.MAX_SUB_GROUP_SIZE_FOR_NDRANGE, ks.SUB_GROUP_COUNT_FOR_NDRANGE):
        if is_null(in_value) or in_size % 8 or not 1 <= in_size // 8 <= 3:
            raise Error("input_value must be the local work size: 1 to 3 size_t values", "CL_INVALID_VALUE")
        arg = sizes(state.ffi.cast("size_t *", in_value), in_size // 8, "input_value")
    elif param == ks.LOCAL_SIZE_FOR_SUB_GROUP_COUNT:
        if is_null(in_value) or in_size != 8:
            raise Error("input_value must be one size_t: the number of sub-groups", "CL_INVALID_VALUE")
        arg = int(state.ffi.cast("size_t *", in_value)[0])
    data = k.get_sub_group_info(dev, param, arg)
    if param == ks.LOCAL_SIZE_FOR_SUB_GROUP_COUNT:
        dims = size // 8 if not is_null(value) else 3
        if not 1 <= dims <= 3:
            raise Error("param_value_size must hold 1 to 3 size_t values", "CL_INVALID_VALUE")
        data = data[:dims]
    give(data, "Q", size, value, size_ret)


@api()
def clGetKernelSubGroupInfo(kernel: Any, device: Any, param: int, in_size: int, in_value: Any, size: int,
                            value: Any, size_ret: Any) -> None:
    _sub_group_info(kernel, device, param, in_size, in_value, size, value, size_ret)


@api()
def clGetKernelSubGroupInfoKHR(kernel: Any, device: Any, param: int, in_size: int, in_value: Any, size: int,
                               value: Any, size_ret: Any) -> None:
    _sub_group_info(kernel, device, param, in_size, in_value, size, value, size_ret)


def _launch(queue: Any, kernel: Any, dims: int, offset: Any, global_size: Any, local_size: Any, num: int,
            waits: Any, event: Any, ctype: int = command_type.NDRANGE_KERNEL) -> None:
    k: Kernel = get_kernel(kernel).obj
    q = get_queue(queue)
    if k.program.context is not q.context.obj:
        raise Error("the kernel and the queue belong to different contexts", "CL_INVALID_CONTEXT")
    if not 1 <= dims <= 3:
        raise Error(f"work_dim is {dims}; it must be 1, 2 or 3", "CL_INVALID_WORK_DIMENSION")
    if is_null(global_size):
        raise Error("global_work_size is NULL", "CL_INVALID_GLOBAL_WORK_SIZE")
    gws = sizes(global_size, dims, "global_work_size")
    lws = sizes(local_size, dims, "local_work_size", required=False)
    off = sizes(offset, dims, "global_work_offset", required=False)
    snapshot = copy.copy(k)  # the arguments as they are now (OpenCL API s5.10: set at enqueue)
    snapshot._args = list(k._args)
    cq = q.cl_queue

    def work() -> Any:
        ev = clk.enqueue_nd_range_kernel(cq, snapshot, gws, lws, off, allow_empty_ndrange=True)
        exit_report.after_launch(snapshot, ev.result)
        return ev.result

    enqueue(queue, ctype, work, num, waits, event)


@api()
def clEnqueueNDRangeKernel(queue: Any, kernel: Any, dims: int, offset: Any, global_size: Any, local_size: Any,
                           num: int, waits: Any, event: Any) -> None:
    _launch(queue, kernel, dims, offset, global_size, local_size, num, waits, event)


@api()
def clEnqueueTask(queue: Any, kernel: Any, num: int, waits: Any, event: Any) -> None:
    one = state.ffi.new("size_t[1]", [1])
    _launch(queue, kernel, 1, state.ffi.NULL, one, one, num, waits, event, command_type.TASK)


@api()
def clEnqueueNativeKernel(queue: Any, fn: Any, args: Any, cb_args: int, num_mems: int, mems: Any,
                          locations: Any, num: int, waits: Any, event: Any) -> None:
    get_queue(queue)
    raise Error("sgvm's devices cannot run native kernels (CL_DEVICE_EXECUTION_CAPABILITIES lacks "
                "CL_EXEC_NATIVE_KERNEL)", "CL_INVALID_OPERATION")
