"""cl_intel_media_block_io: flexible 2D image block reads and writes (SPV_INTEL_media_block_io).

``elem_size`` is 1 (``_uc``), 2 (``_us``) or 4 (``_ui``) bytes, ``count`` the
components per work-item, ``width`` the region width in elements and ``height`` its
rows. cl_intel_media_block_io.txt: "The read-in texels in the 2D region taken in
row-major order are re-organized as another 2D region with the byte width equal to
the subgroup size. Then each work-item reads each byte column vector of the
re-organized rectangle, i.e. each column's subsequent data element's address is
strided by the subgroup size." So lane ``l``'s component ``i`` is region element
``k = i*S + l`` in row-major order: row ``k // width``, element column ``k % width``.
"If the byte area of the region is less than its max byte area, then corresponding
tail elements of some of the column vector are undefined. Conversely if the byte area
of the region is more than the max byte area, then some corresponding of the tail
elements of the region are dropped." S is the maximum sub-group size (the compiled
SIMD width, as for the other block functions).
"""

from __future__ import annotations

import numpy as np

# Table 6.X: region width in bytes → maximum height in rows.
MAX_HEIGHT = {4: 64, 8: 32, 12: 16, 16: 16, 20: 8, 24: 8, 28: 8, 32: 8}


def media_block_size_undefined(width: int | None, height: int | None, elem_size: int) -> bool:
    """True when a region size makes the call undefined.

    cl_intel_media_block_io.txt: "The following restrictions in Table 6.X apply for
    allowed sizes for the explicit width and height parameters" (widths 4..32 bytes in
    steps of 4 with maximum heights 64, 32, 16, 16, 8, 8, 8, 8), "The width [...] must
    be less than or equal to 32 [bytes]" and "The width and height of the region must
    be compile-time constants." ``None`` stands for a size that is not a constant;
    ``width`` is in units of ``elem_size`` bytes.
    """
    if width is None or height is None:
        return True
    limit = MAX_HEIGHT.get(int(width) * elem_size)
    return limit is None or not 1 <= int(height) <= limit


def media_block_x_misaligned(x: np.ndarray | int) -> np.ndarray:
    """Bool, shaped like ``x``: "The source byte x-offset and width must be 4 byte aligned."."""
    return np.asarray(x) % 4 != 0


def media_block_coords(x: np.ndarray | int, y: np.ndarray | int, elem_size: int, count: int,
                       width: int, height: int, max_size: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Byte x, row and ``inside`` (G, S, count): where lane ``l``'s component ``i`` lies.

    Component ``i`` of lane ``l`` is region element ``k = i*S + l`` (module
    docstring) at byte x ``x + (k % width)*elem_size`` of row ``y + k // width``;
    ``inside`` is False for ``k >= width*height`` (a read's undefined tail, a write's
    nothing). ``x``, ``y``: the sub-group's coordinate, scalars or (G,).
    """
    x = np.asarray(x, dtype=np.int64).reshape(-1, 1, 1)
    y = np.asarray(y, dtype=np.int64).reshape(-1, 1, 1)
    k = (np.arange(count, dtype=np.int64)[None, :] * max_size
         + np.arange(max_size, dtype=np.int64)[:, None])[None]  # (1, S, count)
    xs, ys = np.broadcast_arrays(x + (k % width) * elem_size, y + k // width)
    return xs, ys, np.broadcast_to(k < width * height, xs.shape)


def media_block_oob_undefined(in_bounds: np.ndarray, texel_size: int, elem_size: int) -> np.ndarray:
    """Bool, shaped like ``in_bounds``: out-of-bounds reads whose result is undefined.

    "For out-of-bound reads, the read-in texels are replicated from the nearest edge
    for byte sized texels. The out-of-bound behavior is undefined for larger sized
    texels with the "_uc" builtin-functions." (words: byte and word texels; dwords:
    byte, word and dword texels), and "The behavior is undefined for images with
    greater than dword sized texels". Replication itself is
    ``semantics.image_block_read_bytes`` (texel column and row clamped, the byte within
    the texel kept: "for a boundary word B0B1B2B3, to replicate the left boundary byte
    texel, the out of bound dwords have the format of B0B0B0B0").
    """
    return ~np.asarray(in_bounds, dtype=bool) & (texel_size > elem_size)
