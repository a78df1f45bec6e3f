"""Contexts (OpenCL API s4.4) over :class:`sgvm.cl.Context`."""

from __future__ import annotations

from typing import Any

from ..cl import Context
from ..cl.constants import context_info, device_type
from ..errors import Error
from . import handles, state
from .api_platform import device_handles, get_platform
from .entry import CREATE, api
from .values import flat, give, handle_list, is_null, properties

CONTEXT_PLATFORM = 0x1084
CONTEXT_INTEROP_USER_SYNC = 0x1085


def _check_properties(props: Any) -> list[tuple[int, int]]:
    pairs = properties(props)
    seen = set()
    for name, value in pairs:
        if name in seen:
            raise Error(f"context property {name:#x} is given twice", "CL_INVALID_PROPERTY")
        seen.add(name)
        if name == CONTEXT_PLATFORM:
            get_platform(state.ffi.cast("cl_platform_id", value))
        elif name != CONTEXT_INTEROP_USER_SYNC:
            raise Error(f"context property {name:#x} is not supported", "CL_INVALID_PROPERTY")
    return pairs


def _new_context(devices: list[handles.Handle], pairs: list[tuple[int, int]]) -> Any:
    ctx = Context([h.obj for h in devices], flat(pairs))
    return state.ffi.cast("cl_context", handles.new(handles.CONTEXT, ctx, holds=tuple(devices)).cdata)


@api(CREATE)
def clCreateContext(props: Any, num_devices: int, devices: Any, notify: Any, user_data: Any) -> Any:
    pairs = _check_properties(props)
    if is_null(notify) and not is_null(user_data):
        raise Error("user_data is given without pfn_notify", "CL_INVALID_VALUE")
    return _new_context(handle_list(num_devices, devices, handles.DEVICE, "devices"), pairs)


@api(CREATE)
def clCreateContextFromType(props: Any, dtype: int, notify: Any, user_data: Any) -> Any:
    pairs = _check_properties(props)
    if is_null(notify) and not is_null(user_data):
        raise Error("user_data is given without pfn_notify", "CL_INVALID_VALUE")
    if not dtype & (device_type.DEFAULT | device_type.GPU):
        raise Error(f"sgvm has no device of type {dtype:#x}", "CL_DEVICE_NOT_FOUND")
    found = device_handles()
    return _new_context(found if dtype == device_type.ALL else found[:1], pairs)


@api()
def clRetainContext(context: Any) -> None:
    handles.retain(handles.get(context, handles.CONTEXT))


@api()
def clReleaseContext(context: Any) -> None:
    handles.release(handles.get(context, handles.CONTEXT))


@api()
def clGetContextInfo(context: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    h = handles.get(context, handles.CONTEXT)
    ctx: Context = h.obj
    if param == context_info.REFERENCE_COUNT:
        data: Any = h.refs
    elif param == context_info.PROPERTIES:
        give(ctx.properties, "q", size, value, size_ret)
        return
    else:
        data = ctx.get_info(param)
    give(data, "I", size, value, size_ret)


@api()
def clSetContextDestructorCallback(context: Any, notify: Any, user_data: Any) -> None:
    h = handles.get(context, handles.CONTEXT)
    if is_null(notify):
        raise Error("pfn_notify is NULL", "CL_INVALID_VALUE")
    pointer = state.ffi.cast("cl_context", h.cdata)
    h.on_free.append(lambda: notify(pointer, user_data))
