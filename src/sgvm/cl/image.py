"""Images and samplers (``cl.Image``, ``cl.Sampler``) over :mod:`sgvm.runtime.images`, and
the image forms of ``enqueue_copy``."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..runtime.device import DeviceModel
from ..runtime.images.formats import ImageFormat, supported_formats
from ..runtime.images.image import Image as _RuntimeImage
from ..runtime.images.sampler import Sampler as _RuntimeSampler
from ..runtime.memory import Allocation
from ._base import InfoObject, cl_error
from .constants import command_type, image_info, mem_flags, mem_info, mem_object_type, sampler_info
from .memory import Buffer, MemoryObject, check_flags, host_bytes
from .platform import Context
from .queue import CommandQueue, Event

_TYPES = {(1, False): mem_object_type.IMAGE1D, (2, False): mem_object_type.IMAGE2D,
          (3, False): mem_object_type.IMAGE3D, (2, True): mem_object_type.IMAGE1D_ARRAY,
          (3, True): mem_object_type.IMAGE2D_ARRAY}


def _image_limits(model: DeviceModel, image_type: int) -> tuple[tuple[str, int], ...]:
    """Each coordinate's name and the device's limit for it (OpenCL API s5.3.1.2, image_desc)."""
    wide = ("width", model.image2d_max_width)
    high = ("height", model.image2d_max_height)
    array = ("array size", model.image_max_array_size)
    return {
        mem_object_type.IMAGE1D: (wide,),
        mem_object_type.IMAGE1D_BUFFER: (("width", model.image_max_buffer_size),),
        mem_object_type.IMAGE1D_ARRAY: (wide, array),
        mem_object_type.IMAGE2D: (wide, high),
        mem_object_type.IMAGE2D_ARRAY: (wide, high, array),
        mem_object_type.IMAGE3D: (("width", model.image3d_max_width), ("height", model.image3d_max_height),
                                  ("depth", model.image3d_max_depth)),
    }[image_type]


def _check_image_size(model: DeviceModel, image_type: int, shape: tuple[int, ...], element_size: int,
                      routine: str) -> None:
    """CL_INVALID_IMAGE_SIZE "if image dimensions specified in image_desc exceed the maximum image
    dimensions described in the Device Queries table"; an image larger than
    CL_DEVICE_MAX_MEM_ALLOC_SIZE bytes is refused the same way (sgvm allocates it whole)."""
    name = mem_object_type.to_string(image_type)
    for (what, limit), size in zip(_image_limits(model, image_type), shape, strict=True):
        if not 1 <= size <= limit:
            raise cl_error("CL_INVALID_IMAGE_SIZE", f"{name} {what} {size}: the device allows 1 to {limit}",
                           routine)
    nbytes = int(np.prod(shape, dtype=object)) * element_size
    if nbytes > model.max_mem_alloc_size:
        raise cl_error("CL_INVALID_IMAGE_SIZE", f"{name} of shape {shape} needs {nbytes} bytes, more than "
                       f"CL_DEVICE_MAX_MEM_ALLOC_SIZE ({model.max_mem_alloc_size})", routine)


def get_supported_image_formats(context: Context, flags: int, image_type: int) -> list[ImageFormat]:
    """clGetSupportedImageFormats."""
    return list(supported_formats(image_type))


class _ImageInfo(mem_info, image_info):
    """Both namespaces, for attribute-style queries on images (``img.width``, ``img.size``)."""


class Image(MemoryObject):
    """clCreateImage: ``Image(context, flags, format, shape=None, pitches=None, hostbuf=None,
    is_array=False, buffer=None)``; ``shape`` is (width[, height[, depth or layers]])."""

    _info_ns = _ImageInfo

    def __init__(self, context: Context, flags: int, format: ImageFormat, shape: Sequence[int] | None = None,  # noqa: A002
                 pitches: Sequence[int] | None = None, hostbuf: Any = None, is_array: bool = False,
                 buffer: Buffer | None = None) -> None:
        routine = "clCreateImage"
        check_flags(flags, routine)
        wants_host = flags & (mem_flags.USE_HOST_PTR | mem_flags.COPY_HOST_PTR)
        if (hostbuf is not None) != bool(wants_host):
            raise cl_error("CL_INVALID_HOST_PTR", "pass hostbuf together with COPY_HOST_PTR or USE_HOST_PTR "
                           "(and neither without it)", routine)
        if shape is None:
            if hostbuf is None:
                raise cl_error("CL_INVALID_IMAGE_DESCRIPTOR", "give shape=(width, height, …) or a hostbuf", routine)
            dims = tuple(np.shape(hostbuf))
            if format.num_channels > 1 and len(dims) > 1 and dims[-1] == format.num_channels:
                dims = dims[:-1]
            shape = dims[::-1]
        shape = tuple(int(s) for s in shape)
        image_type = mem_object_type.IMAGE1D_BUFFER if buffer is not None and len(shape) == 1 else \
            _TYPES.get((len(shape), bool(is_array)))
        if image_type is None:
            raise cl_error("CL_INVALID_IMAGE_DESCRIPTOR", f"shape {shape} with is_array={is_array} is no image type",
                           routine)
        _check_image_size(context.devices[0].model, image_type, shape, format.element_size, routine)
        pitches = tuple(pitches or ())
        own = pitches if buffer is not None else ()
        try:
            image = _RuntimeImage(format, image_type, shape, row_pitch=own[0] if own else 0,
                                  slice_pitch=own[1] if len(own) > 1 else 0,
                                  data=buffer.allocation if buffer is not None else None, name="image")
        except builtins.MemoryError:
            raise cl_error("CL_MEM_OBJECT_ALLOCATION_FAILURE", f"the host cannot allocate the {shape} image",
                           routine) from None
        if hostbuf is not None:
            host = host_bytes(hostbuf, routine, writable=bool(flags & mem_flags.USE_HOST_PTR))
            if flags & mem_flags.USE_HOST_PTR and not pitches and host.nbytes >= image.nbytes:
                image.data = Allocation(host[:image.nbytes], "global", "image")
            else:
                image.write_host((0, 0, 0), shape, host, *pitches)
        if flags & mem_flags.READ_ONLY:
            image.data.read_only = True
        self.image = image
        self.format = format
        super().__init__(context, flags, image.data, hostbuf)
        self.parent = buffer

    @property
    def type_name(self) -> str:
        """The image type's name (``"IMAGE2D"`` …)."""
        return mem_object_type.to_string(self.image.image_type)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.image.shape

    def get_info(self, param: int) -> Any:
        """clGetMemObjectInfo (mem_info) or clGetImageInfo (image_info)."""
        if param in image_info._names().values():
            return self.get_image_info(param)
        if param == mem_info.TYPE:
            return self.image.image_type
        return super().get_info(param)

    def get_image_info(self, param: int) -> Any:
        """clGetImageInfo."""
        img = self.image
        ii = image_info
        values = {
            ii.FORMAT: self.format, ii.ELEMENT_SIZE: img.element_size, ii.ROW_PITCH: img.row_pitch,
            ii.SLICE_PITCH: img.slice_pitch, ii.WIDTH: img.width, ii.HEIGHT: img.height, ii.DEPTH: img.depth,
            ii.ARRAY_SIZE: img.array_size, ii.BUFFER: self.parent, ii.NUM_MIP_LEVELS: 0, ii.NUM_SAMPLES: 0,
        }
        return self._answer(values, param, "clGetImageInfo")

    def __repr__(self) -> str:
        return f"<pyopencl.Image {self.type_name} {self.shape} {self.format!r}>"


