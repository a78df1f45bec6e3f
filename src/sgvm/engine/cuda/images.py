"""Image descriptors on the device: the ``SgImage`` struct of engine/clower/images.h.

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
from ..common.image_descriptor import descriptor


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
