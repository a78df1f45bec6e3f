"""Sub-group image block reads and writes: layout, bounds and undefined cases.

An image is described by ``width`` (texels per row), ``height`` (rows) and
``texel_size`` (bytes per texel); a row is ``width * texel_size`` bytes. The block
element size ``elem_size`` is 1 (``_uc``), 2 (``_us``) or 4 (``_ui``/unsuffixed)
bytes; ``count`` elements per lane.

Layout. cl_intel_subgroups.txt: "the coordinate is a byte coordinate, not an
image element coordinate [...] the image data is read without format
conversion [...] The data is read row-by-row, so the first value read is from
the row specified in the y-component of the provided byte_coord, the second
value is read from the y-component of the provided byte_coord plus one, etc."
Within a row the specifications do not spell out which bytes a lane gets; sgvm
follows Intel's hardware (a block ``max_size * elem_size`` bytes wide): lane ``l``
element ``i`` is the ``elem_size`` bytes at byte x ``x + l*elem_size`` of row
``y + i``. The width is the maximum sub-group size (the compiled SIMD width),
as for buffer block IO; the missing lanes of a partial sub-group read and write
nothing.

Bounds. cl_intel_subgroups.txt: "these built-ins bounds-check to the image
width in units of uints, not in units of image elements. [...] If the image has
an element size equal to the size of a uint (four bytes [...]), the image will
be correctly bounds-checked. In this case, out-of-bounds reads will return the
edge image element (the equivalent of CLK_ADDRESS_CLAMP_TO_EDGE), and
out-of-bounds writes will be ignored. If the image has element size less than
the size of a uint [...] out-of-bounds reads may return invalid data and
out-of-bounds writes may corrupt other images or buffers unpredictably."
So out-of-bounds access is defined only for 4-byte texels. The clamp works per
texel (a uint for 4-byte texels), so an unaligned 4-byte element that straddles
the right edge keeps its in-bounds bytes and takes the rest from the edge texel.
"""

from __future__ import annotations

import numpy as np

UINT_SIZE = 4


def image_block_coords(
    x: np.ndarray | int, y: np.ndarray | int, elem_size: int, count: int, max_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Byte x and row (G, S, N) int64 of element ``i`` of lane ``l``: ``(x + l*elem_size, y + i)``.

    ``x`` and ``y`` are the sub-group's (uniform) byte coordinate, scalars or (G,).
    See the module docstring for the spec text and the within-row layout.
    """
    x = np.asarray(x, dtype=np.int64).reshape(-1, 1, 1)
    y = np.asarray(y, dtype=np.int64).reshape(-1, 1, 1)
    lane = np.arange(max_size, dtype=np.int64)[None, :, None]
    element = np.arange(count, dtype=np.int64)[None, None, :]
    return np.broadcast_arrays(x + lane * elem_size, y + element)


def image_block_in_bounds(
    xs: np.ndarray, ys: np.ndarray, elem_size: int, width: int, height: int, texel_size: int
) -> np.ndarray:
    """Bool, shaped like ``xs``: all ``elem_size`` bytes of the element lie inside the image.

    Inside means byte x in [0, width*texel_size) and row in [0, height). For
    4-byte texels this is the spec's check "in units of uints".
    """
    row_bytes = width * texel_size
    return (xs >= 0) & (xs + elem_size <= row_bytes) & (ys >= 0) & (ys < height)


def image_block_read_bytes(
    xs: np.ndarray, ys: np.ndarray, elem_size: int, width: int, height: int, texel_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Byte x and row (..., elem_size) int64 each byte of each element is read from.

    Bytes outside the image come from the edge texel: "out-of-bounds reads will
    return the edge image element (the equivalent of CLK_ADDRESS_CLAMP_TO_EDGE)"
    (cl_intel_subgroups.txt). The texel column and the row are clamped, the byte
    within the texel kept. Byte ``k`` is the ``k``-th least significant byte of
    the element. For texels other than 4 bytes an out-of-bounds read is
    undefined (``image_block_oob_undefined``); the same clamp then just keeps the
    read inside the image.
    """
    bx = np.expand_dims(xs, -1) + np.arange(elem_size, dtype=np.int64)
    column = np.clip(bx // texel_size, 0, width - 1)
    bx = column * texel_size + bx % texel_size
    by = np.broadcast_to(np.expand_dims(np.clip(ys, 0, height - 1), -1), bx.shape)
    return bx, by


def image_block_write_dropped(
    xs: np.ndarray, ys: np.ndarray, elem_size: int, width: int, height: int, texel_size: int
) -> np.ndarray:
    """Bool, shaped like ``xs``: elements whose write is ignored.

    cl_intel_subgroups.txt: "out-of-bounds writes will be ignored". With the
    required 4-aligned x no element of 1, 2 or 4 bytes straddles a uint, so a
    whole element is either written or dropped.
    """
    return ~image_block_in_bounds(xs, ys, elem_size, width, height, texel_size)


def image_block_oob_undefined(in_bounds: np.ndarray, texel_size: int) -> np.ndarray:
    """Bool, shaped like ``in_bounds``: out-of-bounds elements whose access is undefined.

    cl_intel_subgroups.txt: "If the image has element size less than the size of
    a uint [...] bounds checking will occur too late. [...] out-of-bounds reads
    may return invalid data and out-of-bounds writes may corrupt other images or
    buffers unpredictably." Only 4-byte texels are "correctly bounds-checked";
    texels over 4 bytes are undefined altogether (``texel_size_undefined``).
    """
    return ~np.asarray(in_bounds, dtype=bool) & (texel_size != UINT_SIZE)


def texel_size_undefined(texel_size: int) -> bool:
    """True when image block IO on this image is undefined.

    cl_intel_subgroups.txt: "The behavior of the subgroup image block read and
    write built-ins is undefined for images with an element size greater than
    four bytes (such as CL_RGBA + CL_FLOAT)."
    """
    return texel_size > UINT_SIZE


def image_block_write_misaligned(x: np.ndarray | int) -> np.ndarray:
    """Bool, shaped like ``x``: an image block write at byte x ``x`` is undefined.

    cl_intel_subgroups.txt: "the x-component of the byte coordinate for the image
    block write functions must be a multiple of four; in other words, the write
    must begin at 32-bit boundary. There is no restriction on the y-component".
    Reads have no such rule: they "may read from any arbitrary byte offset".
    """
    return np.asarray(x) % UINT_SIZE != 0


def image_from_buffer_pitch_invalid(row_pitch: int) -> bool:
    """True when a 2D image created from a buffer may not be used for block IO.

    cl_intel_subgroups.txt: "When reading or writing a 2D image created from a
    buffer with the subgroup block read and write built-ins, the image row pitch
    is required to be a multiple of 64-bytes".
    """
    return row_pitch % 64 != 0


def image_from_buffer_base_misaligned(address: int) -> bool:
    """True when the buffer behind a 2D image is too loosely aligned for block IO.

    cl_intel_subgroups.txt: "if the buffer is a cl_mem that was created with
    CL_MEM_USE_HOST_PTR, then the host_ptr must be 256-bit (32-byte) aligned.
    [...] if the buffer is a cl_mem that is a sub-buffer, then the origin must be
    a multiple of 32-bytes." ``address`` is that host_ptr or origin.
    """
    return address % 32 != 0
