"""Image instructions (SPIR-V 1.6 s3.52.10) through ``sgvm.runtime.images``.

Images and samplers are 64-bit handles in registers and in memory (clang's -O0
code keeps them in ``Function`` variables): an image is its storage
allocation's base pointer (``image_handle``), a sampler its OpenCL C
``sampler_t`` value (``Sampler.literal``), an OpSampledImage a pair of both.

The ``read_image*``/``write_image*`` family (OpenCL C 2.0 s6.13.14) comes from
the result or texel type: float → ``f``, half → ``h``; SPIR-V integers are
signless, so integer reads and writes take ``i``/``ui`` from the SignExtend /
ZeroExtend image operand when present, else from the image format (the two agree
bit for bit on every format they are defined for), else ``i``. OpImageQueryFormat
and OpImageQueryOrder return the SPIR-V Image Channel Data Type / Order enumerants
(the OpenCL SPIR-V environment spec maps them to the CL values by adding
``CLK_SNORM_INT8`` / ``CLK_R``; our headers do that for clang).
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from ...errors import KernelMemoryError, UnsupportedError
from ...runtime.images import Image, Sampler, read_with_bounds, write, write_outside
from ...runtime.images.enums import channel_order, channel_type
from ..common import types as T
from ..common.constants import SIGN_EXTEND, ZERO_EXTEND
from .memory_events import MemoryFault
from .registry import Op, builder
from .values import arr

U64 = np.dtype(np.uint64)
_IMAGES: weakref.WeakValueDictionary[int, Image] = weakref.WeakValueDictionary()


def image_handle(image: Image) -> np.uint64:
    """The register value of ``image``: its storage's base pointer."""
    h = int(image.data.base)
    _IMAGES[h] = image
    return np.uint64(h)


def _uniform(value: Any, mask: np.ndarray | None) -> Any:
    """A handle held per lane (loaded from a ``Function`` variable at -O0): the first
    active lane's; OpenCL C images and samplers are uniform."""
    value = arr(value)
    if np.ndim(value) == 0:
        return value
    return value[np.argmax(mask)] if mask is not None else value[0]


def image_of(value: Any, mask: np.ndarray | None = None) -> Image:
    """The Image behind a register value (a handle, an ImageArg or an Image)."""
    if isinstance(value, Image):
        return value
    image = getattr(value, "image", None)
    if image is not None:
        return image
    found = _IMAGES.get(int(_uniform(value, mask)))
    if found is None:
        raise UnsupportedError(f"image operand {value!r} names no image")
    return found


def sampler_of(value: Any, mask: np.ndarray | None = None) -> Sampler:
    """The Sampler behind a register value (a literal, a SamplerArg or a Sampler)."""
    if isinstance(value, Sampler):
        return value
    sampler = getattr(value, "sampler", None)
    if sampler is not None:
        return sampler
    return Sampler.from_literal(int(_uniform(value, mask)))


def _operands_mask(inst, first: int) -> int:
    ops = inst.operands
    return int(ops[first].value) if len(ops) > first else 0


def _int_kind(image: Image, mask: int) -> str:
    if mask & SIGN_EXTEND:
        return "i"
    if mask & ZERO_EXTEND:
        return "ui"
    return image.format.kind if image.format.kind != "f" else "i"


def _kind_fn(t, mask: int):
    """``image → kind`` for a texel of SPIR-V type ``t``."""
    dt = T.dtype_of(t)
    if dt.kind == "f":
        kind = "h" if dt.itemsize == 2 else "f"
        if dt.itemsize == 8:
            raise UnsupportedError("double image texels")
        return lambda image: kind
    return lambda image: _int_kind(image, mask)


def _result(values: np.ndarray, dt: np.dtype, n: int) -> np.ndarray:
    """(..., 4) values of a kind → the engine's register value of ``n`` components."""
    v = values.view(dt) if values.dtype.kind in "iu" else values.astype(dt, copy=False)
    return v[..., 0] if n == 1 else v[..., :n]


def _coords(c: Any) -> np.ndarray:
    return np.asarray(arr(c))


@builder("OpImageRead")
def _image_read(ctx, inst) -> Op:
    """OpImageRead: "Read a texel from an image without a sampler" (read_image*
    with integer coordinates and no sampler)."""
    img, coord = inst.operands[0].value, inst.operands[1].value
    t = ctx.rtype(inst)
    dt, n = T.dtype_of(t), T.width(t)
    kind_of = _kind_fn(t, _operands_mask(inst, 2))

    def run(r, st):
        image = image_of(r[img], st.mask)
        coords = _coords(r[coord])
        values, undefined = read_with_bounds(image, coords, None, kind_of(image))
        if st.obs_fault:
            _report_outside(st, "image_read", image, coords, undefined)
        return _result(values, dt, n)

    return Op(inst.result_id, run, False, n > 1)


@builder("OpSampledImage")
def _sampled_image(ctx, inst) -> Op:
    """OpSampledImage: "Create a sampled image, containing both a sampler and an image"."""
    img, smp = inst.operands[0].value, inst.operands[1].value
    return Op(inst.result_id, lambda r, st: (r[img], r[smp]), True, False)


