"""Image descriptors: the ``SgImage`` struct of engine/clower/images.h, which the C
targets' image instructions read (the CUDA backend copies it to the device, the native
backend passes its host address).

A descriptor holds the address of the image's texels, the shape and byte strides per
coordinate, the row pitch and the format as the kernel-side rules need it (CL channel
type and order, texel size, stored channel → component map, sRGB, opaque border,
integer family).
"""

from __future__ import annotations

import numpy as np

from ...runtime.images import Image
from ...runtime.images.formats import _LAYOUT, _SRGB

DESCRIPTOR = np.dtype([
    ("data", "<u8"), ("shape", "<i8", 3), ("stride", "<i8", 3), ("row_pitch", "<u8"),
    ("ncoord", "<u4"), ("nspatial", "<u4"), ("ctype", "<u4"), ("order", "<u4"), ("es", "<u4"),
    ("nch", "<u4"), ("src", "<u4", 4), ("srgb", "<u4"), ("opaque", "<u4"), ("kind", "<u4"),
    ("pad", "<u4"),
])
_COMPONENT = {"r": 0, "g": 1, "b": 2, "a": 3, "i": 4, "l": 5}
_KIND = {"f": 0, "i": 2, "ui": 3}  # SG_K_F, SG_K_I, SG_K_UI


def descriptor(image: Image, data_ptr: int) -> bytes:
    """The ``SgImage`` bytes of ``image`` whose texels are at device address ``data_ptr``."""
    d = np.zeros((), DESCRIPTOR)
    fmt = image.format
    layout = _LAYOUT[fmt.channel_order]
    d["data"] = data_ptr
    d["shape"][: image.coord_count] = image.shape
    d["stride"][: image.coord_count] = image.strides
    d["row_pitch"] = image.row_pitch
    d["ncoord"], d["nspatial"] = image.coord_count, image.spatial_dims
    d["ctype"], d["order"] = fmt.channel_data_type, fmt.channel_order
    d["es"], d["nch"] = image.element_size, len(layout)
    d["src"][: len(layout)] = [_COMPONENT[c] for c in layout]
    d["srgb"] = fmt.channel_order in _SRGB
    d["opaque"] = fmt.has_opaque_border
    d["kind"] = _KIND[fmt.kind]
    return d.tobytes()


def host_descriptor(image: Image) -> np.ndarray:
    """The descriptor of ``image`` whose texels are its host array, 64-byte aligned (the
    handle is its address; keep the array alive while a kernel may use it)."""
    raw = np.frombuffer(descriptor(image, image.data.data.ctypes.data), np.uint8)
    buf = np.empty(len(raw) + 64, np.uint8)
    skip = (64 - buf.ctypes.data % 64) % 64
    out = buf[skip:skip + len(raw)]
    out[:] = raw
    return out
