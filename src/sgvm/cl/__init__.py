"""A PyOpenCL-compatible host API: change ``import pyopencl as cl`` to ``import sgvm.cl as cl``.

Names, signatures, enumerations and errors follow PyOpenCL; kernels run on
sgvm's engine. See docs/host_api.md for what is supported and the differences.
"""

from __future__ import annotations

from ..errors import Error, LogicError, MemoryError, RuntimeError
from ..runtime.images.formats import ImageFormat
from . import cltypes
from .constants import (
    addressing_mode,
    build_status,
    channel_order,
    channel_type,
    command_execution_status,
    command_queue_info,
    command_queue_properties,
    command_type,
    context_info,
    device_exec_capabilities,
    device_fp_config,
    device_info,
    device_local_mem_type,
    device_mem_cache_type,
    device_type,
    event_info,
    filter_mode,
    image_info,
    kernel_arg_access_qualifier,
    kernel_arg_address_qualifier,
    kernel_arg_info,
    kernel_arg_type_qualifier,
    kernel_info,
    kernel_sub_group_info,
    kernel_work_group_info,
    map_flags,
    mem_flags,
    mem_info,
    mem_object_type,
    platform_info,
    profiling_info,
    program_binary_type,
    program_build_info,
    program_info,
    sampler_info,
    status_code,
)
from .image import Image, Sampler, get_supported_image_formats
from .kernel import Kernel, enqueue_nd_range_kernel
from .memory import (
    Buffer,
    LocalMemory,
    MemoryMap,
    MemoryObject,
    enqueue_copy,
    enqueue_fill_buffer,
    enqueue_map_buffer,
)
from .memory import copy_buffer as enqueue_copy_buffer
from .memory import read_buffer as enqueue_read_buffer
from .memory import write_buffer as enqueue_write_buffer
from .platform import Context, Device, Platform, create_some_context, get_platforms
from .program import Program
from .queue import CommandQueue, Event, enqueue_barrier, enqueue_marker, wait_for_events

VERSION = (2024, 1)
VERSION_TEXT = "2024.1 (sgvm)"

__all__ = [
    "Buffer", "CommandQueue", "Context", "Device", "Error", "Event", "Image", "ImageFormat", "Kernel",
    "LocalMemory", "LogicError", "MemoryError", "MemoryMap", "MemoryObject", "Platform", "Program",
    "RuntimeError", "Sampler", "VERSION", "VERSION_TEXT",
    "addressing_mode", "build_status", "channel_order", "channel_type", "command_execution_status",
    "command_queue_info", "command_queue_properties", "command_type", "context_info", "create_some_context",
    "device_exec_capabilities", "device_fp_config", "device_info", "device_local_mem_type",
    "cltypes", "device_mem_cache_type", "device_type", "enqueue_barrier", "enqueue_copy", "enqueue_copy_buffer",
    "enqueue_fill_buffer", "enqueue_read_buffer", "enqueue_write_buffer",
    "enqueue_map_buffer", "enqueue_marker", "enqueue_nd_range_kernel", "event_info", "filter_mode",
    "get_platforms", "get_supported_image_formats", "image_info", "kernel_arg_access_qualifier",
    "kernel_arg_address_qualifier", "kernel_arg_info", "kernel_arg_type_qualifier", "kernel_info",
    "kernel_sub_group_info", "kernel_work_group_info", "map_flags", "mem_flags", "mem_info", "mem_object_type",
    "platform_info", "profiling_info", "program_binary_type", "program_build_info", "program_info",
    "sampler_info", "status_code", "wait_for_events",
]