@builder("OpImageSampleExplicitLod")
def _sample(ctx, inst) -> Op:
    """OpImageSampleExplicitLod: "Sample an image using an explicit level of detail"
    (read_image* with a sampler; OpenCL images have one level, Lod 0)."""
    si, coord = inst.operands[0].value, inst.operands[1].value
    t = ctx.rtype(inst)
    dt, n = T.dtype_of(t), T.width(t)
    kind_of = _kind_fn(t, _operands_mask(inst, 2))

    def run(r, st):
        handle, smp = r[si]
        image = image_of(handle, st.mask)
        coords = _coords(r[coord])
        values, undefined = read_with_bounds(image, coords, sampler_of(smp, st.mask),
                                             kind_of(image))
        if st.obs_fault:
            _report_outside(st, "image_read", image, coords, undefined)
        return _result(values, dt, n)

    return Op(inst.result_id, run, False, n > 1)


@builder("OpImageWrite")
def _image_write(ctx, inst) -> Op:
    """OpImageWrite: "Write a texel to an image without a sampler" (write_image*);
    inactive lanes write nothing. A write outside the image is undefined behaviour:
    KernelMemoryError, or with ``memory_fault`` observers reported and dropped."""
    img, coord, texel = (o.value for o in inst.operands[:3])
    t = ctx.type_of(texel)
    n = T.width(t)
    kind_of = _kind_fn(t, _operands_mask(inst, 3))

    def run(r, st):
        image = image_of(r[img], st.mask)
        values = np.asarray(arr(r[texel]))
        if n == 1:  # a depth image's depth goes in component 0
            values = np.stack([values] + [np.zeros_like(values)] * 3, axis=-1)
        coords = _coords(r[coord])
        c, outside = write_outside(image, coords)
        if outside.any():
            _report_outside(st, "image_write", image, c, outside)
        write(image, coords, values, kind_of(image), st.mask)

    return Op(0, run, False, False)


def _report_outside(st, kind: str, image: Image, coords: np.ndarray, outside: np.ndarray) -> None:
    """Active lanes whose image access lies outside the image (``outside``: per lane, or
    one flag for uniform coordinates): a write raises KernelMemoryError unless
    ``memory_fault`` observers take the report; a read is only reported."""
    bad = np.broadcast_to(outside, (st.L,))
    if st.mask is not None:
        bad = bad & st.mask
    lanes = np.flatnonzero(bad)
    if not len(lanes):
        return
    c = np.asarray(coords)
    c = np.atleast_1d(c[lanes[0]] if np.ndim(outside) else c)[: image.coord_count]
    if c.dtype.kind == "u":  # the engine's unsigned integers are the signed coordinates
        c = c.view(f"i{c.dtype.itemsize}")
    text = ", ".join(str(v.item()) for v in c)
    op = "write_image" if kind == "image_write" else "read_image"
    name = st.names.get(image.data.id) or f"image '{image.data.name}'"
    where = f"at coordinate ({text}) outside {name} ({' x '.join(map(str, image.shape))} texels)"
    if not st.obs_fault:
        raise KernelMemoryError(f"kernel '{st.kernel}': {op} {where} by work-item with global id "
                                f"{st.gid_of(int(lanes[0]))}")
    fault = MemoryFault(kind, lanes, np.full(len(lanes), image.data.base, np.uint64),
                        image.element_size, 1, np.full(len(lanes), "outside the image"), st.inst,
                        f"{op} {where}")
    for f in st.obs_fault:
        f(st, fault)


@builder("OpImageQuerySizeLod", "OpImageQuerySize")
def _query_size(ctx, inst) -> Op:
    """OpImageQuerySize(Lod): width, height, depth as the image has them, then the
    array size for arrayed images (get_image_width/…/dim/array_size)."""
    img = inst.operands[0].value
    t = ctx.rtype(inst)
    dt, n = T.dtype_of(t), T.width(t)

    def run(r, st):
        shape = np.array(image_of(r[img], st.mask).shape, dtype=dt)
        return shape[0] if n == 1 else shape[:n]

    return Op(inst.result_id, run, True, n > 1)


# OpImageQueryFormat: "an enumerant from Image Channel Data Type"; OpImageQueryOrder:
# "an enumerant from Image Channel Order" (the CL values less the first one's).
_QUERY_ENUM = {"OpImageQueryFormat": ("channel_data_type", channel_type.SNORM_INT8),
               "OpImageQueryOrder": ("channel_order", channel_order.R)}


@builder(*_QUERY_ENUM)
def _query_enum(ctx, inst) -> Op:
    """OpImageQueryFormat / OpImageQueryOrder (``_QUERY_ENUM``)."""
    img = inst.operands[0].value
    dt = ctx.dtype(inst)
    attr, base = _QUERY_ENUM[inst.opname]
    return Op(inst.result_id,
              lambda r, st: dt.type(getattr(image_of(r[img], st.mask), attr) - base), True, False)


@builder("OpImageQueryLevels", "OpImageQuerySamples")
def _query_one(ctx, inst) -> Op:
    """OpImageQueryLevels / OpImageQuerySamples: sgvm images have one mip level and
    one sample."""
    dt = ctx.dtype(inst)
    return Op(inst.result_id, lambda r, st: dt.type(1), True, False)
