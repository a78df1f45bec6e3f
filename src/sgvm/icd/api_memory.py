"""Buffers and the buffer commands (OpenCL API s5.2, s5.5) over :mod:`sgvm.cl.memory`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..cl import memory as clm
from ..cl import rect
from ..cl.constants import command_type, map_flags, mem_flags, mem_info
from ..errors import Error
from . import handles, state
from .api_queue import enqueue, get_queue
from .entry import CREATE, api
from .values import give, is_null, properties, sizes

MEM_USES_SVM_POINTER, MEM_PROPERTIES = 0x1109, 0x110A
BUFFER_CREATE_TYPE_REGION = 0x1220
_MEM_ULONG = frozenset({mem_info.FLAGS, MEM_PROPERTIES})
_MEM_SIZE_T = frozenset({mem_info.SIZE, mem_info.OFFSET})


def host_view(ptr: Any, nbytes: int) -> np.ndarray:
    """The application's memory at ``ptr`` as a writable uint8 array (no copy)."""
    if nbytes == 0:
        return np.zeros(0, np.uint8)
    return np.frombuffer(state.ffi.buffer(ptr, nbytes), dtype=np.uint8)


def address_of(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


def get_mem(ptr: Any) -> handles.Handle:
    return handles.get(ptr, handles.MEM)


def get_buffer(ptr: Any) -> clm.Buffer:
    h = get_mem(ptr)
    if type(h.obj) is not clm.Buffer:
        raise Error("expected a buffer, got an image", "CL_INVALID_MEM_OBJECT")
    return h.obj


def same_context(queue: Any, *objs: Any) -> None:
    ctx = get_queue(queue).context.obj
    if any(o.context is not ctx for o in objs):
        raise Error("the command queue and the memory object belong to different contexts", "CL_INVALID_CONTEXT")


def new_mem(obj: Any, context: handles.Handle, host_ptr: int, props: list[int], *extra: handles.Handle) -> Any:
    """A cl_mem handle for ``obj`` (a buffer or image) that keeps its context alive."""
    h = handles.new(handles.MEM, obj, holds=(context, *extra))
    h.extra.update(host_ptr=host_ptr, maps={}, properties=props)
    return state.ffi.cast("cl_mem", h.cdata)


def _create_buffer(context: Any, flags: int, size: int, host_ptr: Any, props: list[int]) -> Any:
    ctx = handles.get(context, handles.CONTEXT)
    if size == 0:
        raise Error("size is 0", "CL_INVALID_BUFFER_SIZE")
    wants_host = flags & (mem_flags.USE_HOST_PTR | mem_flags.COPY_HOST_PTR)
    if is_null(host_ptr) == bool(wants_host):
        raise Error("host_ptr goes with CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR, and only with them",
                    "CL_INVALID_HOST_PTR")
    hostbuf = None if is_null(host_ptr) else host_view(host_ptr, size)
    buf = clm.Buffer(ctx.obj, flags, size, hostbuf)
    address = handles.address(host_ptr) if flags & mem_flags.USE_HOST_PTR else 0
    return new_mem(buf, ctx, address, props)


@api(CREATE)
def clCreateBuffer(context: Any, flags: int, size: int, host_ptr: Any) -> Any:
    return _create_buffer(context, flags, size, host_ptr, [])


@api(CREATE)
def clCreateBufferWithProperties(context: Any, props: Any, flags: int, size: int, host_ptr: Any) -> Any:
    pairs = properties(props)
    if pairs:
        raise Error(f"memory property {pairs[0][0]:#x} is not supported", "CL_INVALID_PROPERTY")
    return _create_buffer(context, flags, size, host_ptr, [0] if not is_null(props) else [])


@api(CREATE)
def clCreateSubBuffer(mem: Any, flags: int, create_type: int, info: Any) -> Any:
    parent = get_mem(mem)
    buf = get_buffer(mem)
    if create_type != BUFFER_CREATE_TYPE_REGION or is_null(info):
        raise Error("buffer_create_type must be CL_BUFFER_CREATE_TYPE_REGION with a cl_buffer_region",
                    "CL_INVALID_VALUE")
    region = state.ffi.cast("cl_buffer_region *", info)
    sub = buf.get_sub_region(int(region.origin), int(region.size), flags)
    host = parent.extra["host_ptr"]
    return new_mem(sub, parent.holds[0], host + int(region.origin) if host else 0, [], parent)


@api()
def clRetainMemObject(mem: Any) -> None:
    handles.retain(get_mem(mem))


@api()
def clReleaseMemObject(mem: Any) -> None:
    handles.release(get_mem(mem))


@api()
def clSetMemObjectDestructorCallback(mem: Any, notify: Any, user_data: Any) -> None:
    h = get_mem(mem)
    if is_null(notify):
        raise Error("pfn_notify is NULL", "CL_INVALID_VALUE")
    pointer = state.ffi.cast("cl_mem", h.cdata)
    h.on_free.append(lambda: notify(pointer, user_data))


def mem_value(h: handles.Handle, param: int) -> Any:
    """clGetMemObjectInfo's answer for the memory object behind ``h``."""
    obj = h.obj
    if param == mem_info.REFERENCE_COUNT:
        return h.refs
    if param == mem_info.MAP_COUNT:
        return sum(h.extra["maps"].values())
    if param == mem_info.HOST_PTR:
        return h.extra["host_ptr"]
    if param == MEM_USES_SVM_POINTER:
        return bool(h.extra.get("svm"))
    if param == MEM_PROPERTIES:
        return h.extra["properties"]
    return obj.get_info(param)


@api()
def clGetMemObjectInfo(mem: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    h = get_mem(mem)
    data = mem_value(h, param)
    scalar = "Q" if param in _MEM_ULONG or param in _MEM_SIZE_T or param == mem_info.HOST_PTR else "I"
    give(data, scalar, size, value, size_ret)


def _check_region(offset: int, size: int, buf: clm.Buffer) -> None:
    if size == 0 or offset + size > buf.size:
        raise Error(f"bytes [{offset}, {offset + size}) are not inside the {buf.size}-byte buffer (or size is 0)",
                    "CL_INVALID_VALUE")


def _transfer(ctype: int, copy: Any, queue: Any, mem: Any, blocking: int, offset: int, size: int, ptr: Any,
              num: int, waits: Any, event: Any) -> None:
    """clEnqueueReadBuffer / WriteBuffer: ``copy(cl_queue, buffer, host view, offset)``."""
    buf = get_buffer(mem)
    same_context(queue, buf)
    _check_region(offset, size, buf)
    if is_null(ptr):
        raise Error("ptr is NULL", "CL_INVALID_VALUE")
    view = host_view(ptr, size)
    cq = get_queue(queue).cl_queue
    enqueue(queue, ctype, lambda: copy(cq, buf, view, offset), num, waits, event, blocking=bool(blocking))


@api()
def clEnqueueReadBuffer(queue: Any, mem: Any, blocking: int, offset: int, size: int, ptr: Any, num: int,
                        waits: Any, event: Any) -> None:
    _transfer(command_type.READ_BUFFER, clm.read_buffer, queue, mem, blocking, offset, size, ptr, num, waits,
              event)


@api()
def clEnqueueWriteBuffer(queue: Any, mem: Any, blocking: int, offset: int, size: int, ptr: Any, num: int,
                         waits: Any, event: Any) -> None:
    _transfer(command_type.WRITE_BUFFER, clm.write_buffer, queue, mem, blocking, offset, size, ptr, num, waits,
              event)


@api()
def clEnqueueCopyBuffer(queue: Any, src: Any, dst: Any, src_offset: int, dst_offset: int, size: int, num: int,
                        waits: Any, event: Any) -> None:
    a, b = get_buffer(src), get_buffer(dst)
    same_context(queue, a, b)
    _check_region(src_offset, size, a)
    _check_region(dst_offset, size, b)
    cq = get_queue(queue).cl_queue
    enqueue(queue, command_type.COPY_BUFFER, lambda: clm.copy_buffer(cq, a, b, size, src_offset, dst_offset),
            num, waits, event)


@api()
def clEnqueueFillBuffer(queue: Any, mem: Any, pattern: Any, pattern_size: int, offset: int, size: int,
                        num: int, waits: Any, event: Any) -> None:
    buf = get_buffer(mem)
    same_context(queue, buf)
    if is_null(pattern):
        raise Error("pattern is NULL", "CL_INVALID_VALUE")
    pat = host_view(pattern, pattern_size).copy()  # the pattern may be reused when the call returns
    cq = get_queue(queue).cl_queue
    enqueue(queue, command_type.FILL_BUFFER, lambda: clm.enqueue_fill_buffer(cq, buf, pat, offset, size),
            num, waits, event)


@api(CREATE)
def clEnqueueMapBuffer(queue: Any, mem: Any, blocking: int, flags: int, offset: int, size: int, num: int,
                       waits: Any, event: Any) -> Any:
    h = get_mem(mem)
    buf = get_buffer(mem)
    same_context(queue, buf)
    _check_region(offset, size, buf)
    if flags & ~(map_flags.READ | map_flags.WRITE | map_flags.WRITE_INVALIDATE_REGION):
        raise Error(f"unknown map flags {flags:#x}", "CL_INVALID_VALUE")
    cq = get_queue(queue).cl_queue
    pointer = address_of(buf.allocation.data) + offset  # the buffer's own bytes: the host sees them
    enqueue(queue, command_type.MAP_BUFFER,
            lambda: clm.enqueue_map_buffer(cq, buf, flags, offset, (size,), np.uint8), num, waits, event,
            blocking=bool(blocking))
    maps = h.extra["maps"]
    maps[pointer] = maps.get(pointer, 0) + 1
    return state.ffi.cast("void *", pointer)


@api()
def clEnqueueUnmapMemObject(queue: Any, mem: Any, mapped: Any, num: int, waits: Any, event: Any) -> None:
    h = get_mem(mem)
    same_context(queue, h.obj)
    maps = h.extra["maps"]
    where = handles.address(mapped)
    if not maps.get(where):
        raise Error("mapped_ptr is not a pointer this memory object's map returned", "CL_INVALID_VALUE")
    maps[where] -= 1
    if not maps[where]:
        del maps[where]
    enqueue(queue, command_type.UNMAP_MEM_OBJECT, lambda: None, num, waits, event)


@api()
def clEnqueueMigrateMemObjects(queue: Any, num_mems: int, mems: Any, flags: int, num: int, waits: Any,
                               event: Any) -> None:
    if num_mems == 0 or is_null(mems):
        raise Error("give at least one memory object", "CL_INVALID_VALUE")
    same_context(queue, *(get_mem(mems[i]).obj for i in range(num_mems)))
    if flags & ~0x3:
        raise Error(f"unknown migration flags {flags:#x}", "CL_INVALID_VALUE")
    enqueue(queue, command_type.MIGRATE_MEM_OBJECTS, lambda: None, num, waits, event)


def _rect_host(ptr: Any, origin: list[int], region: list[int], row_pitch: int, slice_pitch: int) -> np.ndarray:
    """The application's memory a rectangular command touches, from its start."""
    if is_null(ptr):
        raise Error("ptr is NULL", "CL_INVALID_VALUE")
    row_pitch = row_pitch or region[0]
    slice_pitch = slice_pitch or region[1] * row_pitch
    end = ((origin[2] + region[2] - 1) * slice_pitch + (origin[1] + region[1] - 1) * row_pitch
           + origin[0] + region[0])
    return host_view(ptr, end)


def _rect_args(buffer_origin: Any, host_origin: Any, region: Any) -> tuple[list[int], list[int], list[int]]:
    return (sizes(buffer_origin, 3, "buffer_origin"), sizes(host_origin, 3, "host_origin"),
            sizes(region, 3, "region"))


def _rect_transfer(ctype: int, copy: Any, queue: Any, mem: Any, blocking: int, buffer_origin: Any,
                   host_origin: Any, region: Any, pitches: tuple[int, int, int, int], ptr: Any, num: int,
                   waits: Any, event: Any) -> None:
    """clEnqueueReadBufferRect / WriteBufferRect through ``rect.read_buffer_rect`` / ``write_buffer_rect``."""
    buf = get_buffer(mem)
    same_context(queue, buf)
    bo, ho, reg = _rect_args(buffer_origin, host_origin, region)
    host = _rect_host(ptr, ho, reg, pitches[2], pitches[3])
    cq = get_queue(queue).cl_queue
    enqueue(queue, ctype, lambda: copy(cq, buf, host, bo, ho, reg, pitches[:2], pitches[2:]), num, waits, event,
            blocking=bool(blocking))


@api()
def clEnqueueReadBufferRect(queue: Any, mem: Any, blocking: int, buffer_origin: Any, host_origin: Any,
                            region: Any, buffer_row: int, buffer_slice: int, host_row: int, host_slice: int,
                            ptr: Any, num: int, waits: Any, event: Any) -> None:
    _rect_transfer(command_type.READ_BUFFER_RECT, rect.read_buffer_rect, queue, mem, blocking, buffer_origin,
                   host_origin, region, (buffer_row, buffer_slice, host_row, host_slice), ptr, num, waits, event)


@api()
def clEnqueueWriteBufferRect(queue: Any, mem: Any, blocking: int, buffer_origin: Any, host_origin: Any,
                             region: Any, buffer_row: int, buffer_slice: int, host_row: int, host_slice: int,
                             ptr: Any, num: int, waits: Any, event: Any) -> None:
    _rect_transfer(command_type.WRITE_BUFFER_RECT, rect.write_buffer_rect, queue, mem, blocking, buffer_origin,
                   host_origin, region, (buffer_row, buffer_slice, host_row, host_slice), ptr, num, waits, event)


@api()
def clEnqueueCopyBufferRect(queue: Any, src: Any, dst: Any, src_origin: Any, dst_origin: Any, region: Any,
                            src_row: int, src_slice: int, dst_row: int, dst_slice: int, num: int, waits: Any,
                            event: Any) -> None:
    a, b = get_buffer(src), get_buffer(dst)
    same_context(queue, a, b)
    so, do, reg = _rect_args(src_origin, dst_origin, region)
    cq = get_queue(queue).cl_queue
    enqueue(queue, command_type.COPY_BUFFER_RECT,
            lambda: rect.copy_buffer_rect(cq, a, b, so, do, reg, (src_row, src_slice), (dst_row, dst_slice)),
            num, waits, event)
