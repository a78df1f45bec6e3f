"""Buffers, sub-buffers, local memory and the buffer commands
(``enqueue_copy``, ``enqueue_fill_buffer``, ``enqueue_map_buffer``)."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..runtime import residency
from ..runtime.memory import Allocation, zeroed
from ._base import InfoObject, cl_error
from .constants import command_type, mem_flags, mem_info, mem_object_type
from .platform import Context
from .queue import CommandQueue, Event

_ACCESS = mem_flags.READ_WRITE | mem_flags.WRITE_ONLY | mem_flags.READ_ONLY
_HOST_PTR = mem_flags.USE_HOST_PTR | mem_flags.COPY_HOST_PTR | mem_flags.ALLOC_HOST_PTR
_HOST_ACCESS = mem_flags.HOST_WRITE_ONLY | mem_flags.HOST_READ_ONLY | mem_flags.HOST_NO_ACCESS
_ALL_FLAGS = _ACCESS | _HOST_PTR | _HOST_ACCESS | mem_flags.KERNEL_READ_AND_WRITE


def holds_objects(obj: Any) -> bool:
    """``obj`` (a NumPy array or scalar, or any buffer) holds Python object references rather
    than plain data: dtype ``object``, ``StringDType`` or a record with such a field."""
    if isinstance(obj, np.ndarray | np.generic):
        return obj.dtype.hasobject
    try:
        return "O" in memoryview(obj).format
    except (TypeError, ValueError):
        return False


def refuse_objects(obj: Any, what: str, routine: str) -> None:
    """CL_INVALID_VALUE for host memory that holds Python object references: a kernel writing
    there would overwrite the interpreter's pointers."""
    if holds_objects(obj):
        dtype = getattr(obj, "dtype", "object")
        raise cl_error("CL_INVALID_VALUE", f"{what} has dtype {dtype}, which holds Python object references, "
                       "not data a kernel can use; convert it to a numeric or record dtype first "
                       "(e.g. array.astype(np.float32))", routine)


def host_bytes(obj: Any, routine: str, *, writable: bool = False) -> np.ndarray:
    """A uint8 view sharing the memory of a contiguous host buffer (NumPy array, bytes …)."""
    refuse_objects(obj, "the host buffer", routine)
    if isinstance(obj, np.ndarray) and not obj.flags.c_contiguous and obj.flags.f_contiguous:
        obj = obj.T
    try:
        view = np.frombuffer(obj, dtype=np.uint8)
    except (TypeError, ValueError) as exc:
        raise cl_error("CL_INVALID_VALUE", f"the host buffer must be a contiguous array or bytes-like object ({exc})",
                       routine) from None
    if writable and not view.flags.writeable:
        raise cl_error("CL_INVALID_VALUE", "the host buffer is read-only; pass a writable NumPy array", routine)
    return view


def allocate_bytes(size: int, routine: str, align: int) -> np.ndarray:
    """``size`` zeroed bytes starting at a multiple of ``align`` (the device's
    CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes: runtime.memory.zeroed);
    CL_MEM_OBJECT_ALLOCATION_FAILURE when the host has no room."""
    try:
        return zeroed(size, align)
    except builtins.MemoryError:
        raise cl_error("CL_MEM_OBJECT_ALLOCATION_FAILURE", f"the host cannot allocate {size} bytes for the "
                       "memory object", routine) from None


def check_flags(flags: int, routine: str) -> None:
    """clCreateBuffer/clCreateImage flag rules (OpenCL API s5.2.1): known bits, one access
    mode, USE_HOST_PTR exclusive with COPY/ALLOC_HOST_PTR, one host access mode."""
    if flags & ~_ALL_FLAGS:
        raise cl_error("CL_INVALID_VALUE", f"unknown bits in mem_flags {flags:#x}", routine)
    if bin(flags & _ACCESS).count("1") > 1:
        raise cl_error("CL_INVALID_VALUE", "choose one of READ_WRITE, READ_ONLY and WRITE_ONLY", routine)
    if flags & mem_flags.USE_HOST_PTR and flags & (mem_flags.COPY_HOST_PTR | mem_flags.ALLOC_HOST_PTR):
        raise cl_error("CL_INVALID_VALUE", "USE_HOST_PTR cannot be combined with COPY_HOST_PTR or ALLOC_HOST_PTR",
                       routine)
    if bin(flags & _HOST_ACCESS).count("1") > 1:
        raise cl_error("CL_INVALID_VALUE", "choose one of HOST_WRITE_ONLY, HOST_READ_ONLY and HOST_NO_ACCESS",
                       routine)