class Sampler(InfoObject):
    """clCreateSampler: ``Sampler(context, normalized_coords, addressing_mode, filter_mode)``."""

    _info_ns = sampler_info

    def __init__(self, context: Context, normalized_coords: bool, addressing_mode: int, filter_mode: int) -> None:
        self.context = context
        self.sampler = _RuntimeSampler(bool(normalized_coords), addressing_mode, filter_mode)

    def get_info(self, param: int) -> Any:
        """clGetSamplerInfo."""
        values = {
            sampler_info.REFERENCE_COUNT: 1, sampler_info.CONTEXT: self.context,
            sampler_info.NORMALIZED_COORDS: self.sampler.normalized_coords,
            sampler_info.ADDRESSING_MODE: self.sampler.addressing_mode,
            sampler_info.FILTER_MODE: self.sampler.filter_mode,
        }
        return self._answer(values, param, "clGetSamplerInfo")


def _full(img: Image, origin: Sequence[int] | None,
          region: Sequence[int] | None) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(origin or (0, 0, 0)), tuple(region or img.shape)


def _to_host(block: np.ndarray, dest: Any, row_pitch: int, slice_pitch: int, routine: str) -> None:
    """Store a (slices, rows, row bytes) block into host memory with the given pitches."""
    out = host_bytes(dest, routine, writable=True)
    depth, rows, row = block.shape
    row_pitch = row_pitch or row
    slice_pitch = slice_pitch or row_pitch * rows
    needed = (depth - 1) * slice_pitch + (rows - 1) * row_pitch + row
    if out.nbytes < needed:
        raise cl_error("CL_INVALID_VALUE", f"the host array holds {out.nbytes} bytes; the region needs {needed}",
                       routine)
    as_strided(out, block.shape, (slice_pitch, row_pitch, 1))[...] = block


