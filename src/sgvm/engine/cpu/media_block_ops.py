"""OpSubgroupImageMediaBlockReadINTEL / WriteINTEL (SPV_INTEL_media_block_io;
cl_intel_media_block_io's intel_sub_group_media_block_read/write_{uc,us,ui}N).

Operands: Image, Coordinate (byte x, row y), Width (in elements of the result or data
component type), Height[, Data]. Lane ``l``'s component ``i`` is region element
``i*S + l`` in row-major order (``semantics.media_block_coords``); reads past the
image replicate the edge texel (``semantics.image_block_read_bytes``: texel column
and row clamped, the byte within the texel kept), writes past it are dropped, and the
tail beyond ``width*height`` elements reads 0 and writes nothing. Width and height
should be constants (``size_undefined`` otherwise; the first active lane's values are
used and must agree across the batch's sub-groups).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import semantics as sem
from ...errors import UnsupportedError
from ..common import types as T
from .collective import SUBGROUP, Grouping
from .image_block_ops import _coords, _image
from .registry import Op, builder
from .values import arr

I64 = np.dtype(np.int64)


def _size(ctx, sid: int) -> int | None:
    c = ctx.constant(sid)
    return None if c is None else int(np.asarray(c).view(np.int32) if np.ndim(c) else np.int32(c))


def _runtime_size(g: Grouping, value: Any, what: str) -> int:
    """A width/height operand that is not a constant: its value in the sub-groups' first
    active lanes, which must agree (sgvm computes one region shape per batch)."""
    v = arr(value)
    per_group = g.first(g.split(v, False)) if np.ndim(v) else np.asarray([v])
    per_group = per_group[g.active.any(axis=1)] if np.ndim(v) else per_group
    values = np.unique(per_group.astype(np.int64))
    if len(values) > 1:
        raise UnsupportedError(f"media block {what} differs between sub-groups "
                               f"({values.tolist()}): the extension requires a constant")
    return int(values[0]) if len(values) else 1


def _region(ctx, inst, elem_size: int):
    """The constant width and height (None when not constant) and whether they are valid."""
    w_id, h_id = inst.operands[2].value, inst.operands[3].value
    width, height = _size(ctx, w_id), _size(ctx, h_id)
    return w_id, h_id, width, height, sem.media_block_size_undefined(width, height, elem_size)


def _layout(r, st, inst_ids, sizes, elem_size: int, count: int):
    """Image, grouping, the sub-groups' x (G,), element coordinates and the event
    diagnostics shared by reads and writes."""
    img, coord, w_id, h_id = inst_ids
    width, height, bad = sizes
    image = _image(r[img], st.mask)
    g = Grouping(st, SUBGROUP)
    x, y, mixed = _coords(g, r[coord])
    w = width if width is not None else _runtime_size(g, r[w_id], "width")
    h = height if height is not None else _runtime_size(g, r[h_id], "height")
    if w < 1 or h < 1:
        raise UnsupportedError(f"media block region {w}x{h}: width and height must be positive")
    xs, ys, inside = sem.media_block_coords(x, y, elem_size, count, w, h, g.K)
    diag = {"not_uniform": mixed, "size_undefined": np.full(g.G, bad),
            "x_misaligned": sem.media_block_x_misaligned(x),
            "texel_size_undefined": np.full(g.G, sem.texel_size_undefined(image.element_size))}
    return image, g, xs, ys, inside, diag


@builder("OpSubgroupImageMediaBlockReadINTEL")
def _media_read(ctx, inst) -> Op:
    """OpSubgroupImageMediaBlockReadINTEL: "Reads a 2-dimensional block of data from the
    image at the specified Coordinate"."""
    t = ctx.rtype(inst)
    dt, n = T.dtype_of(t), T.width(t)
    size = dt.itemsize
    ids = tuple(o.value for o in inst.operands[:4])
    w_id, h_id, width, height, bad = _region(ctx, inst, size)
    opname = inst.opname

    def run(r, st):
        image, g, xs, ys, inside, diag = _layout(r, st, ids, (width, height, bad), size, n)
        iw, ih, texel = image.width, image.height, image.element_size
        bx, by = sem.image_block_read_bytes(xs, ys, size, iw, ih, texel)
        raw = image.data.data[by * image.row_pitch + bx]  # (G, S, n, size) bytes
        values = np.ascontiguousarray(raw).view(dt)[..., 0]
        values = np.where(inside & g.active[:, :, None], values, dt.type(0))
        if st.obs_collective:
            in_bounds = sem.image_block_in_bounds(xs, ys, size, iw, ih, texel)
            oob = sem.media_block_oob_undefined(in_bounds, texel, size) & inside
            g.emit(opname, media_oob_undefined=(oob & g.active[:, :, None]).any(axis=2), **diag)
        out = g.join(values)
        return out[:, 0] if n == 1 else out

    return Op(inst.result_id, run, False, n > 1)


@builder("OpSubgroupImageMediaBlockWriteINTEL")
def _media_write(ctx, inst) -> Op:
    """OpSubgroupImageMediaBlockWriteINTEL: "Writes a 2-dimensional block of data to the
    image at the specified Coordinate"; "Out-of-bound writes are dropped."."""
    d = inst.operands[4].value
    t = ctx.type_of(d)
    dt, n = T.dtype_of(t), T.width(t)
    size = dt.itemsize
    ids = tuple(o.value for o in inst.operands[:4])
    w_id, h_id, width, height, bad = _region(ctx, inst, size)
    opname = inst.opname

    def run(r, st):
        image, g, xs, ys, inside, diag = _layout(r, st, ids, (width, height, bad), size, n)
        iw, ih, texel = image.width, image.height, image.element_size
        dropped = sem.image_block_write_dropped(xs, ys, size, iw, ih, texel)
        keep = inside & ~dropped & g.active[:, :, None]
        data = g.split(arr(r[d]), n > 1).reshape(g.G, g.K, n)
        raw = np.ascontiguousarray(data, dtype=dt).view(np.uint8).reshape(g.G, g.K, n, size)
        where = ys[..., None] * image.row_pitch + xs[..., None] + np.arange(size, dtype=I64)
        image.data.data[where[keep]] = raw[keep]
        if st.obs_collective:
            g.emit(opname, **diag)
        return None

    return Op(0, run, False, False)
