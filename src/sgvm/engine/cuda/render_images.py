"""CUDA C for sub-group image and media block IO (cl_intel_subgroups,
cl_intel_media_block_io): the lanes of a warp together. The per-work-item image
instructions are the shared lowering's (``engine/clower/images.py``); the rules are in
images.cuh.
"""

from __future__ import annotations

from ...spirv import Instruction
from ..clower import ctypes_ as C
from ..clower.images import OPS as IMAGE_OPS
from ..clower.ops import ids, registrar

OPS: dict = dict(IMAGE_OPS)
op = registrar(OPS)


def _block_coords(r, coord: int) -> str:
    """Declarations of the sub-group's (uniform) byte coordinate x_, y_ (int2: signed)."""
    x, y = r.leaves(coord)[:2]
    m = r.members()
    return f"s64 x_ = sg_first({m}, (s64)(s32){x}), y_ = sg_first({m}, (s64)(s32){y});"


@op("OpSubgroupImageBlockReadINTEL")
def _block_read(r, inst: Instruction) -> None:
    img, coord = ids(inst)[:2]
    lt = C.leaf_types(r.rtype(inst))
    ct, n = C.scalar_ctype(lt[0]), len(lt)
    r.emit(f"{{ {_block_coords(r, coord)} {ct} b_[{n}]; "
           f"sg_img_block_read<{ct}, {n}>({r.leaf(img)}, x_, y_, sg_lane(), b_); " + " ".join(
               f"{name} = b_[{i}];" for i, name in enumerate(r.result_names(inst))) + " }")


@op("OpSubgroupImageBlockWriteINTEL")
def _block_write(r, inst: Instruction) -> None:
    img, coord, data = ids(inst)[:3]
    lt = C.leaf_types(r.type_of(data))
    ct, n = C.scalar_ctype(lt[0]), len(lt)
    r.emit(f"{{ {_block_coords(r, coord)} {ct} b_[{n}] = {{{', '.join(r.leaves(data))}}}; "
           f"sg_img_block_write<{ct}, {n}>({r.leaf(img)}, x_, y_, sg_lane(), b_); }}")


def _media_region(r, inst: Instruction) -> str:
    """The uniform coordinate and the region's width and height (int operands)."""
    coord, w, h = ids(inst)[1:4]
    m = r.members()
    return (f"{_block_coords(r, coord)} s64 w_ = sg_first({m}, (s64)(s32){r.leaf(w)}), "
            f"h_ = sg_first({m}, (s64)(s32){r.leaf(h)}); if (w_ < 1) w_ = 1;")


@op("OpSubgroupImageMediaBlockReadINTEL")
def _media_read(r, inst: Instruction) -> None:
    """cl_intel_media_block_io reads (semantics.media_block_coords)."""
    img = ids(inst)[0]
    lt = C.leaf_types(r.rtype(inst))
    ct, n = C.scalar_ctype(lt[0]), len(lt)
    r.emit(f"{{ {_media_region(r, inst)} {ct} b_[{n}]; "
           f"sg_media_block_read<{ct}, {n}>({r.leaf(img)}, x_, y_, w_, h_, sg_lane(), b_); " + " ".join(
               f"{name} = b_[{i}];" for i, name in enumerate(r.result_names(inst))) + " }")


@op("OpSubgroupImageMediaBlockWriteINTEL")
def _media_write(r, inst: Instruction) -> None:
    img, data = ids(inst)[0], ids(inst)[4]
    lt = C.leaf_types(r.type_of(data))
    ct, n = C.scalar_ctype(lt[0]), len(lt)
    r.emit(f"{{ {_media_region(r, inst)} {ct} b_[{n}] = {{{', '.join(r.leaves(data))}}}; "
           f"sg_media_block_write<{ct}, {n}>({r.leaf(img)}, x_, y_, w_, h_, sg_lane(), b_); }}")
