"""OpenCL image enums as PyOpenCL-style namespaces (values from cl.h).

``channel_order.RGBA == 0x10B5``, ``channel_type.to_string(0x10D2) == "UNORM_INT8"``;
the host API re-exports these as ``cl.channel_order`` and friends.
"""

from __future__ import annotations


class _Enum:
    """A namespace of integer constants with PyOpenCL's ``to_string``."""

    @classmethod
    def to_string(cls, value: int, default_format: str | None = None) -> str:
        """The constant's name; ``default_format.format(value)`` (else ValueError) if unknown."""
        for name, const in vars(cls).items():
            if isinstance(const, int) and not name.startswith("_") and const == value:
                return name
        if default_format is not None:
            return default_format.format(value)
        raise ValueError(f"{cls.__name__}: no constant has the value {value:#x}")


class channel_order(_Enum):
    """``cl_channel_order`` (CL_R …)."""

    R = 0x10B0
    A = 0x10B1
    RG = 0x10B2
    RA = 0x10B3
    RGB = 0x10B4
    RGBA = 0x10B5
    BGRA = 0x10B6
    ARGB = 0x10B7
    INTENSITY = 0x10B8
    LUMINANCE = 0x10B9
    Rx = 0x10BA
    RGx = 0x10BB
    RGBx = 0x10BC
    DEPTH = 0x10BD
    DEPTH_STENCIL = 0x10BE
    sRGB = 0x10BF
    sRGBx = 0x10C0
    sRGBA = 0x10C1
    sBGRA = 0x10C2
    ABGR = 0x10C3


class channel_type(_Enum):
    """``cl_channel_type`` (CL_SNORM_INT8 …)."""

    SNORM_INT8 = 0x10D0
    SNORM_INT16 = 0x10D1
    UNORM_INT8 = 0x10D2
    UNORM_INT16 = 0x10D3
    UNORM_SHORT_565 = 0x10D4
    UNORM_SHORT_555 = 0x10D5
    UNORM_INT_101010 = 0x10D6
    SIGNED_INT8 = 0x10D7
    SIGNED_INT16 = 0x10D8
    SIGNED_INT32 = 0x10D9
    UNSIGNED_INT8 = 0x10DA
    UNSIGNED_INT16 = 0x10DB
    UNSIGNED_INT32 = 0x10DC
    HALF_FLOAT = 0x10DD
    FLOAT = 0x10DE
    UNORM_INT24 = 0x10DF
    UNORM_INT_101010_2 = 0x10E0


class mem_object_type(_Enum):
    """``cl_mem_object_type``."""

    BUFFER = 0x10F0
    IMAGE2D = 0x10F1
    IMAGE3D = 0x10F2
    IMAGE2D_ARRAY = 0x10F3
    IMAGE1D = 0x10F4
    IMAGE1D_ARRAY = 0x10F5
    IMAGE1D_BUFFER = 0x10F6
    PIPE = 0x10F7


class addressing_mode(_Enum):
    """``cl_addressing_mode``."""

    NONE = 0x1130
    CLAMP_TO_EDGE = 0x1131
    CLAMP = 0x1132
    REPEAT = 0x1133
    MIRRORED_REPEAT = 0x1134


class filter_mode(_Enum):
    """``cl_filter_mode``."""

    NEAREST = 0x1140
    LINEAR = 0x1141