class MemoryObject(InfoObject):
    """Base of buffers and images: an :class:`Allocation` plus OpenCL flags."""

    _info_ns = mem_info
    _type = mem_object_type.BUFFER

    def __init__(self, context: Context, flags: int, allocation: Allocation, hostbuf: Any = None) -> None:
        self.context = context
        self.flags = flags
        self.allocation = allocation
        self.hostbuf = hostbuf if flags & mem_flags.USE_HOST_PTR else None
        self.offset = 0
        self.parent: MemoryObject | None = None

    @property
    def data(self) -> np.ndarray:
        """The object's bytes (a uint8 NumPy array; shares memory with hostbuf under USE_HOST_PTR).
        Brings back what a device-resident copy changed (``runtime.residency``)."""
        residency.host_access(self.allocation)
        return self.allocation.data

    @property
    def size(self) -> int:
        return self.allocation.size

    @property
    def int_ptr(self) -> int:
        return self.allocation.base

    def get_info(self, param: int) -> Any:
        """clGetMemObjectInfo."""
        values = {
            mem_info.TYPE: self._type,
            mem_info.FLAGS: self.flags,
            mem_info.SIZE: self.size,
            mem_info.HOST_PTR: self.hostbuf,
            mem_info.MAP_COUNT: 0,
            mem_info.REFERENCE_COUNT: 1,
            mem_info.CONTEXT: self.context,
            mem_info.ASSOCIATED_MEMOBJECT: self.parent,
            mem_info.OFFSET: self.offset,
        }
        return self._answer(values, param, "clGetMemObjectInfo")

    def release(self) -> None:
        """clReleaseMemObject: memory is freed when the last reference goes away."""


