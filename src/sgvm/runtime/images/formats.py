"""Image formats: element layout and the OpenCL conversion rules.

A texel is ``element_size`` bytes holding its channels in memory order (e.g.
CL_BGRA stores b, g, r, a). :func:`decode` turns texels into the (r, g, b, a)
a ``read_image*`` returns, :func:`encode` turns ``write_image*`` values into
texels. ``kind`` names the built-in family: ``"f"`` (read/write_imagef, float32),
``"h"`` (read/write_imageh, float16), ``"i"`` (int32), ``"ui"`` (uint32).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sgvm.errors import LogicError
from sgvm.runtime.images.enums import channel_order as O
from sgvm.runtime.images.enums import channel_type as T
from sgvm.runtime.images.enums import mem_object_type as M

KIND_DTYPE: dict[str, np.dtype] = {
    "f": np.dtype(np.float32),
    "h": np.dtype(np.float16),
    "i": np.dtype(np.int32),
    "ui": np.dtype(np.uint32),
}

# Channels in memory order. "i" (intensity) and "l" (luminance) are single
# stored channels that a read spreads over several components.
_LAYOUT: dict[int, str] = {
    O.R: "r", O.A: "a", O.RG: "rg", O.RA: "ra", O.RGB: "rgb", O.RGBx: "rgb",
    O.RGBA: "rgba", O.BGRA: "bgra", O.ARGB: "argb", O.ABGR: "abgr",
    O.INTENSITY: "i", O.LUMINANCE: "l", O.DEPTH: "r", O.sRGBA: "rgba", O.sBGRA: "bgra",
}
# The write_image* component each stored channel takes (intensity/luminance: x).
_SOURCE = {"r": 0, "g": 1, "b": 2, "a": 3, "i": 0, "l": 0}
_SRGB = frozenset({O.sRGBA, O.sBGRA})

_DTYPE: dict[int, np.dtype] = {
    T.SNORM_INT8: np.dtype(np.int8), T.SNORM_INT16: np.dtype(np.int16),
    T.UNORM_INT8: np.dtype(np.uint8), T.UNORM_INT16: np.dtype(np.uint16),
    T.SIGNED_INT8: np.dtype(np.int8), T.SIGNED_INT16: np.dtype(np.int16),
    T.SIGNED_INT32: np.dtype(np.int32), T.UNSIGNED_INT8: np.dtype(np.uint8),
    T.UNSIGNED_INT16: np.dtype(np.uint16), T.UNSIGNED_INT32: np.dtype(np.uint32),
    T.HALF_FLOAT: np.dtype(np.float16), T.FLOAT: np.dtype(np.float32),
}
# Packed types: word dtype and (shift, bits) of r, g, b.
_PACKED: dict[int, tuple[np.dtype, tuple[tuple[int, int], ...]]] = {
    T.UNORM_SHORT_565: (np.dtype(np.uint16), ((11, 5), (5, 6), (0, 5))),
    T.UNORM_SHORT_555: (np.dtype(np.uint16), ((10, 5), (5, 5), (0, 5))),
    T.UNORM_INT_101010: (np.dtype(np.uint32), ((20, 10), (10, 10), (0, 10))),
}
_SNORM = frozenset({T.SNORM_INT8, T.SNORM_INT16})
_UNORM = frozenset({T.UNORM_INT8, T.UNORM_INT16}) | frozenset(_PACKED)
_SIGNED = frozenset({T.SIGNED_INT8, T.SIGNED_INT16, T.SIGNED_INT32})
_UNSIGNED = frozenset({T.UNSIGNED_INT8, T.UNSIGNED_INT16, T.UNSIGNED_INT32})

_PLAIN = frozenset(_DTYPE)
_BYTE = frozenset({T.UNORM_INT8, T.SNORM_INT8, T.SIGNED_INT8, T.UNSIGNED_INT8})
_NORM_OR_FLOAT = frozenset({T.UNORM_INT8, T.UNORM_INT16, T.SNORM_INT8, T.SNORM_INT16,
                            T.HALF_FLOAT, T.FLOAT})
# The channel order / data type pairs the OpenCL spec allows that sgvm supports.
_VALID: dict[int, frozenset[int]] = {
    O.R: _PLAIN, O.A: _PLAIN, O.RG: _PLAIN, O.RA: _PLAIN, O.RGBA: _PLAIN,
    O.BGRA: _BYTE, O.ARGB: _BYTE, O.ABGR: _BYTE,
    O.INTENSITY: _NORM_OR_FLOAT, O.LUMINANCE: _NORM_OR_FLOAT,
    O.RGB: frozenset(_PACKED), O.RGBx: frozenset(_PACKED),
    O.DEPTH: frozenset({T.UNORM_INT16, T.FLOAT}),
    O.sRGBA: frozenset({T.UNORM_INT8}), O.sBGRA: frozenset({T.UNORM_INT8}),
}
# "the border color is (0.0f, 0.0f, 0.0f, 1.0f) if image channel order is CL_R,
# CL_RG, CL_RGB, or CL_LUMINANCE" and (0, 0, 0, 0) for the others.
_OPAQUE_BORDER = frozenset({O.R, O.RG, O.RGB, O.LUMINANCE})


@dataclass(frozen=True)
class ImageFormat:
    """``cl_image_format``: a channel order and a channel data type (CL enum values)."""

    channel_order: int
    channel_data_type: int

    def __repr__(self) -> str:
        order = O.to_string(self.channel_order, "{:#x}")
        ctype = T.to_string(self.channel_data_type, "{:#x}")
        return f"ImageFormat({order}, {ctype})"

    @property
    def supported(self) -> bool:
        """Whether sgvm implements this format (see :func:`supported_formats`)."""
        return self.channel_data_type in _VALID.get(self.channel_order, ())

    def check(self) -> None:
        """Raise LogicError unless the format is supported."""
        if self.supported:
            return
        known = (self.channel_order in vars(O).values()
                 and self.channel_data_type in vars(T).values())
        code = "CL_IMAGE_FORMAT_NOT_SUPPORTED" if known else "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"
        raise LogicError(f"{self!r} is not a supported image format", code)

    @property
    def num_channels(self) -> int:
        """Channels stored per texel (CL_RGB/CL_RGBx packed formats: 3)."""
        self.check()
        return len(_LAYOUT[self.channel_order])

    @property
    def element_size(self) -> int:
        """Bytes per texel (CL_IMAGE_ELEMENT_SIZE)."""
        self.check()
        if self.channel_data_type in _PACKED:
            return _PACKED[self.channel_data_type][0].itemsize
        return self.num_channels * _DTYPE[self.channel_data_type].itemsize

    @property
    def kind(self) -> str:
        """The built-in family defined for this format: "i", "ui" or "f".

        "read_imagei [...] can only be used with image objects created with
        image_channel_data_type set to CL_SIGNED_INT8, CL_SIGNED_INT16 and
        CL_SIGNED_INT32"; likewise read_imageui with the unsigned types and
        read_imagef/h with the normalized, half and float types.
        """
        if self.channel_data_type in _SIGNED:
            return "i"
        if self.channel_data_type in _UNSIGNED:
            return "ui"
        return "f"

    @property
    def has_opaque_border(self) -> bool:
        """The CLAMP border colour is (0, 0, 0, 1) rather than (0, 0, 0, 0)."""
        return self.channel_order in _OPAQUE_BORDER


def supported_formats(image_type: int) -> tuple[ImageFormat, ...]:
    """Formats sgvm supports for ``image_type`` (a ``mem_object_type``), for
    clGetSupportedImageFormats. CL_DEPTH only for 2D images and 2D image arrays."""
    formats = []
    for order, types in _VALID.items():
        if order == O.DEPTH and image_type not in (M.IMAGE2D, M.IMAGE2D_ARRAY):
            continue
        formats.extend(ImageFormat(order, t) for t in sorted(types))
    return tuple(formats)


def border_color(fmt: ImageFormat, kind: str) -> np.ndarray:
    """The CLAMP border colour (4,) in ``kind``'s dtype."""
    return np.array([0, 0, 0, 1 if fmt.has_opaque_border else 0], dtype=KIND_DTYPE[kind])