def copy_image_command(queue: CommandQueue, dest: Any, src: Any, *, origin: Sequence[int] | None = None,
                       region: Sequence[int] | None = None, row_pitch: int = 0, slice_pitch: int = 0,
                       offset: int = 0, src_origin: Sequence[int] | None = None,
                       dest_origin: Sequence[int] | None = None, wait_for: Sequence[Event] | None = None,
                       is_blocking: bool = True) -> Event:
    """The image forms of ``enqueue_copy``: host ↔ image (origin, region, row_pitch, slice_pitch),
    buffer ↔ image (offset, origin, region) and image → image (src_origin, dest_origin, region)."""
    if isinstance(src, Image) and isinstance(dest, Image):
        reg = tuple(region or src.shape)
        s_org, d_org = tuple(src_origin or (0, 0, 0)), tuple(dest_origin or (0, 0, 0))
        if src.format != dest.format:
            raise cl_error("CL_INVALID_VALUE", "image copies need images of the same format", "clEnqueueCopyImage")
        return queue.run(command_type.COPY_IMAGE,
                         lambda: dest.image.write_host(d_org, reg, src.image.read_host(s_org, reg).ravel()),
                         wait_for, "clEnqueueCopyImage")
    if isinstance(src, Image):
        org, reg = _full(src, origin, region)
        if isinstance(dest, Buffer):
            def to_buffer() -> None:
                block = src.image.read_host(org, reg).ravel()
                if offset < 0 or offset + block.nbytes > dest.size:
                    raise cl_error("CL_INVALID_VALUE", f"the region needs {block.nbytes} bytes at offset {offset} "
                                   f"of a {dest.size}-byte buffer", "clEnqueueCopyImageToBuffer")
                dest.data[offset:offset + block.nbytes] = block

            return queue.run(command_type.COPY_IMAGE_TO_BUFFER, to_buffer, wait_for, "clEnqueueCopyImageToBuffer")
        return queue.run(command_type.READ_IMAGE,
                         lambda: _to_host(src.image.read_host(org, reg), dest, row_pitch, slice_pitch,
                                          "clEnqueueReadImage"), wait_for, "clEnqueueReadImage")
    org, reg = _full(dest, origin, region)
    if isinstance(src, Buffer):
        return queue.run(command_type.COPY_BUFFER_TO_IMAGE,
                         lambda: dest.image.write_host(org, reg, src.data[offset:]), wait_for,
                         "clEnqueueCopyBufferToImage")
    data = host_bytes(src, "clEnqueueWriteImage")
    return queue.run(command_type.WRITE_IMAGE,
                     lambda: dest.image.write_host(org, reg, data, row_pitch, slice_pitch), wait_for,
                     "clEnqueueWriteImage")
