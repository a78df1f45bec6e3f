"""OpSubgroupImageBlockReadINTEL / OpSubgroupImageBlockWriteINTEL on 2D images.

cl_intel_subgroups.txt: "the coordinate is a byte coordinate, not an image
element coordinate [...] the image data is read without format conversion
[...] The data is read row-by-row". Lane ``l``'s element ``i`` is the element at
byte x ``x + l*size`` of row ``y + i`` (``semantics.image_block_coords``); reads
past the edge return the edge texel, writes past it are dropped
(``semantics.image_block_read_bytes`` / ``image_block_write_dropped``), which is
the defined behaviour for 4-byte texels. Images created from a buffer use their
row pitch. "the pointer, image, and coordinate arguments [...] must be the same
for all work items in the subgroup": the first active lane's coordinate is used
and the rest reported as ``not_uniform``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import semantics as sem
from ...errors import UnsupportedError
from ..common import types as T
from .collective import SUBGROUP, Grouping
from .image_ops import image_of
from .registry import Op, builder
from .values import arr, is_lane_array

I64 = np.dtype(np.int64)


def _image(value: Any, mask: Any = None) -> Any:
    """The runtime Image behind an image operand (a handle, an ImageArg or an Image)."""
    image = image_of(value, mask)
    if getattr(image, "spatial_dims", 0) != 2 or getattr(image, "arrayed", True):
        raise UnsupportedError("sub-group image block IO needs a 2D image (image2d_t)")
    return image


def _coords(g: Grouping, coord: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sub-groups' byte coordinates x, y (G,) and the ``not_uniform`` mask."""
    c = arr(coord)
    if is_lane_array(c, True):
        xy = g.first(g.split(c, True))
        mixed = g.not_uniform(c, True)
    else:
        xy = np.broadcast_to(np.asarray(c), (g.G, 2))
        mixed = np.zeros(g.G, dtype=bool)
    xy = xy.view(T.signed(xy.dtype)).astype(I64)  # int2: signed
    return xy[:, 0], xy[:, 1], mixed


def _block(r: list, st: Any, img: int, coord: int, size: int, count: int):
    """The image, sub-group grouping, first-lane x (G,), per-lane element byte
    coordinates xs, ys (G, S, count) and the ``not_uniform`` mask of a block access."""
    image = _image(r[img], st.mask)
    g = Grouping(st, SUBGROUP)
    x, y, mixed = _coords(g, r[coord])
    xs, ys = sem.image_block_coords(x, y, size, count, g.K)
    return image, g, x, xs, ys, mixed


def _diagnostics(image: Any, in_bounds: np.ndarray, mixed: np.ndarray, g: Grouping) -> dict:
    texel = image.element_size
    oob = sem.image_block_oob_undefined(in_bounds, texel) & g.active[:, :, None]
    return {"not_uniform": mixed, "oob_undefined": oob.any(axis=2),
            "texel_size_undefined": np.full(g.G, sem.texel_size_undefined(texel))}


@builder("OpSubgroupImageBlockReadINTEL")
def _image_read(ctx, inst) -> Op:
    """OpSubgroupImageBlockReadINTEL: "Reads one or more components of Result data for
    each invocation in the subgroup from the specified Image at the specified
    Coordinate as a block operation"."""
    img, coord = inst.operands[0].value, inst.operands[1].value
    t = ctx.rtype(inst)
    dt, n = T.dtype_of(t), T.width(t)
    size = dt.itemsize
    opname = inst.opname

    def run(r, st):
        image, g, _, xs, ys, mixed = _block(r, st, img, coord, size, n)
        width, height, texel = image.width, image.height, image.element_size
        bx, by = sem.image_block_read_bytes(xs, ys, size, width, height, texel)
        raw = image.data.data[by * image.row_pitch + bx]  # (G, S, n, size) bytes
        values = np.ascontiguousarray(raw).view(dt)[..., 0]
        values = np.where(g.active[:, :, None], values, dt.type(0))
        if st.obs_collective:
            inside = sem.image_block_in_bounds(xs, ys, size, width, height, texel)
            g.emit(opname, **_diagnostics(image, inside, mixed, g))
        out = g.join(values)
        return out[:, 0] if n == 1 else out

    return Op(inst.result_id, run, False, n > 1)


@builder("OpSubgroupImageBlockWriteINTEL")
def _image_write(ctx, inst) -> Op:
    """OpSubgroupImageBlockWriteINTEL: "Writes one or more components of Data for each
    invocation in the subgroup to the specified Image at the specified Coordinate
    as a block operation"; the x coordinate must be a multiple of four."""
    img, coord, d = (o.value for o in inst.operands)
    t = ctx.type_of(d)
    dt, n = T.dtype_of(t), T.width(t)
    size = dt.itemsize
    opname = inst.opname

    def run(r, st):
        image, g, x, xs, ys, mixed = _block(r, st, img, coord, size, n)
        width, height, texel = image.width, image.height, image.element_size
        dropped = sem.image_block_write_dropped(xs, ys, size, width, height, texel)
        keep = ~dropped & g.active[:, :, None]
        data = g.split(arr(r[d]), n > 1).reshape(g.G, g.K, n)
        raw = np.ascontiguousarray(data, dtype=dt).view(np.uint8).reshape(g.G, g.K, n, size)
        where = ys[..., None] * image.row_pitch + xs[..., None] + np.arange(size, dtype=I64)
        image.data.data[where[keep]] = raw[keep]
        if st.obs_collective:
            g.emit(opname, write_misaligned=sem.image_block_write_misaligned(x),
                   **_diagnostics(image, ~dropped, mixed, g))
        return None

    return Op(0, run, False, False)
