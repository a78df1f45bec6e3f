"""Images and samplers (OpenCL API s5.3, s5.7) over :mod:`sgvm.cl.image`."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from ..cl import Image, ImageFormat, Sampler, get_supported_image_formats
from ..cl.constants import (
    command_type,
    image_info,
    map_flags,
    mem_flags,
    mem_object_type,
    sampler_info,
)
from ..cl.image import copy_image_command
from ..errors import Error
from . import handles, state
from .api_memory import address_of, get_mem, host_view, new_mem, same_context
from .api_queue import enqueue, get_queue
from .entry import CREATE, api
from .values import flat, give, is_null, properties, sizes

M = mem_object_type
_IMAGE_TYPES = (M.IMAGE1D, M.IMAGE1D_BUFFER, M.IMAGE1D_ARRAY, M.IMAGE2D, M.IMAGE2D_ARRAY, M.IMAGE3D)
_IMAGE_SIZE_T = frozenset({image_info.ELEMENT_SIZE, image_info.ROW_PITCH, image_info.SLICE_PITCH, image_info.WIDTH,
                           image_info.HEIGHT, image_info.DEPTH, image_info.ARRAY_SIZE})
SAMPLER_NORMALIZED_COORDS, SAMPLER_ADDRESSING_MODE, SAMPLER_FILTER_MODE = 0x1152, 0x1153, 0x1154
SAMPLER_PROPERTIES = 0x1158


def _shape(desc: Any) -> tuple[tuple[int, ...], bool]:
    t, w, h, d, n = (int(desc.image_type), int(desc.image_width), int(desc.image_height),
                     int(desc.image_depth), int(desc.image_array_size))
    shapes = {M.IMAGE1D: ((w,), False), M.IMAGE1D_BUFFER: ((w,), False), M.IMAGE1D_ARRAY: ((w, n), True),
              M.IMAGE2D: ((w, h), False), M.IMAGE2D_ARRAY: ((w, h, n), True), M.IMAGE3D: ((w, h, d), False)}
    if t not in shapes:
        raise Error(f"image_type {t:#x} is not an image type", "CL_INVALID_IMAGE_DESCRIPTOR")
    return shapes[t]


def _host_bytes(shape: tuple[int, ...], arrayed: bool, element: int, row_pitch: int, slice_pitch: int) -> int:
    """How many bytes of host memory an image of ``shape`` reads with these pitches."""
    rows = shape[1] if len(shape) > 1 and not (arrayed and len(shape) == 2) else 1
    layers = shape[2] if len(shape) > 2 else (shape[1] if arrayed else 1)
    row_pitch = row_pitch or shape[0] * element
    slice_pitch = slice_pitch or row_pitch * rows
    return (layers - 1) * slice_pitch + (rows - 1) * row_pitch + shape[0] * element


def _create_image(context: Any, flags: int, fmt: Any, desc: Any, host_ptr: Any, props: list[int]) -> Any:
    ctx = handles.get(context, handles.CONTEXT)
    if is_null(fmt):
        raise Error("image_format is NULL", "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR")
    if is_null(desc):
        raise Error("image_desc is NULL", "CL_INVALID_IMAGE_DESCRIPTOR")
    image_format = ImageFormat(int(fmt.image_channel_order), int(fmt.image_channel_data_type))
    if not image_format.supported:
        raise Error(f"{image_format} is not supported", "CL_IMAGE_FORMAT_NOT_SUPPORTED")
    if desc.num_mip_levels or desc.num_samples:
        raise Error("mip-mapped and multi-sampled images are not supported", "CL_INVALID_IMAGE_DESCRIPTOR")
    shape, arrayed = _shape(desc)
    buffer_h = None if desc.mem_object == state.ffi.NULL else get_mem(desc.mem_object)
    row_pitch, slice_pitch = int(desc.image_row_pitch), int(desc.image_slice_pitch)
    wants_host = flags & (mem_flags.USE_HOST_PTR | mem_flags.COPY_HOST_PTR)
    if is_null(host_ptr) == bool(wants_host):
        raise Error("host_ptr goes with CL_MEM_USE_HOST_PTR or CL_MEM_COPY_HOST_PTR, and only with them",
                    "CL_INVALID_HOST_PTR")
    if is_null(host_ptr) and buffer_h is None and (row_pitch or slice_pitch):
        raise Error("image_row_pitch and image_slice_pitch must be 0 when host_ptr is NULL",
                    "CL_INVALID_IMAGE_DESCRIPTOR")
    element = image_format.element_size
    row = shape[0] * element
    rows = shape[1] if desc.image_type in (M.IMAGE2D, M.IMAGE2D_ARRAY, M.IMAGE3D) else 1
    layered = desc.image_type in (M.IMAGE1D_ARRAY, M.IMAGE2D_ARRAY, M.IMAGE3D)
    tight = row_pitch in (0, row) and slice_pitch in ((0, row * rows) if layered else (0,))
    hostbuf = None
    if not is_null(host_ptr):
        hostbuf = host_view(host_ptr, _host_bytes(shape, arrayed, element, row_pitch, slice_pitch))
    pitches = None if tight and buffer_h is None else (row_pitch, slice_pitch)
    image = Image(ctx.obj, flags, image_format, shape, pitches, hostbuf, is_array=arrayed,
                  buffer=buffer_h.obj if buffer_h is not None else None)
    host = handles.address(host_ptr) if flags & mem_flags.USE_HOST_PTR else 0
    extra = (buffer_h,) if buffer_h is not None else ()
    return new_mem(image, ctx, host, props, *extra)


@api(CREATE)
def clCreateImage(context: Any, flags: int, fmt: Any, desc: Any, host_ptr: Any) -> Any:
    return _create_image(context, flags, fmt, desc, host_ptr, [])


@api(CREATE)
def clCreateImageWithProperties(context: Any, props: Any, flags: int, fmt: Any, desc: Any, host_ptr: Any) -> Any:
    pairs = properties(props)
    if pairs:
        raise Error(f"memory property {pairs[0][0]:#x} is not supported", "CL_INVALID_PROPERTY")
    return _create_image(context, flags, fmt, desc, host_ptr, [0] if not is_null(props) else [])


def _legacy_desc(image_type: int, w: int, h: int, d: int, row_pitch: int, slice_pitch: int) -> Any:
    desc = state.ffi.new("cl_image_desc *")
    desc.image_type, desc.image_width, desc.image_height, desc.image_depth = image_type, w, h, d
    desc.image_row_pitch, desc.image_slice_pitch = row_pitch, slice_pitch
    return desc


@api(CREATE)
def clCreateImage2D(context: Any, flags: int, fmt: Any, w: int, h: int, row_pitch: int, host_ptr: Any) -> Any:
    return _create_image(context, flags, fmt, _legacy_desc(M.IMAGE2D, w, h, 0, row_pitch, 0), host_ptr, [])


@api(CREATE)
def clCreateImage3D(context: Any, flags: int, fmt: Any, w: int, h: int, d: int, row_pitch: int, slice_pitch: int,
                    host_ptr: Any) -> Any:
    return _create_image(context, flags, fmt, _legacy_desc(M.IMAGE3D, w, h, d, row_pitch, slice_pitch), host_ptr,
                         [])


@api()
def clGetSupportedImageFormats(context: Any, flags: int, image_type: int, num: int, formats: Any,
                               num_ret: Any) -> None:
    ctx = handles.get(context, handles.CONTEXT)
    if image_type not in _IMAGE_TYPES:
        raise Error(f"image_type {image_type:#x} is not an image type", "CL_INVALID_VALUE")
    if num == 0 and not is_null(formats):
        raise Error("num_entries is 0 but image_formats is given", "CL_INVALID_VALUE")
    found = get_supported_image_formats(ctx.obj, flags, image_type)
    if not is_null(formats):
        for i, f in enumerate(found[:num]):
            formats[i].image_channel_order = f.channel_order
            formats[i].image_channel_data_type = f.channel_data_type
    if not is_null(num_ret):
        num_ret[0] = len(found)


def get_image(ptr: Any) -> Image:
    h = get_mem(ptr)
    if not isinstance(h.obj, Image):
        raise Error("expected an image, got a buffer", "CL_INVALID_MEM_OBJECT")
    return h.obj


@api()
def clGetImageInfo(mem: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    img = get_image(mem)
    data = img.get_image_info(param)
    if param == image_info.FORMAT:
        data = struct.pack("<II", data.channel_order, data.channel_data_type)
    give(data, "Q" if param in _IMAGE_SIZE_T else "I", size, value, size_ret)


def _region(origin: Any, region: Any) -> tuple[list[int], list[int]]:
    return sizes(origin, 3, "origin"), sizes(region, 3, "region")


def _region_bytes(img: Image, reg: list[int], row_pitch: int, slice_pitch: int) -> int:
    row = reg[0] * img.image.element_size
    row_pitch = row_pitch or row
    slice_pitch = slice_pitch or row_pitch * reg[1]
    return (reg[2] - 1) * slice_pitch + (reg[1] - 1) * row_pitch + row


def _transfer(ctype: int, to_host: bool, queue: Any, mem: Any, blocking: int, origin: Any, region: Any,
              row_pitch: int, slice_pitch: int, ptr: Any, num: int, waits: Any, event: Any) -> None:
    """clEnqueueReadImage (``to_host``) / WriteImage."""
    img = get_image(mem)
    same_context(queue, img)
    org, reg = _region(origin, region)
    if is_null(ptr):
        raise Error("ptr is NULL", "CL_INVALID_VALUE")
    view = host_view(ptr, _region_bytes(img, reg, row_pitch, slice_pitch))
    cq = get_queue(queue).cl_queue
    dest, src = (view, img) if to_host else (img, view)
    enqueue(queue, ctype,
            lambda: copy_image_command(cq, dest, src, origin=org, region=reg, row_pitch=row_pitch,
                                       slice_pitch=slice_pitch), num, waits, event, blocking=bool(blocking))


@api()
def clEnqueueReadImage(queue: Any, mem: Any, blocking: int, origin: Any, region: Any, row_pitch: int,
                       slice_pitch: int, ptr: Any, num: int, waits: Any, event: Any) -> None:
    _transfer(command_type.READ_IMAGE, True, queue, mem, blocking, origin, region, row_pitch, slice_pitch, ptr,
              num, waits, event)


@api()
def clEnqueueWriteImage(queue: Any, mem: Any, blocking: int, origin: Any, region: Any, row_pitch: int,
                        slice_pitch: int, ptr: Any, num: int, waits: Any, event: Any) -> None:
    _transfer(command_type.WRITE_IMAGE, False, queue, mem, blocking, origin, region, row_pitch, slice_pitch, ptr,
              num, waits, event)


@api()
def clEnqueueCopyImage(queue: Any, src: Any, dst: Any, src_origin: Any, dst_origin: Any, region: Any, num: int,
                       waits: Any, event: Any) -> None:
    a, b = get_image(src), get_image(dst)
    same_context(queue, a, b)
    so, do, reg = sizes(src_origin, 3, "src_origin"), sizes(dst_origin, 3, "dst_origin"), sizes(region, 3, "region")
    cq = get_queue(queue).cl_queue
    enqueue(queue, command_type.COPY_IMAGE,
            lambda: copy_image_command(cq, b, a, src_origin=so, dest_origin=do, region=reg), num, waits, event)


@api()
def clEnqueueCopyImageToBuffer(queue: Any, src: Any, dst: Any, origin: Any, region: Any, offset: int, num: int,
                               waits: Any, event: Any) -> None:
    img, buf = get_image(src), get_mem(dst).obj
    same_context(queue, img, buf)
    org, reg = _region(origin, region)
    cq = get_queue(queue).cl_queue
    enqueue(queue, command_type.COPY_IMAGE_TO_BUFFER,
            lambda: copy_image_command(cq, buf, img, origin=org, region=reg, offset=offset), num, waits, event)


@api()
def clEnqueueCopyBufferToImage(queue: Any, src: Any, dst: Any, offset: int, origin: Any, region: Any, num: int,
                               waits: Any, event: Any) -> None:
    buf, img = get_mem(src).obj, get_image(dst)
    same_context(queue, img, buf)
    org, reg = _region(origin, region)
    cq = get_queue(queue).cl_queue
    enqueue(queue, command_type.COPY_BUFFER_TO_IMAGE,
            lambda: copy_image_command(cq, img, buf, origin=org, region=reg, offset=offset), num, waits, event)


@api()
def clEnqueueFillImage(queue: Any, mem: Any, color: Any, origin: Any, region: Any, num: int, waits: Any,
                       event: Any) -> None:
    img = get_image(mem)
    same_context(queue, img)
    if is_null(color):
        raise Error("fill_color is NULL", "CL_INVALID_VALUE")
    kind = img.format.kind
    ctype = {"f": "float", "h": "float", "i": "int32_t", "ui": "uint32_t"}[kind]
    rgba = np.array(list(state.ffi.cast(f"{ctype} *", color)[0:4]))
    org, reg = _region(origin, region)
    enqueue(queue, command_type.FILL_IMAGE, lambda: img.image.fill_host(rgba, org, reg), num, waits, event)


@api(CREATE)
def clEnqueueMapImage(queue: Any, mem: Any, blocking: int, flags: int, origin: Any, region: Any, row_pitch: Any,
                      slice_pitch: Any, num: int, waits: Any, event: Any) -> Any:
    h = get_mem(mem)
    img = get_image(mem)
    same_context(queue, img)
    org, reg = _region(origin, region)
    if is_null(row_pitch):
        raise Error("image_row_pitch is NULL", "CL_INVALID_VALUE")
    if flags & ~(map_flags.READ | map_flags.WRITE | map_flags.WRITE_INVALIDATE_REGION):
        raise Error(f"unknown map flags {flags:#x}", "CL_INVALID_VALUE")
    image = img.image
    image.read_host(org, reg)  # checks the region (and brings a device copy back)
    strides = tuple(image.strides) + (0,) * (3 - len(image.strides))
    pointer = address_of(image.data.data) + sum(o * s for o, s in zip(org, strides, strict=False))
    row_pitch[0] = image.row_pitch
    if not is_null(slice_pitch):
        slice_pitch[0] = image.slice_pitch
    enqueue(queue, command_type.MAP_IMAGE, lambda: None, num, waits, event, blocking=bool(blocking))
    maps = h.extra["maps"]
    maps[pointer] = maps.get(pointer, 0) + 1
    return state.ffi.cast("void *", pointer)


def _new_sampler(context: Any, normalized: int, addressing: int, filtering: int, props: list[int]) -> Any:
    ctx = handles.get(context, handles.CONTEXT)
    sampler = Sampler(ctx.obj, bool(normalized), addressing, filtering)
    h = handles.new(handles.SAMPLER, sampler, holds=(ctx,))
    h.extra["properties"] = props
    return state.ffi.cast("cl_sampler", h.cdata)


@api(CREATE)
def clCreateSampler(context: Any, normalized: int, addressing: int, filtering: int) -> Any:
    return _new_sampler(context, normalized, addressing, filtering, [])


@api(CREATE)
def clCreateSamplerWithProperties(context: Any, props: Any) -> Any:
    values = {SAMPLER_NORMALIZED_COORDS: 1, SAMPLER_ADDRESSING_MODE: 0x1132, SAMPLER_FILTER_MODE: 0x1140}
    pairs = properties(props)
    for name, value in pairs:
        if name not in values:
            raise Error(f"sampler property {name:#x} is not supported", "CL_INVALID_VALUE")
        values[name] = value
    return _new_sampler(context, values[SAMPLER_NORMALIZED_COORDS], values[SAMPLER_ADDRESSING_MODE],
                        values[SAMPLER_FILTER_MODE], flat(pairs))


@api()
def clRetainSampler(sampler: Any) -> None:
    handles.retain(handles.get(sampler, handles.SAMPLER))


@api()
def clReleaseSampler(sampler: Any) -> None:
    handles.release(handles.get(sampler, handles.SAMPLER))


@api()
def clGetSamplerInfo(sampler: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    h = handles.get(sampler, handles.SAMPLER)
    if param == sampler_info.REFERENCE_COUNT:
        data: Any = h.refs
    elif param == SAMPLER_PROPERTIES:
        give(h.extra["properties"], "Q", size, value, size_ret)
        return
    else:
        data = h.obj.get_info(param)
    give(data, "I", size, value, size_ret)


@api(CREATE)
def clCreatePipe(context: Any, flags: int, packet_size: int, max_packets: int, props: Any) -> Any:
    handles.get(context, handles.CONTEXT)
    raise Error("sgvm's devices do not support pipes (CL_DEVICE_PIPE_SUPPORT is false)", "CL_INVALID_OPERATION")


@api()
def clGetPipeInfo(mem: Any, param: int, size: int, value: Any, size_ret: Any) -> None:
    get_mem(mem)
    raise Error("the memory object is not a pipe (sgvm has none)", "CL_INVALID_MEM_OBJECT")
