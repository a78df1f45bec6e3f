"""C for the image instructions (SPIR-V 1.6 s3.52.10), shared by the C targets.

An image is the address of its ``SgImage`` descriptor (``engine/common/image_descriptor.py``),
a sampler its ``sampler_t`` literal, a sampled image both OR-ed together (descriptors are
64-byte aligned, literals below 64). The read/write family comes from the texel type as in
the NumPy engine (``engine.cpu.image_ops``): float → f, half → h, integers → i/ui from the
SignExtend/ZeroExtend image operands, else from the image's format at run time
(``SG_K_INT``). The rules themselves are in images.h. A write outside the image is recorded
through the renderer's ``image_fault`` (the fault record and the writing work-item's id).
"""

from __future__ import annotations

from ...spirv import Instruction, Type
from ..common.constants import SIGN_EXTEND, ZERO_EXTEND
from . import ctypes_ as C
from .ops import ids, registrar

OPS: dict = {}
op = registrar(OPS)


def _kind(t: Type, inst: Instruction, mask_at: int) -> str:
    s = C.leaf_types(t)[0]
    if s.op == "Float":
        return "SG_K_H" if s.width == 16 else "SG_K_F"
    mask = int(inst.operands[mask_at].value) if len(inst.operands) > mask_at else 0
    if mask & SIGN_EXTEND:
        return "SG_K_I"
    if mask & ZERO_EXTEND:
        return "SG_K_UI"
    return "SG_K_INT"


def _coords(r, vid: int) -> tuple[bool, list[str]]:
    """(float coordinates?, three C expressions: s64 or float, missing ones 0)."""
    lt = C.leaf_types(r.type_of(vid))
    lv = r.leaves(vid)[:3]
    if lt[0].op == "Float":
        xs = [f"h2f({x})" if lt[0].width == 16 else f"(float){x}" for x in lv]
        return True, xs + ["0.0f"] * (3 - len(xs))
    xs = [f"(s64)({C.signed_ctype(lt[0])}){x}" for x in lv]
    return False, xs + ["0"] * (3 - len(xs))


def _texel_leaves(r, inst: Instruction, call: str) -> None:
    """Assign the texel ``call`` returns (an SgTex) to the result's 1 or 4 leaves."""
    names = r.result_names(inst)
    lt = C.leaf_types(r.rtype(inst))
    r.emit(f"{{ SgTex t_ = {call}; " + " ".join(
        f"{n} = sg_from_bits<{C.scalar_ctype(s)}>((u64)t_.v[{k}]);"
        for k, (n, s) in enumerate(zip(names, lt, strict=True))) + " }")


def _image_read(r, inst: Instruction, float_handle: str, sampler: str) -> None:
    """Read a texel through handle operand 0 at coordinate operand 1: float coordinates take
    ``float_handle`` (the image, with its sampler bits where there is one), integer ones
    the image handle and ``sampler``."""
    handle, coord = ids(inst)[:2]
    isf, c = _coords(r, coord)
    kind = _kind(r.rtype(inst), inst, 2)
    h = r.leaf(handle)
    call = (f"sg_img_read_f({float_handle.format(h=h)}, {kind}, {', '.join(c)})" if isf
            else f"sg_img_read_i({h}, {sampler.format(h=h)}, {kind}, {', '.join(c)})")
    _texel_leaves(r, inst, call)


@op("OpImageRead")
def _read(r, inst: Instruction) -> None:
    _image_read(r, inst, "{h} & ~63ULL", "SG_NO_SAMPLER")


@op("OpSampledImage")
def _sampled(r, inst: Instruction) -> None:
    img, smp = ids(inst)[:2]
    r.assign(inst, [f"({r.leaf(img)} | {r.leaf(smp)})"])


@op("OpImageSampleExplicitLod")
def _sample(r, inst: Instruction) -> None:
    _image_read(r, inst, "{h}", "sg_smp({h})")


@op("OpImageWrite")
def _write(r, inst: Instruction) -> None:
    img, coord, texel = ids(inst)[:3]
    _, c = _coords(r, coord)
    t = r.type_of(texel)
    kind = _kind(t, inst, 3)
    vals = [f"(u32)sg_bits({x})" for x in r.leaves(texel)]
    vals += ["0u"] * (4 - len(vals))  # a depth image's depth is component 0
    report = r.image_fault if r.bounds else "(u64 *)0, 0"
    r.emit(f"sg_img_write({r.leaf(img)}, {kind}, {', '.join(c)}, {', '.join(vals)}, {report});")


@op("OpImageQuerySizeLod", "OpImageQuerySize")
def _size(r, inst: Instruction) -> None:
    h = r.leaf(ids(inst)[0])
    lt = C.leaf_types(r.rtype(inst))
    r.assign(inst, [f"({C.scalar_ctype(s)})sg_img({h})->shape[{k}]" for k, s in enumerate(lt)])


@op("OpImageQueryFormat", "OpImageQueryOrder")
def _format(r, inst: Instruction) -> None:
    """The SPIR-V Image Channel Data Type / Order enumerants (CL value − CL_SNORM_INT8 / CL_R)."""
    h = r.leaf(ids(inst)[0])
    field, base = ("ctype", 0x10D0) if inst.opname == "OpImageQueryFormat" else ("order", 0x10B0)
    r.assign(inst, [f"({C.scalar_ctype(r.rtype(inst))})(sg_img({h})->{field} - {base:#x}u)"])


@op("OpImageQueryLevels", "OpImageQuerySamples")
def _one(r, inst: Instruction) -> None:
    """sgvm images have one mip level and one sample."""
    r.assign(inst, [f"({C.scalar_ctype(r.rtype(inst))})1"])