def as_kind(values: np.ndarray, kind: str) -> np.ndarray:
    """``values`` in ``kind``'s dtype; integers of the right width are reinterpreted
    (the engine keeps every integer unsigned), anything else converted."""
    values = np.asarray(values)
    dtype = KIND_DTYPE[kind]
    if values.dtype.kind in "iu" and dtype.kind in "iu" and values.dtype.itemsize == 4:
        return values.view(dtype)
    return values.astype(dtype)


def _scale(ctype: int) -> np.ndarray | None:
    """Per stored channel divisor of a normalized type, else None."""
    if ctype in _PACKED:
        return np.array([(1 << bits) - 1 for _, bits in _PACKED[ctype][1]], dtype=np.float32)
    if ctype in _UNORM or ctype in _SNORM:
        return np.float32(np.iinfo(_DTYPE[ctype]).max)
    return None


def _to_integer(values: np.ndarray, dtype: np.dtype, lo: int, hi: int) -> np.ndarray:
    """Saturating conversion, round to nearest even for floats, NaN → 0 (convert_*_sat_rte)."""
    if values.dtype.kind == "f":
        values = np.rint(np.nan_to_num(values.astype(np.float64), nan=0.0))
        return np.clip(values, lo, hi).astype(dtype)
    return np.clip(values.astype(np.int64), lo, hi).astype(dtype)