class Buffer(MemoryObject):
    """clCreateBuffer: ``Buffer(context, flags, size=0, hostbuf=None)``."""

    def __init__(self, context: Context, flags: int, size: int = 0, hostbuf: Any = None) -> None:
        routine = "clCreateBuffer"
        if not isinstance(context, Context):
            raise cl_error("CL_INVALID_CONTEXT", "the first argument must be a cl.Context", routine)
        check_flags(flags, routine)
        wants_host = flags & (mem_flags.USE_HOST_PTR | mem_flags.COPY_HOST_PTR)
        if hostbuf is not None and not wants_host:
            raise cl_error(
                "CL_INVALID_HOST_PTR",
                "hostbuf was given without COPY_HOST_PTR or USE_HOST_PTR; add mem_flags.COPY_HOST_PTR to copy it",
                routine,
            )
        if hostbuf is None and wants_host:
            raise cl_error("CL_INVALID_HOST_PTR", "COPY_HOST_PTR and USE_HOST_PTR need hostbuf=<NumPy array>",
                           routine)
        host = None
        if hostbuf is not None:
            host = host_bytes(hostbuf, routine, writable=bool(flags & mem_flags.USE_HOST_PTR))
            if size == 0:
                size = host.nbytes
            elif size > host.nbytes:
                raise cl_error("CL_INVALID_VALUE",
                               f"size {size} is larger than the host buffer ({host.nbytes} bytes)", routine)
        limit = context.devices[0].model.max_mem_alloc_size
        if size <= 0 or size > limit:
            raise cl_error(
                "CL_INVALID_BUFFER_SIZE",
                f"buffer size {size}: give a size between 1 and CL_DEVICE_MAX_MEM_ALLOC_SIZE ({limit}) bytes",
                routine,
            )
        if host is not None and flags & mem_flags.USE_HOST_PTR:
            data = host[:size]
        else:
            data = allocate_bytes(size, routine, context.devices[0].model.mem_base_addr_align // 8)
            if host is not None:
                data[:] = host[:size]
        alloc = Allocation(data, "global", read_only=bool(flags & mem_flags.READ_ONLY))
        super().__init__(context, flags, alloc, hostbuf)

    def get_sub_region(self, origin: int, size: int, flags: int = 0) -> Buffer:
        """clCreateSubBuffer (OpenCL API s5.2.2): a view of ``size`` bytes at ``origin``."""
        routine = "clCreateSubBuffer"
        if self.parent is not None:
            raise cl_error("CL_INVALID_MEM_OBJECT", "cannot create a sub-buffer of a sub-buffer; slice the parent",
                           routine)
        if size <= 0:
            raise cl_error("CL_INVALID_BUFFER_SIZE", "a sub-buffer needs a size of at least 1 byte", routine)
        if origin < 0 or origin + size > self.size:
            raise cl_error("CL_INVALID_VALUE",
                           f"region [{origin}, {origin + size}) lies outside the {self.size}-byte buffer", routine)
        align = self.context.devices[0].model.mem_base_addr_align // 8
        if origin % align:
            raise cl_error(
                "CL_MISALIGNED_SUB_BUFFER_OFFSET",
                f"origin {origin} must be a multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN ({align} bytes)",
                routine,
            )
        if flags & (_HOST_PTR):
            raise cl_error("CL_INVALID_VALUE", "sub-buffer flags cannot include host pointer flags", routine)
        check_flags(flags, routine)
        new_flags = (flags or (self.flags & _ACCESS)) | (self.flags & (_HOST_PTR | _HOST_ACCESS))
        sub = Buffer.__new__(Buffer)
        alloc = Allocation(self.data[origin:origin + size], "global", "sub-buffer",
                           read_only=bool(new_flags & mem_flags.READ_ONLY))
        MemoryObject.__init__(sub, self.context, new_flags, alloc, None)
        sub.offset, sub.parent = origin, self
        if self.hostbuf is not None:
            sub.hostbuf = self.hostbuf
        return sub

    def __getitem__(self, index: slice) -> Buffer:
        if not isinstance(index, slice):
            raise TypeError("buffers can only be sliced: buf[start:stop]")
        start, stop, step = index.indices(self.size)
        if step != 1:
            raise cl_error("CL_INVALID_VALUE", "buffer slices must have step 1", "clCreateSubBuffer")
        return self.get_sub_region(start, stop - start)

    def __repr__(self) -> str:
        return f"<pyopencl.Buffer {self.size} bytes>"


@dataclass(frozen=True)
class BufferPointer:
    """A kernel argument pointing ``offset`` bytes into ``buffer`` (how a coarse-grained
    SVM pointer into the middle of an allocation reaches a kernel)."""

    buffer: Buffer
    offset: int = 0


class LocalMemory:
    """A ``__local`` kernel argument of ``size`` bytes (PyOpenCL's ``LocalMemory``)."""

    def __init__(self, size: int) -> None:
        self.size = int(size)

    def __repr__(self) -> str:
        return f"LocalMemory({self.size})"


def _range_check(what: str, offset: int, nbytes: int, size: int, routine: str) -> None:
    if offset < 0 or nbytes < 0 or offset + nbytes > size:
        raise cl_error(
            "CL_INVALID_VALUE",
            f"{what}: bytes [{offset}, {offset + nbytes}) lie outside the {size}-byte buffer; "
            "check the offset and the host array's size",
            routine,
        )


def write_buffer(queue: CommandQueue, mem: Buffer, hostbuf: Any, device_offset: int = 0,
                 wait_for: Sequence[Event] | None = None, is_blocking: bool = True) -> Event:
    """clEnqueueWriteBuffer: host → buffer, ``hostbuf``'s size in bytes."""
    routine = "clEnqueueWriteBuffer"
    src = host_bytes(hostbuf, routine)
    _range_check("write", device_offset, src.nbytes, mem.size, routine)

    def work() -> None:
        mem.data[device_offset:device_offset + src.nbytes] = src

    return queue.run(command_type.WRITE_BUFFER, work, wait_for, routine)


def read_buffer(queue: CommandQueue, mem: Buffer, hostbuf: Any, device_offset: int = 0,
                wait_for: Sequence[Event] | None = None, is_blocking: bool = True) -> Event:
    """clEnqueueReadBuffer: buffer → host, ``hostbuf``'s size in bytes."""
    routine = "clEnqueueReadBuffer"
    dst = host_bytes(hostbuf, routine, writable=True)
    _range_check("read", device_offset, dst.nbytes, mem.size, routine)

    def work() -> None:
        dst[:] = mem.data[device_offset:device_offset + dst.nbytes]

    return queue.run(command_type.READ_BUFFER, work, wait_for, routine)


def copy_buffer(queue: CommandQueue, src: Buffer, dst: Buffer, byte_count: int = -1, src_offset: int = 0,
                dst_offset: int = 0, wait_for: Sequence[Event] | None = None) -> Event:
    """clEnqueueCopyBuffer; ``byte_count`` defaults to what fits in both buffers."""
    routine = "clEnqueueCopyBuffer"
    if byte_count < 0:
        byte_count = min(src.size - src_offset, dst.size - dst_offset)
    _range_check("copy source", src_offset, byte_count, src.size, routine)
    _range_check("copy destination", dst_offset, byte_count, dst.size, routine)
    if np.shares_memory(src.data[src_offset:src_offset + byte_count], dst.data[dst_offset:dst_offset + byte_count]):
        raise cl_error("CL_MEM_COPY_OVERLAP", "source and destination regions overlap; copy through a temporary",
                       routine)

    def work() -> None:
        dst.data[dst_offset:dst_offset + byte_count] = src.data[src_offset:src_offset + byte_count]

    return queue.run(command_type.COPY_BUFFER, work, wait_for, routine)


def enqueue_fill_buffer(queue: CommandQueue, mem: Buffer, pattern: Any, offset: int, size: int,
                        wait_for: Sequence[Event] | None = None) -> Event:
    """clEnqueueFillBuffer: repeat ``pattern`` (a NumPy scalar or bytes) over ``size`` bytes.

    OpenCL API s5.2.3: the pattern size is a power of two up to 128 bytes and
    ``offset``/``size`` are multiples of it (else CL_INVALID_VALUE).
    """
    routine = "clEnqueueFillBuffer"
    pat = host_bytes(pattern, routine).copy()
    n = pat.nbytes
    if n == 0 or n > 128 or n & (n - 1):
        raise cl_error("CL_INVALID_VALUE", f"the pattern is {n} bytes; use 1, 2, 4, … or 128 bytes", routine)
    if offset % n or size % n:
        raise cl_error("CL_INVALID_VALUE", f"offset and size must be multiples of the pattern size ({n} bytes)",
                       routine)
    _range_check("fill", offset, size, mem.size, routine)

    def work() -> None:
        mem.data[offset:offset + size] = np.tile(pat, size // n)

    return queue.run(command_type.FILL_BUFFER, work, wait_for, routine)


class MemoryMap:
    """The ``base`` of an array returned by :func:`enqueue_map_buffer`; ``release`` unmaps it."""

    def __init__(self, view: np.ndarray, queue: CommandQueue) -> None:
        self.__array_interface__ = view.__array_interface__
        self._view, self._queue = view, queue

    def release(self, queue: CommandQueue | None = None, wait_for: Sequence[Event] | None = None) -> Event:
        """clEnqueueUnmapMemObject (the mapped array shares the buffer's memory)."""
        return (queue or self._queue).run(command_type.UNMAP_MEM_OBJECT, lambda: None, wait_for,
                                          "clEnqueueUnmapMemObject")


def enqueue_map_buffer(queue: CommandQueue, buf: Buffer, flags: int, offset: int, shape: Any, dtype: Any,
                       order: str = "C", strides: Any = None, wait_for: Sequence[Event] | None = None,
                       is_blocking: bool = True) -> tuple[np.ndarray, Event]:
    """clEnqueueMapBuffer: a NumPy array over the buffer's own bytes, and the map event."""
    routine = "clEnqueueMapBuffer"
    dtype = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    _range_check("map", offset, nbytes, buf.size, routine)
    view = np.ndarray(shape, dtype, buffer=buf.data, offset=offset, strides=strides, order=order)
    event = queue.run(command_type.MAP_BUFFER, lambda: None, wait_for, routine)
    return np.asarray(MemoryMap(view, queue)), event


def enqueue_copy(queue: CommandQueue, dest: Any, src: Any, **kwargs: Any) -> Event:
    """Copy between host arrays, buffers and images; the kind of copy follows from the types
    (PyOpenCL's ``enqueue_copy``). Keywords as in PyOpenCL: ``device_offset``,
    ``src_offset``/``dst_offset``/``byte_count``, ``origin``/``region`` …, ``wait_for``, ``is_blocking``."""
    from .image import Image, copy_image_command

    if not isinstance(queue, CommandQueue):
        raise cl_error("CL_INVALID_COMMAND_QUEUE", "the first argument must be a cl.CommandQueue", "enqueue_copy")
    if isinstance(dest, Image) or isinstance(src, Image):
        return copy_image_command(queue, dest, src, **kwargs)
    if isinstance(dest, Buffer):
        if isinstance(src, Buffer):
            return copy_buffer(queue, src, dest, **kwargs)
        return write_buffer(queue, dest, src, **kwargs)
    if isinstance(src, Buffer):
        return read_buffer(queue, src, dest, **kwargs)
    raise cl_error("CL_INVALID_VALUE", "enqueue_copy needs a cl.Buffer or cl.Image on at least one side",
                   "enqueue_copy")
