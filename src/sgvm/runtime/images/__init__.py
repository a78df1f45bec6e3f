"""The OpenCL image model: formats, images, samplers and lane-vectorised access.

See docs/images.md for the supported formats, the conversion and sampling
rules, and sgvm's choices where the specification leaves behaviour undefined.
"""

from sgvm.runtime.images.access import (
    read,
    read_with_bounds,
    undefined_use,
    write,
    write_outside,
)
from sgvm.runtime.images.enums import (
    addressing_mode,
    channel_order,
    channel_type,
    filter_mode,
    mem_object_type,
)
from sgvm.runtime.images.formats import (
    KIND_DTYPE,
    ImageFormat,
    border_color,
    decode,
    encode,
    supported_formats,
)
from sgvm.runtime.images.image import Image
from sgvm.runtime.images.sampler import Sampler

__all__ = [
    "KIND_DTYPE", "Image", "ImageFormat", "Sampler", "addressing_mode", "border_color",
    "channel_order", "channel_type", "decode", "encode", "filter_mode", "mem_object_type",
    "read", "read_with_bounds", "supported_formats", "undefined_use", "write", "write_outside",
]