def _srgb_to_linear(c: np.ndarray) -> np.ndarray:
    """OpenCL: c <= 0.04045 ? c / 12.92 : powr((c + 0.055) / 1.055, 2.4)."""
    c64 = c.astype(np.float64)
    out = np.where(c64 <= 0.04045, c64 / 12.92, ((c64 + 0.055) / 1.055) ** 2.4)
    return out.astype(np.float32)


def _linear_to_srgb(c: np.ndarray) -> np.ndarray:
    """OpenCL: NaN → 0, clamp to [0, 1], c < 0.0031308 ? 12.92 c : 1.055 powr(c, 1/2.4) - 0.055."""
    c64 = np.clip(np.nan_to_num(c.astype(np.float64), nan=0.0), 0.0, 1.0)
    out = np.where(c64 < 0.0031308, 12.92 * c64, 1.055 * c64 ** (1 / 2.4) - 0.055)
    return out.astype(np.float32)


def _unpack(fmt: ImageFormat, raw: np.ndarray) -> np.ndarray:
    """(N, element_size) uint8 → (N, channels) stored values in memory order."""
    ctype = fmt.channel_data_type
    if ctype in _PACKED:
        word_dtype, fields = _PACKED[ctype]
        word = raw.view(word_dtype)[:, :1].astype(np.int64)
        return np.concatenate([(word >> s) & ((1 << b) - 1) for s, b in fields], axis=1)
    return raw.view(_DTYPE[ctype])


def _pack(fmt: ImageFormat, stored: np.ndarray) -> np.ndarray:
    """(N, channels) stored values → (N, element_size) uint8."""
    ctype = fmt.channel_data_type
    if ctype in _PACKED:
        word_dtype, fields = _PACKED[ctype]
        word = np.zeros((stored.shape[0], 1), dtype=np.int64)
        for col, (shift, _) in enumerate(fields):
            word |= stored[:, col : col + 1].astype(np.int64) << shift
        stored = word.astype(word_dtype)
    return np.ascontiguousarray(stored).view(np.uint8)


def _channel_range(fmt: ImageFormat) -> tuple[np.ndarray | int, np.ndarray | int]:
    ctype = fmt.channel_data_type
    if ctype in _PACKED:
        return 0, np.array([(1 << b) - 1 for _, b in _PACKED[ctype][1]], dtype=np.int64)
    info = np.iinfo(_DTYPE[ctype])
    return int(info.min), int(info.max)


