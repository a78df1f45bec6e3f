"""Image descriptors on the device: the ``SgImage`` struct of images.cuh.

An image's texels live in the device copy of ``image.data`` (the same mirrors as
buffers, ``runtime._Mirrors``); its descriptor holds that address, the shape and
byte strides per coordinate, the row pitch and the format as the kernel-side rules
need it (CL channel type and order, texel size, stored channel → component map,
sRGB, opaque border, integer family). Descriptors are cached per image and
re-uploaded only when their bytes change.
"""

from __future__ import annotations

import weakref
from typing import Any

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


class Descriptors:
    """Device copies of image descriptors, one 64-byte-aligned array per image."""

    def __init__(self) -> None:
        self._by_image: weakref.WeakKeyDictionary[Image, tuple[bytes, Any]] = \
            weakref.WeakKeyDictionary()

    def handle(self, image: Image, data_ptr: int, cupy: Any) -> int:
        """The kernel-side handle (descriptor address) of ``image``."""
        raw = descriptor(image, data_ptr)
        cached = self._by_image.get(image)
        if cached is None or cached[0] != raw:
            dev = cupy.asarray(np.frombuffer(raw, np.uint8))
            assert dev.data.ptr % 64 == 0
            cached = self._by_image[image] = (raw, dev)
        return int(cached[1].data.ptr)