def decode(fmt: ImageFormat, raw: np.ndarray, kind: str) -> np.ndarray:
    """Texels (N, element_size) uint8 → (N, 4) ``read_image{kind}`` results.

    Conversions (OpenCL C "Conversion Rules"): UNORM_INT8 c → c / 255.0f,
    UNORM_INT16 c / 65535.0f, SNORM_INT8 max(-1.0f, c / 127.0f), SNORM_INT16
    max(-1.0f, c / 32767.0f), the packed types per channel c / (2^bits - 1);
    HALF_FLOAT widens exactly; sRGB channels then go through the sRGB → linear
    formula. read_imagei/ui return the signed/unsigned integer unchanged.
    Missing components: R → (r, 0, 0, 1), A → (0, 0, 0, a), RG → (r, g, 0, 1),
    RA → (r, 0, 0, a), RGB → (r, g, b, 1), INTENSITY → (I, I, I, I),
    LUMINANCE → (L, L, L, 1). A kind not defined for the format (undefined in
    the spec) converts the stored channel value numerically (integers to float
    exactly as float32 can, floats to integers rounding to nearest even,
    saturating, NaN → 0).
    """
    stored = _unpack(fmt, raw)
    ctype = fmt.channel_data_type
    if kind in ("f", "h"):
        scale = _scale(ctype)
        values = stored.astype(np.float32)
        if scale is not None:
            values = values / scale
            if ctype in _SNORM:
                values = np.maximum(values, np.float32(-1.0))
        if fmt.channel_order in _SRGB:
            values[:, :3] = _srgb_to_linear(values[:, :3])
    else:
        dtype = KIND_DTYPE[kind]
        info = np.iinfo(dtype)
        values = _to_integer(stored, dtype, int(info.min), int(info.max))
    out = np.empty((raw.shape[0], 4), dtype=values.dtype)
    out[:] = (0, 0, 0, 1)
    for col, name in enumerate(_LAYOUT[fmt.channel_order]):
        if name == "i":
            out[:] = values[:, col : col + 1]
        elif name == "l":
            out[:, :3] = values[:, col : col + 1]
        else:
            out[:, "rgba".index(name)] = values[:, col]
    return out.astype(KIND_DTYPE[kind], copy=False)


def encode(fmt: ImageFormat, values: np.ndarray, kind: str) -> np.ndarray:
    """(N, 4) ``write_image{kind}`` values → texels (N, element_size) uint8.

    OpenCL C "Conversion Rules": float → UNORM_INT8 is
    convert_uchar_sat_rte(f * 255.0f), → SNORM_INT8 convert_char_sat_rte(f *
    127.0f) (16-bit and packed types alike), → HALF_FLOAT round to nearest
    even; write_imagei/ui saturate to the channel type (convert_char_sat …).
    sRGB channels first go through the linear → sRGB formula. INTENSITY and
    LUMINANCE store x, A stores w. A kind not defined for the format converts
    numerically to the stored channel type (saturating, rte, NaN → 0).
    """
    values = as_kind(values, kind)
    layout = _LAYOUT[fmt.channel_order]
    channels = values[:, [_SOURCE[name] for name in layout]]
    ctype = fmt.channel_data_type
    if kind in ("f", "h"):
        channels = channels.astype(np.float32)
        if fmt.channel_order in _SRGB:
            channels[:, :3] = _linear_to_srgb(channels[:, :3])
        scale = _scale(ctype)
        if scale is not None:
            channels = channels * scale
    if ctype in (T.HALF_FLOAT, T.FLOAT):
        with np.errstate(over="ignore"):  # overflow rounds to infinity, as it should
            stored = channels.astype(_DTYPE[ctype])
    else:
        lo, hi = _channel_range(fmt)
        stored = _to_integer(channels, np.dtype(np.int64), lo, hi)
        if ctype not in _PACKED:
            stored = stored.astype(_DTYPE[ctype])
    return _pack(fmt, stored)
